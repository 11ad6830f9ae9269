// The attention golden model (tests/golden/attention_golden.h): against the fp64 reference under the accuracy
// policy on random problems, its special rows, and its one-block case against a plain single-pass evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "isa/mathfn/mathfn.h"
#include "isa/numeric/numeric.h"
#include "kernels/accuracy/accuracy.h"
#include "kernels/attention/attn_reference.h"
#include "tests/golden/attention_golden.h"
#include "tests/op/attention_test_support.h"

namespace npusim::op::attntest {
namespace {

using golden::attention_golden;
using golden::AttnGoldenOut;

// Golden vs the references of attention_references; returns the reports (out, then lse when p.lse).
std::vector<AccuracyReport> accuracy(const AttnCase& c, int64_t s1, int64_t s2) {
  const AttnData d = c.data();
  const AttnGoldenOut g = attention_golden(c.p, d, s1, s2);
  std::vector<AccuracyReport> r;
  for (const Reference& ref : attention_references(c.p, d))
    r.push_back(compare_accuracy(ref.output, ref.output == "attention_out" ? g.out : g.lse, ref.ref64, ref.naive,
                                 ref.working, ref.reduction_len, ref.gate_fa_rule, ref.unspecified, ref.tolerance));
  return r;
}

AttnCase random_case(ElemType in, Layout l, bool high_perf) {
  AttnCase c{dense_problem(2, 4, 2, 200, 700, 80, l, in)};
  c.p.act_q = {200, 150}, c.p.act_kv = {700, 450};
  c.p.sparse_mode = 3, c.p.mask = MaskKind::Compressed, c.p.mask_sq = c.p.mask_skv = 8;
  c.p.lse = true, c.p.high_perf = high_perf;
  fill(c, 100 + uint64_t(in) * 10 + uint64_t(l));
  return c;
}

TEST(AttnGolden, PassesTheAccuracyPolicyOnRandomCausalGqaProblems) {
  for (ElemType in : {ElemType::F16, ElemType::BF16}) {
    const AttnCase c = random_case(in, in == ElemType::F16 ? Layout::BSH : Layout::BNSD, false);
    for (auto [s1, s2] : {std::pair<int64_t, int64_t>{128, 512}, {64, 128}})
      for (const AccuracyReport& r : accuracy(c, s1, s2)) {
        EXPECT_TRUE(r.pass()) << elem_type_name(in) << " s1 " << s1 << " s2 " << s2 << "\n" << format_report(r);
        if (std::getenv("NPUSIM_PRINT_REPORTS"))  // the margins, for the record
          std::printf("%s s1 %ld s2 %ld\n%s", elem_type_name(in).c_str(), long(s1), long(s2), format_report(r).c_str());
        EXPECT_EQ(r.unspecified, 0);
      }
  }
}

TEST(AttnGolden, HighPerformanceFp16OutputPassesThePerElementRule) {
  const AttnCase c = random_case(ElemType::F16, Layout::BSND, true);
  for (auto [s1, s2] : {std::pair<int64_t, int64_t>{128, 512}, {64, 128}}) {
    const std::vector<AccuracyReport> r = accuracy(c, s1, s2);
    EXPECT_TRUE(r[0].pass()) << format_report(r[0]);
    EXPECT_FALSE(r[0].fa_gated);
    RecordProperty("lse_report_s2_" + std::to_string(s2), format_report(r[1]));
    if (std::getenv("NPUSIM_PRINT_REPORTS"))
      std::printf("high perf s2 %ld\n%s%s", long(s2), format_report(r[0]).c_str(), format_report(r[1]).c_str());
  }
}

// Left padding, prefix, pse, paging and a per-batch mask at small D: any misaddressed element would bring the
// NaN of an unused slot into the output and fail.
TEST(AttnGolden, PassesWithEveryAddressingFeature) {
  AttnCase a{dense_problem(2, 2, 1, 40, 150, 16, Layout::BSND)};
  a.p.left_pad = true, a.p.q_pad = 3, a.p.kv_pad = 5, a.p.act_q = {30, 37}, a.p.act_kv = {100, 145};
  a.p.mask = MaskKind::Full, a.p.mask_per_batch = true, a.p.mask_sq = 40, a.p.mask_skv = 150;
  a.p.pse = true, a.p.pse_b = 1, a.p.pse_sq = 40, a.p.pse_skv = 150, a.p.lse = true;
  fill(a, 21, 0.1);
  AttnCase b{dense_problem(2, 4, 2, 33, 0, 32, Layout::BNSD, ElemType::BF16)};
  b.p.kv = KvStorage::PagedNBsD, b.p.block_size = 128, b.p.act_kv = {300, 129}, b.p.lse = true;
  b.p.sparse_mode = 4, b.p.pre_tokens = 100, b.p.next_tokens = 0, b.p.mask = MaskKind::Compressed;
  b.p.mask_sq = b.p.mask_skv = 8;
  fill(b, 22);
  AttnCase c{dense_problem(2, 2, 2, 20, 60, 16, Layout::BSH)};
  c.p.prefix = true, c.p.prefix_s = 50, c.p.prefix_len = 45, c.p.act_kv = {60, 7}, c.p.lse = true;
  fill(c, 23);
  for (const AttnCase* x : {&a, &b, &c})
    for (const AccuracyReport& r : accuracy(*x, 16, 128)) EXPECT_TRUE(r.pass()) << format_report(r);
}

TEST(AttnGolden, SpecialRowsAreZeroAndInfinity) {
  // Bottom-right causal, act_q 200 of Sq 203, Skv 113: delta = -87 empties rows 0..86; rows 200..202 lie past
  // the actual length.
  AttnCase c{dense_problem(1, 1, 1, 203, 113, 16, Layout::BSH)};
  c.p.sparse_mode = 3, c.p.mask = MaskKind::Compressed, c.p.mask_sq = c.p.mask_skv = 8, c.p.row_fix = true;
  c.p.act_q = {200};
  fill(c, 31);
  const AttnGoldenOut g = attention_golden(c.p, c.data(), 64, 128);
  for (int64_t s : {0, 86, 200, 202}) {
    EXPECT_EQ(g.lse.get(s), std::numeric_limits<double>::infinity()) << s;
    for (int64_t dv = 0; dv < 16; ++dv) EXPECT_EQ(g.out.get(s * 16 + dv), 0.0) << s;
  }
  EXPECT_TRUE(std::isfinite(g.lse.get(87)));
  // A row whose band columns are all masked by the tensor: 0 / +inf with the correction on.
  AttnCase m{dense_problem(1, 1, 1, 8, 130, 16, Layout::BSH)};
  m.p.mask = MaskKind::Full, m.p.sparse_mode = 1, m.p.mask_sq = 8, m.p.mask_skv = 130, m.p.row_fix = true;
  fill(m, 32, 0.0);
  for (int64_t j = 0; j < 130; ++j) m.mask.set(3 * 130 + j, 1.0);
  const AttnGoldenOut gm = attention_golden(m.p, m.data(), 16, 128);
  EXPECT_EQ(gm.lse.get(3), std::numeric_limits<double>::infinity());
  for (int64_t dv = 0; dv < 16; ++dv) EXPECT_EQ(gm.out.get(3 * 16 + dv), 0.0);
}

// ---- one block: the online softmax must reduce to the plain single-pass formula ----

float mmad(const std::vector<float>& a, const std::vector<float>& b, int64_t b_stride, int64_t k) {
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < k; k0 += 16) {
    float t[16];
    for (int i = 0; i < 16; ++i) t[i] = k0 + i < k ? a[size_t(k0 + i)] * b[size_t((k0 + i) * b_stride)] : 0.0f;
    for (int w = 16; w > 1; w /= 2)
      for (int i = 0; i < w / 2; ++i) t[i] = t[2 * i] + t[2 * i + 1];
    acc = acc + t[0];
  }
  return acc;
}

// High-precision single pass over all skv columns (one score row of cw = skv rounded up to 128).
std::vector<uint16_t> single_block_out(AttnCase& c, int64_t n, int64_t i) {
  const AttnProblem& p = c.p;
  const AttnData d = c.data();
  const int64_t skv = p.skv_eff(0), cw = (skv + 127) / 128 * 128;
  std::vector<float> q(size_t(p.D)), k(size_t(p.D)), x(size_t(cw), p.mask_value()), e(size_t(cw), 0.0f);
  for (int64_t t = 0; t < p.D; ++t) q[size_t(t)] = float(d.q(0, n, i, t));
  for (int64_t j = 0; j < skv; ++j) {
    if (!d.visible(0, i, j)) continue;
    for (int64_t t = 0; t < p.D; ++t) k[size_t(t)] = float(d.k(0, n / p.G, j, t));
    x[size_t(j)] = mmad(q, k, 1, p.D) * float(p.scale);
  }
  float m = x[0];
  for (float v : x) m = std::max(m, v);
  for (int64_t j = 0; j < skv; ++j) e[size_t(j)] = isa::hw_exp(x[size_t(j)] - m);
  std::vector<float> lanes(64, 0.0f);
  for (int64_t j = 0; j < cw; ++j) lanes[size_t(j % 64)] = j < 64 ? e[size_t(j)] : lanes[size_t(j % 64)] + e[size_t(j)];
  for (int w = 64; w > 1; w /= 2)
    for (int t = 0; t < w / 2; ++t) lanes[size_t(t)] = lanes[size_t(2 * t)] + lanes[size_t(2 * t + 1)];
  std::vector<float> pr(static_cast<size_t>(skv)), v(static_cast<size_t>(skv * p.Dv));
  for (int64_t j = 0; j < skv; ++j) {
    pr[size_t(j)] = isa::f16_to_f32(isa::f32_to_f16(e[size_t(j)]));
    for (int64_t t = 0; t < p.Dv; ++t) v[size_t(j * p.Dv + t)] = float(d.v(0, n / p.G, j, t));
  }
  std::vector<uint16_t> out(size_t(p.Dv));
  for (int64_t t = 0; t < p.Dv; ++t) {
    const std::vector<float> v_col(v.begin() + t, v.end());  // column t at stride Dv
    out[size_t(t)] = isa::f32_to_f16(isa::hw_div(mmad(pr, v_col, p.Dv, skv), lanes[0]));
  }
  return out;
}

TEST(AttnGolden, OneScoreBlockEqualsTheSinglePassFormula) {
  AttnCase c{dense_problem(1, 2, 1, 50, 300, 48, Layout::BSND)};
  c.p.sparse_mode = 3, c.p.mask = MaskKind::Compressed, c.p.mask_sq = c.p.mask_skv = 8;
  fill(c, 41);
  const AttnGoldenOut g = attention_golden(c.p, c.data(), 16, 300);
  const AttnData d = c.data();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 50; ++i) {
      const std::vector<uint16_t> want = single_block_out(c, n, i);
      for (int64_t t = 0; t < 48; ++t)
        ASSERT_EQ(isa::f32_to_f16(float(g.out.get(d.out_index(0, n, i, t)))), want[size_t(t)])
            << n << " " << i << " " << t;
    }
}

}  // namespace
}  // namespace npusim::op::attntest
