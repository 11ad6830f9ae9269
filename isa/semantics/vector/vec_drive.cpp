#include "isa/semantics/vector/vec_drive.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace npusim::isa::vec {

uint32_t load_bits(const uint8_t* p, int size) {
  uint32_t v = 0;
  std::memcpy(&v, p, size);  // little-endian host: the low `size` bytes
  return v;
}

void store_bits(uint8_t* p, int size, uint32_t v) { std::memcpy(p, &v, size); }

void run_reference(const VecGeom& g, const LaneOperand& dst, std::span<const LaneOperand> srcs, const LaneFn& f) {
  std::vector<uint32_t> out(g.lanes());
  std::vector<uint32_t> bits(srcs.size() + 1);
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    for (int l = 0; l < g.lanes(); ++l) {
      if (!en.test(l)) continue;
      for (size_t k = 0; k < srcs.size(); ++k)
        bits[k] = load_bits(srcs[k].base + srcs[k].lane_offset(r, l), srcs[k].size);
      out[l] = f(bits.data(), uint64_t(r) * g.lanes() + l);
    }
    for (int l = 0; l < g.lanes(); ++l)
      if (en.test(l)) store_bits(dst.base + dst.lane_offset(r, l), dst.size, out[l]);
  }
}

namespace {
uint32_t full_block(int epb) { return epb >= 32 ? 0xffffffffu : (1u << epb) - 1; }

// Every lane of the repeat enabled and its blocks adjacent: the repeat is one run of bytes, copied at once
// (row-by-row operands of a tile take this path for every repeat).
bool whole_run(const LaneOperand& op, LaneSet en, int lanes) {
  const LaneSet all = LaneSet::first_n(lanes);
  return op.s.blk == 1 && en.w[0] == all.w[0] && en.w[1] == all.w[1];
}
}  // namespace

void gather_repeat(const LaneOperand& op, int r, LaneSet en, int lanes, void* raw) {
  auto* out = static_cast<uint8_t*>(raw);
  if (whole_run(op, en, lanes)) {
    std::memcpy(out, op.base + op.block_offset(r, 0), size_t(lanes) * op.size);
    return;
  }
  const int epb = op.epb();
  for (int b = 0; b < lanes / epb; ++b) {
    const uint32_t bits = en.block_bits(b, epb);
    const uint8_t* src = op.base + op.block_offset(r, b);
    uint8_t* to = out + b * kBlockBytes;
    if (bits == full_block(epb)) {
      std::memcpy(to, src, kBlockBytes);
      continue;
    }
    for (int i = 0; i < epb; ++i)
      if ((bits >> i) & 1) std::memcpy(to + i * op.size, src + i * op.size, op.size);
  }
}

void scatter_repeat(const LaneOperand& op, int r, LaneSet en, int lanes, const void* raw) {
  const auto* in = static_cast<const uint8_t*>(raw);
  if (whole_run(op, en, lanes)) {
    std::memcpy(op.base + op.block_offset(r, 0), in, size_t(lanes) * op.size);
    return;
  }
  const int epb = op.epb();
  for (int b = 0; b < lanes / epb; ++b) {
    const uint32_t bits = en.block_bits(b, epb);
    uint8_t* to = op.base + op.block_offset(r, b);
    const uint8_t* from = in + b * kBlockBytes;
    if (bits == full_block(epb)) {
      std::memcpy(to, from, kBlockBytes);
      continue;
    }
    for (int i = 0; i < epb; ++i)
      if ((bits >> i) & 1) std::memcpy(to + i * op.size, from + i * op.size, op.size);
  }
}

namespace {
constexpr int kMaxSources = 3;

struct ChunkArrays {
  alignas(32) float src[kMaxSources][kChunkLanes];
  alignas(32) float dst[kChunkLanes];
  const void* src_ptrs[kMaxSources];
  // Zeroes the entries a run will use so that lanes never gathered hold defined values.
  explicit ChunkArrays(size_t used_bytes) {
    for (int k = 0; k < kMaxSources; ++k) {
      std::memset(src[k], 0, used_bytes);
      src_ptrs[k] = src[k];
    }
    std::memset(dst, 0, used_bytes);
  }
};

int round8(int n) { return (n + 7) & ~7; }

void run_contiguous(const VecGeom& g, const LaneOperand& dst, std::span<const LaneOperand> srcs, const ChunkFn& f,
                    ChunkArrays& a) {
  for (uint64_t first = 0; first < g.elements(); first += kChunkLanes) {
    const int n = static_cast<int>(std::min<uint64_t>(kChunkLanes, g.elements() - first));
    for (size_t k = 0; k < srcs.size(); ++k)
      std::memcpy(a.src[k], srcs[k].base + first * srcs[k].size, size_t(n) * srcs[k].size);
    f(Chunk{first, n, round8(n)}, a.src_ptrs, a.dst);
    std::memcpy(dst.base + first * dst.size, a.dst, size_t(n) * dst.size);
  }
}
}  // namespace

void run_fast(const VecGeom& g, const LaneOperand& dst, std::span<const LaneOperand> srcs, const ChunkFn& f) {
  if (srcs.size() > kMaxSources) throw std::logic_error("run_fast: too many sources");
  if (g.repeats() == 0) return;
  bool contiguous = g.dense() && dst.contiguous(g.lanes());
  for (const auto& s : srcs) contiguous = contiguous && s.contiguous(g.lanes());
  const int lanes_used = contiguous ? round8(int(std::min<uint64_t>(g.elements(), kChunkLanes))) : g.lanes();
  ChunkArrays a(size_t(lanes_used) * 4);
  if (contiguous) return run_contiguous(g, dst, srcs, f, a);
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    if (en.none()) continue;
    for (size_t k = 0; k < srcs.size(); ++k) gather_repeat(srcs[k], r, en, g.lanes(), a.src[k]);
    f(Chunk{uint64_t(r) * g.lanes(), g.lanes(), g.lanes()}, a.src_ptrs, a.dst);
    scatter_repeat(dst, r, en, g.lanes(), a.dst);
  }
}

}  // namespace npusim::isa::vec
