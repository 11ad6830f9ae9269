#include "kernels/attention/buffers.h"

#include <algorithm>

namespace npusim::op::attn {

namespace {
using isa::kBlockBytes;
using isa::kFractalRows;
using isa::kRepeatBytes;
using isa::round_up;
constexpr int64_t kRows = kFractalRows;  // row counts of cube tiles and of fp16 row arrays round to this
constexpr int64_t kF32 = 4;              // fp32: scores, accumulators, row statistics
constexpr int64_t kMaxKStep = 256;       // K per mmad: beyond this the L0 halves buy no reuse
// ... and at most 8 fractals (128 fp16, 256 int8): a longer step only coarsens the MTE1 / cube overlap (D 512 with a
// doubled L0B took 256 and ran 1.5% slower, issue 12)
constexpr int64_t kMaxKFractals = 8;
constexpr int64_t kMaxNSub = 128;     // N per L0C half
constexpr int64_t kZeroRows = 8;      // rows of the zero output staging (stored 8 at a time)
constexpr int64_t kMsdQueryRows = 8;  // MSD: query rows pre-processed at a time (one vbrcb group)

// Bits per element of the cube's input tiles (Q, K, V, P): int4 MSD 4, int8 8, else 16.
int64_t in_bits(const AttnProblem& p) {
  return p.antiquant.int4 ? 4 : p.in == ElemType::I8 || p.antiquant.msd ? 8 : 16;
}
// Bytes of `elems` cube elements.
int64_t in_bytes(const AttnProblem& p, int64_t elems) { return elems * in_bits(p) / 8; }

// Bump allocator over one buffer: each region starts on a 32-byte block.
struct Bump {
  uint64_t top = 0;
  uint64_t take(int64_t bytes) {
    const uint64_t at = top;
    top += uint64_t(round_up(std::max<int64_t>(bytes, 0), int64_t(kBlockBytes)));
    return at;
  }
};
// MSD antiquant decode (msd_block.cpp): the query pre-processing, the parameter rows and the limb tiles.
void msd_ub(const AttnProblem& p, int64_t preload, int64_t vr, int64_t dv, UbLayout& u, Bump& b) {
  const int64_t L = p.antiquant.limbs, dw = round_up(p.D, int64_t(64));
  const AntiQuant& a = p.antiquant;
  u.msd_q_rows = kMsdQueryRows;  // their limbs are staged in the P cast buffers (pb)
  // K / V per-channel scale [0] and offset [1] rows (not for per-token or one-value parameters), as loaded first.
  const bool kch = !a.per_token(false) && !a.scalar(false), vch = !a.per_token(true) && !a.scalar(true);
  for (int i = 0; i < 2; ++i) {
    if (kch) u.kch[i] = b.take(dw * kF32);
    if (vch) u.vch[i] = b.take(dv * kF32);
    u.amax1[i] = b.take(u.hm * kF32), u.rq[i] = b.take(u.hm * kF32);
    u.amax2[i] = b.take(u.hm * kF32), u.r2[i] = b.take(u.hm * kF32);
  }
  for (int64_t i = 2; i < preload + 1; ++i) u.amax1[i] = b.take(u.hm * kF32), u.rq[i] = b.take(u.hm * kF32);
  u.ch_half = uint64_t(std::max(dw, dv) * 2);
  if (kch || vch) u.ch_raw = b.take(2 * int64_t(u.ch_half));
  u.coef = b.take(std::max<int64_t>(u.hm, 64) * kF32);
  // One region under the MSD load protocol (kMsdFree): the L limb tiles of a score sub-tile, the limbs 1.. of an O
  // chunk (limb 0 goes straight to the chunk's fp32 rows; whole 8-row broadcast groups) or a query chunk (as
  // loaded, A, R).
  u.msd_o_rows = std::clamp<int64_t>(L * vr * u.cw / ((L - 1) * dv) / 8 * 8, 8, std::max<int64_t>(u.o_rows, 8));
  const int64_t q_bytes = u.msd_q_rows * dw * (2 + 2 * kF32);
  u.limb = b.take(std::max({L * vr * u.cw * kF32, (L - 1) * u.msd_o_rows * dv * kF32, q_bytes}));
  u.q_in = u.limb;
  u.q_a = u.q_in + uint64_t(round_up(u.msd_q_rows * dw * 2, int64_t(kBlockBytes)));
  u.q_r = u.q_a + uint64_t(u.msd_q_rows * dw * kF32);
  for (int k = 0; k < 4; ++k)  // per-token rows: K scale, K offset, V scale, V offset
    if (a.per_token(k >= 2) && (k % 2 == 0 || a.offset)) u.tok[k] = b.take(u.cw * kF32);
}
}  // namespace

// K steps are whole K fractals (16 fp16 / 32 int8 / 64 int4 elements); with int8 / int4, N slices are whole 32- /
// 64-column squares of the transposing V load (tile::load_l0b).
L0Split l0_split(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw) {
  const int64_t m_cap = cube_rows(p, t), kq = l0_k_unit(p), nq = l0_n_unit(p);
  const int64_t l0a_half = hw.core.l0a_bytes / 2, l0b_half = hw.core.l0b_bytes / 2, l0c_half = hw.core.l0c_bytes / 2;
  // The largest N (a multiple of nq, at most 128) whose L0C half holds cube-rows x N fp32 and whose L0B half holds a
  // K x N slice.
  auto n_for = [&](int64_t k) {
    return std::min<int64_t>({kMaxNSub, l0b_half / in_bytes(p, k) / nq * nq, l0c_half / (m_cap * kF32) / nq * nq});
  };
  L0Split s;
  if (t.l0_k) {  // a set K: N follows it
    s.kstep = t.l0_k;
    s.nsub = t.l0_n ? t.l0_n : n_for(s.kstep);
    return s;
  }
  // N first (from L0C, with the thinnest K slice), then K fills what L0A and L0B leave: a bigger L0A alone then never
  // trades N (FixPipe drains per L0C half) for a longer K.
  s.nsub = t.l0_n ? t.l0_n : n_for(kq);
  if (s.nsub < nq) return s;
  s.kstep = std::min<int64_t>({kMaxKStep, kMaxKFractals * kq, l0a_half / in_bytes(p, m_cap) / kq * kq,
                               l0b_half / in_bytes(p, s.nsub) / kq * kq});
  return s;
}

int64_t l0_k_unit(const AttnProblem& p) { return kBlockBytes * 8 / in_bits(p); }
int64_t l0_n_unit(const AttnProblem& p) { return in_bits(p) < 16 ? l0_k_unit(p) : kRows; }

uint64_t l0a_slice_bytes(const AttnProblem& p, const BlockTiling& t, int64_t kstep) {
  return uint64_t(in_bytes(p, cube_rows(p, t) * kstep));
}
uint64_t l0b_slice_bytes(const AttnProblem& p, int64_t kstep, int64_t nsub) {
  return uint64_t(in_bytes(p, kstep * nsub));
}

L1Layout l1_layout(const AttnProblem& p, const BlockTiling& t) {
  L1Layout l;
  l.m_cap = cube_rows(p, t);
  // int4: V's rows (the PV K side) are whole 64-row squares of the transposing load
  l.n_cap = round_up(t.s2_block, p.antiquant.int4 ? l0_n_unit(p) : kRows);
  Bump b;
  l.q = b.take(in_bytes(p, l.m_cap * round_up(p.qk_dim(), kRows)));
  for (int64_t i = 0; i < t.kv_buffers; ++i) {
    l.k[i] = b.take(in_bytes(p, l.n_cap * round_up(p.qk_dim(), kRows)));
    l.v[i] = b.take(in_bytes(p, l.n_cap * round_up(p.Dv, kRows)));
  }
  l.pm = b.take(in_bytes(p, l.m_cap * l.n_cap));
  l.total = b.top;
  return l;
}

uint64_t l1_bytes(const AttnProblem& p, const BlockTiling& t) { return l1_layout(p, t).total; }

UbLayout ub_layout(const AttnProblem& p, const BlockTiling& t) {
  UbLayout u;
  u.hm = round_up((t.s1_block + 1) / 2, kRows);
  if (p.incremental())
    u.hm = std::max(u.hm, round_up(p.G, kRows));  // the flash-decoding combine takes all G rows on one AIV
  u.cw = Plan::cw_of(t.s2_block);
  const int64_t es = p.high_perf ? 2 : kF32, pe = std::max<int64_t>(1, in_bytes(p, 1)), vr = t.vec_rows,
                dv = round_up(p.Dv, kRows);
  int64_t x_bytes = std::max(vr * u.cw * es, kRows * dv * kF32);
  if (p.incremental()) {  // decode: the combine stages m, l, w of every split in x[0] and one split's O in x[1]
    const int64_t gp = round_up(p.G, kRows);
    x_bytes = std::max({x_bytes, 3 * t.kv_splits * gp * kF32, gp * dv * kF32});
  }
  u.o_rows =
      std::min(u.hm, x_bytes / (dv * kF32) / kRows * kRows);  // a multiple of 16: f16 alpha rows stay 32-byte aligned
  // P rows in the input dtype; output rows of at most 2 bytes (fp16 / bf16, or int8 output)
  int64_t pb_bytes = std::max(vr * u.cw * pe, u.o_rows * dv * 2);
  if (p.antiquant.msd)  // MSD: the L int8 limbs of P, or of a query chunk
    pb_bytes = std::max(
        {pb_bytes, p.antiquant.limbs * vr * u.cw, p.antiquant.limbs * kMsdQueryRows * round_up(p.D, int64_t(64))});
  if (p.incremental())
    pb_bytes = std::max(pb_bytes, round_up(p.G, kRows) * dv * 2);  // the combine casts all G rows at once
  Bump b;
  for (int i = 0; i < 2; ++i) u.x[i] = b.take(x_bytes), u.pb[i] = b.take(pb_bytes);
  u.acc = b.take(vr * kRepeatBytes);  // one repeat per row: the folded lane groups of a row reduction
  u.rmax = b.take(vr * kF32);
  u.rsum = b.take(vr * kF32);
  u.brcb = b.take(vr * kBlockBytes);  // one broadcast block per row
  for (int64_t i = 0; i <= vec_lead(p); ++i)
    u.m[i] = b.take(u.hm * kF32), u.l[i] = b.take(u.hm * kF32), u.alpha[i] = b.take(u.hm * kF32);
  u.mnew = b.take(u.hm * kF32);
  u.lse = b.take(u.hm * kF32);
  u.tmp = b.take(u.hm * kF32);
  u.oacc = b.take(u.hm * dv * kF32);
  u.obrcb = b.take(u.hm * kBlockBytes);
  if (p.mask != MaskKind::None) {
    u.mask_u8 = b.take(vr * u.cw);
    u.mask_h = b.take(vr * u.cw * 2);  // the mask bytes as fp16 for the compare
  }
  u.bits = b.take(std::max(vr * u.cw, u.hm) / 8);  // one bit per cell; also the invalid-row bits of the final step
  u.zero = b.take(kRepeatBytes);                   // one repeat of fp16 zeros (the compare's second operand)
  if (p.pse) {
    u.pse_raw = b.take(vr * u.cw * 2);  // fp16 / bf16 (fp16 with an int8 query)
    u.pse32 = b.take(vr * u.cw * kF32);
  }
  u.zout = b.take(kZeroRows * dv * 2);
  u.zlse = b.take(kRepeatBytes);  // 64 fp32 values of the empty rows' statistic
  if (p.max_sum) {                // FA statistics: one 32-byte block (8 copies) per row
    for (int i = 0; i < 2; ++i) u.stat[i] = b.take(u.hm * kBlockBytes);
    u.zmax = b.take(kRepeatBytes), u.zsum = b.take(kRepeatBytes);
  }
  if (p.post_quant.on) {  // after every other buffer: the layout of the unquantised kernel stays as it was
    const bool dec = p.incremental();
    u.q_rows = dec ? std::max(u.o_rows, round_up(p.G, kRows)) : u.o_rows;
    u.qh = b.take(u.q_rows * dv * 2);
    const int64_t prm_rows = dec ? u.q_rows : 1;
    for (int i = 0; i < (p.post_quant.per_channel ? 1 + int(p.post_quant.offset) : 0); ++i)
      u.q32[i] = b.take(prm_rows * dv * kF32), u.q16[i] = b.take(prm_rows * dv * 2);
    if (dec) u.qz = b.take(u.q_rows * dv * kF32);
  }
  if (p.full_quant.on) u.l16 = b.take(u.hm * 2);  // the fp16 row sums of the final divide (+inf: invalid rows)
  if (p.antiquant.msd) msd_ub(p, t.preload, vr, dv, u, b);
  u.total = b.top;
  return u;
}

uint64_t ub_bytes(const AttnProblem& p, const BlockTiling& t) { return ub_layout(p, t).total; }

}  // namespace npusim::op::attn
