#pragma once
// The vector side of the attention kernel on one AIV (each AIV of a pair takes half of a unit's computed rows),
// as blocks sharing one UB layout and one set of named events:
//   online softmax (softmax_block.cpp), V1(s): waits S_READY; per sub-tile of vec_rows rows: scale, + pse,
//     visibility, row max, exp, row sum, running max / sum update, P cast -> workspace; then P_READY;
//   visibility (visibility.cpp): the mask tensor, the compressed causal mask, band clipping, pse loads;
//   epilogue (epilogue.cpp), V2(s): waits O_READY; O = O * alpha + P V (first block: O = P V); the unit's last
//     block divides by the sum, casts and writes the output (and the row statistics), or (flash-decoding) its
//     split's partial; rows nobody computes get the output description's empty values;
//   flash-decoding combine (flash_decode.cpp): after SyncAll, one (b, KV head) group at a time;
//   post-quantisation (post_quant.cpp): int8 output rows from the final fp32 (full quantisation: fp16) rows;
//   MSD antiquant (msd_block.cpp): the query's int8 limbs per unit, the int32 limb results recombined into S and
//     into the P V block, P's limbs, the K / V parameters of every mode.
// Events: MTE2 <-> V: x staging buffers 0 / 1, side inputs (loaded 2, free 3), O accumulator (free 4, loaded 5),
// combine staging 6, post-quant parameters 7, MSD loads (loaded 3, free 2); V <-> MTE3: cast buffers 0 / 1 (also MSD's
// P and query limbs), lse row 2, constants 3 (once), a split's partial 4.
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/attention/buffers.h"
#include "kernels/attention/plan.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/seq_addr.h"
#include "kernels/tile/events.h"
#include "kernels/tile/vec_ops.h"
#include "kernels/tile/views.h"

namespace npusim::op::attn {

class VecBlocks {
 public:
  VecBlocks(sim::CoreCtx& c, const Plan& pl);
  void start();                         // "buffer free" events set once, constant rows written
  void finish();                        // ... and every event waited (no flag left set)
  void unit_inputs(const Step& st);     // MSD: a unit's query limbs for the cube, at its first step
  void v1(const Step& st, int64_t s);   // softmax of step s
  void v2(const Step& st, int64_t s);   // rescale of step s; the unit's last block writes it out
  void zero_through(int64_t unit_end);  // empty rows of every unit before unit_end
  void combine();                       // flash-decoding: this AIV's (b, KV head) groups

 private:
  // ---- online softmax ----
  void v1_subtile(const Step& st, int64_t s, int64_t lr, int64_t r, int64_t a, int64_t parity);
  void softmax_rows(const tile::UbRows& x, int64_t cols, int64_t lr, int64_t r, bool first, int64_t mi, int64_t ai);
  // ---- visibility ----
  void load_side_inputs(const WorkUnit& u, int64_t row, int64_t r, int64_t j0, int64_t cols, int64_t cw);
  bool load_compressed(int64_t i0, int64_t r, int64_t j0, int64_t cols, int64_t cw, int64_t off, bool& all);
  void select_by_bytes(const tile::UbRows& x, bool keep_nonzero);
  void compressed_bound(const tile::UbRows& x, int64_t i0, int64_t j0, int64_t cols, int64_t off, bool keep_above);
  // Which vector writes apply_mask made last: none of its own, or the mode-0 band's row clipping (columns < cols,
  // after a barrier), with the lowest and highest column it wrote (a pad fill may share the highest one's block).
  struct MaskWrites {
    bool banded = false;
    int64_t first_col = INT64_MAX, last_col = -1;  // (none: INT64_MAX / -1)
  };
  MaskWrites apply_mask(const WorkUnit& u, const tile::UbRows& x, int64_t i0, int64_t j0, int64_t cols);
  // ---- epilogue ----
  void alpha_brcb(int64_t ai, int64_t r0, int64_t r);
  // mi: the unit's m / l buffers (Step::seq parity); qi: its MSD query slot (Plan::q_slots).
  void finish_rows(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi);
  // The fp32 l; `fresh` tells whether its last write may still be outstanding (the caller's barrier).
  isa::Addr final_stats(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi, bool& fresh);
  void finish_partial(const WorkUnit& u, int64_t a, int64_t cnt, int64_t mi, int64_t qi);
  void store_stats(const WorkUnit& u, int64_t row0, int64_t cnt, isa::Addr m, isa::Addr l, bool widened);
  void store_out(isa::Addr src, const WorkUnit& u, int64_t row, int64_t rows);
  void cast_store(const tile::UbRows& o, const WorkUnit& u, int64_t row);  // fp32 (fp16) rows -> output dtype -> GM
  // Full quantisation: the fp16 row sums (+inf: invalid rows); sets `fresh` when it wrote them.
  isa::Addr half_divisor(int64_t mi, int64_t cnt, bool& fresh);
  // ---- post-quantisation (post_quant.cpp) ----
  // Returns true when it put a V barrier after the vector work before it (the prompt's bf16 parameters).
  bool load_quant_params(const WorkUnit& u, int64_t row, int64_t rows);
  void quantize(const tile::UbRows& o, isa::Addr dst);
  void quantize_half(const tile::UbRows& h, isa::Addr dst);  // AscendQuant<half> of fp16 rows (modified)
  void quantized_empty_rows(const WorkUnit& u, int64_t row, int64_t rows);
  void zero_rows(const WorkUnit& u, int64_t row, int64_t rows);
  // ---- MSD antiquant (msd_block.cpp) ----
  void msd_query(const WorkUnit& u, int64_t qi);
  void msd_query_rows(const WorkUnit& u, int64_t qi, int64_t a, int64_t r0, int64_t r);
  void msd_v2(const Step& st, int64_t s, int64_t a, int64_t cnt);
  void msd_load_scores(const Step& st, int64_t s, int64_t row, int64_t r);
  void msd_scores(const tile::UbRows& x, int64_t cols, int64_t lr, int64_t r, int64_t qi);
  void msd_p_limbs(const tile::UbRows& x, int64_t cols, int64_t s, int64_t stride, int64_t row, int64_t lr, int64_t r);
  void msd_o_block(int64_t s, int64_t stride, int64_t row, int64_t r0, int64_t r, const tile::UbRows& dst);
  void msd_v_rows(const WorkUnit& u);         // V's per-channel scale / offset of the unit's KV head
  void msd_v_channel(const tile::UbRows& o);  // O = (O + offset) * scale, V per-channel (after a V barrier)
  bool msd_lse_term() const;                  // whether the lse carries the K per-channel offset's term (msd_lse_fix)
  void msd_lse_fix(isa::Addr dst, int64_t qi, int64_t cnt);  // + that term
  bool msd_invalid_factor(int64_t cnt);
  void msd_limbs(const tile::UbRows& a, isa::Addr r, isa::Addr h16, isa::Addr dst8);
  // Bytes of n limbs: int8, or int4 with int4 K / V (the cube's dtype; two per byte).
  int64_t limb_bytes(int64_t n) const { return n * isa::bits_of(pl_.cube) / 8; }
  void msd_combine(isa::Addr c0, isa::Addr rest, isa::Addr dst, int64_t n);
  void msd_channel_rows(bool value, int64_t n2, int64_t len, const uint64_t (&dst)[2]);
  void msd_token_row(bool value, bool offset, const WorkUnit& u, int64_t j0, int64_t cols, isa::Addr dst);
  void reduce_rows(const tile::UbRows& x, isa::Addr dst, isa::VRedOp op);
  // ---- flash-decoding combine ----
  void load_wait(const isa::DataCopy& d);
  void buffer_free();
  void combine_group(int64_t b, int64_t n2);

  isa::Addr ub(uint64_t off, int64_t bytes = 0) const { return {isa::Buf::UB, base_ + off + uint64_t(bytes)}; }
  isa::Addr ws(uint64_t off) const;
  int es() const { return isa::bytes_of(vt_); }
  // This AIV's share of a unit's computed rows: [first, first + count) counted from r_lo.
  std::pair<int64_t, int64_t> share(const WorkUnit& u) const;

  sim::CoreCtx& c_;
  const Plan& pl_;
  const AttnProblem& p_;
  UbLayout L_;
  tile::VecOps ops_;
  isa::DType vt_;
  uint64_t base_ = 0;
  int xb_ = 0, pbi_ = 0;      // ping-pong indices of the x staging and the cast buffers
  int64_t zero_next_ = 0;     // first unit whose empty rows are not written yet
  double aq_scalar_[2][2]{};  // MSD: K's [0] / V's [1] per-tensor (mode 2: per-head) scale [.][0] and offset [.][1]
  PageIds tok_pages_;         // MSD per-token parameters managed by page attention: the block's page ids
};

}  // namespace npusim::op::attn
