// The epilogue block of the attention kernel (vec_blocks.h): V2 rescales the O accumulator with each block's
// P V; the unit's last block divides by the row sum, casts and writes the output and the row statistics (or,
// with flash-decoding, its split's partial); rows nobody computes get the output description's empty values.
// O is fp32, or fp16 with full quantisation (attn_problem.h FullQuant: the cube's P V blocks leave the FixPipe
// dequantised to fp16 and the vendor's int8 kernel, PromptFlashAttentionTypeTraits<int8_t>, keeps O in half:
// O = f16(f16(O * alpha) + O_blk), then O = f16(O / l) with the fp16 row sum).
#include <algorithm>
#include <cfloat>

#include "kernels/attention/cross_flags.h"
#include "kernels/attention/seq_addr.h"
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::UbRows;

// O in fp32, or in fp16 with full quantisation (pl_.oblk: the P V blocks as the cube writes them).
void VecBlocks::v2(const Step& st, int64_t s) {
  c_.cross_wait(kFlagOReady);
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const auto [a, cnt] = share(u);
  if (cnt == 0) return;
  const DType ot = pl_.oblk;
  const int64_t dv = pl_.dv_pad, oe = bytes_of(ot);
  const uint64_t src = pl_.ws_o(c_.block_idx(), pl_.step_slot(s)) + uint64_t(a * dv * oe);
  if (pl_.msd.on) {
    msd_v2(st, s, a, cnt);
  } else if (st.first) {
    tile::wait(c_, kOaccFree);
    c_.issue(tile::copy_bytes(ub(L_.oacc), ws(src), cnt * dv * oe));
    tile::handover(c_, kOaccLoaded);
  } else {
    for (int64_t r0 = 0; r0 < cnt; r0 += L_.o_rows) {
      const int64_t r = std::min(L_.o_rows, cnt - r0);
      tile::wait(c_, kXFree.at(xb_));
      c_.issue(tile::copy_bytes(ub(L_.x[xb_]), ws(src + uint64_t(r0 * dv * oe)), r * dv * oe));
      tile::handover(c_, kXLoaded.at(xb_));
      alpha_brcb(pl_.step_slot(s), r0, r);
      const UbRows o{ub(L_.oacc, r0 * dv * oe), ot, r, dv};
      ops_.barrier();
      ops_.row_bcast(o, ub(L_.obrcb), VBinOp::Mul, p_.Dv);
      ops_.barrier();
      ops_.binary(VBinOp::Add, ot, o.at, o.at, ub(L_.x[xb_]), r * dv);
      tile::set(c_, kXFree.at(xb_));
      xb_ ^= 1;
    }
  }
  if (st.last && pl_.msd.on) msd_v_rows(u);
  if (st.last) finish_rows(u, a, cnt, pl_.step_slot(st.seq), pl_.q_slot(st.seq));
}

// MSD: O = O * alpha + the combined P V block, o_rows at a time through x (the first block: O = the block).
void VecBlocks::msd_v2(const Step& st, int64_t s, int64_t a, int64_t cnt) {
  const int64_t dv = pl_.dv_pad;
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  if (st.first) tile::wait(c_, kOaccFree);
  for (int64_t r0 = 0; r0 < cnt; r0 += L_.msd_o_rows) {
    const int64_t r = std::min(L_.msd_o_rows, cnt - r0);
    const UbRows ob{ub(L_.x[xb_]), DType::F32, r, dv}, o{ub(L_.oacc, r0 * dv * 4), DType::F32, r, dv};
    tile::wait(c_, kXFree.at(xb_));
    msd_o_block(s, u.r_hi - u.r_lo, a, r0, r, ob);
    if (st.first) {
      ops_.barrier();
      ops_.copy(DType::F32, o.at, ob.at, r * dv);
    } else {
      alpha_brcb(pl_.step_slot(s), r0, r);
      ops_.barrier();
      ops_.row_bcast(o, ub(L_.obrcb), VBinOp::Mul, p_.Dv);
      ops_.barrier();
      ops_.binary(VBinOp::Add, DType::F32, o.at, o.at, ob.at, r * dv);
    }
    tile::set(c_, kXFree.at(xb_));
    xb_ ^= 1;
  }
}

// alpha rows [r0, r0 + r) broadcast per row in O's dtype (fp16 alpha widened for an fp32 O).
void VecBlocks::alpha_brcb(int64_t ai, int64_t r0, int64_t r) {
  ops_.barrier();  // (obrcb: its last readers)
  if (pl_.oblk == DType::F16) return ops_.brcb(DType::F16, ub(L_.alpha[ai], r0 * 2), ub(L_.obrcb), r);
  if (vt_ == DType::F32) return ops_.brcb(DType::F32, ub(L_.alpha[ai], r0 * 4), ub(L_.obrcb), r);
  ops_.cast(DType::F32, DType::F16, ub(L_.tmp), ub(L_.alpha[ai], r0 * 2), r);
  ops_.barrier();
  ops_.brcb(DType::F32, ub(L_.tmp), ub(L_.obrcb), r);
}

// out = O / l (0 for invalid rows with row_fix: l -> +inf), lse = m + ln l (+inf for invalid rows); an fp16 O
// (full quantisation) divides by the fp16 row sums.
void VecBlocks::finish_rows(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi) {
  if (u.split >= 0) return finish_partial(u, a, cnt, mi, qi);
  const DType ot = pl_.oblk;
  bool fresh = false;  // whether the divisor's last write may be outstanding
  const Addr lf = final_stats(u, a, cnt, mi, qi, fresh), div = ot == DType::F16 ? half_divisor(mi, cnt, fresh) : lf;
  const bool pc = p_.post_quant.on && !pl_.decode && p_.post_quant.per_channel;
  if (pc && load_quant_params(u, 0, 1)) fresh = false;  // head u.n's row (its barrier ordered the divisor)
  const int64_t dv = pl_.dv_pad, oe = bytes_of(ot), row0 = u.r_lo + a;
  const bool zero_invalid = msd_invalid_factor(cnt);
  if (fresh) ops_.barrier();
  for (int64_t r0 = 0; r0 < cnt; r0 += L_.o_rows) {  // (each row group ends with a hand-over: no barrier between)
    const int64_t r = std::min(L_.o_rows, cnt - r0);
    ops_.brcb(ot, ub(div.off - base_, r0 * oe), ub(L_.obrcb), r);
    const UbRows o{ub(L_.oacc, r0 * dv * oe), ot, r, dv};
    ops_.barrier();
    ops_.row_bcast(o, ub(L_.obrcb), VBinOp::Div, p_.Dv);
    if (pl_.msd.on) msd_v_channel(o);
    if (zero_invalid) {  // MSD: V's offset moved the invalid rows' zeros (O / +inf) off 0; the factor puts them back
      ops_.barrier();
      ops_.brcb(DType::F32, ub(L_.mnew, r0 * 4), ub(L_.obrcb), r);
      ops_.barrier();
      ops_.row_bcast(o, ub(L_.obrcb), VBinOp::Mul, p_.Dv);
    }
    // FA: the invalid rows divided by +inf are +-0; adding +0 makes them +0 and changes no other value.
    if (p_.max_sum && p_.row_fix) ops_.barrier(), ops_.scalar(VScalarOp::Adds, DType::F32, o.at, o.at, 0.0, r * dv);
    cast_store(o, u, row0 + r0);
  }
  if (pc) tile::set(c_, kQuantFree);
  tile::set(c_, kOaccFree);
}

// The unit's last block, statistics part: m and l as fp32 (where the lse, the FA statistics or an fp32 O need
// them), the invalid-row bits (row_fix), lse or the FA statistics stored; returns the fp32 l with +inf in the
// invalid rows, the divisor of an fp32 O.
Addr VecBlocks::final_stats(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi, bool& fresh) {
  Addr mf = ub(L_.m[mi]), lf = ub(L_.l[mi]);
  const bool wide_o = pl_.oblk == DType::F32;  // an fp16 O divides by the fp16 sums instead (half_divisor)
  const bool widen = vt_ == DType::F16 && (wide_o || p_.lse || p_.max_sum);  // then m / l are read after a barrier
  fresh = widen;                                                             // (a hand-over below completes it again)
  if (widen) {
    ops_.cast(DType::F32, DType::F16, ub(L_.mnew), mf, cnt);
    ops_.cast(DType::F32, DType::F16, ub(L_.tmp), lf, cnt);
    mf = ub(L_.mnew), lf = ub(L_.tmp);
  }
  const int64_t row0 = u.r_lo + a;
  if (p_.row_fix) {
    ops_.dup(vt_, ub(L_.acc), pl_.mask_value, kRepeatBytes / es());
    ops_.barrier();
    ops_.cmp_scalar_vec(CmpOp::NE, vt_, ub(L_.bits), ub(L_.m[mi]), ub(L_.acc), cnt);
  }
  if (p_.lse) {
    tile::wait(c_, kLseFree);
    if (widen && !p_.row_fix) ops_.barrier();  // (with row_fix, the barrier before the compare ordered the casts)
    ops_.unary(VUnaryOp::Ln, DType::F32, ub(L_.lse), lf, cnt);
    ops_.barrier();
    ops_.binary(VBinOp::Add, DType::F32, ub(L_.lse), ub(L_.lse), mf, cnt);
    if (msd_lse_term()) ops_.barrier(), msd_lse_fix(ub(L_.lse), qi, cnt);
    if (p_.row_fix) ops_.barrier(), ops_.select(DType::F32, ub(L_.lse), ub(L_.lse), ub(L_.bits), kInf, cnt);
    tile::handover(c_, kLseFull);
    c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.lse, row_lse_elem(pl_, u, row0) * 4), ub(L_.lse), cnt * 4));
    tile::set(c_, kLseFree);
    fresh = false;
  }
  if (p_.max_sum) store_stats(u, row0, cnt, mf, lf, widen), fresh = false;
  if (p_.row_fix && wide_o) ops_.barrier(), ops_.select(DType::F32, lf, lf, ub(L_.bits), kInf, cnt), fresh = true;
  return lf;
}

// Rows of fp32 results (dv_pad wide) -> the output dtype (int8 through the post-quantisation) -> GM rows from row;
// full quantisation's fp16 rows go out as they are, or through AscendQuant<half>.
void VecBlocks::cast_store(const UbRows& o, const WorkUnit& u, int64_t row) {
  if (p_.post_quant.on && pl_.decode && p_.post_quant.per_channel) load_quant_params(u, row, o.rows);
  tile::wait(c_, kCastFree.at(pbi_));
  const Addr dst = ub(L_.pb[pbi_]);
  if (o.t == DType::F16 && p_.post_quant.on) quantize_half(o, dst);
  else if (o.t == DType::F16) ops_.barrier(), ops_.copy(DType::F16, dst, o.at, o.rows * o.width);
  else if (p_.post_quant.on) quantize(o, dst);
  else ops_.barrier(), ops_.cast(pl_.out, DType::F32, dst, o.at, o.rows * o.width, pl_.outputs.out_round);
  tile::handover(c_, kCastFull.at(pbi_));
  store_out(dst, u, row, o.rows);
  tile::set(c_, kCastFree.at(pbi_));
  pbi_ ^= 1;
}

// Full quantisation's final divisor: the fp16 row sums, +inf in the invalid rows (row_fix; final_stats set the
// bits).
Addr VecBlocks::half_divisor(int64_t mi, int64_t cnt, bool& fresh) {
  if (!p_.row_fix) return ub(L_.l[mi]);
  ops_.barrier();
  ops_.select(DType::F16, ub(L_.l16), ub(L_.l[mi]), ub(L_.bits), kInf, cnt);
  fresh = true;
  return ub(L_.l16);
}

// FA statistics of rows [row0, row0 + cnt) of a unit: m and l (FLT_MAX for invalid rows with row_fix), each
// replicated to one 32-byte block per row, which is the [i][8] order of softmax_max / softmax_sum.
void VecBlocks::store_stats(const WorkUnit& u, int64_t row0, int64_t cnt, Addr m, Addr l, bool widened) {
  tile::wait(c_, kLseFree);
  if (widened || p_.row_fix) ops_.barrier();  // (m / l just widened, or the invalid-row bits just computed)
  if (p_.row_fix) {
    ops_.select(DType::F32, ub(L_.mnew), l, ub(L_.bits), double(FLT_MAX), cnt);
    ops_.barrier();
    l = ub(L_.mnew);
  }
  ops_.brcb(DType::F32, m, ub(L_.stat[0]), cnt);
  ops_.brcb(DType::F32, l, ub(L_.stat[1]), cnt);
  tile::handover(c_, kLseFull);
  const uint64_t at = row_stat_elem(pl_, u, row0) * 4;
  c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.max, at), ub(L_.stat[0]), cnt * 32));
  c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.sum, at), ub(L_.stat[1]), cnt * 32));
  tile::set(c_, kLseFree);
}

// Flash-decoding partial of one split: O / l (fp32), m and l of rows [a, a + cnt) -> fd_workspace.
void VecBlocks::finish_partial(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi) {
  const int64_t dv = pl_.dv_pad, gp = pl_.g_pad();
  for (int64_t r0 = 0; r0 < cnt; r0 += L_.o_rows) {
    const int64_t r = std::min(L_.o_rows, cnt - r0);
    ops_.barrier();
    ops_.brcb(DType::F32, ub(L_.l[mi], r0 * 4), ub(L_.obrcb), r);
    ops_.barrier();
    ops_.row_bcast({ub(L_.oacc, r0 * dv * 4), DType::F32, r, dv}, ub(L_.obrcb), VBinOp::Div, p_.Dv);
    if (pl_.msd.on) msd_v_channel({ub(L_.oacc, r0 * dv * 4), DType::F32, r, dv});
  }
  if (msd_lse_term()) msd_lse_fix(ub(L_.m[mi]), qi, cnt);  // the partial's m carries the K offset's lse term
  const uint64_t at = uint64_t(pl_.fd_off[size_t(u.b * p_.KV_N + u.n2)]) + uint64_t(u.split) * pl_.fd_split_bytes();
  auto fd = [&](int64_t elem) { return c_.gm(pl_.gm.fd_workspace, at + uint64_t(elem * 4)); };
  tile::handover(c_, kPartialFull);
  c_.issue(tile::copy_bytes(fd(a * dv), ub(L_.oacc), cnt * dv * 4));
  c_.issue(tile::copy_bytes(fd(gp * dv + a), ub(L_.m[mi]), cnt * 4));
  c_.issue(tile::copy_bytes(fd(gp * dv + gp + a), ub(L_.l[mi]), cnt * 4));
  tile::handover(c_, kPartialStored);
  tile::set(c_, kOaccFree);
}

// rows x Dv output rows from UB (rows dv_pad elements apart) to the output tensor.
void VecBlocks::store_out(Addr src, const WorkUnit& u, int64_t row, int64_t rows) {
  c_.issue(tile::copy_out({src, pl_.out, rows, pl_.dv_pad},
                          {c_.gm(pl_.outputs.out, row_out_elem(pl_, u, row) * uint64_t(bytes_of(pl_.out))), pl_.out,
                           rows, p_.Dv, row_out_stride(pl_)}));
}

// Rows nobody computes (past the actual length, empty band, units without work): out 0, lse the empty value.
void VecBlocks::zero_rows(const WorkUnit& u, int64_t row, int64_t rows) {
  if (p_.post_quant.on && pl_.decode) quantized_empty_rows(u, row, rows);  // the vendor quantises an O of zeros
  else
    for (int64_t r = 0; r < rows; r += 8) store_out(ub(L_.zout), u, row + r, std::min<int64_t>(8, rows - r));
  if (p_.max_sum) {  // FA: 0 / 0 with empty KV (zlse holds 0), else the invalid-row values
    const bool empty_kv = p_.skv_eff(u.b) == 0;
    for (int64_t r = 0; r < rows; r += 8) {
      const int64_t k = std::min<int64_t>(8, rows - r);
      const uint64_t at = row_stat_elem(pl_, u, row + r) * 4;
      c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.max, at), ub(empty_kv ? L_.zlse : L_.zmax), k * 32));
      c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.sum, at), ub(empty_kv ? L_.zlse : L_.zsum), k * 32));
    }
  }
  if (!p_.lse) return;
  for (int64_t r = 0; r < rows; r += 64)
    c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.lse, row_lse_elem(pl_, u, row + r) * 4), ub(L_.zlse),
                              std::min<int64_t>(64, rows - r) * 4));
}

void VecBlocks::zero_through(int64_t unit_end) {
  for (; zero_next_ < unit_end; ++zero_next_) {
    if (c_.sub_block_idx() != 0) continue;
    const WorkUnit& u = pl_.units[size_t(zero_next_)];
    if (!u.computed()) {
      zero_rows(u, u.row0, u.rows);
      continue;
    }
    zero_rows(u, u.row0, u.r_lo - u.row0);
    zero_rows(u, u.r_hi, u.row0 + u.rows - u.r_hi);
  }
}

}  // namespace npusim::op::attn
