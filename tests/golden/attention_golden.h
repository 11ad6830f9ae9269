#pragma once
// Independent bit-exact golden model of the FusedInferAttentionScore kernel (kernels/fia/, prompt and decode),
// written as plain loops over the documented arithmetic (design.md "Accuracy policy" 1): cube dot products in the Mmad
// accumulation order (isa/README.md section 3), vector math with the isa/mathfn.h functions and the vector
// unit's rounding (isa/README.md section 4.5 / 4.6), conversions from isa/numeric.h. No instruction semantics,
// buffers or SystemC.
//
// THE KERNEL ARITHMETIC (the contract with kernels/fia; one function per step in attention_golden.cpp):
// Work units: per (b, n), physical query rows [u*s1_block, min((u+1)*s1_block, Sq)). Computed rows: logical
//   i = phys - q_start(b) in [0, act_q[b]) with visible_cols(b, i) non-empty. Every other row: out +0, lse +inf.
// Visited score blocks: k = 0, 1, ... whose columns [k*s2, min((k+1)*s2, skv_eff)) meet the unit's range
//   [min lo, max hi) over its computed rows, in increasing k. c = the block's columns, cw = c rounded up to 128.
// Per computed row and visited block (first = the unit's first visited block); "vr" = the vector math type's
//   rounding: none for fp32 (high precision), f16 RINT with IEEE overflow for fp16 (high performance):
//   s_j   = Mmad-order fp32 dot of q_i and k_j (fractals of 16 along D, tree then sequential from +0).
//   x_j   high precision: fp32(s_j * float(scale)) [+ pse: fp32(x_j + pse)]; high performance:
//         vr(f16sat(s_j) * f16(scale)). Invisible (band or mask tensor) and pad columns [c, cw): MASKVAL.
//   m_new = first ? rowmax(x over cw) : max(m_old, rowmax); rowmax / max = IEEE maximum (exact in either type).
//   p_j   = vr(hw_exp(vr(x_j - m_new))) for j < c, +0 for the pad columns.
//   l_blk = fp32 rows 128 or 256 wide (cw): the block order (pto-isa TROWSUM): per 8-element block the vcgadd
//           tree, the lane groups' 8 block sums added pairwise lane by lane (g0 + g1; (g0 + g1) + (g2 + g3)),
//           then the vcgadd tree of the 8. Other widths and fp16: lane chunks of 64 (fp32) / 128 (fp16): acc =
//           chunk0, acc = vr(acc + chunk_k) for k = 1.. in order, then the vcadd whole-reduce tree over the lanes
//           (adjacent pairs level by level, vr at every node).
//   alpha = vr(hw_exp(vr(m_old - m_new))) (not first); l = first ? l_blk : vr(vr(l * alpha) + l_blk).
//   P_j   = p_j rounded to the input dtype (RINT, saturating); O_blk[dv] = Mmad-order fp32 dot of P and
//           V[:, dv] over the c columns; O = first ? O_blk : fp32(fp32(O * alpha) + O_blk) (alpha widened).
// End of the unit, per computed row: invalid = row_fix && m == MASKVAL; lden = invalid ? +inf : l;
//   out = round_to_out(hw_div(O[dv], lden)) (RINT, saturating); lse = invalid ? +inf : fp32(m + hw_ln(l)).
//
// FLASH ATTENTION V3 (p.max_sum, TND): the same per row with these differences. Units are s1_block rows of each
//   batch's own rows [q_start(b), q_start(b) + act_q[b]). s_j is the Mmad-order dot over D + Dr (q's rope
//   columns after its D columns, likewise k). P and out are rounded with CAST_ROUND (p.cast_round). Invalid
//   rows: out = hw_div(O, +inf) + 0 (= +0). Statistics: max = m and sum = invalid ? FLT_MAX : l, 8 copies each
//   at AttnData::stat_index; rows nobody computes: 0 / 0 with empty KV, -FLT_MAX / +FLT_MAX otherwise; rows
//   past the batches 0 / 0.
//
// QUERY S = 1 (decode, IFA; MASKVAL -1e12, band unbounded): per (b, head n), row i = 0 (head n's mask / pse
//   row is batch b's row 0). nb = ceil(skv_eff / s2_block) blocks, ns = max(1, min(kv_splits, nb)) splits,
//   split k = blocks [k nb / ns, (k+1) nb / ns), each run as above with its first block first = true.
//   nb = 0: out +0, lse -3.4e38f (spec Decisions). ns = 1: the end of the unit above. ns > 1: per split a
//   partial O_k = hw_div(O, l) (fp32), m_k = m, l_k = l; then the combine, all fp32:
//   M = max m_k (in k order); w_k = l_k * hw_exp(m_k - M); W = w_0 + w_1 + ... (in order);
//   invalid = row_fix && M == MASKVAL; s_k = hw_div(w_k, invalid ? +inf : W);
//   acc = O_0 s_0, acc = acc + O_k s_k (k = 1.., product rounded first); out = round_to_out(acc);
//   lse = invalid ? +inf : fp32(hw_ln(W) + M).
//
// POST-QUANT (p.post_quant.on: int8 out; channel c of head n, dim dv; s, o = quant_scale2 / quant_offset2 at c,
//   o = 0 without the offset). The final fp32 value x (out above, before its rounding; rows nobody computes
//   stay 0, except decode batches with empty KV: x = 0 quantised):
//   decode per-channel: t = fp32(x * s) [t = fp32(t + o)]; out = s8(f16(t) ties away) ties away;
//   otherwise (in half): s_h, o_h = f16 of s, o (per-channel: saturating, ties away in fp16 high-performance
//   mode, else RINT; per-tensor RINT); h = f16sat(x) RINT; h = f16(h * s_h); h = f16(h + o_h); out = s8(h) RINT.
// MSD (p.antiquant.msd: query S = 1, int8 K / V; kernels/fia/README.md "KV antiquantisation through MSD"): per (b, n),
//   K / V as stored (int8), their parameters through AttnData::antiquant_scale / _offset; all fp32, L limbs,
//   s_0 = 1, s_i = s_{i-1} / 254, c2 = fl32(1 / 127f); LIMBS(a): R = rha(a) (NaN -> 0), limb = s8(f16(R)),
//   a = (a - R) * 254, L times. rowsum = the lane chunks added in order, then the tree (width padded with +0).
//   Query: qs = K per-token ? q : q * sK[d]; rq = rowsum(qs) (per-token K, offset); corr = rowsum(qs * oK[d]) * scale
//   (per-channel K, offset, lse); amax1 = max |qs|; limbs of qs * hw_div(127, amax1).
//   Block: C_i[t] = exact sum_d limb_i[d] K[t][d]; S = ((f32(C_0) + f32(C_1) s_1) + ...) * c2 * amax1; per-token K:
//   [S = S + oK[t] * rq]; S = S * sK[t]; x = S * scale [+ pse], masked / pad -> -1e12; softmax as above (fp32).
//   P V: per-token V: X = P * sV[t] (c columns), r2 = rowsum(X * oV[t]), amax2 = max |X|, X = X * hw_div(127, amax2);
//   else X = P * 127; limbs of X over the c columns; O_blk[dv] = combined exact sums of limb_i[t] V[t][dv]
//   (* amax2 [+ r2] per-token V); O = first ? O_blk : O * alpha + O_blk.
//   End: o = hw_div(O, l); per-channel V: [o = o + oV[dv]]; o = o * sV[dv]; out = o cast with ties away (fp16) / RINT
//   (bf16) or post-quant; lse = (hw_ln(l) + m) [+ corr]. Flash-decoding: the combine above with m_k = m [+ corr].
//   Invalid rows (row_fix, m = MASKVAL, no flash-decoding): o = hw_div(O, +inf), V per-channel as above, then o * 0;
//   lse +inf. The constants are p.antiquant.coef / expand (127 / 254; the prompt kernel's 127.49 / 254.98).
//   Query S > 1 (a bfloat16 query, the prompt kernel's MSD mode): per (b, n), units of s1_block physical rows from 0;
//   each computed row i runs the unit's visited blocks (the union of its rows' bands) as one row above (q row i,
//   visible(b, i, j), pse row i); L = 2; every output dtype ties away.
#include <cstdint>

#include "kernels/attention/attn_data.h"
#include "kernels/attention/attn_problem.h"
#include "kernels/host/host_tensor.h"

namespace npusim::golden {

struct AttnGoldenOut {
  op::HostTensor out;       // p.out dtype, AttnData::out_shape()
  op::HostTensor lse;       // float32, AttnData::lse_shape() ((B, N, Sq, 1)); always computed
  op::HostTensor max, sum;  // FA (p.max_sum): float32, AttnData::stat_shape(), 8 copies of m and l per row
};

// kv_splits: the decode kernel's requested split count (FiaPlan t.kv_splits); ignored when Sq > 1.
AttnGoldenOut attention_golden(const op::attn::AttnProblem& p, const op::attn::AttnData& d, int64_t s1_block,
                               int64_t s2_block, int64_t kv_splits = 1);

}  // namespace npusim::golden
