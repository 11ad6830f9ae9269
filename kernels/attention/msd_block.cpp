// MSD antiquant on the AIVs (vec_blocks.h; p.antiquant.msd): the vendor's decode kernel (and its prompt kernel's MSD
// mode) never dequantises int8 K / V. It splits each query row into L int8 limbs, the cube multiplies them with
// int8 K into int32, and the vector unit recombines; P is split the same way for P V. The order of operations is
// the vendor's (hicann/ops-transformer c29bc10, incre_flash_attention_split_Bbn2s2_Us2.h; kernels/fia/msd_research.md
// §2-§7 with its line numbers), one vector instruction per step; c = p.antiquant.coef (127; prompt 127.49) and
// E = p.antiquant.expand (254; prompt 254.98):
//   query (once per unit): qs = q * scaleK (per-channel family; per-token K: q); amax1 = max |qs|;
//     A = qs * (c / amax1); limb i = s8(f16(R_i)), R_i = round half away (A_i), A_{i+1} = (A_i - R_i) * E.
//   scores: S = C_0 + C_1 s_1 + ... (s_i = s_{i-1} / E), * 1/c, * amax1; per-token K: + rq * offK[t] (rq = the
//     query's row sum), * scaleK[t]; then the usual scale / pse / mask / online softmax.
//   P V: per-channel V: X = P * c; per-token V: X = P * scaleV[t], r2 = rowsum(X * offV[t]), amax2 = max |X|,
//     X = X * (c / amax2); limbs of X as above; O_blk = combine (* amax2, + r2 for per-token V).
// Limb-major rows: limb i of the unit's query row r is row i * rows + r of every cube operand and result (rows: the
// unit's computed rows, the G heads at query S = 1).
//   end: O / l, then per-channel V: (O + offV) * scaleV. The K per-channel offset only moves the lse (+ cK * scale,
//     cK = rowsum(qs * offK)), and only with softmax_lse_flag.
// Int4 K / V (p.antiquant.int4; the vendor's KV_T = int4b_t): the limbs are int4 (vconv f16 -> s4, packed two per
// byte), c = 7.49, E = 14.98, L = 4; limb_bytes() sizes every limb tile and its GM rows.
// Where the vendor fuses (FusedMulAdd for per-token offsets) this kernel multiplies, then adds (two roundings;
// msd_research.md §12 Q2). Row sums use the kernel's row reduction (vec_ops.h), not the vendor's RowSum tree.
#include <algorithm>

#include "isa/numeric/numeric.h"
#include "kernels/attention/cross_flags.h"
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::UbRows;

namespace {

double widen_bits(DType t, int64_t bits) {
  if (t == DType::BF16) return double(isa::bf16_to_f32(uint16_t(bits)));
  if (t == DType::F16) return double(isa::f16_to_f32(uint16_t(bits)));
  return double(isa::f32_from_bits(uint32_t(bits)));
}

DType dtype_of(ElemType t) { return t == ElemType::BF16 ? DType::BF16 : t == ElemType::F32 ? DType::F32 : DType::F16; }
}  // namespace

void VecBlocks::reduce_rows(const UbRows& x, Addr dst, VRedOp op) {
  for (int64_t r0 = 0; r0 < x.rows; r0 += pl_.t.vec_rows) {
    if (r0 > 0) ops_.barrier();  // every group folds through the same acc
    ops_.row_reduce({x.row(r0), x.t, std::min(pl_.t.vec_rows, x.rows - r0), x.width}, ub(L_.acc),
                    tile::plus(dst, r0 * 4), op);
  }
}

// The limbs of rows a (fp32, modified): r = round half away (a) (fp32), h16 = f16(r), limb i = s8(h16) (int4 K / V:
// s4(h16), packed) at dst8 + limb_bytes(i * rows * width); then a = (a - r) * E for the next. The caller orders a's
// producer before it; inside, a V barrier wherever a step reads what the one before wrote.
void VecBlocks::msd_limbs(const UbRows& a, Addr r, Addr h16, Addr dst8) {
  const int64_t n = a.rows * a.width;
  for (int64_t i = 0; i < pl_.msd.limbs; ++i) {
    if (i > 0) {  // (r and a are complete: the barriers below ordered them before the previous limb's cast)
      ops_.binary(VBinOp::Sub, DType::F32, a.at, a.at, r, n);
      ops_.barrier();
      ops_.scalar(VScalarOp::Muls, DType::F32, a.at, a.at, p_.antiquant.expand, n);
      ops_.barrier();
    }
    ops_.cast(DType::F32, DType::F32, r, a.at, n, RoundMode::ROUND);
    ops_.barrier();
    ops_.cast(DType::F16, DType::F32, h16, r, n);
    ops_.barrier();
    ops_.cast(pl_.cube, DType::F16, tile::plus(dst8, limb_bytes(i * n)), h16, n, RoundMode::ROUND);
  }
}

// dst = fp32(C_0) + fp32(C_i) * s_i (i = 1 ..), then * 1/c: C_0 at c0 (may be dst: converted in place), C_i at
// rest + (i - 1) n (int32 tiles of n, converted in place).
void VecBlocks::msd_combine(Addr c0, Addr rest, Addr dst, int64_t n) {
  ops_.cast(DType::F32, DType::I32, dst, c0, n);
  float s = 1.0f;
  for (int64_t i = 1; i < pl_.msd.limbs; ++i) {
    s = s / p_.antiquant.expand;  // the vendor's scalar fp32 divisions
    const Addr li = tile::plus(rest, (i - 1) * n * 4);
    ops_.cast(DType::F32, DType::I32, li, li, n);
    ops_.barrier();
    ops_.scalar(VScalarOp::Muls, DType::F32, li, li, s, n);
    ops_.barrier();
    ops_.binary(VBinOp::Add, DType::F32, dst, dst, li, n);
  }
  ops_.barrier();
  ops_.scalar(VScalarOp::Muls, DType::F32, dst, dst, 1.0f / p_.antiquant.coef, n);  // the vendor's fp32 constexpr
}

// K's (value = false) or V's per-channel scale and offset rows of KV head n2 (len channels) -> fp32 dst[0] / dst[1];
// the per-tensor family's values are read by the scalar unit instead.
void VecBlocks::msd_channel_rows(bool value, int64_t n2, int64_t len, const uint64_t (&dst)[2]) {
  const AntiQuant& aq = p_.antiquant;
  const DType t = dtype_of(value ? aq.v_dtype : aq.k_dtype);
  const int64_t e = bytes_of(t);
  const int n_rows = aq.offset ? 2 : 1;
  if (aq.scalar(value)) {
    for (int k = 0; k < n_rows; ++k) {
      const int64_t at = p_.antiquant_index(value, 0, n2, 0, 0, 0) * e;
      aq_scalar_[value][k] = widen_bits(t, c_.load_scalar(t, c_.gm(p_.antiquant_tensor(value, k == 1), uint64_t(at))));
    }
    return;
  }
  tile::wait(c_, kMsdFree);
  for (int k = 0; k < n_rows; ++k)
    c_.issue(tile::copy_bytes(
        ub(L_.ch_raw, k * int64_t(L_.ch_half)),
        c_.gm(p_.antiquant_tensor(value, k == 1), uint64_t(p_.antiquant_index(value, 0, n2, 0, 0, 0) * e)), len * e));
  tile::handover(c_, kMsdLoaded);
  for (int k = 0; k < n_rows; ++k) ops_.cast(DType::F32, t, ub(dst[k]), ub(L_.ch_raw, k * int64_t(L_.ch_half)), len);
  tile::set(c_, kMsdFree);
}

// One per-token parameter row (fp32) of KV columns [j0, j0 + cols) of the unit's batch / head: one run (modes 1, 3)
// or one run per page (modes 4, 5: the block ids read with scalar loads).
void VecBlocks::msd_token_row(bool value, bool offset, const WorkUnit& u, int64_t j0, int64_t cols, Addr dst) {
  const std::string& gm = p_.antiquant_tensor(value, offset);
  if (p_.antiquant.mode(value) < 4) {
    // A shared prefix's columns read batch 0's tokens, the batch's own its tokens after them
    // (AttnProblem::token_param_at). Across the prefix's end the batch's run starts at a 32-byte UB offset, up to 7
    // tokens early (tokens of its row the prefix leaves unread), and the prefix's run overwrites those after it.
    const int64_t split = std::clamp<int64_t>(p_.prefix_len - j0, 0, cols), own = split / 8 * 8;
    if (split < cols) {
      const int64_t at = p_.antiquant_index(value, u.b, u.n2, p_.kv_start(u.b) + j0 + own, 0, 0);
      c_.issue(tile::copy_bytes(tile::plus(dst, own * 4), c_.gm(gm, uint64_t(at * 4)), (cols - own) * 4));
    }
    if (split > 0) {
      if (own < split && split < cols) c_.pipe_barrier(Pipe::MTE2);  // (the overlap: in this order)
      const int64_t at = p_.antiquant_index(value, 0, u.n2, j0, 0, 0);
      c_.issue(tile::copy_bytes(dst, c_.gm(gm, uint64_t(at * 4)), split * 4));
    }
    return;
  }
  const int64_t t0 = p_.kv_start(u.b) + j0;
  const int64_t bs = p_.block_size;
  for (int64_t t = t0; t < t0 + cols;) {
    const int64_t len = std::min(t0 + cols, (t / bs + 1) * bs) - t;
    const int64_t at = p_.antiquant_index(value, u.b, u.n2, t, tok_pages_.id(t / bs), 0);
    c_.issue(tile::copy_bytes(tile::plus(dst, (t - t0) * 4), c_.gm(gm, uint64_t(at * 4)), len * 4));
    t += len;
  }
}

// The unit's query rows of this AIV -> L int8 limbs in GM (workspace, query slot qi), amax1 (and rq / the lse
// term) kept for the unit's blocks, msd_q_rows rows at a time; then Q_READY to the AIC (both AIVs, also one without
// rows).
void VecBlocks::msd_query(const WorkUnit& u, int64_t qi) {
  const auto [a, cnt] = share(u);
  if (cnt > 0 && !p_.antiquant.per_token(false)) msd_channel_rows(false, u.n2, p_.D, L_.kch);
  for (int64_t r0 = 0; r0 < cnt; r0 += L_.msd_q_rows) msd_query_rows(u, qi, a, r0, std::min(L_.msd_q_rows, cnt - r0));
  c_.cross_set(2, kFlagQReady, Pipe::MTE3);
}

// Query rows [a + r0, a + r0 + r) of the unit (this AIV's rows r0 ..).
void VecBlocks::msd_query_rows(const WorkUnit& u, int64_t qi, int64_t a, int64_t r0, int64_t r) {
  const AntiQuant& aq = p_.antiquant;
  const int64_t D = p_.D, dw = pl_.msd.dw, stride = u.r_hi - u.r_lo, n = r * dw;  // stride: limb-major rows
  const bool ktok = aq.per_token(false), kscalar = aq.scalar(false);
  tile::wait(c_, kMsdFree);
  c_.issue(tile::copy_in({c_.gm(pl_.gm.query, row_q_elem(pl_, u, u.r_lo + a + r0) * uint64_t(bytes_of(pl_.in))), pl_.in,
                          r, D, row_q_stride(pl_)},
                         {ub(L_.q_in), pl_.in, r, dw}));
  tile::handover(c_, kMsdLoaded);
  const UbRows qa{ub(L_.q_a), DType::F32, r, dw}, qr{ub(L_.q_r), DType::F32, r, dw};
  // A chain on qa / qr: a V barrier wherever a step reads or overwrites what the step before it wrote.
  ops_.cast(DType::F32, pl_.in, qa.at, ub(L_.q_in), n);
  if (D < dw) ops_.barrier(), ops_.dup_cols(qa, D, dw, 0.0);
  // (per-channel K's scaling reads only the columns < D: the pad fill needs no barrier before it unless they share
  // a 32-byte block)
  const bool scales_columns = !ktok && !kscalar;
  if (!(D < dw && scales_columns && D * 4 % kBlockBytes == 0)) ops_.barrier();
  if (!ktok && kscalar) ops_.scalar(VScalarOp::Muls, DType::F32, qa.at, qa.at, aq_scalar_[0][0], n), ops_.barrier();
  if (!ktok && !kscalar) ops_.row_vec(qa, ub(L_.kch[0]), VBinOp::Mul, D), ops_.barrier();
  const Addr rq = ub(L_.rq[qi], r0 * 4), amax1 = ub(L_.amax1[qi], r0 * 4);
  if (ktok && aq.offset) reduce_rows(qa, rq, VRedOp::Sum);  // (acc: the barrier after the abs orders it)
  if (!ktok && aq.offset && p_.lse) {                       // cK * scale: the lse term of a per-channel K offset
    ops_.copy(DType::F32, qr.at, qa.at, n);
    ops_.barrier();
    if (kscalar) ops_.scalar(VScalarOp::Muls, DType::F32, qr.at, qr.at, aq_scalar_[0][1], n);
    else ops_.row_vec(qr, ub(L_.kch[1]), VBinOp::Mul, D);
    ops_.barrier();
    reduce_rows(qr, rq, VRedOp::Sum);
    ops_.barrier();
    ops_.scalar(VScalarOp::Muls, DType::F32, rq, rq, p_.scale, r);
  }
  ops_.unary(VUnaryOp::Abs, DType::F32, qr.at, qa.at, n);
  ops_.barrier();
  reduce_rows(qr, amax1, VRedOp::Max);
  ops_.barrier();
  ops_.binary(VBinOp::Div, DType::F32, ub(L_.tmp), ub(L_.coef), amax1, r);
  ops_.barrier();
  ops_.brcb(DType::F32, ub(L_.tmp), ub(L_.obrcb), r);
  ops_.barrier();
  ops_.row_bcast(qa, ub(L_.obrcb), VBinOp::Mul, D);
  tile::wait(c_, kCastFree.at(pbi_));
  ops_.barrier();
  msd_limbs(qa, qr.at, ub(L_.q_in), ub(L_.pb[pbi_]));  // q_in is the limbs' fp16 staging: free only after them
  tile::set(c_, kMsdFree);
  tile::handover(c_, kCastFull.at(pbi_));
  const Addr q_gm = ws(pl_.ws_q(c_.block_idx(), qi));
  for (int64_t i = 0; i < pl_.msd.limbs; ++i)
    c_.issue(tile::copy_out(
        {ub(L_.pb[pbi_], limb_bytes(i * n)), DType::I8, r, limb_bytes(dw)},
        {tile::plus(q_gm, limb_bytes((i * stride + a + r0) * D)), DType::I8, r, limb_bytes(D), limb_bytes(D)}));
  tile::set(c_, kCastFree.at(pbi_));
  pbi_ ^= 1;
}

// The L int32 limb tiles of S rows [row, row + r) (this block's) and the block's per-token parameter rows -> UB.
// The caller's handover (x loaded) makes the vector unit wait for them.
void VecBlocks::msd_load_scores(const Step& st, int64_t s, int64_t row, int64_t r) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t j0 = st.blk * pl_.t.s2_block, cols = pl_.blk_cols(u.b, st.blk), cw = Plan::cw_of(cols);
  tile::wait(c_, kMsdFree);
  const uint64_t slot = pl_.ws_s(c_.block_idx(), s % pl_.s_slots());
  for (int64_t i = 0; i < pl_.msd.limbs; ++i)
    c_.issue(tile::copy_in(
        {ws(slot + uint64_t((i * (u.r_hi - u.r_lo) + row) * pl_.cw_max * 4)), DType::I32, r, cw, pl_.cw_max},
        {ub(L_.limb, i * r * cw * 4), DType::I32, r, cw}));
  const AntiQuant& aq = p_.antiquant;
  if (aq.mode(false) >= 4 || aq.mode(true) >= 4) tok_pages_.load(c_, pl_, u.b, j0, cols);
  for (const bool value : {false, true}) {
    if (!aq.per_token(value)) continue;
    msd_token_row(value, false, u, j0, cols, ub(L_.tok[value ? 2 : 0]));
    if (aq.offset) msd_token_row(value, true, u, j0, cols, ub(L_.tok[value ? 3 : 1]));
  }
}

// x = the block's scores from the limb tiles: combined, * amax1, per-token K's offset and scale.
void VecBlocks::msd_scores(const UbRows& x, int64_t cols, int64_t lr, int64_t r, int64_t qi) {
  const int64_t n = x.rows * x.width;
  msd_combine(ub(L_.limb), ub(L_.limb, n * 4), x.at, n);
  ops_.brcb(DType::F32, ub(L_.amax1[qi], lr * 4), ub(L_.brcb), r);  // (independent of the combine)
  ops_.barrier();
  ops_.row_bcast(x, ub(L_.brcb), VBinOp::Mul, cols);
  if (!p_.antiquant.per_token(false)) return;
  if (p_.antiquant.offset) {  // x += rq * offK[t] (the rows of offK, each times its query row sum)
    const UbRows t{ub(L_.limb), DType::F32, r, x.width};
    ops_.dup(DType::F32, t.at, 1.0, n);
    ops_.barrier();
    ops_.row_vec(t, ub(L_.tok[1]), VBinOp::Mul, cols);
    ops_.brcb(DType::F32, ub(L_.rq[qi], lr * 4), ub(L_.brcb), r);
    ops_.barrier();
    ops_.row_bcast(t, ub(L_.brcb), VBinOp::Mul, cols);
    ops_.barrier();
    ops_.binary(VBinOp::Add, DType::F32, x.at, x.at, t.at, n);
  }
  ops_.barrier();
  ops_.row_vec(x, ub(L_.tok[0]), VBinOp::Mul, cols);
}

// P (x, fp32, pad columns 0) -> its L int8 limbs -> workspace P slot s % 2, rows i * stride + row (stride: the
// unit's computed rows); per-token V also keeps amax2 and r2 of rows [lr, lr + r) for V2 (step parity).
void VecBlocks::msd_p_limbs(const UbRows& x, int64_t cols, int64_t s, int64_t stride, int64_t row, int64_t lr,
                            int64_t r) {
  const int64_t n = x.rows * x.width, ai = pl_.step_slot(s);
  const UbRows t0{ub(L_.limb), DType::F32, r, x.width};
  const Addr t1 = ub(L_.limb, n * 4);
  if (p_.antiquant.per_token(true)) {  // a chain: a V barrier between dependent steps
    ops_.row_vec(x, ub(L_.tok[2]), VBinOp::Mul, cols);
    ops_.barrier();
    if (p_.antiquant.offset) {
      ops_.copy(DType::F32, t0.at, x.at, n);
      ops_.barrier();
      ops_.row_vec(t0, ub(L_.tok[3]), VBinOp::Mul, cols);
      ops_.barrier();
      reduce_rows(t0, ub(L_.r2[ai], lr * 4), VRedOp::Sum);  // (acc: the barrier after the abs orders it)
    }
    ops_.unary(VUnaryOp::Abs, DType::F32, t0.at, x.at, n);
    ops_.barrier();
    reduce_rows(t0, ub(L_.amax2[ai], lr * 4), VRedOp::Max);
    ops_.barrier();
    ops_.binary(VBinOp::Div, DType::F32, ub(L_.tmp), ub(L_.coef), ub(L_.amax2[ai], lr * 4), r);
    ops_.barrier();
    ops_.brcb(DType::F32, ub(L_.tmp), ub(L_.brcb), r);
    ops_.barrier();
    ops_.row_bcast(x, ub(L_.brcb), VBinOp::Mul, cols);
  } else {
    ops_.scalar(VScalarOp::Muls, DType::F32, x.at, x.at, p_.antiquant.coef, n);
  }
  tile::wait(c_, kCastFree.at(pbi_));
  ops_.barrier();
  msd_limbs(x, t1, t0.at, ub(L_.pb[pbi_]));
  tile::handover(c_, kCastFull.at(pbi_));
  const uint64_t slot = pl_.ws_p(c_.block_idx(), pl_.step_slot(s));
  for (int64_t i = 0; i < pl_.msd.limbs; ++i)
    c_.issue(tile::copy_out({ub(L_.pb[pbi_], limb_bytes(i * n)), DType::I8, r, limb_bytes(x.width)},
                            {ws(slot + uint64_t(limb_bytes((i * stride + row) * pl_.cw_max))), DType::I8, r,
                             limb_bytes(x.width), limb_bytes(pl_.cw_max)}));
  tile::set(c_, kCastFree.at(pbi_));
  tile::set(c_, kMsdFree);  // the limb tiles (and the token rows) are free again
  pbi_ ^= 1;
}

// O block rows [row + r0, row + r0 + r) (row: this AIV's first) from the L int32 limb tiles of the O slot -> dst
// (fp32), per-token V's amax2 and r2 (rows r0 ..) applied.
void VecBlocks::msd_o_block(int64_t s, int64_t stride, int64_t row, int64_t r0, int64_t r, const UbRows& dst) {
  const int64_t dv = pl_.dv_pad, n = r * dv, ai = pl_.step_slot(s);
  tile::wait(c_, kMsdFree);
  const uint64_t slot = pl_.ws_o(c_.block_idx(), pl_.step_slot(s));
  for (int64_t i = 0; i < pl_.msd.limbs; ++i)  // limb 0 straight into dst
    c_.issue(tile::copy_bytes(i ? ub(L_.limb, (i - 1) * n * 4) : dst.at,
                              ws(slot + uint64_t((i * stride + row + r0) * dv * 4)), n * 4));
  tile::handover(c_, kMsdLoaded);
  msd_combine(dst.at, ub(L_.limb), dst.at, n);
  tile::set(c_, kMsdFree);
  if (!p_.antiquant.per_token(true)) return;
  ops_.brcb(DType::F32, ub(L_.amax2[ai], r0 * 4), ub(L_.obrcb), r);
  ops_.barrier();
  ops_.row_bcast(dst, ub(L_.obrcb), VBinOp::Mul, p_.Dv);
  if (!p_.antiquant.offset) return;
  ops_.barrier();
  ops_.brcb(DType::F32, ub(L_.r2[ai], r0 * 4), ub(L_.obrcb), r);
  ops_.barrier();
  ops_.row_bcast(dst, ub(L_.obrcb), VBinOp::Add, p_.Dv);
}

void VecBlocks::msd_v_rows(const WorkUnit& u) {
  if (!p_.antiquant.per_token(true)) msd_channel_rows(true, u.n2, p_.Dv, L_.vch);
}

void VecBlocks::msd_v_channel(const UbRows& o) {
  const AntiQuant& aq = p_.antiquant;
  if (aq.per_token(true)) return;
  const int64_t n = o.rows * o.width;
  ops_.barrier();  // o as the caller's division left it
  if (aq.scalar(true)) {
    if (aq.offset) ops_.scalar(VScalarOp::Adds, DType::F32, o.at, o.at, aq_scalar_[1][1], n), ops_.barrier();
    ops_.scalar(VScalarOp::Muls, DType::F32, o.at, o.at, aq_scalar_[1][0], n);
    return;
  }
  if (aq.offset) ops_.row_vec(o, ub(L_.vch[1]), VBinOp::Add, p_.Dv), ops_.barrier();
  ops_.row_vec(o, ub(L_.vch[0]), VBinOp::Mul, p_.Dv);
}

// With invalid-row correction and V's per-channel parameters: a factor per row (1 valid, 0 invalid, from the bits
// final_stats left) in mnew; false when no factor is needed.
bool VecBlocks::msd_invalid_factor(int64_t cnt) {
  const AntiQuant& aq = p_.antiquant;
  if (!pl_.msd.on || !p_.row_fix || aq.per_token(true)) return false;
  ops_.dup(DType::F32, ub(L_.mnew), 1.0, cnt);
  ops_.barrier();
  ops_.select(DType::F32, ub(L_.mnew), ub(L_.mnew), ub(L_.bits), 0.0, cnt);
  return true;
}

bool VecBlocks::msd_lse_term() const {
  const AntiQuant& aq = p_.antiquant;
  return pl_.msd.on && !aq.per_token(false) && aq.offset && p_.lse;
}

void VecBlocks::msd_lse_fix(Addr dst, int64_t qi, int64_t cnt) {
  ops_.binary(VBinOp::Add, DType::F32, dst, dst, ub(L_.rq[qi]), cnt);
}

}  // namespace npusim::op::attn
