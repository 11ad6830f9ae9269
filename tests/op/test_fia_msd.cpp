// FIA decode (query S = 1) with int8 K / V through MSD (kernels/attention/msd_block.cpp) end to end: bit-exact
// against the golden model's MSD path (tests/golden/attention_golden.h "MSD") and within the accuracy policy
// against the fp64 reference over exactly dequantised K / V, over spec §1.6's modes 0-5 and K0 / V1, symmetric and
// asymmetric, separated and combined parameters, fp16 / bf16 queries, GQA, dense / paged caches (both layouts,
// shuffled tables), flash-decoding splits, masks, pse, lse and 2 / 3 limbs; and the prompt kernel's MSD mode (a
// bfloat16 query with S <= 16: per-channel / per-token, causal and mask tensors, pse, actual lengths, invalid rows).
#include <gtest/gtest.h>

#include <functional>

#include "kernels/attention/attn_reference.h"
#include "kernels/fia/fia_int4_view.h"
#include "kernels/fia/fia_params.h"
#include "tests/op/case_test_support.h"
#include "tests/op/fia_case_writer.h"
#include "tests/op/fia_kernel_harness.h"

namespace npusim::op {
namespace {

using namespace attntest;
using namespace fiatest;
using attn::KvStorage;
using attn::Layout;
using attn::MaskKind;

class FiaMsd : public ::testing::TestWithParam<KernelCase> {};

TEST_P(FiaMsd, BitExactAgainstGoldenAndAccurate) {
  const KernelCase& mc = GetParam();
  const auto [ac, given, k] = run_case(mc);
  std::optional<CaseFile> view;
  const CaseFile& c = fia::int4_view(given, view);  // int32-packed K / V as int4
  const attn::AttnProblem p = parse_fia(c);
  ASSERT_TRUE(p.antiquant.msd);
  EXPECT_EQ(p.antiquant.k_mode, ac.p.antiquant.k_mode);
  EXPECT_EQ(p.antiquant.v_mode, ac.p.antiquant.v_mode);
  EXPECT_EQ(p.antiquant.per_tensor, ac.p.antiquant.per_tensor);
  EXPECT_EQ(p.antiquant.offset, ac.p.antiquant.offset);
  EXPECT_EQ(p.antiquant.int4, ac.p.antiquant.int4);
  EXPECT_EQ(p.antiquant.limbs, ac.p.antiquant.int4 ? 4 : p.Sq == 1 && p.inner_precise == 0 ? 3 : 2);
  EXPECT_EQ(p.antiquant.coef, ac.p.antiquant.coef);
  const attn::Plan plan = plan_of(c, p);
  if (mc.want_fd) {
    EXPECT_TRUE(plan.has_splits()) << "kv_splits " << plan.t.kv_splits;
  }
  expect_golden_and_accurate(c, ac, p, plan, k);
}

struct Modes {
  int k = 0, v = 0;
  bool per_tensor = false, offset = true, separated = true, int4 = false;
};

// A problem with int8 K / V and MSD parameters of the given modes: decode (IFA: 127 / 254, 2 or 3 limbs) or, with
// query S > 1, the prompt kernel's MSD mode (PFA: 127.49 / 254.98, 2 limbs, the separated parameters).
attn::AttnProblem msd(attn::AttnProblem p, Modes m) {
  p.antiquant = {};
  p.antiquant.on = p.antiquant.msd = true;
  p.antiquant.k_mode = m.k, p.antiquant.v_mode = m.v;
  p.antiquant.per_tensor = m.per_tensor, p.antiquant.offset = m.offset, p.antiquant.separated = m.separated;
  p.antiquant.limbs = p.Sq == 1 && p.inner_precise == 0 ? 3 : 2;
  if (p.Sq > 1) p.antiquant.coef = 127.49f, p.antiquant.expand = 254.98f, p.antiquant.separated = true;
  if (m.int4) p.antiquant.int4 = true, p.antiquant.limbs = 4, p.antiquant.coef = 7.49f, p.antiquant.expand = 14.98f;
  p.lse = true;
  return p;
}
attn::AttnProblem prompt(int64_t B, int64_t N, int64_t KV_N, int64_t Sq, int64_t Skv, int64_t D, Layout l) {
  return dense_problem(B, N, KV_N, Sq, Skv, D, l, ElemType::BF16);
}
attn::AttnProblem causal(attn::AttnProblem p) {  // sparse_mode 3 with the compressed mask
  p.sparse_mode = 3, p.mask = MaskKind::Compressed, p.mask_sq = p.mask_skv = 2048;
  return p;
}

AttnCase make(attn::AttnProblem p, uint64_t seed, const std::function<void(AttnCase&)>& post = {}) {
  AttnCase c;
  c.p = std::move(p);
  fill(c, seed);
  if (c.p.mask == MaskKind::Compressed) c.mask = triu_mask();
  add_msd_antiquant(c, seed);
  if (post) post(c);
  return c;
}

attn::AttnProblem dec(int64_t B, int64_t N, int64_t KV_N, int64_t Skv, int64_t D, Layout l,
                      ElemType t = ElemType::F16) {
  return dense_problem(B, N, KV_N, 1, Skv, D, l, t);
}
attn::AttnProblem paged(attn::AttnProblem p, KvStorage kv, int64_t block_size, std::vector<int64_t> act_kv) {
  p.kv = kv, p.block_size = block_size, p.kv_s = 0, p.act_kv = std::move(act_kv);
  return p;
}

std::vector<KernelCase> cases() {
  std::vector<KernelCase> v;
  auto add = [&](std::string name, std::function<AttnCase()> f, CaseExtras x = {}) {
    const bool fd = name.rfind("Splits", 0) == 0;  // "Splits*" cases must really split the KV
    v.push_back({std::move(name), std::move(f), std::move(x), fd});
  };
  // Every mode of spec §1.6 with its own parameter shape and dtype (separated unless named "Combined").
  add("PerChannelOffsetBsndGqa4", [] { return make(msd(dec(2, 8, 2, 700, 128, Layout::BSND), {0, 0}), 300); });
  add("PerChannelSymmetricBnsdBf16", [] {
    return make(msd(dec(2, 4, 2, 520, 128, Layout::BNSD, ElemType::BF16), {0, 0, false, false}), 301);
  });
  add("PerTensorOffsetBshD64", [] { return make(msd(dec(2, 6, 3, 400, 64, Layout::BSH), {0, 0, true}), 302); });
  add("CombinedPerTensorFp16", [] {
    return make(msd(dec(1, 4, 1, 333, 128, Layout::BSND), {0, 0, true, true, false}), 303);
  });
  add("CombinedPerChannelOffsetBf16D96", [] {
    return make(msd(dec(2, 4, 2, 300, 96, Layout::BNSD, ElemType::BF16), {0, 0, false, true, false}), 304);
  });
  add("PerTokenOffsetBsnd", [] { return make(msd(dec(2, 8, 2, 650, 128, Layout::BSND), {1, 1}), 305); });
  add("CombinedPerTokenBf16", [] {
    return make(msd(dec(2, 4, 1, 300, 128, Layout::BSH, ElemType::BF16), {1, 1, false, true, false}), 306);
  });
  add("PerTensorHeadOffset", [] { return make(msd(dec(2, 8, 4, 300, 64, Layout::BNSD), {2, 2}), 307); });
  add("PerTokenHeadSymmetricBnsd", [] {
    return make(msd(dec(2, 8, 2, 600, 128, Layout::BNSD), {3, 3, false, false}), 308);
  });
  add("PerTokenHeadOffsetBf16", [] {
    return make(msd(dec(1, 4, 2, 300, 64, Layout::BSND, ElemType::BF16), {3, 3}), 309);
  });
  add("KChannelVTokenOffset", [] { return make(msd(dec(2, 8, 2, 500, 128, Layout::BSND), {0, 1}), 310); });
  add("KChannelVTokenSymmetricGqa16", [] {
    return make(msd(dec(1, 16, 1, 700, 128, Layout::BSH), {0, 1, false, false}), 311);
  });
  // Page attention: the per-token parameters of modes 4 / 5 live in the cache's blocks; both cache layouts, shuffled
  // tables, blocks of 32..512 (int8 pages are 32-aligned), and the dense modes with a paged cache.
  add("PagedTokenBlock128", [] {
    return make(msd(paged(dec(2, 8, 2, 0, 128, Layout::BSH), KvStorage::PagedBsH, 128, {700, 97}), {4, 4}), 320);
  });
  add("PagedTokenHeadNBsDBlock64", [] {
    return make(msd(paged(dec(2, 4, 2, 0, 64, Layout::BNSD), KvStorage::PagedNBsD, 64, {300, 129}), {5, 5}), 321);
  });
  add("PagedTokenHeadBlock32Bf16", [] {
    return make(msd(paged(dec(2, 4, 2, 0, 128, Layout::BSH, ElemType::BF16), KvStorage::PagedBsH, 32, {200, 37}),
                    {5, 5, false, false}),
                322);
  });
  add("PagedTokenSymmetricBlock512", [] {
    return make(msd(paged(dec(1, 8, 1, 0, 128, Layout::BNSD), KvStorage::PagedNBsD, 512, {1300}), {4, 4, false, false}),
                323);
  });
  add("PagedPerChannelBlock128", [] {
    return make(msd(paged(dec(2, 4, 2, 0, 128, Layout::BSH), KvStorage::PagedBsH, 128, {400, 260}), {0, 0}), 324);
  });
  add("PagedPerTokenMode1", [] {
    return make(msd(paged(dec(2, 4, 2, 0, 64, Layout::BNSD), KvStorage::PagedNBsD, 32, {150, 70}), {1, 1}), 325);
  });
  // Limbs: inner_precise 0 -> 3 limbs; L x G = 96 cube rows with G 32.
  add("ThreeLimbsPerChannel", [] {
    auto p = dec(2, 8, 2, 500, 128, Layout::BSND);
    p.inner_precise = 0;
    return make(msd(p, {0, 0}), 330);
  });
  add("ThreeLimbsPerTokenGqa32", [] {
    auto p = dec(1, 32, 1, 400, 128, Layout::BSH);
    p.inner_precise = 0;
    return make(msd(p, {1, 1}), 331);
  });
  // The largest heads: D 512 (query chunks of 8 rows, O chunks through the shared limb region), D 256 with G 32.
  add("D512Bf16PerTokenGqa8", [] {
    return make(msd(dec(1, 8, 1, 700, 512, Layout::BNSD, ElemType::BF16), {1, 1}), 332);
  });
  add("D256ThreeLimbsGqa32", [] {
    auto p = dec(1, 32, 1, 500, 256, Layout::BSND);
    p.inner_precise = 0;
    return make(msd(p, {0, 0}), 333);
  });
  // Tensor-list K / V (every dense mode) and a shared prefix (per-channel / per-tensor modes).
  add("TensorListPerTokenOffset",
      [] {
        auto p = dec(3, 4, 2, 600, 64, Layout::BSND);
        p.kv = KvStorage::List, p.list_s = {100, 600, 257}, p.act_kv = {100, 600, 257};
        return make(msd(p, {1, 1}), 370);
      },
      {.tiling = "kv_splits: 2"});
  add("TensorListPerTensorHead", [] {
    auto p = dec(2, 8, 2, 300, 128, Layout::BSH);
    p.kv = KvStorage::List, p.list_s = {300, 77}, p.act_kv = {300, 77};
    return make(msd(p, {2, 2}), 371);
  });
  add("SharedPrefixPerChannelOffsetLse",
      [] {
        auto p = dec(2, 4, 2, 300, 64, Layout::BNSD);
        p.prefix = true, p.prefix_s = 200, p.prefix_len = 150, p.act_kv = {300, 5};
        return make(msd(p, {0, 0}), 372);
      },
      {.tiling = "kv_splits: 3, s2_block: 128"});
  // Per-token parameters with a prefix: its rows at batch 0's first tokens, the batch's own rows after them
  // (AttnProblem::token_param_at); 128-column blocks straddle the prefix's end.
  add("SharedPrefixPerTokenOffsetStraddle",
      [] {
        auto p = dec(2, 4, 2, 300, 64, Layout::BNSD);
        p.prefix = true, p.prefix_s = 200, p.prefix_len = 150, p.act_kv = {300, 5};
        return make(msd(p, {1, 1}), 374);
      },
      {.tiling = "s2_block: 128"});
  add("SplitsSharedPrefixPerTokenHeadBf16",
      [] {
        auto p = dec(2, 8, 2, 500, 128, Layout::BSND, ElemType::BF16);
        p.prefix = true, p.prefix_s = 77, p.prefix_len = 77;
        return make(msd(p, {3, 3}), 375);
      },
      {.tiling = "kv_splits: 3, s2_block: 128"});
  add("SharedPrefixKChannelVTokenSymmetric", [] {
    auto p = dec(3, 4, 1, 260, 64, Layout::BSH);
    p.prefix = true, p.prefix_s = 64, p.prefix_len = 40, p.act_kv = {260, 1, 100};
    return make(msd(p, {0, 1, false, false}), 376);
  });
  add("SharedPrefixPerTensorBf16", [] {
    auto p = dec(1, 8, 1, 500, 128, Layout::BSH, ElemType::BF16);
    p.prefix = true, p.prefix_s = 300, p.prefix_len = 300;
    return make(msd(p, {0, 0, true, false}), 373);
  });
  // Flash-decoding: the partials carry V's per-channel parameters and the K offset's lse term in m.
  add("SplitsPerChannelOffsetLse",
      [] {
        return make(msd(dec(1, 8, 2, 1500, 128, Layout::BSND), {0, 0}), 340);
      },
      {.tiling = "kv_splits: 3, s2_block: 128"});
  add("SplitsPerTokenOffset",
      [] {
        return make(msd(dec(1, 4, 1, 1300, 128, Layout::BNSD), {1, 1}), 341);
      },
      {.tiling = "kv_splits: 4"});
  // Masks, pse, a fully masked later block (per-token V: P = 0 there, amax2 = 0), empty KV, left padding, int8 out.
  add("PerTokenMaskPse",
      [] {
        auto p = dec(2, 4, 2, 400, 64, Layout::BSND);
        p.mask = MaskKind::Full, p.mask_per_batch = true, p.mask_sq = 1, p.mask_skv = 400;
        p.pse = true, p.pse_b = 2, p.pse_sq = 1, p.pse_skv = 400;
        return make(msd(p, {1, 1}), 350);
      },
      {.tiling = "s2_block: 128"});
  add("PerTokenFullyMaskedLaterBlock",
      [] {
        auto p = dec(2, 4, 2, 400, 64, Layout::BSND);
        p.mask = MaskKind::Full, p.mask_per_batch = true, p.mask_sq = 1, p.mask_skv = 400;
        return make(msd(p, {3, 3}), 351, [](AttnCase& c) {
          for (int64_t j = 0; j < 400; ++j) c.mask.set(j, j >= 128 && j < 256 ? 1.0 : 0.0);  // batch 0: block 1 masked
        });
      },
      {.tiling = "s2_block: 128"});
  add("ZeroLengthKvBatch",
      [] {
        auto p = dec(3, 4, 2, 300, 64, Layout::BSND);
        p.act_kv = {0, 300, 77};
        return make(msd(p, {1, 1}), 352);
      },
      {.lengths = true});
  add("LeftPaddingPerToken",
      [] {
        auto p = dec(2, 4, 2, 400, 64, Layout::BSH);
        p.left_pad = true, p.kv_pad = 30, p.act_q = {1, 1}, p.act_kv = {300, 77};
        return make(msd(p, {3, 3}), 353);
      },
      {.tiling = "kv_splits: 2"});
  // Query S in 2..16 with a bfloat16 query: the prompt kernel's MSD mode (per-channel (KV_N, 1, D) bf16 / per-token
  // (B, S) fp32 separated parameters; 127.49 / 254.98, 2 limbs, CAST_ROUND output), prompt units of 16 rows.
  add("PromptPerChannelOffsetBsndGqa4", [] {
    return make(msd(prompt(2, 8, 2, 8, 600, 128, Layout::BSND), {0, 0}), 360);
  });
  add("PromptPerTokenOffsetCausalSq16", [] {
    return make(msd(causal(prompt(2, 4, 2, 16, 700, 128, Layout::BSH)), {1, 1}), 361);
  });
  add("PromptPerChannelMaskPseBnsdSq5", [] {
    auto p = prompt(2, 4, 1, 5, 300, 64, Layout::BNSD);
    p.mask = MaskKind::Full, p.mask_per_batch = true, p.mask_sq = 5, p.mask_skv = 300;
    p.pse = true, p.pse_b = 2, p.pse_sq = 5, p.pse_skv = 300;
    return make(msd(p, {0, 0, false, false}), 362);
  });
  add("PromptPerTokenActualLengthsSq2",
      [] {
        auto p = prompt(3, 8, 2, 2, 400, 64, Layout::BSND);
        p.act_q = {2, 1, 2}, p.act_kv = {400, 133, 1};
        return make(msd(p, {1, 1}), 363);
      },
      {.lengths = true});
  add("PromptInvalidRowsRowFixPerChannelOffset", [] {
    auto p = prompt(2, 4, 2, 6, 300, 64, Layout::BSND);
    p.mask = MaskKind::Full, p.mask_per_batch = true, p.mask_sq = 6, p.mask_skv = 300, p.inner_precise = 2,
    p.row_fix = true;
    return make(msd(p, {0, 0}), 364, [](AttnCase& c) {
      for (int64_t j = 0; j < 300; ++j)
        c.mask.set(2 * 300 + j, 1.0), c.mask.set(6 * 300 + 5 * 300 + j, 1.0);  // rows b0 i2, b1 i5
    });
  });
  add("PromptSharedPrefixPerChannelOffsetLse",
      [] {
        auto p = prompt(2, 8, 2, 6, 400, 128, Layout::BSND);
        p.prefix = true, p.prefix_s = 300, p.prefix_len = 211, p.act_kv = {400, 37};
        return make(msd(p, {0, 0}), 367);
      },
      {.lengths = true});
  add("PromptSharedPrefixPerChannelSymmetricCausalBnsd", [] {
    auto p = causal(prompt(1, 4, 1, 16, 500, 64, Layout::BNSD));
    p.prefix = true, p.prefix_s = 130, p.prefix_len = 130;
    return make(msd(p, {0, 0, false, false}), 368);
  });
  add("PromptLongKvNoMaskBlock1024", [] {
    return make(msd(prompt(1, 2, 1, 3, 2600, 128, Layout::BSND), {1, 1}), 365);
  });
  add("PromptPostQuantInt8Out", [] {
    return make(msd(causal(prompt(2, 4, 2, 12, 300, 64, Layout::BSND)), {0, 0}), 366,
                [](AttnCase& c) { add_post_quant(c, false, true, 66, 20, 400, true); });
  });
  // Int4 K / V (spec §1.6: separated parameters, modes 0 / 1 / 3 and K 0 / V 1, D % 64, no pages): int4 limbs, 4 of
  // them, 7.49 / 14.98; odd blocks run P V with K = n + 1. The int32-packed view of the same data gives the same bits.
  const Modes i4pc{0, 0, false, true, true, true}, i4pt{1, 1, false, true, true, true},
      i4pth{3, 3, false, false, true, true}, i4cv{0, 1, false, true, true, true};
  add("Int4PerChannelOffsetBsndGqa4OddBlock",
      [=] { return make(msd(dec(2, 8, 2, 701, 128, Layout::BSND), i4pc), 380); });
  add("Int4PerChannelOffsetInt32View", [=] { return make(msd(dec(2, 8, 2, 701, 128, Layout::BSND), i4pc), 380); },
      {.int32_kv = true});
  add("Int4PerTokenOffsetBshBf16",
      [=] { return make(msd(dec(2, 4, 2, 517, 64, Layout::BSH, ElemType::BF16), i4pt), 381); });
  add("Int4PerTokenHeadSymmetricBnsd", [=] { return make(msd(dec(2, 8, 2, 300, 128, Layout::BNSD), i4pth), 382); });
  add("Int4KChannelVTokenBf16D64",
      [=] { return make(msd(dec(2, 4, 1, 257, 64, Layout::BSND, ElemType::BF16), i4cv), 383); });
  add("Int4D512Gqa8Bnsd", [=] { return make(msd(dec(1, 8, 1, 333, 512, Layout::BNSD, ElemType::BF16), i4pt), 384); });
  add("Int4D128Gqa64", [=] { return make(msd(dec(1, 64, 1, 400, 128, Layout::BSH), i4pc), 385); });  // L x G = 256 rows
  add("Int4D256Gqa32", [=] { return make(msd(dec(1, 32, 1, 301, 256, Layout::BSND), i4pt), 389); });
  add("Int4TensorListPerToken",
      [=] {
        auto p = dec(3, 4, 2, 601, 64, Layout::BSND);
        p.kv = KvStorage::List, p.list_s = {100, 601, 257}, p.act_kv = {100, 601, 257};
        return make(msd(p, i4pt), 386);
      },
      {.tiling = "kv_splits: 2", .int32_kv = true});
  add("Int4SharedPrefixPerChannelLse",
      [=] {
        auto p = dec(2, 4, 2, 300, 64, Layout::BNSD);
        p.prefix = true, p.prefix_s = 200, p.prefix_len = 151, p.act_kv = {300, 5};
        return make(msd(p, i4pc), 387);
      },
      {.tiling = "kv_splits: 3, s2_block: 128"});
  add("Int4SharedPrefixPerTokenOffset",
      [=] {
        auto p = dec(2, 4, 2, 200, 128, Layout::BSND);
        p.prefix = true, p.prefix_s = 190, p.prefix_len = 190, p.act_kv = {200, 3};
        return make(msd(p, i4pt), 397);
      },
      {.tiling = "s2_block: 128"});
  add("SplitsInt4PerChannelOffset", [=] { return make(msd(dec(1, 8, 2, 1501, 128, Layout::BSND), i4pc), 388); },
      {.tiling = "kv_splits: 3, s2_block: 128"});
  add("PostQuantPerChannelInt8Out", [] {
    return make(msd(dec(2, 4, 2, 300, 64, Layout::BSND), {0, 0}), 354,
                [](AttnCase& c) { add_post_quant(c, true, true, 55); });
  });
  // A deeper cube preload: the AIVs write a unit's query limbs `preload` steps ahead, so up to preload + 1 units hold
  // limbs and amax1 / rq slots at once (Plan::q_slots). One core walking many one- or two-block units makes every slot
  // live; the K offsets (per-channel: the lse term read at the unit's end; per-token: rq read by every block) check
  // that each unit reads its own slot. (Before the slots, preload 2 deadlocked.)
  add("Preload4OneBlockUnitsPerChannelOffsetLse",
      [] {
        return make(msd(dec(6, 4, 2, 100, 64, Layout::BSND), {0, 0}), 391);
      },
      {.tiling = "preload: 4, block_dim: 1"});
  add("Preload2TwoBlockUnitsPerTokenOffset",
      [] {
        return make(msd(dec(4, 8, 2, 256, 128, Layout::BNSD), {1, 1}), 392);
      },
      {.tiling = "s2_block: 128, preload: 2, block_dim: 1"});
  add("SplitsPreload3PerChannelOffsetLse",
      [] {
        return make(msd(dec(2, 8, 2, 700, 128, Layout::BSND), {0, 0}), 393);
      },
      {.tiling = "kv_splits: 4, s2_block: 128, preload: 3, block_dim: 2"});
  add("Int4Preload3PerTokenOffset", [=] { return make(msd(dec(3, 8, 2, 200, 128, Layout::BSND), i4pt), 394); },
      {.tiling = "preload: 3, block_dim: 1"});
  add("PromptPreload2PerChannelOffsetLse",
      [] {
        return make(msd(prompt(3, 8, 2, 8, 300, 128, Layout::BSND), {0, 0}), 395);
      },
      {.tiling = "preload: 2, block_dim: 2"});
  add("PromptPreload4PerTokenOffsetCausal",
      [] {
        return make(msd(causal(prompt(2, 4, 2, 16, 200, 64, Layout::BSH)), {1, 1}), 396);
      },
      {.tiling = "preload: 4, block_dim: 1"});
  return v;
}

// The golden model alone against the references (no kernel): MSD's own error stays within the accuracy policy.
TEST(FiaMsdGolden, PassesTheAccuracyPolicy) {
  for (int64_t limbs : {2, 3}) {
    attn::AttnProblem p = dec(2, 8, 2, 700, 128, Layout::BSND);
    p.inner_precise = limbs == 3 ? 0 : 1;
    const AttnCase ac = make(msd(p, {0, 0}), 310 + uint64_t(limbs));
    attn::AttnData d = ac.data();
    const golden::AttnGoldenOut g = golden::attention_golden(ac.p, d, 16, 512, 1);
    for (const Reference& ref : attn::attention_references(ac.p, d)) {
      const auto acc =
          compare_accuracy(ref.output, ref.output == "attention_out" ? g.out : g.lse, ref.ref64, ref.naive, ref.working,
                           ref.reduction_len, ref.gate_fa_rule, ref.unspecified, ref.tolerance);
      EXPECT_TRUE(acc.pass()) << limbs << " limbs\n" << format_report(acc);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, FiaMsd, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace npusim::op
