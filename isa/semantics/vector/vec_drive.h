#pragma once
// The two drivers of lane-wise vector instructions. Reference walks lane by lane, literally following the
// definition; Fast gathers whole repeats (or, when every operand is a plain array, long runs of elements)
// into arrays so the arithmetic runs vectorised. Both read all source lanes of a repeat before writing its
// destination lanes and write destination lanes in increasing lane order.
#include <cstdint>
#include <functional>
#include <span>

#include "isa/semantics/vector/vec_lanes.h"

namespace npusim::isa::vec {

inline constexpr int kChunkLanes = 1024;  // lanes per Fast chunk when operands are contiguous

// Raw lane bits: 8-, 16- or 32-bit values, zero-extended.
uint32_t load_bits(const uint8_t* p, int size);
void store_bits(uint8_t* p, int size, uint32_t v);

// Reference: for each repeat r, reads the enabled lanes of every source, then writes
// f(source bits of lane l, element r*lanes + l) to the enabled destination lanes.
using LaneFn = std::function<uint32_t(const uint32_t* src_bits, uint64_t element)>;
void run_reference(const VecGeom& g, const LaneOperand& dst, std::span<const LaneOperand> srcs, const LaneFn& f);

// Fast: each chunk of lanes is gathered per source into an array (lane i at byte i*size, disabled lanes hold
// stale data), f fills the destination array, which is scattered to the enabled lanes.
struct Chunk {
  uint64_t first;  // element index (r*lanes + l) of array entry 0
  int n;           // array entries
  int n8;          // n rounded up to a multiple of 8: kernels may compute (and the arrays hold) that many
};
using ChunkFn = std::function<void(const Chunk& c, const void* const* src, void* dst)>;
void run_fast(const VecGeom& g, const LaneOperand& dst, std::span<const LaneOperand> srcs, const ChunkFn& f);

// One chunk's worth of an immediate's raw bits (16-bit values twice per word), for kernels that broadcast it.
struct Broadcast {
  alignas(32) uint32_t words[kChunkLanes];
  Broadcast(uint32_t bits, int size) {
    const uint32_t w = size == 2 ? (bits & 0xffffu) * 0x00010001u : bits;
    for (auto& x : words) x = w;
  }
};

// Copies the enabled lanes of repeat r between the operand and a lane-ordered array (lane l at l*size).
// Disabled lanes are neither read nor written.
void gather_repeat(const LaneOperand& op, int r, LaneSet en, int lanes, void* raw);
void scatter_repeat(const LaneOperand& op, int r, LaneSet en, int lanes, const void* raw);

}  // namespace npusim::isa::vec
