// The FA V3 kernel's tiling (kernels/fa_varlen/README.md "Tiling"): every default from the shapes and the
// config's capacities and core count only.
#include "kernels/fa_varlen/fa_tiling.h"

#include <algorithm>

#include "kernels/attention/buffers.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/tiling_fit.h"
#include "kernels/attention/tiling_keys.h"

namespace npusim::op::fa {

namespace keys = attn::keys;

const TilingSpace& fa_tiling_space() {
  static const TilingSpace space(
      "flash_attention_var_len_score",
      attn::attention_keys(
          {.s1_block = {.default_rule =
                            "256 where its work units (segment x head x s1_block rows) are at least twice the AI "
                            "cores, else 128 (the vendor's S1 base; both halved when D + Dr > 256); halved until L1 "
                            "and UB fit, then lowered by 16 while the work units are fewer than the AI cores"},
           .s2_block =
               {.default_rule =
                    "the longest sequence's KV rounded up to 128, clamped to [128, 256] (the fp32 softmax: above "
                    "256 columns one counter-mode vector instruction holds fewer than 32 rows) and to half the "
                    "longest KV rounded up to 128 (two score blocks per unit); with two K / V slots if they fit L1, "
                    "else one, lowered by 128 until it fits",
                .follows = {keys::s1_block, keys::kv_buffers}},
           .vec_rows = {.default_rule = "the largest multiple of 8 that divides the AIV half and whose UB layout fits, "
                                        "with vec_rows x s2_block <= core.ub_bytes / 24",
                        .follows = {keys::s1_block, keys::s2_block}},
           .preload = {.default_rule = "2 with two K / V slots, else 1", .follows = {keys::kv_buffers}},
           .block_dim = {.default_rule = "min(AI cores, work units)", .follows = {keys::s1_block}},
           .kv_buffers = {.default_rule = "2 when both K / V slots of s2_block columns fit L1, else 1",
                          .follows = {keys::s1_block}}}));
  return space;
}

namespace {
using attn::BlockTiling;
using attn::l1_bytes;
constexpr int64_t kRowAlign = 8;  // fp32 row arrays: 8 rows per 32-byte block

// The default rules, applied around the keys the case sets (`ov`): a set key keeps its value, and the rules that
// derive from it (preload from kv_buffers, the capacity fits) see it, so the keys left to them adapt.
BlockTiling choose(const attn::AttnProblem& p, const sim::HwConfig& hw, const Tiling& ov) {
  BlockTiling t;
  // Twice the vendor's S1 base (README "Tiling": each K / V block then serves twice the query rows, half the loads
  // of the MTE2-bound TND rows) where that still gives every core two units to balance; else the vendor's base.
  const int64_t base = p.qk_dim() > 256 ? 64 : 128;
  t.s1_block = attn::prompt_units(p, 2 * base) >= 2 * hw.chip.ai_cores ? 2 * base : base;
  const bool s1_set = ov.pin(keys::s1_block, t.s1_block);
  int64_t max_kv = 1;
  for (int64_t b = 0; b < p.B; ++b) max_kv = std::max(max_kv, p.act_kv[size_t(b)]);
  // At most 256 columns, as FIA's fp32 softmax: vec_rows x s2_block is bounded by one counter-mode vector
  // instruction (255 x 64 fp32), so a 512-column block leaves 16-row sub-tiles and twice the vector instructions
  // per block. A grown L1 had taken 512 x 2 slots: MLA T 8192 14% slower (kernels/fa_varlen/README.md "Tiling").
  const int64_t longest =
      std::min(std::clamp<int64_t>(isa::round_up(max_kv, int64_t(128)), 128, 256), attn::two_blocks_cap(max_kv));
  const uint64_t l1 = uint64_t(hw.core.l1_bytes);
  const auto over_l1 = [&] { return l1_bytes(p, t) > l1; };
  // Two K / V slots let MTE2 stream the next block while the cube works; where they do not fit, one slot keeps
  // the block long (a short block re-pays the per-block cube and vector start-up more often).
  t.kv_buffers = 2;
  const bool kvb_set = ov.pin(keys::kv_buffers, t.kv_buffers);
  t.s2_block = longest;
  const bool s2_set = ov.pin(keys::s2_block, t.s2_block);
  if (!kvb_set && over_l1()) t.kv_buffers = 1;
  while (!s2_set && t.s2_block > 128 && over_l1()) t.s2_block -= 128;
  while (!s1_set && t.s1_block > 16 && over_l1()) t.s1_block /= 2;
  // With two slots the cube runs two QK blocks ahead, so the softmax of one block overlaps both QK and PV.
  t.preload = t.kv_buffers == 2 ? 2 : 1;
  ov.pin(keys::preload, t.preload);
  const attn::Lowerable may{.s1_block = !s1_set, .s2_block = !s2_set};
  attn::fit_ub(p, t, hw.core.ub_bytes, kRowAlign, 16, may);
  attn::fill_cores(p, t, ov.fixed(keys::block_dim).value_or(hw.chip.ai_cores), 16, may);
  return t;
}
}  // namespace

attn::Plan make_fa_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& ov) {
  attn::Plan pl;
  pl.p = p;
  attn::choose_blocks(pl, choose(p, hw, ov), ov);
  attn::choose_vec_rows(pl, hw.core.ub_bytes, ov, kRowAlign, false);
  attn::finish_tiling(pl, hw, ov);
  // Spec §2.3: a batch with Skv = 0 has m = l = 0 (the FA statistics; zero_rows picks them by batch).
  pl.outputs.empty_lse = 0;
  pl.outputs.p_round = pl.outputs.out_round = isa::RoundMode::ROUND;  // CAST_ROUND (README "Decisions")
  attn::finish_plan(pl);
  return pl;
}

}  // namespace npusim::op::fa
