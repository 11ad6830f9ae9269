#include "kernels/attention/buffers.h"

#include <algorithm>

namespace npusim::op::attn {

namespace {
using isa::round_up;

// Bump allocator over one buffer: each region starts on a 32-byte block.
struct Bump {
  uint64_t top = 0;
  uint64_t take(int64_t bytes) {
    const uint64_t at = top;
    top += uint64_t(round_up(std::max<int64_t>(bytes, 0), 32));
    return at;
  }
};
}  // namespace

L0Split l0_split(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw) {
  (void)p;
  const int64_t m_cap = round_up(t.s1_block, 16);
  L0Split s;
  s.kstep = std::min<int64_t>(256, int64_t(hw.core.l0a_bytes / 2) / (m_cap * 2) / 16 * 16);
  if (s.kstep < 16) return s;
  s.nsub = std::min<int64_t>({128, int64_t(hw.core.l0b_bytes / 2) / (s.kstep * 2) / 16 * 16,
                              int64_t(hw.core.l0c_bytes / 2) / (m_cap * 4) / 16 * 16});
  return s;
}

L1Layout l1_layout(const AttnProblem& p, const BlockTiling& t) {
  L1Layout l;
  l.m_cap = round_up(t.s1_block, 16);
  l.n_cap = round_up(t.s2_block, 16);
  Bump b;
  l.q = b.take(l.m_cap * round_up(p.qk_dim(), 16) * 2);
  for (int64_t i = 0; i < t.kv_buffers; ++i) {
    l.k[i] = b.take(l.n_cap * round_up(p.qk_dim(), 16) * 2);
    l.v[i] = b.take(l.n_cap * round_up(p.Dv, 16) * 2);
  }
  l.pm = b.take(l.m_cap * l.n_cap * 2);
  l.total = b.top;
  return l;
}

uint64_t l1_bytes(const AttnProblem& p, const BlockTiling& t) { return l1_layout(p, t).total; }

UbLayout ub_layout(const AttnProblem& p, const BlockTiling& t) {
  UbLayout u;
  u.hm = round_up((t.s1_block + 1) / 2, 16);
  if (p.Sq == 1) u.hm = std::max(u.hm, round_up(p.G, 16));  // the flash-decoding combine takes all G rows on one AIV
  u.cw = Plan::cw_of(t.s2_block);
  const int64_t es = p.high_perf ? 2 : 4, vr = t.vec_rows, dv = round_up(p.Dv, 16);
  int64_t x_bytes = std::max(vr * u.cw * es, 16 * dv * 4);
  if (p.Sq == 1) {  // decode: the combine stages m, l, w of every split in x[0] and one split's O in x[1]
    const int64_t gp = round_up(p.G, 16);
    x_bytes = std::max({x_bytes, 3 * t.kv_splits * gp * 4, gp * dv * 4});
  }
  u.o_rows = std::min(u.hm, x_bytes / (dv * 4) / 16 * 16);  // a multiple of 16: f16 alpha rows stay 32-byte aligned
  int64_t pb_bytes = std::max(vr * u.cw * 2, u.o_rows * dv * 2);
  if (p.Sq == 1) pb_bytes = std::max(pb_bytes, round_up(p.G, 16) * dv * 2);  // the combine casts all G rows at once
  Bump b;
  for (int i = 0; i < 2; ++i) u.x[i] = b.take(x_bytes), u.pb[i] = b.take(pb_bytes);
  u.acc = b.take(vr * 256);
  u.rmax = b.take(vr * 4);
  u.rsum = b.take(vr * 4);
  u.brcb = b.take(vr * 32);
  for (int i = 0; i < 2; ++i) u.m[i] = b.take(u.hm * 4), u.l[i] = b.take(u.hm * 4), u.alpha[i] = b.take(u.hm * 4);
  u.mnew = b.take(u.hm * 4);
  u.lse = b.take(u.hm * 4);
  u.tmp = b.take(u.hm * 4);
  u.oacc = b.take(u.hm * dv * 4);
  u.obrcb = b.take(u.hm * 32);
  if (p.mask != MaskKind::None) {
    u.mask_u8 = b.take(vr * u.cw);
    u.mask_h = b.take(vr * u.cw * 2);
  }
  u.bits = b.take(std::max(vr * u.cw, u.hm) / 8);  // also the invalid-row bits of the final step
  u.zero = b.take(256);
  if (p.pse) {
    u.pse_raw = b.take(vr * u.cw * 2);
    u.pse32 = b.take(vr * u.cw * 4);
  }
  u.zout = b.take(8 * dv * 2);
  u.zlse = b.take(256);
  u.total = b.top;
  return u;
}

uint64_t ub_bytes(const AttnProblem& p, const BlockTiling& t) { return ub_layout(p, t).total; }

}  // namespace npusim::op::attn
