// Query S = 1 (decode) in the op-neutral references and the golden model: the fp64 reference against a plain
// loop over the spec's formulas (mask rows of batch b, pse row 0, no band, GQA, pages), the empty-KV special
// value (out 0, lse -3.4e38 as fp32) in ref64 and naive, and the golden's split-KV combine against the
// accuracy policy for several split counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/accuracy/accuracy.h"
#include "kernels/attention/attn_reference.h"
#include "tests/golden/attention_golden.h"
#include "tests/op/attention_test_support.h"

namespace npusim::op::attntest {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kEmptyKvLse = double(-3.4e38f);

// A decode problem: B batches, N over KV_N heads, KV length kv (act_kv per batch), D; lse on.
AttnCase decode_case(int64_t B, int64_t N, int64_t KV_N, int64_t kv, int64_t D, Layout l, ElemType t = ElemType::F16) {
  AttnCase c{dense_problem(B, N, KV_N, 1, kv, D, l, t)};
  c.p.lse = true;
  return c;
}
void add_mask(AttnCase& c) {
  c.p.mask = MaskKind::Full, c.p.mask_per_batch = c.p.B > 1, c.p.mask_sq = 1, c.p.mask_skv = c.p.kv_s;
}
void add_pse(AttnCase& c) { c.p.pse = true, c.p.pse_b = c.p.B, c.p.pse_sq = 1, c.p.pse_skv = c.p.kv_s; }

// The spec §1.3 formula for (b, n) at S = 1, read through the case's own physical addressing; false when
// the row has no visible column.
bool plain_row(AttnCase& c, int64_t b, int64_t n, std::vector<double>& out, double& lse) {
  const AttnProblem& p = c.p;
  const int64_t n2 = n / (p.N / p.KV_N);
  std::vector<double> sc;
  std::vector<int64_t> vis;
  for (int64_t j = 0; j < p.act_kv[size_t(b)]; ++j) {
    if (p.mask == MaskKind::Full && c.mask.get((p.mask_per_batch ? b : 0) * p.mask_skv + j) != 0) continue;
    double dot = 0;
    for (int64_t d = 0; d < p.D; ++d) dot += c.qv(b, n, 0, d) * c.kvv(false, b, n2, j, d);
    sc.push_back(p.scale * dot + (p.pse ? c.pse.get(((p.pse_b > 1 ? b : 0) * p.N + n) * p.pse_skv + j) : 0.0));
    vis.push_back(j);
  }
  if (vis.empty()) return false;
  const double m = *std::max_element(sc.begin(), sc.end());
  double l = 0;
  for (double x : sc) l += std::exp(x - m);
  out.assign(size_t(p.Dv), 0.0);
  for (int64_t dv = 0; dv < p.Dv; ++dv) {
    for (size_t t = 0; t < vis.size(); ++t) out[size_t(dv)] += std::exp(sc[t] - m) * c.kvv(true, b, n2, vis[t], dv);
    out[size_t(dv)] /= l;
  }
  lse = m + std::log(l);
  return true;
}

// ref64 against plain_row on every (b, n); rows without a visible column are checked by the caller.
void expect_ref64_matches(AttnCase& c) {
  const AttnData d = c.data();
  const AttnValues r = attention_ref64(c.p, d);
  for (int64_t b = 0; b < c.p.B; ++b)
    for (int64_t n = 0; n < c.p.N; ++n) {
      std::vector<double> out;
      double lse = 0;
      if (!plain_row(c, b, n, out, lse)) continue;
      EXPECT_NEAR(r.lse[size_t(d.lse_index(b, n, 0))], lse, 1e-12 * (1 + std::fabs(lse))) << b << " " << n;
      for (int64_t dv = 0; dv < c.p.Dv; ++dv)
        EXPECT_NEAR(r.out[size_t(d.out_index(b, n, 0, dv))], out[size_t(dv)], 1e-12) << b << " " << n << " " << dv;
    }
}

TEST(AttnReference, DecodeMatchesThePlainFormulaWithMaskPseAndGqa) {
  for (Layout l : {Layout::BSH, Layout::BSND, Layout::BNSD}) {
    AttnCase c = decode_case(3, 6, 2, 45, 16, l);
    add_mask(c), add_pse(c);
    fill(c, 7 + uint64_t(l));
    expect_ref64_matches(c);
  }
  AttnCase pg = decode_case(2, 4, 1, 0, 16, Layout::BNSD, ElemType::BF16);
  pg.p.kv = KvStorage::PagedNBsD, pg.p.block_size = 5, pg.p.act_kv = {23, 9};
  fill(pg, 8);
  expect_ref64_matches(pg);
}

TEST(AttnReference, DecodeEmptyKvIsZeroAndMinus3p4e38InRef64AndNaive) {
  AttnCase c = decode_case(3, 4, 2, 30, 16, Layout::BSND);
  c.p.act_kv = {0, 30, 0};
  fill(c, 9);
  expect_ref64_matches(c);
  const AttnData d = c.data();
  for (const AttnValues& r : {attention_ref64(c.p, d), attention_naive(c.p, d)})
    for (int64_t b : {0, 2})
      for (int64_t n = 0; n < 4; ++n) {
        EXPECT_EQ(r.lse[size_t(d.lse_index(b, n, 0))], kEmptyKvLse);
        EXPECT_EQ(r.lse_unspecified[size_t(d.lse_index(b, n, 0))], 0);
        for (int64_t dv = 0; dv < 16; ++dv) EXPECT_EQ(r.out[size_t(d.out_index(b, n, 0, dv))], 0.0);
      }
}

TEST(AttnReference, DecodeFullyMaskedRowIsZeroInfWithCorrectionAndUnspecifiedWithout) {
  for (bool fix : {true, false}) {
    AttnCase c = decode_case(2, 2, 1, 20, 16, Layout::BSH);
    add_mask(c), c.p.row_fix = fix;
    fill(c, 10);
    for (int64_t j = 0; j < 20; ++j) c.mask.set(20 + j, 1.0);  // batch 1's row
    const AttnValues r = attention_ref64(c.p, c.data());
    for (int64_t n = 0; n < 2; ++n) {
      const size_t li = size_t(c.data().lse_index(1, n, 0));
      EXPECT_EQ(r.lse_unspecified[li], fix ? 0 : 1);
      if (fix) {
        EXPECT_EQ(r.lse[li], kInf);
      }
    }
  }
}

// ---- golden ----

std::vector<AccuracyReport> golden_accuracy(const AttnCase& c, int64_t s2, int64_t splits, golden::AttnGoldenOut& g) {
  const AttnData d = c.data();
  g = golden::attention_golden(c.p, d, 16, s2, splits);
  std::vector<AccuracyReport> r;
  for (const Reference& ref : attention_references(c.p, d))
    r.push_back(compare_accuracy(ref.output, ref.output == "attention_out" ? g.out : g.lse, ref.ref64, ref.naive,
                                 ref.working, ref.reduction_len, ref.gate_fa_rule, ref.unspecified, ref.tolerance));
  return r;
}

TEST(AttnGolden, DecodePassesTheAccuracyPolicyForEverySplitCount) {
  for (ElemType t : {ElemType::F16, ElemType::BF16}) {
    AttnCase c = decode_case(3, 8, 2, 1100, 64, Layout::BSND, t);
    c.p.act_kv = {1100, 333, 0};
    add_mask(c), add_pse(c);
    fill(c, 20 + uint64_t(t), 0.2);
    for (auto [s2, splits] : {std::pair<int64_t, int64_t>{512, 1}, {512, 3}, {128, 2}, {128, 3}, {128, 9}, {128, 64}}) {
      golden::AttnGoldenOut g;
      for (const AccuracyReport& r : golden_accuracy(c, s2, splits, g))
        EXPECT_TRUE(r.pass()) << elem_type_name(t) << " s2 " << s2 << " splits " << splits << "\n" << format_report(r);
      for (int64_t e = 0; e < g.out.numel(); ++e) ASSERT_FALSE(std::isnan(g.out.get(e))) << e;
    }
  }
}

TEST(AttnGolden, DecodeSpecialRowsForAnySplitCount) {
  AttnCase c = decode_case(3, 4, 2, 400, 16, Layout::BNSD);
  c.p.act_kv = {0, 400, 300}, c.p.row_fix = true;
  add_mask(c);
  fill(c, 30, 0.1);
  for (int64_t j = 0; j < 400; ++j) c.mask.set(2 * 400 + j, 1.0);  // batch 2 fully masked
  const AttnData d = c.data();
  for (int64_t splits : {1, 3}) {
    const golden::AttnGoldenOut g = golden::attention_golden(c.p, d, 16, 128, splits);
    for (int64_t n = 0; n < 4; ++n) {
      EXPECT_EQ(g.lse.get(d.lse_index(0, n, 0)), kEmptyKvLse) << splits;  // empty KV
      EXPECT_EQ(g.lse.get(d.lse_index(2, n, 0)), kInf) << splits;         // invalid row, correction on
      EXPECT_TRUE(std::isfinite(g.lse.get(d.lse_index(1, n, 0))));
      for (int64_t b : {0, 2})
        for (int64_t dv = 0; dv < 16; ++dv) EXPECT_EQ(g.out.get(d.out_index(b, n, 0, dv)), 0.0) << splits;
    }
  }
}

}  // namespace
}  // namespace npusim::op::attntest
