// The FA V3 kernel's tiling (kernels/fa_varlen/README.md "Tiling"): every default from the shapes and the
// config's capacities and core count only.
#include "kernels/fa_varlen/fa_tiling.h"

#include <algorithm>

#include "kernels/attention/buffers.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/tiling_fit.h"

namespace npusim::op::fa {

const TilingSpace& fa_tiling_space() {
  static const TilingSpace space(
      "flash_attention_var_len_score",
      attn::with_l0_keys(
          {{.name = "s1_block",
            .lo = 16,
            .hi = 512,
            .multiple_of = 16,
            .default_rule =
                "128 (the vendor's S1 base; 64 when D + Dr > 256), halved until L1 and UB fit, then lowered by 16 "
                "while the work units (segment x head x s1_block rows) are fewer than the AI cores",
            .doc = "query rows per work unit (the cube's M); the two AIVs take half each"},
           {.name = "s2_block",
            .lo = 128,
            .hi = 1024,
            .multiple_of = 128,
            .default_rule = "the longest sequence's KV rounded up to 128, clamped to [128, 512] and to half the "
                            "longest KV rounded up to 128 (two score blocks per unit); lowered by 128 (not below 256) "
                            "until two K / V slots fit L1, else the longest with one slot, lowered until it fits",
            .doc = "KV columns per score block (the vendor's S2 block is up to 1024)",
            .follows = {"s1_block", "kv_buffers"}},
           {.name = "vec_rows",
            .lo = 8,
            .hi = 256,
            .multiple_of = 8,
            .default_rule = "the largest multiple of 8 that divides the AIV half and whose UB layout fits, with "
                            "vec_rows x s2_block <= core.ub_bytes / 24",
            .doc = "rows per vector sub-tile of the softmax",
            .follows = {"s1_block", "s2_block"}},
           {.name = "preload",
            .lo = 1,
            .hi = 4,
            .default_rule = "2 with two K / V slots, else 1",
            .doc = "score blocks the cube computes ahead of the softmax (S workspace slots = preload + 1)",
            .follows = {"kv_buffers"}},
           {.name = "block_dim",
            .lo = 1,
            .hi_is_ai_cores = true,
            .default_rule = "min(AI cores, work units)",
            .doc =
                "AI cores used; units (segment, head, s1_block rows) split in contiguous ranges balancing score blocks",
            .follows = {"s1_block"}},
           {.name = "kv_buffers",
            .lo = 1,
            .hi = 2,
            .default_rule = "2 when both K / V slots fit L1 with s2_block >= 256, else 1",
            .doc = "K / V block slots in L1 (2 lets MTE2 stream the next blocks during the softmax)",
            .follows = {"s1_block"}}}));
  return space;
}

namespace {
using attn::BlockTiling;
using attn::fit_vec_rows;
using attn::l1_bytes;
constexpr int64_t kRowAlign = 8;  // fp32 row arrays: 8 rows per 32-byte block

// The default rules, applied around the keys the case sets (`ov`): a set key keeps its value, and the rules that
// derive from it (preload from kv_buffers, the capacity fits) see it, so the keys left to them adapt.
BlockTiling choose(const attn::AttnProblem& p, const sim::HwConfig& hw, const Tiling& ov) {
  BlockTiling t;
  t.s1_block = p.qk_dim() > 256 ? 64 : 128;
  const bool s1_set = ov.pin("s1_block", t.s1_block);
  int64_t max_kv = 1;
  for (int64_t b = 0; b < p.B; ++b) max_kv = std::max(max_kv, p.act_kv[size_t(b)]);
  const int64_t longest =
      std::min(std::clamp<int64_t>(isa::round_up(max_kv, int64_t(128)), 128, 512), attn::two_blocks_cap(max_kv));
  const uint64_t l1 = uint64_t(hw.core.l1_bytes);
  const auto over_l1 = [&] { return l1_bytes(p, t) > l1; };
  // Two K / V slots let MTE2 stream the next block while the cube works, which is worth more than a longer
  // block (kernels/fa_varlen/README.md "Tiling": MLA D + Dr = 192 runs at 0.68 of the cube roofline with
  // 256 x 2 slots against 0.57 with 512 x 1): s2_block goes down to 256 to keep them, then one slot is used.
  t.kv_buffers = 2;
  const bool kvb_set = ov.pin("kv_buffers", t.kv_buffers);
  t.s2_block = longest;
  const bool s2_set = ov.pin("s2_block", t.s2_block);
  while (!s2_set && t.s2_block > std::min<int64_t>(longest, 256) && over_l1()) t.s2_block -= 128;
  if (!kvb_set && over_l1()) t.kv_buffers = 1, t.s2_block = s2_set ? t.s2_block : longest;
  while (!s2_set && t.s2_block > 128 && over_l1()) t.s2_block -= 128;
  while (!s1_set && t.s1_block > 16 && over_l1()) t.s1_block /= 2;
  // With two slots the cube runs two QK blocks ahead, so the softmax of one block overlaps both QK and PV.
  t.preload = t.kv_buffers == 2 ? 2 : 1;
  ov.pin("preload", t.preload);
  const attn::Lowerable may{.s1_block = !s1_set, .s2_block = !s2_set};
  attn::fit_ub(p, t, hw.core.ub_bytes, kRowAlign, 16, may);
  attn::fill_cores(p, t, ov.fixed("block_dim").value_or(hw.chip.ai_cores), 16, may);
  return t;
}
}  // namespace

attn::Plan make_fa_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& ov) {
  attn::Plan pl;
  pl.p = p;
  const BlockTiling c = choose(p, hw, ov);
  pl.t.s1_block = ov.choose("s1_block", c.s1_block);
  pl.t.s2_block = ov.choose("s2_block", c.s2_block);
  pl.t.preload = ov.choose("preload", c.preload);
  pl.t.kv_buffers = ov.choose("kv_buffers", c.kv_buffers);
  const int64_t vr = fit_vec_rows(p, pl.t, hw.core.ub_bytes, kRowAlign);
  pl.t.vec_rows = ov.choose("vec_rows", vr ? vr : kRowAlign);
  attn::check_vec_rows(pl.t, kRowAlign, false);
  attn::choose_l0(p, pl.t, hw, ov);
  attn::check_fit(p, pl.t, hw);
  attn::make_units(pl);
  pl.t.block_dim =
      ov.choose("block_dim", std::max<int64_t>(1, std::min<int64_t>(hw.chip.ai_cores, int64_t(pl.units.size()))));
  // Spec §2.3: a batch with Skv = 0 has m = l = 0 (the FA statistics; zero_rows picks them by batch).
  pl.outputs.empty_lse = 0;
  pl.outputs.p_round = pl.outputs.out_round = isa::RoundMode::ROUND;  // CAST_ROUND (README "Decisions")
  attn::finish_plan(pl);
  return pl;
}

}  // namespace npusim::op::fa
