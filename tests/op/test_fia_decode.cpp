// The FIA kernel at query S = 1 (decode, flash-decoding when kv_splits > 1) end to end: bit-exact against the
// golden model (tests/golden/attention_golden.h, with the plan's kv_splits) and within the accuracy policy,
// over numerics.md §5 items 4-7 and the decode features of the spec (masks (B, Skv) in every shape, pse,
// pages of 1..512 tokens, empty KV, left padding, prefix, tensor lists). Unused tensor positions hold NaN
// (attention_test_support.h), so an addressing mistake shows up as NaN in the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <ostream>

#include "kernels/accuracy/accuracy.h"
#include "kernels/fia/fia_params.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/op/op.h"
#include "sim/config/hw_config.h"
#include "tests/golden/attention_golden.h"
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

using DecodeCase = KernelCase;

class FiaDecode : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(FiaDecode, BitExactAgainstGoldenAndAccurate) {
  const DecodeCase& fc = GetParam();
  const auto [ac, c, k] = run_case(fc);
  const attn::AttnProblem p = parse_fia(c);
  ASSERT_EQ(p.Sq, 1);
  // The parameter layer kept what the case asks for (a dropped mask or pse would still agree with the golden).
  EXPECT_EQ(p.mask, ac.p.mask);
  EXPECT_EQ(p.pse, ac.p.pse);
  EXPECT_FALSE(p.high_perf);
  // The golden follows the kernel's tiling: the plan's s2_block and kv_splits (case overrides included).
  const attn::Plan plan = plan_of(c, p);
  if (fc.want_fd) {
    EXPECT_TRUE(plan.has_splits()) << "kv_splits " << plan.t.kv_splits;
  }
  RecordProperty("kv_splits", std::to_string(plan.t.kv_splits));
  expect_golden_and_accurate(c, ac, p, plan, k);
}

// ---- the case matrix ----
AttnCase make(attn::AttnProblem p, uint64_t seed, const std::function<void(AttnCase&)>& post = {}) {
  AttnCase c;
  c.p = std::move(p);
  c.p.lse = true;
  fill(c, seed);
  if (post) post(c);
  return c;
}

attn::AttnProblem dec(int64_t B, int64_t N, int64_t KV_N, int64_t Skv, int64_t D, Layout l,
                      ElemType t = ElemType::F16) {
  return dense_problem(B, N, KV_N, 1, Skv, D, l, t);
}

// A (B or 1, 1, Skv + pad) bool mask (the problem's view of every accepted shape; see reshape_mask).
attn::AttnProblem with_mask(attn::AttnProblem p, int64_t pad = 0) {
  p.mask = MaskKind::Full, p.mask_per_batch = p.B > 1, p.mask_sq = 1, p.mask_skv = p.kv_s + p.prefix_len + pad;
  return p;
}
// The same bytes as (B, Skv) (rank 2) or (B, 1, 1, Skv) (rank 4).
std::function<void(AttnCase&)> reshape_mask(int rank) {
  return [rank](AttnCase& c) {
    const int64_t b = c.mask.shape[0], s = c.mask.shape[2];
    c.mask.shape = rank == 2 ? std::vector<int64_t>{b, s} : std::vector<int64_t>{b, 1, 1, s};
  };
}
attn::AttnProblem with_pse(attn::AttnProblem p, bool per_batch) {
  p.pse = true, p.pse_b = per_batch ? p.B : 1, p.pse_sq = 1, p.pse_skv = p.kv_s + p.prefix_len;
  return p;
}
// Every column of batch 0's mask row set: the row is invalid (fully masked) for all its heads.
void mask_batch0(AttnCase& c) {
  for (int64_t j = 0; j < c.p.mask_skv; ++j) c.mask.set(j, 1.0);
}
attn::AttnProblem paged(attn::AttnProblem p, KvStorage kv, int64_t block_size, std::vector<int64_t> act_kv) {
  p.kv = kv, p.block_size = block_size, p.kv_s = 0, p.act_kv = std::move(act_kv);
  return p;
}
std::string splits(int64_t k, const std::string& more = "") {
  return "kv_splits: " + std::to_string(k) + (more.empty() ? "" : ", " + more);
}

std::vector<DecodeCase> cases() {
  std::vector<DecodeCase> v;
  const std::string k3 = splits(3, "s2_block: 128");  // 3 splits even on short KV (blocks of 128)
  auto add = [&](std::string name, std::function<AttnCase()> f, CaseExtras x = {}, bool fd = false) {
    v.push_back({std::move(name), std::move(f), std::move(x), fd});
  };
  // numerics.md §5 item 4: split-KV decode shapes with kv_splits 1, 3 and the automatic choice; s2_block 128
  // variants so that 3 splits really happen on the short KV.
  struct Shape {
    const char* name;
    int64_t B, N, KV_N, kv, D;
    Layout l;
    ElemType t;
  };
  std::vector<Shape> shapes = {{"B1Kv339", 1, 6, 2, 339, 128, Layout::BSH, ElemType::F16},
                               {"B3Kv1024", 3, 32, 4, 1024, 128, Layout::BNSD, ElemType::BF16},
                               {"B64Kv800", 64, 8, 1, 800, 64, Layout::BSND, ElemType::F16}};
  if (NPUSIM_LONG_TESTS) {
    shapes.push_back({"B16Kv20000", 16, 8, 1, 20000, 128, Layout::BSND, ElemType::BF16});
    shapes.push_back({"B1Kv131072", 1, 8, 1, 131072, 128, Layout::BNSD, ElemType::F16});
  }
  uint64_t seed = 100;
  for (const Shape& s : shapes) {
    const auto f = [s, sd = seed++] { return make(dec(s.B, s.N, s.KV_N, s.kv, s.D, s.l, s.t), sd); };
    add(std::string(s.name) + "Splits1", f, {.tiling = splits(1)});
    add(std::string(s.name) + "Splits3", f, {.tiling = splits(3)}, s.kv > 512);
    add(std::string(s.name) + "SplitsAuto", f);
    if (s.kv <= 1024) add(std::string(s.name) + "Splits3S2Block128", f, {.tiling = k3}, true);
  }
  // Flash-decoding chosen by the kernel itself: B * KV_N = 2 groups on 24 cores, 8 blocks of 512.
  add(
      "AutoFlashDecodingB1KvN2Kv4096", [] { return make(dec(1, 8, 2, 4096, 128, Layout::BSND), 110); }, {}, true);
  // numerics.md §5 item 5: GQA ratios.
  add("Gqa6Over6Bsnd", [] { return make(dec(2, 6, 6, 300, 64, Layout::BSND), 120); }, {.tiling = k3});
  add(
      "Gqa6Over2BnsdBf16", [] { return make(dec(2, 6, 2, 300, 128, Layout::BNSD, ElemType::BF16), 121); },
      {.tiling = k3}, true);
  add("Gqa6Over1BshD80", [] { return make(dec(2, 6, 1, 300, 80, Layout::BSH), 122); },
      {.tiling = splits(2, "s2_block: 128")});
  add("Gqa32Over4BshD64", [] { return make(dec(2, 32, 4, 700, 64, Layout::BSH), 123); }, {.tiling = splits(3)});
  add("Gqa7Over1Bsh", [] { return make(dec(2, 7, 1, 300, 64, Layout::BSH), 127); }, {.tiling = k3});
  add(
      "Gqa32Over1Bsnd", [] { return make(dec(1, 32, 1, 700, 64, Layout::BSND), 128); }, {.tiling = splits(3)}, true);
  add("Gqa64Over1BnsdSplits1", [] { return make(dec(1, 64, 1, 700, 128, Layout::BNSD), 124); }, {.tiling = splits(1)});
  add(
      "Gqa64Over1Bnsd", [] { return make(dec(1, 64, 1, 700, 128, Layout::BNSD), 124); }, {.tiling = splits(3)}, true);
  add("D512Bf16", [] { return make(dec(2, 4, 2, 600, 512, Layout::BSND, ElemType::BF16), 125); },
      {.tiling = splits(3)});
  add("HighPerfBitIgnoredAtS1",
      [] {
        auto p = dec(1, 4, 1, 700, 64, Layout::BSH);
        p.inner_precise = 1;  // fp16 high performance does not apply to decode (high_perf = false)
        return make(p, 126);
      },
      {.tiling = splits(2)});
  // Masks (B, Skv) in every accepted shape, pse, invalid rows with and without the correction.
  add("MaskBSkvRank2", [] { return make(with_mask(dec(2, 4, 2, 400, 64, Layout::BSH)), 130, reshape_mask(2)); },
      {.tiling = k3});
  add("MaskB1SkvRank3Padded", [] { return make(with_mask(dec(3, 4, 1, 300, 128, Layout::BNSD), 40), 131); },
      {.tiling = k3, .mask_dtype = ElemType::U8});
  add("MaskB11SkvRank4Int8", [] { return make(with_mask(dec(2, 8, 2, 500, 64, Layout::BSND)), 132, reshape_mask(4)); },
      {.mask_dtype = ElemType::I8});
  add("MaskSharedB1", [] { return make(with_mask(dec(1, 4, 2, 260, 64, Layout::BSH)), 133); }, {.tiling = k3});
  add("PsePerBatchWithMask", [] { return make(with_mask(with_pse(dec(2, 4, 2, 400, 64, Layout::BNSD), true)), 134); },
      {.tiling = k3});
  add("PseSharedBf16", [] { return make(with_pse(dec(2, 6, 2, 333, 128, Layout::BSH, ElemType::BF16), false), 135); },
      {.tiling = k3});
  for (const int64_t k : {1, 3}) {
    add("FullyMaskedBatchRowFixSplits" + std::to_string(k),
        [] {
          auto p = with_mask(dec(2, 4, 2, 400, 64, Layout::BSND));
          p.inner_precise = 2, p.row_fix = true;
          return make(p, 136, mask_batch0);
        },
        {.tiling = splits(k, "s2_block: 128")});
    add("FullyMaskedBatchNoRowFixSplits" + std::to_string(k),
        [] { return make(with_mask(dec(2, 4, 2, 400, 64, Layout::BSND)), 137, mask_batch0); },
        {.tiling = splits(k, "s2_block: 128")});
  }
  // numerics.md §5 item 6: pages of 1..512 tokens, both cache layouts, shuffled tables, NaN in unused slots.
  for (const int64_t bs : {1, 16, 64, 128, 512})
    for (const KvStorage kv : {KvStorage::PagedBsH, KvStorage::PagedNBsD}) {
      const bool bsh = kv == KvStorage::PagedBsH;
      const std::vector<int64_t> act = bs == 1 ? std::vector<int64_t>{97, 54} : std::vector<int64_t>{700, 97};
      add(std::string(bsh ? "PagedBsH" : "PagedNBsD") + "Block" + std::to_string(bs),
          [=] {
            return make(
                paged(dec(2, 4, 2, 0, 64, bsh ? Layout::BSH : Layout::BNSD, bsh ? ElemType::F16 : ElemType::BF16), kv,
                      bs, act),
                140 + uint64_t(bs));
          },
          {.tiling = bsh ? "" : k3});
    }
  // numerics.md §5 item 7: zero-length KV next to non-empty batches (out 0, lse -3.4e38).
  add("ZeroLengthKvBatches",
      [] {
        auto p = dec(4, 4, 2, 300, 64, Layout::BSND);
        p.act_kv = {0, 300, 1, 0};
        return make(p, 150);
      },
      {.tiling = k3, .lengths = true});
  add("ZeroLengthKvPaged", [] {
    return make(paged(dec(3, 4, 1, 0, 64, Layout::BNSD), KvStorage::PagedNBsD, 16, {0, 50, 0}), 151);
  });
  add("EmptyKvTensor", [] { return make(dec(2, 4, 2, 0, 64, Layout::BNSD), 152); });
  // Left padding, prefix, tensor list.
  add("LeftPaddingKv",
      [] {
        auto p = dec(2, 4, 2, 400, 64, Layout::BSH);
        p.left_pad = true, p.kv_pad = 30, p.act_q = {1, 1}, p.act_kv = {300, 77};
        return make(p, 160);
      },
      {.tiling = k3});
  add("LeftPaddingKvStartNegative",
      [] {  // kv S - kv_pad - act_kv < 0 for batch 1: that batch is empty KV
        auto p = dec(2, 4, 2, 400, 64, Layout::BSH);
        p.left_pad = true, p.kv_pad = 30, p.act_q = {1, 1}, p.act_kv = {300, 77};
        return make(p, 161, [](AttnCase& c) { c.p.act_kv = {300, 380}; });
      },
      {.tiling = k3});
  add("LeftPaddingWithMask",
      [] {
        auto p = with_mask(dec(2, 4, 2, 400, 64, Layout::BSND));
        p.left_pad = true, p.kv_pad = 30, p.act_q = {1, 1}, p.act_kv = {300, 200};
        return make(p, 162);
      },
      {.tiling = k3});
  add("SharedPrefix",
      [] {
        auto p = dec(2, 4, 2, 300, 64, Layout::BNSD);
        p.prefix = true, p.prefix_s = 200, p.prefix_len = 150, p.act_kv = {300, 5};
        return make(p, 170);
      },
      {.tiling = k3});
  add("TensorList",
      [] {
        auto p = dec(3, 4, 2, 600, 64, Layout::BSND);
        p.kv = KvStorage::List, p.list_s = {100, 600, 257}, p.act_kv = {100, 600, 257};
        return make(p, 180);
      },
      {.tiling = k3});
  // Post-quantisation (int8 attention_out; spec §1.7): per-tensor through AscendQuant in half, per-channel in
  // fp32 with two ties-away casts, in the single-split path and the flash-decoding combine, fp32 / bf16
  // parameters, GQA, paging, and batches with empty KV (the quantised offset, not 0).
  add("PostQuantPerTensorOffset", [] {
    return make(dec(2, 8, 2, 500, 128, Layout::BSND), 200, [](AttnCase& c) { add_post_quant(c, false, true, 20); });
  });
  add(
      "PostQuantPerTensorNoOffsetSplits3Bf16",
      [] {
        return make(dec(2, 6, 2, 333, 64, Layout::BSH, ElemType::BF16), 201,
                    [](AttnCase& c) { add_post_quant(c, false, false, 21, 40, 300, true); });
      },
      {.tiling = k3}, true);
  add("PostQuantPerChannelOffset", [] {
    return make(dec(2, 8, 2, 500, 128, Layout::BNSD), 202, [](AttnCase& c) { add_post_quant(c, true, true, 22); });
  });
  add(
      "PostQuantPerChannelSplits3Gqa32",
      [] {
        return make(dec(1, 32, 1, 700, 64, Layout::BSND), 203, [](AttnCase& c) {
          add_post_quant(c, true, true, 23, 40, 300, false, {1, 32, 1, 64});
        });
      },
      {.tiling = splits(3)}, true);
  add("PostQuantPerChannelBf16ParamsPaged",
      [] {
        return make(paged(dec(2, 4, 2, 0, 64, Layout::BNSD, ElemType::BF16), KvStorage::PagedNBsD, 64, {700, 97}), 204,
                    [](AttnCase& c) { add_post_quant(c, true, false, 24, 40, 300, true, {4 * 64}); });
      },
      {.tiling = k3});
  add("PostQuantZeroLengthKvQuantisedOffset",
      [] {
        auto p = dec(4, 4, 2, 300, 64, Layout::BSND);
        p.act_kv = {0, 300, 1, 0};
        return make(p, 205, [](AttnCase& c) { add_post_quant(c, true, true, 25); });
      },
      {.tiling = k3, .lengths = true});
  add("PostQuantZeroLengthKvPerTensor",
      [] {
        auto p = dec(3, 4, 1, 200, 64, Layout::BNSD);
        p.act_kv = {0, 150, 0};
        return make(p, 206, [](AttnCase& c) { add_post_quant(c, false, true, 26); });
      },
      {.lengths = true});
  add("PostQuantSaturatesMasked",
      [] {
        auto p = with_mask(dec(2, 4, 2, 400, 64, Layout::BSND));
        p.inner_precise = 2, p.row_fix = true;
        return make(p, 207, [](AttnCase& c) { mask_batch0(c), add_post_quant(c, true, true, 27, 500, 3000); });
      },
      {.tiling = splits(3, "s2_block: 128")});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Matrix, FiaDecode, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// numerics.md §5 item 14 for decode: (a) the same case twice gives identical bits, (b) the bits depend only on
// the inputs and the split count, not on the cores used, (c) timing mode keeps the cycles.
TEST(FiaDecodeRuns, AreDeterministicIndependentOfTheCoreCountAndTimingKeepsTheCycles) {
  const AttnCase ac = make(with_mask(dec(3, 8, 2, 1500, 128, Layout::BSND)), 190);
  const auto dir = casetest::scratch_dir();
  std::filesystem::create_directories(dir / "c24"), std::filesystem::create_directories(dir / "c7");
  const std::string p24 = write_fia_case(dir / "c24", ac, {.tiling = "kv_splits: 3, block_dim: 24"});
  const std::string p7 = write_fia_case(dir / "c7", ac, {.tiling = "kv_splits: 3, block_dim: 7"});
  const auto a = run_in_child(p24, sim::SimMode::Full), b = run_in_child(p24, sim::SimMode::Full);
  const auto c7 = run_in_child(p7, sim::SimMode::Full), t = run_in_child(p24, sim::SimMode::Timing);
  ASSERT_GT(a.size(), 8u);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), c7.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end() - 8, c7.begin())) << "output bits changed with block_dim";
  EXPECT_NE(cycles_of(a), cycles_of(c7));
  EXPECT_EQ(cycles_of(a), cycles_of(t));
  EXPECT_GT(cycles_of(a), 0u);
}

}  // namespace
}  // namespace npusim::op
