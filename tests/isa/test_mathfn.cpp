// Vector-unit math functions (isa/mathfn.h): the special-value table and the exact cases of
// isa/README.md section 5. Accuracy and array-vs-scalar checks are in test_mathfn_accuracy.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "isa/mathfn/mathfn.h"

namespace npusim::isa {
namespace {

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMinSubnormal = 0x1p-149f;
constexpr float kMaxSubnormal = 0x0.fffffep-126f;
constexpr float kMinNormal = 0x1p-126f;
constexpr float kMax = std::numeric_limits<float>::max();
constexpr uint32_t kPlusZero = 0x00000000u, kMinusZero = 0x80000000u;
constexpr uint32_t kPlusInf = 0x7f800000u, kMinusInf = 0xff800000u;
constexpr uint32_t kDefaultNaN = 0x7fc00000u;

// Compares bit patterns, so that +0/-0 and NaN payloads count.
#define EXPECT_BITS(expected_bits, value) EXPECT_EQ(uint32_t(expected_bits), bits(value)) << "value " << (value)

TEST(MathfnSpecialValues, NanInputGivesTheSameNanMadeQuiet) {
  const uint32_t nans[] = {0x7f800001u, 0x7fa00000u, 0x7fbfffffu, 0x7fc00000u, 0x7fc12345u,
                           0x7fffffffu, 0xff800001u, 0xffc00000u, 0xffd55555u, 0xffffffffu};
  for (uint32_t n : nans) {
    const float x = from_bits(n);
    const uint32_t quiet = n | 0x00400000u;
    EXPECT_BITS(quiet, hw_exp(x));
    EXPECT_BITS(quiet, hw_ln(x));
    EXPECT_BITS(quiet, hw_rec(x));
    EXPECT_BITS(quiet, hw_sqrt(x));
    EXPECT_BITS(quiet, hw_rsqrt(x));
    EXPECT_BITS(quiet, hw_div(x, 2.0f));
    EXPECT_BITS(quiet, hw_div(2.0f, x));
    EXPECT_BITS(quiet, hw_div(x, 0.0f));
    EXPECT_BITS(quiet, hw_div(kInf, x));
  }
}

TEST(MathfnSpecialValues, DivWithTwoNanOperandsPropagatesTheDividendNan) {
  EXPECT_BITS(0x7fc00001u, hw_div(from_bits(0x7f800001u), from_bits(0xffc00002u)));
  EXPECT_BITS(0xffc00002u, hw_div(from_bits(0xffc00002u), from_bits(0x7f800001u)));
}

TEST(MathfnSpecialValues, ExpOfInfinitiesIsPlusZeroAndPlusInf) {
  EXPECT_BITS(kPlusZero, hw_exp(-kInf));
  EXPECT_BITS(kPlusInf, hw_exp(kInf));
}

TEST(MathfnSpecialValues, ExpOverflowsToPlusInfAboveLnOfFltMax) {
  // ln(FLT_MAX) = 88.7228391; 0x42b17217 = 88.7228317 is the largest input with a finite result.
  EXPECT_TRUE(std::isfinite(hw_exp(from_bits(0x42b17217u))));
  EXPECT_GT(hw_exp(from_bits(0x42b17217u)), 0x1.fffp127f);
  EXPECT_BITS(kPlusInf, hw_exp(from_bits(0x42b17218u)));
  EXPECT_BITS(kPlusInf, hw_exp(89.0f));
  EXPECT_BITS(kPlusInf, hw_exp(1e30f));
  EXPECT_BITS(kPlusInf, hw_exp(kMax));
}

TEST(MathfnSpecialValues, ExpUnderflowsGraduallyThroughSubnormalsToPlusZero) {
  // Expected patterns are the correctly rounded values (libm in double, rounded to fp32).
  EXPECT_BITS(bits(float(std::exp(double(from_bits(0xc2aeac4fu))))), hw_exp(from_bits(0xc2aeac4fu)));
  EXPECT_BITS(0x00800026u, hw_exp(from_bits(0xc2aeac4fu)));  // -87.3365402: last normal result
  EXPECT_BITS(0x007fffe6u, hw_exp(from_bits(0xc2aeac50u)));  // -87.3365479: first subnormal result
  EXPECT_BITS(0x0008ec28u, hw_exp(-90.0f));
  EXPECT_BITS(0x0000001bu, hw_exp(-100.0f));
  EXPECT_BITS(0x00000001u, hw_exp(from_bits(0xc2cff1b4u)));  // -103.972076: smallest subnormal
  EXPECT_BITS(kPlusZero, hw_exp(from_bits(0xc2cff1b5u)));    // -103.972084: below 2^-150, rounds to +0
  EXPECT_BITS(kPlusZero, hw_exp(-104.0f));
  EXPECT_BITS(kPlusZero, hw_exp(-1e30f));
  EXPECT_BITS(kPlusZero, hw_exp(-kMax));
}

TEST(MathfnSpecialValues, LnOfZeroIsMinusInfAndOfNegativeIsNan) {
  EXPECT_BITS(kMinusInf, hw_ln(0.0f));
  EXPECT_BITS(kMinusInf, hw_ln(-0.0f));
  EXPECT_BITS(kDefaultNaN, hw_ln(-1.0f));
  EXPECT_BITS(kDefaultNaN, hw_ln(-kMinSubnormal));
  EXPECT_BITS(kDefaultNaN, hw_ln(-kInf));
  EXPECT_BITS(kPlusInf, hw_ln(kInf));
}

TEST(MathfnSpecialValues, LnOfSubnormalsIsFinite) {
  EXPECT_FLOAT_EQ(-103.278931f, hw_ln(kMinSubnormal));  // -149 ln 2
  EXPECT_FLOAT_EQ(-87.3365479f, hw_ln(kMaxSubnormal));
}

TEST(MathfnSpecialValues, RecOfZeroIsSignedInfAndOfInfIsSignedZero) {
  EXPECT_BITS(kPlusInf, hw_rec(0.0f));
  EXPECT_BITS(kMinusInf, hw_rec(-0.0f));
  EXPECT_BITS(kPlusZero, hw_rec(kInf));
  EXPECT_BITS(kMinusZero, hw_rec(-kInf));
}

TEST(MathfnSpecialValues, RecOfTinySubnormalOverflowsToInf) {
  EXPECT_BITS(kPlusInf, hw_rec(kMinSubnormal));
  EXPECT_BITS(kMinusInf, hw_rec(-kMinSubnormal));
  EXPECT_BITS(kPlusInf, hw_rec(0x1p-128f));  // 2^128 > FLT_MAX
  EXPECT_EQ(0x1p127f, hw_rec(0x1p-127f));    // subnormal input with an exact finite reciprocal
  EXPECT_EQ(0x1p126f, hw_rec(kMinNormal));
  // Just above 2^-128 the reciprocal falls below FLT_MAX + half an ULP: finite.
  EXPECT_EQ(0x1.fffffp+127f, hw_rec(0x1.000008p-128f));
}

TEST(MathfnSpecialValues, RecOfHugeValuesGivesSubnormals) {
  EXPECT_EQ(0x1p-127f, hw_rec(0x1p127f));
  EXPECT_BITS(0x00400000u, hw_rec(0x1p127f));
  EXPECT_BITS(0x80400000u, hw_rec(-0x1p127f));
  EXPECT_EQ(float(1.0 / double(kMax)), hw_rec(kMax));  // 2.94e-39, subnormal
  EXPECT_EQ(0x1p-126f, hw_rec(0x1p126f));
}

TEST(MathfnSpecialValues, SqrtKeepsSignedZeroAndRejectsNegatives) {
  EXPECT_BITS(kPlusZero, hw_sqrt(0.0f));
  EXPECT_BITS(kMinusZero, hw_sqrt(-0.0f));
  EXPECT_BITS(kDefaultNaN, hw_sqrt(-1.0f));
  EXPECT_BITS(kDefaultNaN, hw_sqrt(-kMinSubnormal));
  EXPECT_BITS(kDefaultNaN, hw_sqrt(-kInf));
  EXPECT_BITS(kPlusInf, hw_sqrt(kInf));
}

TEST(MathfnSpecialValues, RsqrtOfZeroIsSignedInfAndOfInfIsPlusZero) {
  EXPECT_BITS(kPlusInf, hw_rsqrt(0.0f));
  EXPECT_BITS(kMinusInf, hw_rsqrt(-0.0f));
  EXPECT_BITS(kDefaultNaN, hw_rsqrt(-1.0f));
  EXPECT_BITS(kDefaultNaN, hw_rsqrt(-kInf));
  EXPECT_BITS(kPlusZero, hw_rsqrt(kInf));
}

TEST(MathfnSpecialValues, SqrtAndRsqrtOfSubnormalsAreNotFlushed) {
  EXPECT_EQ(0x1p-74f, hw_sqrt(0x1p-148f));
  EXPECT_EQ(0x1p74f, hw_rsqrt(0x1p-148f));
  EXPECT_EQ(float(std::sqrt(double(kMinSubnormal))), hw_sqrt(kMinSubnormal));
  EXPECT_EQ(float(1.0 / std::sqrt(double(kMinSubnormal))), hw_rsqrt(kMinSubnormal));
}

TEST(MathfnSpecialValues, DivInvalidOperationsGiveDefaultNan) {
  EXPECT_BITS(kDefaultNaN, hw_div(0.0f, 0.0f));
  EXPECT_BITS(kDefaultNaN, hw_div(-0.0f, 0.0f));
  EXPECT_BITS(kDefaultNaN, hw_div(kInf, kInf));
  EXPECT_BITS(kDefaultNaN, hw_div(-kInf, kInf));
}

TEST(MathfnSpecialValues, DivByZeroAndOfInfinityGiveSignedInf) {
  EXPECT_BITS(kPlusInf, hw_div(1.0f, 0.0f));
  EXPECT_BITS(kMinusInf, hw_div(-1.0f, 0.0f));
  EXPECT_BITS(kMinusInf, hw_div(1.0f, -0.0f));
  EXPECT_BITS(kPlusInf, hw_div(-kMinSubnormal, -0.0f));
  EXPECT_BITS(kPlusInf, hw_div(kInf, kMax));
  EXPECT_BITS(kMinusInf, hw_div(kInf, -0.0f));
}

TEST(MathfnSpecialValues, DivOfZeroAndByInfinityGiveSignedZero) {
  EXPECT_BITS(kPlusZero, hw_div(0.0f, 5.0f));
  EXPECT_BITS(kMinusZero, hw_div(-0.0f, 5.0f));
  EXPECT_BITS(kMinusZero, hw_div(0.0f, -kMinSubnormal));
  EXPECT_BITS(kPlusZero, hw_div(5.0f, kInf));
  EXPECT_BITS(kMinusZero, hw_div(-kMax, kInf));
}

TEST(MathfnSpecialValues, DivOverflowsAndUnderflowsLikeIeee) {
  EXPECT_BITS(kPlusInf, hw_div(kMax, 0.5f));
  EXPECT_BITS(kMinusInf, hw_div(kMax, -kMinSubnormal));
  EXPECT_BITS(kPlusZero, hw_div(kMinSubnormal, kMax));
  EXPECT_BITS(0x00000001u, hw_div(kMinSubnormal, 1.0f));
  EXPECT_EQ(0x1p-148f, hw_div(0x1p-21f, 0x1p127f));
  EXPECT_EQ(0x1p100f, hw_div(0x1p-27f, 0x1p-127f));  // tiny / subnormal: no premature overflow
  EXPECT_EQ(1.5f, hw_div(0x1.8p127f, 0x1p127f));     // huge / huge: no premature underflow
}

TEST(MathfnExactCases, ExpOfZeroIsOne) {
  EXPECT_BITS(bits(1.0f), hw_exp(0.0f));
  EXPECT_BITS(bits(1.0f), hw_exp(-0.0f));
  EXPECT_BITS(bits(1.0f), hw_exp(kMinSubnormal));
  EXPECT_BITS(bits(1.0f), hw_exp(-kMinSubnormal));
}

TEST(MathfnExactCases, LnOfOneIsPlusZero) { EXPECT_BITS(kPlusZero, hw_ln(1.0f)); }

TEST(MathfnExactCases, LnOfPowersOfTwoIsTheMultipleOfLn2) {
  for (int k = -149; k <= 127; ++k) {
    const float expected = float(double(k) * 0.69314718055994530942);
    EXPECT_EQ(expected, hw_ln(std::ldexp(1.0f, k))) << "k = " << k;
  }
}

TEST(MathfnExactCases, SmallIntegerCases) {
  EXPECT_EQ(0.5f, hw_rec(2.0f));
  EXPECT_EQ(-0.25f, hw_rec(-4.0f));
  EXPECT_EQ(2.0f, hw_sqrt(4.0f));
  EXPECT_EQ(3.0f, hw_sqrt(9.0f));
  EXPECT_EQ(0.5f, hw_rsqrt(4.0f));
  EXPECT_EQ(2.0f, hw_div(6.0f, 3.0f));
  EXPECT_EQ(-0.125f, hw_div(1.0f, -8.0f));
}

TEST(MathfnExactCases, RecOfEveryPowerOfTwoIsExactOrOverflows) {
  for (int k = -149; k <= 127; ++k) {
    const float x = std::ldexp(1.0f, k);
    const float expected = k < -127 ? kInf : std::ldexp(1.0f, -k);
    EXPECT_EQ(expected, hw_rec(x)) << "k = " << k;
    EXPECT_EQ(-expected, hw_rec(-x)) << "k = " << k;
  }
}

TEST(MathfnExactCases, SqrtAndRsqrtOfEveryEvenPowerOfTwoAreExact) {
  for (int k = -148; k <= 126; k += 2) {
    const float x = std::ldexp(1.0f, k);
    EXPECT_EQ(std::ldexp(1.0f, k / 2), hw_sqrt(x)) << "k = " << k;
    EXPECT_EQ(std::ldexp(1.0f, -k / 2), hw_rsqrt(x)) << "k = " << k;
  }
}

TEST(MathfnExactCases, SqrtOfEveryExactSquareIsExact) {
  for (uint32_t n = 1; n < 4096; ++n) EXPECT_EQ(float(n), hw_sqrt(float(n * n))) << "n = " << n;
}

TEST(MathfnExactCases, DivisionByOneAndByItselfIsExact) {
  uint64_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float x = from_bits(uint32_t(state >> 32));
    if (!std::isfinite(x) || x == 0.0f) continue;
    EXPECT_BITS(bits(x), hw_div(x, 1.0f));
    EXPECT_EQ(1.0f, hw_div(x, x)) << "x = " << x;
    EXPECT_EQ(-x, hw_div(x, -1.0f));
  }
}

TEST(MathfnExactCases, DivisionOfPowersOfTwoIsExactIncludingSubnormalResults) {
  for (int i = -149; i <= 127; i += 7) {
    for (int j = -149; j <= 127; j += 5) {
      const int k = i - j;
      const float expected = k > 127 ? kInf : (k < -149 ? 0.0f : std::ldexp(1.0f, k));
      EXPECT_EQ(expected, hw_div(std::ldexp(1.0f, i), std::ldexp(1.0f, j))) << i << " - " << j;
    }
  }
}

}  // namespace
}  // namespace npusim::isa
