// The FIA kernel's tiling: declared keys and the choice of their values (kernels/fia/README.md "Tiling").
#include <algorithm>
#include <limits>

#include "kernels/attention/buffers.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/tiling_fit.h"
#include "kernels/attention/tiling_keys.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/host/case_file.h"

namespace npusim::op::fia {

const TilingSpace& fia_tiling_space() {
  static const TilingSpace space(
      "fused_infer_attention_score",
      attn::attention_keys(
          {.s1_block = {.default_rule =
                            "128 (64 when D > 256); query S = 1: the G heads of a KV head rounded up to 16; halved "
                            "until L1 and UB fit; at query S > 1 then lowered by 16 while the work units (batch x "
                            "head x s1_block rows) are fewer than the AI cores"},
           .s2_block = {.default_rule =
                            "the longest KV rounded up to 128, clamped to [128, 256] for an fp32 softmax at query S > "
                            "1 (and at most half the longest KV rounded up to 128 there: two score blocks per unit), "
                            "[128, 896] with full quantisation at query S > 1, "
                            "else [128, 512] (MSD antiquant at query S = 1: to the vendor's 1024 with G > 1, 8192 "
                            "with G = 1, whole pages); lowered by 128 until L1 fits (and UB, once s1_block is down to "
                            "32); query S = 1: then the smallest block that gives a KV split no more blocks",
                        .follows = {keys::s1_block, keys::kv_splits},
                        .hi = 4096},
           .vec_rows =
               {.default_rule =
                    "the largest multiple of 8 (16 in fp16 high-performance mode) that divides the AIV half "
                    "and whose UB layout fits, with vec_rows x s2_block <= core.ub_bytes / 24 (8192 on 192 KiB)",
                .follows = {keys::s1_block, keys::s2_block}},
           .preload =
               {.default_rule =
                    "2 at query S > 1 (one block beyond the vendor's PFA prefetch), 1 at query S = 1 and with MSD"},
           .block_dim = {.default_rule = "min(AI cores, work units)", .follows = {keys::s1_block}},
           .kv_buffers = {.default_rule =
                              "2 when the preload is 1 (query S = 1, MSD) and both K / V slots fit L1, else 1",
                          .follows = {keys::s1_block, keys::s2_block, keys::preload}}},
          {{.name = keys::kv_splits,
            .lo = 1,
            .hi = 256,
            .default_rule =
                "query S = 1 only: cores / (B x KV_N) when B x KV_N <= cores / 2, lowered while a split holds < 512 KV",
            .doc = "flash-decoding: KV splits per (batch, KV head), combined after SyncAll"},
           {.name = keys::kv_l2_bypass,
            .lo = 0,
            .hi = 1,
            .default_rule =
                "1 at query S = 1 when key + value bytes >= 1.2 x l2.bytes (the vendor's IFA l2CacheOffFlag_), else 0",
            .doc = "1: K / V are read around the L2 (SetL2CacheHint(CACHE_MODE_DISABLE)), 0: through it"}}));
  return space;
}

namespace {
using attn::BlockTiling;
using attn::l1_bytes;
using isa::round_up;

int64_t max_skv(const attn::AttnProblem& p) {
  int64_t m = 0;
  for (int64_t b = 0; b < p.B; ++b) m = std::max(m, p.skv_eff(b));
  return m;
}

// Row arrays (max, sum, alpha) are indexed by sub-tile: offsets must stay on 32-byte blocks (16 f16 rows).
int64_t row_align(const attn::AttnProblem& p) { return p.high_perf ? 16 : 8; }

// Flash-decoding split count (hardware.md §5, vendor IsFlashDecode / SplitBNS): when B * KV_N <= cores / 2,
// kv_splits = cores / (B * KV_N), lowered while the longest KV per split is under 512 tokens.
int64_t auto_kv_splits(const attn::AttnProblem& p, const sim::HwConfig& hw) {
  const int64_t groups = p.B * p.KV_N, cores = hw.chip.ai_cores;
  if (groups == 0 || 2 * groups > cores) return 1;
  int64_t ns = cores / groups;
  while (ns > 1 && max_skv(p) / ns < 512) --ns;
  return std::max<int64_t>(ns, 1);
}

// MSD (KV antiquantisation at query S = 1): the KV columns of the vendor's online-softmax step (IFA tiling
// sInnerSize_, msd_research.md §1): 1024 with G > 1, 8192 with G = 1; under page attention rounded down to whole
// blocks. npusim's blocks are multiples of 128 columns, so a block size the vendor rounds to another multiple
// (a page size that does not divide it) cannot be matched exactly; the nearest multiple of 128 below is used.
int64_t msd_block(const attn::AttnProblem& p) {
  // The prompt kernel's MSD mode (query S <= 16; PFA AdjustCVTilingCVDiff): 512, or 1024 beyond 2048 KV without a mask.
  if (p.Sq > 1) return p.mask == attn::MaskKind::None && max_skv(p) > 2048 ? 1024 : 512;
  int64_t s = p.G > 1 ? 1024 : 8192;
  const bool paged = p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD;
  if (paged && p.block_size > 0 && p.block_size <= s) s = s / p.block_size * p.block_size;
  return std::max<int64_t>(128, s / 128 * 128);
}

// The default rules, applied around the keys the case sets (`ov`): a set key keeps its value, and the rules that
// derive from it (kv_buffers from preload, the capacity fits) see it, so the keys left to them adapt.
BlockTiling choose(const attn::AttnProblem& p, const sim::HwConfig& hw, const Tiling& ov) {
  BlockTiling t;
  t.s1_block = p.D > 256 ? 64 : 128;  // vendor PFA: sOuter halves for large D (kernels/fia/README.md)
  if (p.Sq == 1) t.s1_block = std::max<int64_t>(16, round_up(p.G, 16));  // decode: the G heads of a KV head
  // The prompt kernel's MSD mode: the whole query S (<= 16) in one block.
  if (p.antiquant.msd && p.Sq > 1) t.s1_block = 16;
  const bool s1_set = ov.pin(keys::s1_block, t.s1_block);
  // An fp32 softmax takes its row max by block reductions up to 256 columns (VecOps::row_reduce, the PTO kernel's
  // TILE_S1 256): 4-15% faster than 512 on the prompt perf cases; fp16 (high-performance mode) keeps 512.
  // Full quantisation (int8 Q / K / V, fp16 softmax) goes longer: its int8 K / V blocks take half the L1, and
  // each score block's fixed vector cost is spread over more columns (fia_perf_s8192_int8: 8,365,902 cycles at 512,
  // 7,169,567 at 768, 6,961,737 at 896; fp16 high performance is 6% slower at 640 than at 512): up to 896, the
  // longest block whose 16-row fp16 sub-tile stays one counter-mode instruction (16 x 896 of 255 x 64).
  const int64_t hi = p.full_quant.on && p.Sq > 1 ? 896 : p.high_perf || p.Sq == 1 ? 512 : 256;
  t.s2_block = std::clamp<int64_t>(round_up(std::max<int64_t>(max_skv(p), 1), 128), 128, hi);
  // The prompt's load-balance rules (tiling_fit.h); an empty KV has no work to spread (its units only write rows).
  const bool balance = p.Sq > 1 && !p.antiquant.msd && max_skv(p) > 0;
  if (balance) t.s2_block = std::min(t.s2_block, attn::two_blocks_cap(max_skv(p)));
  // MSD: the vendor's block, since MSD's bits depend on it.
  if (p.antiquant.msd) t.s2_block = std::min(msd_block(p), round_up(std::max<int64_t>(max_skv(p), 1), 128));
  const bool s2_set = ov.pin(keys::s2_block, t.s2_block);
  // Prompt: the cube computes two score blocks ahead of the softmax. The vendor's PFA kernel prefetches one
  // (prompt_flash_attention_s1s2_bns1_x910.h "Pre fetch the next mm1 calculation"); on this model the second block
  // of slack is 0.4-1.3% faster on the S 2048 perf cases and 12% on int8, where the cube outruns the softmax.
  // Decode is bound by the K / V stream, where the extra S slot only delays it.
  t.preload = p.Sq > 1 && !p.antiquant.msd ? 2 : 1;
  ov.pin(keys::preload, t.preload);
  // Two K / V slots when they fit and exceed the preload: MTE2 then streams the next block while the cube waits for
  // the softmax (with kv_buffers <= preload the second slot never streams and only moves the loads: a doubled L1
  // took it and ran slower). Decode is bound by exactly that stream, so it trades s2_block for the second slot.
  t.kv_buffers = t.preload < 2 ? 2 : 1;
  const bool kvb_set = ov.pin(keys::kv_buffers, t.kv_buffers);
  const uint64_t l1 = uint64_t(hw.core.l1_bytes);
  const auto over_l1 = [&] { return l1_bytes(p, t) > l1; };
  // MSD: one K / V slot before a smaller block (the block is the vendor's); decode: a smaller block before one slot.
  if (p.antiquant.msd && !kvb_set && over_l1()) t.kv_buffers = 1;
  if (p.Sq == 1 || p.antiquant.msd)
    while (!s2_set && t.s2_block > 128 && over_l1()) t.s2_block -= 128;
  if (!kvb_set && over_l1()) t.kv_buffers = 1;
  while (!s2_set && t.s2_block > 128 && over_l1()) t.s2_block -= 128;
  // Decode: the KV splits take whole score blocks, so the block that fits is evened out over them (4,096 KV in 8
  // splits: 256-column blocks, two per split, not 384 with some splits holding one).
  if (p.Sq == 1 && !p.antiquant.msd && !s2_set)
    t.s2_block = attn::even_blocks(max_skv(p), ov.fixed(keys::kv_splits).value_or(auto_kv_splits(p, hw)), t.s2_block);
  while (!s1_set && p.Sq > 1 && t.s1_block > 32 && over_l1()) t.s1_block /= 2;
  const attn::Lowerable may{.s1_block = !s1_set, .s2_block = !s2_set};
  const int64_t min_s1 = p.Sq > 1 && !p.antiquant.msd ? 32 : t.s1_block;  // decode: s1 holds the G heads
  attn::fit_ub(p, t, hw.core.ub_bytes, row_align(p), min_s1, may);
  if (balance) attn::fill_cores(p, t, ov.fixed(keys::block_dim).value_or(hw.chip.ai_cores), 16, may);
  return t;
}

}  // namespace

attn::Plan make_fia_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& ov) {
  attn::Plan pl;
  pl.p = p;
  attn::choose_blocks(pl, choose(p, hw, ov), ov);
  pl.decode = p.Sq == 1;
  if (pl.decode) pl.t.kv_splits = ov.choose(keys::kv_splits, auto_kv_splits(p, hw));
  attn::choose_vec_rows(pl, hw.core.ub_bytes, ov, row_align(p), p.high_perf);
  if (pl.decode && pl.t.s1_block < p.G)
    throw CaseError("tiling.s1_block = " + std::to_string(pl.t.s1_block) + " must hold the G = " + std::to_string(p.G) +
                    " query heads of a KV head (query S = 1)");
  attn::finish_tiling(pl, hw, ov);
  // Spec Decisions: rows nobody computes read +inf (the vendor pre-fills lse); empty KV at query S = 1 -3.4e38.
  pl.outputs.empty_lse = pl.decode ? -3.4e38 : std::numeric_limits<double>::infinity();
  // MSD: the vendor's decode kernel casts an fp16 output with CAST_ROUND (msd_research.md §7), its prompt kernel's
  // MSD mode a bf16 output too (PFA prompt_flash_attention_s1s2_bns1_x910_base.h).
  if (p.antiquant.msd && (p.out == ElemType::F16 || !pl.decode)) pl.outputs.out_round = isa::RoundMode::ROUND;
  attn::finish_plan(pl);
  return pl;
}

}  // namespace npusim::op::fia
