// The online-softmax block (V1) of the attention kernel and the vector side's shared set-up (vec_blocks.h).
#include <algorithm>
#include <cfloat>
#include <limits>

#include "kernels/attention/cross_flags.h"
#include "kernels/attention/seq_addr.h"
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::UbRows;

namespace {
// The softmax's row sums in pto-isa's TROWSUM order (vcgadd, pairwise vadd, vcgadd) where the rows are fp32 and
// 128 or 256 columns wide (kernels/fia/README.md, step V1; the golden models: softmax_row_sum).
constexpr auto kSumOrder = tile::VecOps::SumOrder::Blocks;
}  // namespace

VecBlocks::VecBlocks(sim::CoreCtx& c, const Plan& pl)
    : c_(c), pl_(pl), p_(pl.p), L_(ub_layout(pl.p, pl.t)), ops_(c), vt_(pl.vec) {
  base_ = c_.alloc(Buf::UB, L_.total, "tiling.vec_rows / s1_block UB buffers (softmax sub-tiles, O accumulator)").off;
  zero_next_ = pl_.core_first[size_t(c_.block_idx())];
}

Addr VecBlocks::ws(uint64_t off) const { return c_.gm(pl_.gm.workspace, off); }

std::pair<int64_t, int64_t> VecBlocks::share(const WorkUnit& u) const {
  // Prompt: the first AIV takes half the rows rounded up to 8 (its fp16 row arrays stay on 32-byte blocks). Decode:
  // ceil(G / 2) of the G heads, so both AIVs work from G = 2 (the vendor's IFA decode template with a shared cube,
  // incre_flash_attention_preload.h: gSizeVector = (gSize + 1) / 2, the odd AIV the rest); decode rows are fp32 and
  // each AIV's row arrays start at its own row 0.
  const int64_t m = u.r_hi - u.r_lo;
  const int64_t half = pl_.decode ? (m + 1) / 2 : std::min(m, ceil_div(m, int64_t(kFractalRows)) * (kFractalRows / 2));
  return c_.sub_block_idx() == 0 ? std::pair{int64_t(0), half} : std::pair{half, m - half};
}

void VecBlocks::unit_inputs(const Step& st) {
  if (!pl_.msd.on || !st.first) return;
  c_.stage("Q", st.unit, st.blk);  // the trace's span of the query limbs
  msd_query(pl_.units[size_t(st.unit)], pl_.q_slot(st.seq));
}

void VecBlocks::v1(const Step& st, int64_t s) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t parity = pl_.step_slot(st.seq);  // the unit's m / l buffers
  c_.cross_wait(kFlagSReady);
  if (st.first) zero_through(st.unit + 1);
  const auto [a, cnt] = share(u);
  for (int64_t lr = 0; lr < cnt; lr += pl_.t.vec_rows)
    v1_subtile(st, s, lr, std::min(pl_.t.vec_rows, cnt - lr), a, parity);
  c_.cross_set(2, kFlagPReady, Pipe::MTE3);
}

void VecBlocks::v1_subtile(const Step& st, int64_t s, int64_t lr, int64_t r, int64_t a, int64_t parity) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t j0 = st.blk * pl_.t.s2_block, cols = pl_.blk_cols(u.b, st.blk), cw = Plan::cw_of(cols);
  const int64_t row = u.r_lo + a + lr, i0 = row_logical(pl_, u, row), n = r * cw, ai = pl_.step_slot(s);
  const UbRows x{ub(L_.x[xb_]), vt_, r, cw};
  tile::wait(c_, kXFree.at(xb_));
  const uint64_t src = pl_.ws_s(c_.block_idx(), s % pl_.s_slots()) + uint64_t((a + lr) * pl_.cw_max * es());
  if (pl_.msd.on) msd_load_scores(st, s, a + lr, r);  // the limb tiles; x is the vector unit's combine of them
  else c_.issue(tile::copy_in({ws(src), vt_, r, cw, pl_.cw_max}, x));
  if (p_.pse || p_.uses_mask_tensor()) tile::wait(c_, kSideFree), load_side_inputs(u, row, r, j0, cols, cw);
  tile::handover(c_, kXLoaded.at(xb_));
  // Each vector step below reads or overwrites x as the step before left it: ops_.barrier() between them (the V
  // pipe does not order same-pipe dependences; it is a no-op where a set_flag from V completed them already).
  if (pl_.msd.on) msd_scores(x, cols, lr, r, pl_.q_slot(st.seq)), ops_.barrier();
  ops_.scalar(VScalarOp::Muls, vt_, x.at, x.at, p_.scale, n);
  if (p_.pse) {  // fp32 math: widened first; fp16 (full quantisation) adds the fp16 rows as loaded
    const bool wide = vt_ == DType::F32;
    if (wide) ops_.cast(DType::F32, pl_.in, ub(L_.pse32), ub(L_.pse_raw), n);
    if (wide && !p_.uses_mask_tensor()) tile::set(c_, kSideFree);
    ops_.barrier();
    ops_.binary(VBinOp::Add, vt_, x.at, x.at, ub(wide ? L_.pse32 : L_.pse_raw), n);
    if (!wide && !p_.uses_mask_tensor()) tile::set(c_, kSideFree);
  }
  const MaskWrites mw = apply_mask(u, x, i0, j0, cols);
  // The pad columns. The row max's first fold reads lane groups 0 and 1: the pad when it starts there (then the
  // barrier after it also orders the band's writes). A barrier before the pad is needed for the full-width steps
  // before it (when no band clipping ordered them), where a band cell shares the pad's first 32-byte block (at
  // the checker's granularity a block both write is a WAW), or where the first fold reads band cells and no
  // barrier follows the pad.
  const bool pad = cols < cw, pad_read_first = pad && tile::VecOps::reduce_starts_at(x, cols, VRedOp::Max);
  const bool shares_block = pad && mw.last_col >= 0 && mw.last_col * es() / kBlockBytes == cols * es() / kBlockBytes;
  const bool fold_reads_band = !pad_read_first && tile::VecOps::reduce_starts_at(x, mw.first_col, VRedOp::Max);
  if (!mw.banded || shares_block || fold_reads_band) ops_.barrier();
  if (pad) {
    ops_.dup_cols(x, cols, cw, pl_.mask_value);
    if (pad_read_first) ops_.barrier();
  }
  softmax_rows(x, cols, lr, r, st.first, parity, ai);
  // (softmax_rows ends with the row sums: x is complete, and only this pad fill needs a barrier after it. MSD
  // per-token V next scales only the columns < cols: it depends on the fill only where both share a 32-byte block,
  // a hazard at the checker's granularity, sim/README.md "Same-pipe hazards")
  if (cols < cw) {
    ops_.dup_cols(x, cols, cw, 0.0);
    const bool shared_block = cols * es() % kBlockBytes != 0;
    if (!(pl_.msd.on && p_.antiquant.per_token(true)) || shared_block) ops_.barrier();
  }
  if (pl_.msd.on) {  // P's int8 limbs instead of P
    msd_p_limbs(x, cols, s, u.r_hi - u.r_lo, a + lr, lr, r);
    tile::set(c_, kXFree.at(xb_));
    xb_ ^= 1;
    return;
  }
  // P in the input dtype -> workspace (full quantisation: P8 = s8(f16(P * qs1) + 0), AscendQuant<half> per
  // tensor, against this block's running max). The vendor's add of the zero offset is left out: it changes only the
  // sign of a zero, which the s8 cast maps to 0 either way (the same bits, one vector pass fewer).
  tile::wait(c_, kCastFree.at(pbi_));
  if (vt_ == DType::F32) {
    ops_.cast(pl_.in, DType::F32, ub(L_.pb[pbi_]), x.at, n, pl_.outputs.p_round);
  } else if (pl_.in == DType::I8) {
    ops_.scalar(VScalarOp::Muls, DType::F16, x.at, x.at, p_.full_quant.qs1, n);
    ops_.barrier();
    ops_.cast(DType::I8, DType::F16, ub(L_.pb[pbi_]), x.at, n);
  } else {
    ops_.copy(DType::F16, ub(L_.pb[pbi_]), x.at, n);
  }
  tile::set(c_, kXFree.at(xb_));
  tile::handover(c_, kCastFull.at(pbi_));
  const uint64_t p_at = pl_.ws_p(c_.block_idx(), pl_.step_slot(s)) + uint64_t((a + lr) * pl_.cw_max * bytes_of(pl_.in));
  c_.issue(tile::copy_out({ub(L_.pb[pbi_]), pl_.in, r, cw}, {ws(p_at), pl_.in, r, cw, pl_.cw_max}));
  tile::set(c_, kCastFree.at(pbi_));
  xb_ ^= 1, pbi_ ^= 1;
}

// Online softmax of one sub-tile: m, l (unit parity mi) and alpha (step parity ai) rows [lr, lr + r).
void VecBlocks::softmax_rows(const UbRows& x, int64_t cols, int64_t lr, int64_t r, bool first, int64_t mi, int64_t ai) {
  const int64_t e = es();
  const Addr m = ub(L_.m[mi], lr * e), l = ub(L_.l[mi], lr * e), alpha = ub(L_.alpha[ai], lr * e);
  // A chain: each step reads what the one before wrote, so a V barrier between each two; independent steps share
  // one wait (a barrier costs its producers' latency): the broadcast of the new max goes with alpha's subtraction,
  // the row subtraction with alpha's exp and m's update (same values as broadcasting m after the update).
  ops_.row_reduce(x, ub(L_.acc), ub(L_.rmax), VRedOp::Max);
  ops_.barrier();
  if (first) {
    ops_.copy(vt_, m, ub(L_.rmax), r);
    ops_.brcb(vt_, ub(L_.rmax), ub(L_.brcb), r);
    ops_.barrier();
    ops_.row_bcast(x, ub(L_.brcb), VBinOp::Sub, x.width);
  } else {
    ops_.binary(VBinOp::Max, vt_, ub(L_.mnew), m, ub(L_.rmax), r);
    ops_.barrier();
    ops_.binary(VBinOp::Sub, vt_, alpha, m, ub(L_.mnew), r);
    ops_.brcb(vt_, ub(L_.mnew), ub(L_.brcb), r);
    ops_.barrier();
    ops_.row_bcast(x, ub(L_.brcb), VBinOp::Sub, x.width);
    ops_.unary(VUnaryOp::Exp, vt_, alpha, alpha, r);
    ops_.copy(vt_, m, ub(L_.mnew), r);
  }
  ops_.barrier();
  ops_.unary(VUnaryOp::Exp, vt_, x.at, x.at, x.rows * x.width);
  ops_.barrier();
  if (cols < x.width) {
    ops_.dup_cols(x, cols, x.width, 0.0);
    if (tile::VecOps::reduce_starts_at(x, cols, VRedOp::Sum, kSumOrder)) ops_.barrier();
  }
  ops_.row_reduce(x, ub(L_.acc), ub(L_.rsum), VRedOp::Sum, kSumOrder);
  if (first) {
    ops_.barrier();
    ops_.copy(vt_, l, ub(L_.rsum), r);
  } else {
    ops_.binary(VBinOp::Mul, vt_, l, l, alpha, r);  // (l and alpha are complete; rsum is read after the barrier)
    ops_.barrier();
    ops_.binary(VBinOp::Add, vt_, l, l, ub(L_.rsum), r);
  }
}

void VecBlocks::start() {
  for (int i = 0; i < 2; ++i) tile::set(c_, kXFree.at(i)), tile::set(c_, kCastFree.at(i));
  tile::set(c_, kSideFree);
  tile::set(c_, kOaccFree);
  tile::set(c_, kLseFree);
  if (p_.post_quant.per_channel) tile::set(c_, kQuantFree);
  // Constant rows: 8 zero output rows, the lse of rows nobody computes, one repeat of fp16 zeros.
  ops_.dup(DType::F16, ub(L_.zout), 0.0, 8 * pl_.dv_pad);
  ops_.dup(DType::F32, ub(L_.zlse), pl_.outputs.empty_lse, 64);
  if (p_.max_sum) {  // FA: rows nobody computes read -FLT_MAX / +FLT_MAX (0 / 0 with empty KV: zlse, empty_lse = 0)
    ops_.dup(DType::F32, ub(L_.zmax), -double(FLT_MAX), 64);
    ops_.dup(DType::F32, ub(L_.zsum), double(FLT_MAX), 64);
  }
  ops_.dup(DType::F16, ub(L_.zero), 0.0, 128);
  if (pl_.msd.on) {
    ops_.dup(DType::F32, ub(L_.coef), p_.antiquant.coef, std::max<int64_t>(L_.hm, 64));
    tile::set(c_, kMsdFree);
  }
  tile::handover(c_, kConstantsReady);
}

void VecBlocks::finish() {
  for (int i = 0; i < 2; ++i) tile::wait(c_, kXFree.at(i)), tile::wait(c_, kCastFree.at(i));
  tile::wait(c_, kSideFree);
  tile::wait(c_, kOaccFree);
  tile::wait(c_, kLseFree);
  if (p_.post_quant.per_channel) tile::wait(c_, kQuantFree);
  if (pl_.msd.on) tile::wait(c_, kMsdFree);
}

}  // namespace npusim::op::attn
