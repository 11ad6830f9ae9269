// The accuracy policy (kernels/op/accuracy.h): every statistic on hand-made tensors with values worked out in the
// comments, the CANN threshold per dtype and its doubling at 2048, special values, worst coordinates, the report.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/accuracy/accuracy.h"

namespace npusim::op {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

HostTensor f32(std::vector<int64_t> shape, const std::vector<double>& v) {
  HostTensor t = HostTensor::zeros(ElemType::F32, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.set(int64_t(i), v[i]);
  return t;
}

// out, ref64, naive (2 x 2):
//   out   1.5  -2.0   0.0   10.25
//   ref   1.0  -2.5   0.75  10.0
//   naive 1.25 -2.25  0.5   10.0
// e = 0.5 0.5 0.75 0.25; max(1,|ref|) = 1 2.5 1 10; e / max(1,|ref|) = 0.5 0.2 0.75 0.025 (worst: element 2 = [1, 0]);
// e / |ref| = 0.5 0.2 1 0.025; signed (out-ref)/max(1,|ref|) = 0.5 0.2 -0.75 0.025, mean -0.00625;
// naive errors 0.25 0.25 0.25 0.
struct HandCase {
  HostTensor out = f32({2, 2}, {1.5, -2.0, 0.0, 10.25});
  std::vector<double> ref{1.0, -2.5, 0.75, 10.0}, naive{1.25, -2.25, 0.5, 10.0};
};

TEST(Accuracy, EveryStatisticOnAHandMadeTensor) {
  HandCase h;
  const AccuracyReport r = compare_accuracy("y", h.out, h.ref, h.naive, ElemType::F16, 16);
  EXPECT_EQ(r.output, "y");
  EXPECT_EQ(r.elements, 4);
  EXPECT_EQ(r.max_abs_err, 0.75);
  EXPECT_EQ(r.max_rel_err, 1.0);
  EXPECT_DOUBLE_EQ(r.mere, (0.5 / (1.0 + 1e-7) + 0.5 / (2.5 + 1e-7) + 0.75 / (0.75 + 1e-7) + 0.25 / (10.0 + 1e-7)) / 4);
  EXPECT_DOUBLE_EQ(r.mare, 0.75 / (0.75 + 1e-7));
  EXPECT_NEAR(r.error_balance, 0.00625, 1e-15);  // the sum cancels, so a few ulps of 0.5 remain
  EXPECT_EQ(r.naive_max_abs_err, 0.25);
  EXPECT_EQ(r.fa_bound, 0.5 + 1e-5);
  EXPECT_FALSE(r.fa_pass);  // 0.75 > 0.50001
  EXPECT_EQ(r.cann_threshold, 0x1p-8);
  EXPECT_EQ(r.cann_failures, 4);
  EXPECT_FALSE(r.cann_pass);
  EXPECT_TRUE(r.exact_special_pass);
  EXPECT_EQ(r.worst_index, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(r.worst_out, 0.0);
  EXPECT_EQ(r.worst_ref, 0.75);
  EXPECT_FALSE(r.pass());
}

TEST(Accuracy, ErrorBalanceIsTheAbsoluteMeanOfSignedErrors) {
  // (out-ref)/max(1,|ref|) = -0.5, -0.25 (ref 4: -1/4), +0.25 -> mean -1/6, EB = 1/6.
  const AccuracyReport r =
      compare_accuracy("y", f32({3}, {0.5, 3.0, 0.25}), {1.0, 4.0, 0.0}, {1.0, 4.0, 0.0}, ElemType::F32, 1);
  EXPECT_DOUBLE_EQ(r.error_balance, 1.0 / 6);
  EXPECT_EQ(r.max_rel_err, 0.5);          // ref 0 is left out of the relative error: 0.5/1 and 1/4
  EXPECT_DOUBLE_EQ(r.mare, 0.25 / 1e-7);  // ... but not out of MARE, whose denominator is |ref| + 1e-7
}

TEST(Accuracy, CannThresholdPerDtypeDoublesFromReductionLength2048) {
  const HostTensor out = f32({1}, {1.0});
  const std::vector<double> ref{1.0};
  auto t = [&](ElemType w, int64_t len) { return compare_accuracy("y", out, ref, ref, w, len).cann_threshold; };
  EXPECT_EQ(t(ElemType::F16, 2047), 0x1p-8);
  EXPECT_EQ(t(ElemType::F16, 2048), 0x1p-7);
  EXPECT_EQ(t(ElemType::BF16, 1), 0x1p-7);
  EXPECT_EQ(t(ElemType::BF16, 4096), 0x1p-6);
  EXPECT_EQ(t(ElemType::F32, 2047), 0x1p-11);
  EXPECT_EQ(t(ElemType::F32, 2048), 0x1p-10);
  EXPECT_THROW(t(ElemType::I32, 1), std::invalid_argument);
}

TEST(Accuracy, CannRuleBoundIsInclusiveAndScalesWithLargeReferences) {
  // ref 4: bound T*4 = 2^-6 (fp16, len < 2048). ref 0.5: bound T*1 = 2^-8.
  const std::vector<double> ref{4.0, 0.5};
  auto failures = [&](double o0, double o1, int64_t len) {
    return compare_accuracy("y", f32({2}, {o0, o1}), ref, ref, ElemType::F16, len).cann_failures;
  };
  EXPECT_EQ(failures(4.0 + 0x1p-6, 0.5 - 0x1p-8, 100), 0);  // both exactly on the bound
  EXPECT_EQ(failures(4.0 + 0x1p-5, 0.5 - 0x1p-8, 100), 1);
  EXPECT_EQ(failures(4.0 + 0x1p-5, 0.5 + 0x1p-7, 2047), 2);
  EXPECT_EQ(failures(4.0 + 0x1p-5, 0.5 + 0x1p-7, 2048), 0);  // T doubled
}

TEST(Accuracy, MatchingSpecialValuesPassAndAreLeftOutOfTheStatistics) {
  const AccuracyReport r = compare_accuracy("y", f32({4}, {kInf, -kInf, kNan, 1.0}), {kInf, -kInf, kNan, 1.0},
                                            {0, 0, 0, 1.0}, ElemType::F16, 1);
  EXPECT_TRUE(r.exact_special_pass);
  EXPECT_EQ(r.max_abs_err, 0.0);
  EXPECT_EQ(r.naive_max_abs_err, 0.0);  // naive 0 where ref is inf is not a numeric error either
  EXPECT_EQ(r.mere, 0.0);
  EXPECT_EQ(r.cann_failures, 0);
  EXPECT_EQ(r.worst_index, std::vector<int64_t>{3});
  EXPECT_TRUE(r.pass());
}

TEST(Accuracy, SpecialValueMismatchFailsAndBecomesTheWorstElement) {
  const std::vector<double> ref{kInf, -kInf, kNan, 1.0};
  auto check = [&](const std::vector<double>& out, int64_t where) {
    const AccuracyReport r = compare_accuracy("y", f32({4}, out), ref, ref, ElemType::F16, 1);
    EXPECT_FALSE(r.exact_special_pass);
    EXPECT_FALSE(r.pass());
    EXPECT_EQ(r.worst_index, std::vector<int64_t>{where});
    EXPECT_EQ(r.cann_failures, 0);  // the numeric element is exact
  };
  check({kInf, kInf, kNan, 1.0}, 1);    // wrong-sign infinity
  check({65504, -kInf, kNan, 1.0}, 0);  // saturated where the reference overflows
  check({kInf, -kInf, 0.0, 1.0}, 2);    // finite where the reference is NaN
}

TEST(Accuracy, NanOutputWhereTheReferenceIsFiniteIsAnInfiniteError) {
  const AccuracyReport r = compare_accuracy("y", f32({2}, {kNan, 1.0}), {2.0, 1.0}, {2.0, 1.0}, ElemType::F32, 1);
  EXPECT_TRUE(r.exact_special_pass);
  EXPECT_EQ(r.max_abs_err, kInf);
  EXPECT_EQ(r.cann_failures, 1);
  EXPECT_FALSE(r.fa_pass);
  EXPECT_EQ(r.worst_index, std::vector<int64_t>{0});
}

TEST(Accuracy, WorstCoordinatesAreCOrderOverTheOutputShape) {
  std::vector<double> out(24, 1.0), ref(24, 1.0);
  out[17] = 1.5;  // 17 = 1*12 + 1*4 + 1 in shape (2, 3, 4)
  out[5] = 1.25;
  const AccuracyReport r = compare_accuracy("y", f32({2, 3, 4}, out), ref, ref, ElemType::F32, 1);
  EXPECT_EQ(r.worst_index, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(r.worst_out, 1.5);
  EXPECT_EQ(r.worst_ref, 1.0);
}

TEST(Accuracy, FaRuleGatesOnlyWhenAsked) {
  HandCase h;
  const std::vector<double> near{1.5, -2.0, 0.0, 10.25};  // make CANN pass: ref == out
  AccuracyReport r = compare_accuracy("y", h.out, near, near, ElemType::F16, 1);
  EXPECT_TRUE(r.pass());
  // Error 2^-9 within CANN (T = 2^-8) but the naive result is exact: FA bound 1e-5 fails.
  r = compare_accuracy("y", f32({1}, {1.0 + 0x1p-9}), {1.0}, {1.0}, ElemType::F16, 1, /*gate_fa_rule=*/false);
  EXPECT_TRUE(r.cann_pass);
  EXPECT_FALSE(r.fa_pass);
  EXPECT_TRUE(r.pass());
  r.fa_gated = true;
  EXPECT_FALSE(r.pass());
}

TEST(Accuracy, UnspecifiedElementsAreSkippedAndCounted) {
  // Element 1 is wildly wrong (and NaN against a finite reference in element 2) but both are unspecified; the
  // remaining elements are exact, so every rule passes and the statistics see only elements 0 and 3.
  const std::vector<double> ref{1.0, 2.0, 3.0, -4.0};
  const std::vector<uint8_t> skip{0, 1, 1, 0};
  const AccuracyReport r =
      compare_accuracy("y", f32({4}, {1.0, 100.0, kNan, -4.0}), ref, ref, ElemType::F16, 1, true, skip);
  EXPECT_EQ(r.unspecified, 2);
  EXPECT_EQ(r.elements, 4);
  EXPECT_EQ(r.max_abs_err, 0.0);
  EXPECT_EQ(r.cann_failures, 0);
  EXPECT_TRUE(r.exact_special_pass);
  EXPECT_TRUE(r.pass());
  EXPECT_NE(format_report(r).find("4 elements (2 unspecified by the operator, not checked)"), std::string::npos);
  // A special-value mismatch in an unspecified element is skipped too; without the flags it fails.
  const std::vector<double> inf_ref{kInf, 1.0};
  EXPECT_TRUE(compare_accuracy("y", f32({2}, {0.0, 1.0}), inf_ref, inf_ref, ElemType::F32, 1, true, {1, 0}).pass());
  EXPECT_FALSE(compare_accuracy("y", f32({2}, {0.0, 1.0}), inf_ref, inf_ref, ElemType::F32, 1).pass());
  // The report of a check without unspecified elements does not mention them.
  EXPECT_EQ(format_report(compare_accuracy("y", f32({1}, {1.0}), {1.0}, {1.0}, ElemType::F32, 1)).find("unspecified"),
            std::string::npos);
  EXPECT_THROW(compare_accuracy("y", f32({2}, {1, 2}), {1.0, 2.0}, {1.0, 2.0}, ElemType::F32, 1, true, {0}),
               std::invalid_argument);
}

TEST(Accuracy, RelativeErrorsOnlyAboveTheFloorAbsoluteBelow) {
  // max |ref| = 1000 -> floor 1: only the first element is judged relatively; the near-zero ones by |out - ref|.
  const AccuracyReport r = compare_accuracy("y", f32({3}, {1001, 0.5, 0.0002}), {1000, 0.25, 0.0001},
                                            {1000, 0.25, 0.0001}, ElemType::F32, 1);
  EXPECT_EQ(r.max_abs_ref, 1000);
  EXPECT_EQ(r.rel_floor, 1.0);
  EXPECT_EQ(r.rel_count, 1);
  EXPECT_EQ(r.abs_count, 2);
  EXPECT_DOUBLE_EQ(r.rel_max, 1e-3);
  EXPECT_DOUBLE_EQ(r.rel_mean, 1e-3);
  EXPECT_DOUBLE_EQ(r.abs_below_max, 0.25);
  EXPECT_GT(r.max_rel_err, 0.99);  // the unfloored statistic is dominated by the near-zero elements
}

TEST(Accuracy, ReferenceSizeMismatchThrows) {
  EXPECT_THROW(compare_accuracy("y", f32({2}, {1, 2}), {1.0}, {1.0, 2.0}, ElemType::F32, 1), std::invalid_argument);
  EXPECT_THROW(compare_accuracy("y", f32({2}, {1, 2}), {1.0, 2.0}, {1.0}, ElemType::F32, 1), std::invalid_argument);
}

TEST(Accuracy, ReportNamesBothRulesAndTheWorstElement) {
  HandCase h;
  const std::string s = format_report(compare_accuracy("attn_out", h.out, h.ref, h.naive, ElemType::F16, 16, false));
  EXPECT_NE(s.find("output attn_out: 4 elements"), std::string::npos) << s;
  EXPECT_NE(s.find("max abs err 0.75, max rel err 1,"), std::string::npos) << s;
  EXPECT_NE(s.find("FA rule:   FAIL (reported, not gated), ratio 1.49997"), std::string::npos) << s;
  EXPECT_NE(s.find("relative:  "), std::string::npos) << s;
  EXPECT_NE(s.find("absolute:  "), std::string::npos) << s;
  EXPECT_NE(s.find("MERE "), std::string::npos) << s;
  EXPECT_NE(s.find("MARE "), std::string::npos) << s;
  EXPECT_NE(s.find("error balance 0.00625"), std::string::npos) << s;
  EXPECT_NE(s.find("max err 0.75 <= 2 * naive 0.25 + 1e-5 = 0.50001"), std::string::npos) << s;
  EXPECT_NE(s.find("CANN rule: FAIL, 4 of 4 elements over T = 2^-8"), std::string::npos) << s;
  EXPECT_NE(s.find("worst element [1, 0]: out 0, ref 0.75"), std::string::npos) << s;
  EXPECT_EQ(s.find("special values"), std::string::npos) << s;
  const std::string bad = format_report(compare_accuracy("y", f32({1}, {1.0}), {kNan}, {kNan}, ElemType::F16, 1));
  EXPECT_NE(bad.find("special values (inf / NaN) differ from the reference: FAIL"), std::string::npos) << bad;
}

// The int8 rule (a quantised output against its rounded fp64 truth): within one unit passes, the elements at
// distance 1 are counted, one element at distance 2 fails; the floating-point rules do not apply.
TEST(AccuracyInt8, WithinOneUnitPassesAndDistanceOneIsCounted) {
  HostTensor out = HostTensor::zeros(ElemType::I8, {5});
  const std::vector<double> o{-128, -3, 0, 7, 127}, ref{-127, -3, 1, 7, 127};
  for (int64_t i = 0; i < 5; ++i) out.set(i, o[size_t(i)]);
  AccuracyReport r = compare_accuracy("q", out, ref, ref, ElemType::I8, 4096);
  EXPECT_TRUE(r.int8_rule);
  EXPECT_EQ(r.int8_off_by_one, 2);
  EXPECT_EQ(r.int8_failures, 0);
  EXPECT_FALSE(r.fa_gated);
  EXPECT_TRUE(r.pass());
  EXPECT_NE(format_report(r).find(
                "int8 rule: pass, 0 elements more than 1 from the rounded reference; 2 at distance 1 (40%)"),
            std::string::npos)
      << format_report(r);
  out.set(3, 9);  // distance 2
  r = compare_accuracy("q", out, ref, ref, ElemType::I8, 4096);
  EXPECT_EQ(r.int8_failures, 1);
  EXPECT_FALSE(r.pass());
}

// A Tolerance (full quantisation): the limit widened by t_factor, `fraction` of the elements may exceed it, none
// kToleratedCap times the unwidened limit.
TEST(AccuracyTolerance, WidensTheLimitToleratesAFractionAndCapsEveryElement) {
  const int64_t n = 2000;
  std::vector<double> ref(size_t(n), 0.5), o(size_t(n), 0.5);
  const double t = 0x1p-8;                   // fp16, reduction length 16
  o[0] = 0.5 + 1.5 * t, o[1] = 0.5 + 3 * t;  // within 2 T; beyond 2 T (one of 2000: under 0.1%)
  const Tolerance tol{.fraction = 1e-3, .t_factor = 2};
  AccuracyReport r = compare_accuracy("y", f32({n}, o), ref, ref, ElemType::F16, 16, true, {}, tol);
  EXPECT_EQ(r.cann_threshold, 2 * t);
  EXPECT_EQ(r.cann_failures, 1);
  EXPECT_EQ(r.cap_failures, 0);
  EXPECT_TRUE(r.cann_pass);
  EXPECT_NE(format_report(r).find("widened 2x; tolerated: 0.1% of the elements"), std::string::npos)
      << format_report(r);
  o[2] = 0.5 + 3 * t;  // two beyond: 0.1% exactly, still tolerated
  EXPECT_TRUE(compare_accuracy("y", f32({n}, o), ref, ref, ElemType::F16, 16, true, {}, tol).cann_pass);
  o[3] = 0.5 + 3 * t;  // three: more than 0.1%
  EXPECT_FALSE(compare_accuracy("y", f32({n}, o), ref, ref, ElemType::F16, 16, true, {}, tol).cann_pass);
  o[2] = o[3] = 0.5, o[1] = 0.5 + 9 * t;  // one, but beyond 8 unwidened T: the cap
  r = compare_accuracy("y", f32({n}, o), ref, ref, ElemType::F16, 16, true, {}, tol);
  EXPECT_EQ(r.cap_failures, 1);
  EXPECT_FALSE(r.cann_pass);
  EXPECT_FALSE(compare_accuracy("y", f32({n}, o), ref, ref, ElemType::F16, 16).cann_pass);  // no tolerance: fails
  HostTensor q = HostTensor::zeros(ElemType::I8, {4});
  const std::vector<double> qref{0, 0, 0, 0};
  for (int64_t i = 0; i < 4; ++i) q.set(i, double(i));  // distances 0, 1, 2, 3
  r = compare_accuracy("q", q, qref, qref, ElemType::I8, 16, true, {}, Tolerance{.fraction = 0, .t_factor = 2});
  EXPECT_EQ(r.int8_off_by_one, 2);  // distances 1 and 2: within the widened unit
  EXPECT_EQ(r.int8_failures, 1);
  EXPECT_FALSE(r.pass());
}

}  // namespace
}  // namespace npusim::op
