#include "isa/semantics/vector/vec_lanes.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "isa/instr/operand.h"

namespace npusim::isa::vec {

uint32_t LaneSet::block_bits(int b, int epb) const {
  const int start = b * epb;
  const uint64_t ones = epb >= 32 ? 0xffffffffull : (1ull << epb) - 1;
  return static_cast<uint32_t>((w[start >> 6] >> (start & 63)) & ones);
}

LaneSet LaneSet::first_n(int n) {
  LaneSet s;
  s.w[0] = n >= 64 ? ~0ull : (1ull << n) - 1;
  s.w[1] = n >= 128 ? ~0ull : (n > 64 ? (1ull << (n - 64)) - 1 : 0);
  return s;
}

VecGeom VecGeom::from_mask(const VecMask& m, int repeat, int lanes) {
  VecGeom g;
  g.lanes_ = lanes;
  if (m.counter) {
    // Counter mode: the element count decides the repeats, so a count needing more than the 8-bit repeat
    // field could express is refused rather than truncated.
    const uint64_t reps = m.lo / lanes + (m.lo % lanes != 0);
    if (reps > kMaxRepeat)
      isa_fail("field mask.lo = " + std::to_string(m.lo) + " (counter mode) needs " + std::to_string(reps) +
               " repeats of " + std::to_string(lanes) + " lanes; at most " + std::to_string(kMaxRepeat));
    g.repeats_ = static_cast<int>(reps);
    g.body_ = LaneSet::first_n(lanes);
    g.last_ = LaneSet::first_n(static_cast<int>(m.lo - (reps ? (reps - 1) * lanes : 0)));
    g.dense_ = true;
    g.elements_ = m.lo;
    return g;
  }
  g.repeats_ = repeat;
  g.body_.w[0] = lanes >= 64 ? m.lo : m.lo & ((1ull << lanes) - 1);
  g.body_.w[1] = lanes == kMaxLanes ? m.hi : 0;  // 64-lane types use lo only
  g.last_ = g.body_;
  const LaneSet full = LaneSet::first_n(lanes);
  g.dense_ = g.body_.w[0] == full.w[0] && g.body_.w[1] == full.w[1];
  g.elements_ = g.dense_ ? uint64_t(repeat) * lanes : 0;
  return g;
}

VecGeom VecGeom::all_lanes(int repeat, int lanes) {
  VecMask m;
  return from_mask(m, repeat, lanes);
}

namespace {
// Offsets (from the operand's address) of the first byte and one past the last byte of the enabled lanes
// of repeat r; false when no lane is enabled. Block by block (a block's lanes are consecutive bytes, so
// its first and last enabled lane bound it): this runs for every operand of every vector instruction, and
// lane by lane it cost as much as the rest of the checks.
bool repeat_extent(const LaneOperand& op, const VecGeom& g, int r, uint64_t& lo, uint64_t& hi) {
  const LaneSet en = g.enabled(r);
  const int epb = op.epb();
  bool any = false;
  for (int b = 0; b < g.lanes() / epb; ++b) {
    const uint32_t bits = en.block_bits(b, epb);
    if (bits == 0) continue;
    const uint64_t block = op.block_offset(r, b);
    const uint64_t first = block + uint64_t(std::countr_zero(bits)) * op.size;
    const uint64_t last = block + uint64_t(31 - std::countl_zero(bits) + 1) * op.size;
    lo = any ? std::min(lo, first) : first;
    hi = any ? std::max(hi, last) : last;
    any = true;
  }
  return any;
}
}  // namespace

Footprint Footprint::of_lanes(const LaneOperand& op, const VecGeom& g) {
  Footprint f;
  f.name_ = op.name;
  f.lanes_ = &op;
  f.geom_ = &g;
  // All repeats but the last share one lane set and a repeat's offsets only grow with r, so the span is
  // bounded by repeat 0, the last full repeat and the last repeat.
  const int n = g.repeats();
  bool any = false;
  for (int r : {0, n - 2, n - 1}) {
    uint64_t lo = 0, hi = 0;
    if (r < 0 || r >= n || !repeat_extent(op, g, r, lo, hi)) continue;
    f.lo_ = any ? std::min(f.lo_, op.addr.off + lo) : op.addr.off + lo;
    f.hi_ = any ? std::max(f.hi_, op.addr.off + hi) : op.addr.off + hi;
    any = true;
  }
  return f;
}

Footprint Footprint::of_runs(const char* name, Addr a, uint64_t runs, uint64_t run_bytes, uint64_t stride) {
  Footprint f;
  f.name_ = name;
  f.start_ = a.off;
  f.runs_ = run_bytes ? runs : 0;
  f.run_bytes_ = run_bytes;
  f.stride_ = stride;
  if (f.runs_ > 0) {
    f.lo_ = a.off;
    f.hi_ = a.off + (f.runs_ - 1) * stride + run_bytes;
  }
  return f;
}

void Footprint::for_each_interval(const std::function<void(uint64_t, uint64_t)>& f) const {
  if (empty()) return;
  if (!lanes_) {
    for (uint64_t i = 0; i < runs_; ++i) f(start_ + i * stride_, run_bytes_);
    return;
  }
  const LaneOperand& op = *lanes_;
  const int epb = op.epb(), blocks = geom_->lanes() / epb;
  for (int r = 0; r < geom_->repeats(); ++r) {
    const LaneSet en = geom_->enabled(r);
    for (int b = 0; b < blocks; ++b) {
      const uint32_t bits = en.block_bits(b, epb);
      const uint64_t block = op.addr.off + op.block_offset(r, b);
      for (int i = 0; i < epb;) {  // each run of consecutive enabled lanes is one interval
        if (!((bits >> i) & 1)) {
          ++i;
          continue;
        }
        int j = i;
        while (j < epb && ((bits >> j) & 1)) ++j;
        f(block + uint64_t(i) * op.size, uint64_t(j - i) * op.size);
        i = j;
      }
    }
  }
}

uint8_t* check_operand(const ExecContext& ctx, Addr a, const Footprint& fp) {
  uint8_t* p = operand_bytes(ctx, fp.name(), a, 0, {Buf::UB});
  if (!fp.empty()) operand_bytes(ctx, fp.name(), Addr{Buf::UB, fp.lo()}, fp.hi() - fp.lo(), {Buf::UB}, 1);
  return p;
}

void check_lane_operand(const ExecContext& ctx, LaneOperand& op, const Footprint& fp) {
  op.base = check_operand(ctx, op.addr, fp);
}

bool footprints_overlap(const Footprint& a, const Footprint& b) {
  if (a.empty() || b.empty()) return false;
  const uint64_t lo = std::max(a.lo(), b.lo()), hi = std::min(a.hi(), b.hi());
  if (lo >= hi) return false;
  // Both footprints are inside the (checked) buffer, so the common span is at most a buffer's size.
  std::vector<bool> marked(hi - lo, false);
  a.for_each_interval([&](uint64_t off, uint64_t len) {
    const uint64_t s = std::max(off, lo), e = std::min(off + len, hi);
    for (uint64_t i = s; i < e; ++i) marked[i - lo] = true;
  });
  bool hit = false;
  b.for_each_interval([&](uint64_t off, uint64_t len) {
    const uint64_t s = std::max(off, lo), e = std::min(off + len, hi);
    for (uint64_t i = s; i < e && !hit; ++i) hit = marked[i - lo];
  });
  return hit;
}

namespace {
[[noreturn]] void overlap_fail(const Footprint& dst, const Footprint& src, const char* rule) {
  isa_fail("operand " + std::string(src.name()) + " overlaps operand " + dst.name() + " (" + rule + ")");
}
}  // namespace

void check_elementwise_overlap(const LaneOperand& dst, const Footprint& dst_fp, const LaneOperand& src,
                               const Footprint& src_fp) {
  const bool same = dst.addr == src.addr && dst.s == src.s && dst.size == src.size;
  if (!same && footprints_overlap(dst_fp, src_fp))
    overlap_fail(dst_fp, src_fp,
                 "a source may share bytes with the destination only as the identical operand: same address and same "
                 "block and repeat strides");
}

void check_reduction_overlap(Addr dst, const Footprint& dst_fp, Addr src, const Footprint& src_fp) {
  if (!(dst == src) && footprints_overlap(dst_fp, src_fp))
    overlap_fail(dst_fp, src_fp,
                 "the source may share bytes with the destination only when both start at the same address (in place)");
}

void check_no_overlap(const Footprint& dst_fp, const Footprint& src_fp) {
  if (footprints_overlap(dst_fp, src_fp)) overlap_fail(dst_fp, src_fp, "this operand may not overlap the destination");
}

void check_elementwise(const ExecContext& ctx, const VecGeom& g, LaneOperand& dst, std::span<LaneOperand> srcs) {
  const Footprint dst_fp = Footprint::of_lanes(dst, g);
  check_lane_operand(ctx, dst, dst_fp);
  std::vector<Footprint> src_fp;
  src_fp.reserve(srcs.size());
  for (auto& s : srcs) {
    src_fp.push_back(Footprint::of_lanes(s, g));
    check_lane_operand(ctx, s, src_fp.back());
  }
  for (size_t k = 0; k < srcs.size(); ++k) check_elementwise_overlap(dst, dst_fp, srcs[k], src_fp[k]);
}

}  // namespace npusim::isa::vec
