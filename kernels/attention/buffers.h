#pragma once
// Local-buffer layouts of the attention kernel blocks, computed once from the problem and the tiling so the
// tiling's capacity checks and the kernels' allocations cannot disagree.
#include <cstdint>

#include "kernels/attention/plan.h"
#include "sim/config/hw_config.h"

namespace npusim::op::attn {

// Cube L0 slices: kstep (K per mmad, one L0A / L0B half) and nsub (N per L0C half).
struct L0Split {
  int64_t kstep = 0, nsub = 0;
};
// t.l0_k / t.l0_n when set (the tiling keys l0_k_step / l0_n_sub), else the capacity rule, N first: N the largest
// multiple of l0_n_unit (at most 128) whose cube-rows x N fp32 fill half of L0C and whose one-fractal x N slice fits
// half of L0B; then K the largest multiple of l0_k_unit (at most 8 fractals and 256) whose cube-rows x K slice fills
// half of L0A and whose K x N slice half of L0B. With a set K, N is the largest that fits beside it.
L0Split l0_split(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw);
int64_t l0_k_unit(const AttnProblem& p);  // K per fractal: 16 fp16 / bf16, 32 int8, 64 int4
int64_t l0_n_unit(const AttnProblem& p);  // N granule: 16, or the transposing load's square side (32 int8, 64 int4)
// Bytes of one L0A slice (cube rows x kstep) and one L0B slice (kstep x nsub) in the cube's dtype.
uint64_t l0a_slice_bytes(const AttnProblem& p, const BlockTiling& t, int64_t kstep);
uint64_t l0b_slice_bytes(const AttnProblem& p, int64_t kstep, int64_t nsub);

// L1 (one AIC): Q block (m_cap x (D + Dr)), K block (n_cap x (D + Dr)), V block (n_cap x Dv), P block
// (m_cap x n_cap); NZ. With a second QK pair (rope, Dr > 0) its columns follow the first pair's D columns.
struct L1Layout {
  int64_t m_cap = 0, n_cap = 0;
  uint64_t q = 0, k[2]{}, v[2]{}, pm = 0, total = 0;  // kv_buffers slots of K and V
};
L1Layout l1_layout(const AttnProblem& p, const BlockTiling& t);

// UB (one AIV). Offsets in bytes; every buffer starts on a 32-byte block.
struct UbLayout {
  int64_t hm = 0;            // rows of the larger AIV half
  int64_t cw = 0;            // score row width (multiple of 128)
  int64_t o_rows = 0;        // rows per O chunk (V2 / final), staged in x
  uint64_t x[2]{}, pb[2]{};  // score sub-tiles (vector type); P / output cast staging
  uint64_t acc = 0, rmax = 0, rsum = 0, brcb = 0;
  uint64_t m[kMaxVecLead + 1]{}, l[kMaxVecLead + 1]{}, alpha[kMaxVecLead + 1]{};  // Plan::step_slots() each
  uint64_t mnew = 0, lse = 0, tmp = 0;
  uint64_t oacc = 0, obrcb = 0;
  uint64_t mask_u8 = 0, mask_h = 0;  // mask present
  uint64_t bits = 0, zero = 0;       // compare results; one repeat of f16 zeros
  uint64_t pse_raw = 0, pse32 = 0;   // pse present
  uint64_t zout = 0, zlse = 0;       // 8 zero output rows; 64 x +inf for the lse of empty rows
  uint64_t stat[2]{};                // FA: max / sum of a row set, 8 copies per row (one block per row)
  uint64_t zmax = 0, zsum = 0;       // FA: 64 x the statistics of rows nobody computes (-FLT_MAX / +FLT_MAX)
  // Post-quant (p.post_quant.on): qh the output rows in f16 (q_rows x dv); per-channel scale / offset rows:
  // q32 fp32 (q_rows x dv; prompt 1 row) and q16 (the bf16 rows as loaded, then the prompt's f16 row); decode
  // qz: zero rows quantised for a batch with empty KV.
  int64_t q_rows = 0;
  uint64_t qh = 0, q32[2]{}, q16[2]{}, qz = 0;
  uint64_t l16 = 0;  // full quantisation: fp16 row sums for the final divide
  // MSD antiquant (p.antiquant.msd; msd_block.cpp): a chunk of msd_q_rows query rows as loaded (dw = D rounded
  // up to 64), A and R in fp32 (inside the limb region; their int8 limbs go out through pb); K's per-channel scale /
  // offset rows (fp32, dw) and V's (dv); per query slot amax1 and rq (K per-token offset: the query's row sum; K
  // per-channel offset: the lse correction); per step parity amax2 and r2 (V per-token); the limb scale (127 / 127.49)
  // for the divide; the L int32 limb tiles of S or of O (scratch after the combine); per-token parameter rows of a
  // block: K scale, K offset, V scale, V offset.
  int64_t msd_q_rows = 0, msd_o_rows = 0;  // query rows per pre-processing chunk; O rows per limb chunk
  uint64_t q_in = 0, q_a = 0, q_r = 0;
  uint64_t kch[2]{}, vch[2]{}, ch_raw = 0, ch_half = 0;
  uint64_t amax1[kMaxPreload + 1]{}, rq[kMaxPreload + 1]{};  // per MSD query slot (Plan::q_slots)
  uint64_t amax2[2]{}, r2[2]{}, coef = 0;
  uint64_t limb = 0, tok[4]{};
  uint64_t total = 0;
};
UbLayout ub_layout(const AttnProblem& p, const BlockTiling& t);

// Local-buffer bytes the blocks allocate with this tiling (checked against the config by the op's tiling).
uint64_t l1_bytes(const AttnProblem& p, const BlockTiling& t);
uint64_t ub_bytes(const AttnProblem& p, const BlockTiling& t);

}  // namespace npusim::op::attn
