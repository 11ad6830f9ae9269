#pragma once
// What a pipe works out about an on-chip instruction from the instruction alone: its footprint, that the
// footprint lies inside the buffers of a core of its kind, and its local cost (the cost seam's `local` is a
// pure function of the instruction: cost_model.h). Kernels issue the same instructions tile after tile -- the
// same UB and L0 addresses, double-buffered -- so a two-way set-associative memo keyed on the whole instruction
// answers most of them; in a timing run those three steps were a fifth of the host time of a vector-bound kernel.
// Anything with a GM operand is never stored: its cost depends on the memory system's state, and its footprint
// on the registers for a scalar access. Results are the same with or without the memo (the key is the whole
// instruction, compared field by field, and the core's kind); it changes only how fast they are found.
// It also holds the stable copies that queued instructions point at instead of carrying their own
// (core_state.h KnownInstr): its entries, pinned while queued, and one shared copy of each set_flag / wait_flag.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "isa/instr/footprint.h"
#include "isa/instr/instr.h"
#include "isa/instr/sync_rules.h"
#include "sim/machine/cost.h"

namespace npusim::sim {

class InstrMemo {
 public:
  static constexpr size_t kMaxAccesses = 4;  // footprints with more pieces are recomputed every time
  // What a lookup reads, in two cache lines: the key, and the cost in 32-bit fields (an instruction whose cost
  // does not fit is not stored). The footprint, needed only by the race checker and the trace, lives apart
  // (accesses()): with it inline an entry was 304 bytes, and a lookup touched three or four lines of a table
  // larger than the host's L2.
  struct alignas(64) Entry {
    isa::Instr in;
    isa::CoreKind kind = isa::CoreKind::Cube;
    bool valid = false;
    uint8_t n = 0;  // accesses in the footprint
    uint32_t occupancy = 0, latency = 0, conflict_beats = 0;
    PipeCost cost() const { return {occupancy, latency, conflict_beats}; }
  };

  InstrMemo();
  // The entry of `in` on a core of `kind`, or null.
  const Entry* find(const isa::Instr& in, isa::CoreKind kind) const {
    const size_t first = set(in, kind) * kWays;
    for (size_t i = first; i < first + kWays; ++i)
      if (const Entry& e = table_[i]; e.valid && e.kind == kind && e.in == in) return &e;
    return nullptr;
  }
  // A shared copy of a set_flag / wait_flag (every one a kernel can issue is made once, here), or null: queued
  // flag instructions refer to it instead of carrying a copy, as those the memo knows do (core_state.h).
  const isa::Instr* shared_flag(const isa::Instr& in) const;
  // The footprint of an entry find() returned.
  const isa::Access* accesses(const Entry& e) const { return accesses_[index(e)].data(); }
  // A pinned entry stays as it is (store() leaves its slot alone) until every pin is released: queued
  // instructions found here at issue refer to the entry instead of carrying a copy (core_state.h).
  void pin(const Entry& e) { ++pins_[index(e)]; }
  void unpin(const Entry& e) { --pins_[index(e)]; }
  void clear_pins() { std::fill(pins_.begin(), pins_.end(), 0u); }  // a new launch: nothing is queued
  // Records an instruction that passed its bounds check with this footprint (no GM access) and cost, in a free
  // way of its set or in place of an unpinned entry (the ways take turns); not at all when both are pinned.
  void store(const isa::Instr& in, isa::CoreKind kind, const std::vector<isa::Access>& acc, const PipeCost& cost) {
    constexpr uint64_t kMax = UINT32_MAX;
    if (acc.size() > kMaxAccesses || cost.occupancy > kMax || cost.latency > kMax || cost.conflict_beats > kMax) return;
    const size_t s = set(in, kind), i = way_for(s);
    if (i == kNone) return;
    Entry& e = table_[i];
    e.in = in, e.kind = kind, e.valid = true;
    e.occupancy = uint32_t(cost.occupancy), e.latency = uint32_t(cost.latency);
    e.conflict_beats = uint32_t(cost.conflict_beats);
    e.n = static_cast<uint8_t>(acc.size());
    std::copy(acc.begin(), acc.end(), accesses_[i].begin());
  }

 private:
  static constexpr size_t kEntries = 4096, kWays = 2, kSets = kEntries / kWays;  // kSets: a power of two
  static constexpr size_t kNone = SIZE_MAX;
  static size_t set(const isa::Instr& in, isa::CoreKind kind);
  size_t index(const Entry& e) const { return size_t(&e - table_.data()); }
  // The entry a store to set s replaces, or kNone.
  size_t way_for(size_t s) {
    const size_t first = s * kWays;
    for (size_t i = first; i < first + kWays; ++i)
      if (!table_[i].valid) return i;
    for (size_t k = 0; k < kWays; ++k)
      if (const size_t i = first + (turn_[s] + k) % kWays; !pins_[i]) {
        turn_[s] = uint8_t((i - first + 1) % kWays);
        return i;
      }
    return kNone;
  }
  std::vector<Entry> table_;
  std::vector<std::array<isa::Access, kMaxAccesses>> accesses_;  // beside table_, index for index
  std::vector<uint32_t> pins_;                                   // beside table_: references from queued instructions
  std::vector<uint8_t> turn_ = std::vector<uint8_t>(kSets);      // per set: the way the next replacement tries first
  std::vector<isa::Instr> flags_;                                // set_flag, then wait_flag, for each (src, dst, event)
};
static_assert(sizeof(InstrMemo::Entry) == 128, "a memo entry is two host cache lines");

}  // namespace npusim::sim
