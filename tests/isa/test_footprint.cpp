// Footprints of lane-addressed vector operands, against lane-by-lane definitions: isa::footprint (what the
// race checker and the memory model see) lists the blocks holding an enabled lane, merged where adjacent;
// vec::Footprint::of_lanes spans the enabled lanes. Both are computed block by block for speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "isa/instr/footprint.h"
#include "isa/semantics/vector/vec_lanes.h"

namespace npusim::isa {
namespace {

bool lane_on(const VecMask& m, uint64_t r, int l, int lanes) {
  if (m.counter) return r * lanes + l < m.lo;
  return l < 64 ? (m.lo >> l) & 1 : (m.hi >> (l - 64)) & 1;
}

// Appends the blocks of one operand lane by lane, merging adjacent pieces like the footprint does.
void reference_operand(std::vector<Access>& out, Addr a, VStride st, const VecMask& m, uint64_t repeats, int lanes,
                       int size, bool write) {
  const int epb = kBlockBytes / size;
  for (uint64_t r = 0; r < repeats; ++r)
    for (int b = 0; b < lanes / epb; ++b) {
      bool any = false;
      for (int l = b * epb; l < (b + 1) * epb; ++l) any = any || lane_on(m, r, l, lanes);
      if (!any) continue;
      const uint64_t begin = a.off + (r * st.rep + uint64_t(b) * st.blk) * kBlockBytes;
      if (!out.empty() && out.back().buf == a.buf && out.back().write == write && out.back().end == begin)
        out.back().end += kBlockBytes;
      else out.push_back({a.buf, begin, begin + kBlockBytes, write});
    }
}

// The bytes a list of (possibly strided) accesses covers: per (buffer, write), sorted and merged ranges.
std::vector<Access> covered(const std::vector<Access>& acc) {
  std::vector<Access> v = expand(acc);
  std::sort(v.begin(), v.end(), [](const Access& a, const Access& b) {
    return std::tie(a.buf, a.write, a.begin) < std::tie(b.buf, b.write, b.begin);
  });
  std::vector<Access> out;
  for (const Access& a : v) {
    if (!out.empty() && out.back().buf == a.buf && out.back().write == a.write && a.begin <= out.back().end)
      out.back().end = std::max(out.back().end, a.end);
    else out.push_back(a);
  }
  return out;
}

VecMask random_mask(std::mt19937_64& rng, int lanes) {
  VecMask m;
  switch (rng() % 4) {
    case 0: break;  // all lanes
    case 1: m.counter = true, m.lo = 1 + rng() % (uint64_t(lanes) * 20); break;
    case 2: m.lo = rng(), m.hi = rng(); break;
    default: m.lo = rng() & rng() & rng(), m.hi = rng() % 2 ? 0 : rng(); break;  // sparse
  }
  return m;
}

VStride random_stride(std::mt19937_64& rng) {
  VStride s;
  if (rng() % 2) {
    s.blk = static_cast<uint16_t>(rng() % 3);
    s.rep = static_cast<uint16_t>(rng() % 20);
  }
  return s;
}

TEST(Footprint, VectorOperandsListTheBlocksOfEnabledLanes) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) {
    VBinary v;
    v.dtype = rng() % 2 ? DType::F16 : DType::F32;
    const int size = v.dtype == DType::F16 ? 2 : 4, lanes = 256 / size;
    v.mask = random_mask(rng, lanes);
    v.repeat = static_cast<uint8_t>(1 + rng() % 20);
    v.dst = {Buf::UB, 0x10000 + 32 * (rng() % 64)};
    v.src0 = {Buf::UB, 32 * (rng() % 64)};
    v.src1 = {Buf::UB, 0x8000 + 32 * (rng() % 64)};
    v.dst_s = random_stride(rng);
    v.src0_s = random_stride(rng);
    v.src1_s = random_stride(rng);
    std::vector<Access> got, want;
    footprint(Instr{v}, nullptr, got);
    const uint64_t repeats = effective_repeats(v.mask, v.repeat, lanes);
    reference_operand(want, v.src0, v.src0_s, v.mask, repeats, lanes, size, false);
    reference_operand(want, v.src1, v.src1_s, v.mask, repeats, lanes, size, false);
    reference_operand(want, v.dst, v.dst_s, v.mask, repeats, lanes, size, true);
    for (const Access& a : got)  // strided pieces never touch (else they would have been one range)
      ASSERT_TRUE(a.count == 1 || a.stride > a.end - a.begin) << "case " << i;
    got = covered(got), want = covered(want);
    ASSERT_EQ(got.size(), want.size()) << "case " << i;
    for (size_t k = 0; k < got.size(); ++k)
      ASSERT_TRUE(got[k].buf == want[k].buf && got[k].begin == want[k].begin && got[k].end == want[k].end &&
                  got[k].write == want[k].write)
          << "case " << i << " piece " << k;
  }
}

TEST(Footprint, OfLanesSpansTheEnabledLanes) {
  std::mt19937_64 rng(6);
  for (int i = 0; i < 3000; ++i) {
    const int size = 1 << (rng() % 3), lanes = std::min(vec::kMaxLanes, vec::lanes_for(size));
    VecMask m = random_mask(rng, lanes);
    if (m.counter) m.lo = 1 + m.lo % (uint64_t(lanes) * 255);
    const auto g = vec::VecGeom::from_mask(m, static_cast<int>(1 + rng() % 30), lanes);
    vec::LaneOperand op;
    op.addr = {Buf::UB, 32 * (rng() % 100)};
    op.s = random_stride(rng);
    op.size = size;
    const vec::Footprint f = vec::Footprint::of_lanes(op, g);
    uint64_t lo = 0, hi = 0;
    bool any = false;
    for (int r = 0; r < g.repeats(); ++r)
      for (int l = 0; l < lanes; ++l) {
        if (!g.enabled(r).test(l)) continue;
        const uint64_t off = op.addr.off + op.lane_offset(r, l);
        lo = any ? std::min(lo, off) : off;
        hi = any ? std::max(hi, off + size) : off + size;
        any = true;
      }
    ASSERT_EQ(f.empty(), !any) << "case " << i;
    if (!any) continue;
    ASSERT_EQ(f.lo(), lo) << "case " << i;
    ASSERT_EQ(f.hi(), hi) << "case " << i;
  }
}

}  // namespace
}  // namespace npusim::isa
