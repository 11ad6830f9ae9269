// Vector-unit math functions (isa/mathfn.h): measured ULP bounds against the correctly rounded libm
// reference, and the array forms giving the same bits as the scalar forms. The exhaustive versions
// (all 2^32 inputs) run only with NPUSIM_LONG_TESTS; tools/bench/ulp_table prints the full table.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/isa/mathfn_reference.h"

namespace npusim::isa {
namespace {

using namespace mathfn_ref;

// Largest error in whole fp32 steps from the correctly rounded value, measured over all 2^32 inputs
// (div: 10^8 random pairs + edge pairs) by ulp_table; see isa/README.md section 5.
uint64_t max_ulp(Unary f) {
  switch (f) {
    case Unary::Exp: return 1;
    case Unary::Ln: return 1;
    case Unary::Rec: return 1;
    case Unary::Sqrt: return 0;
    case Unary::Rsqrt: return 1;
  }
  return 0;
}
constexpr uint64_t kDivMaxUlp = 1;

// Functions whose normal-range results are all correctly rounded (measured exhaustively; div on the
// random and edge pairs): the one-step errors of rec and div come only from the second rounding of
// subnormal results, and sqrt has none at all.
bool correctly_rounded_when_normal(Unary f) { return f == Unary::Rec || f == Unary::Sqrt; }
constexpr bool kDivCorrectlyRoundedWhenNormal = true;
bool is_normal_result(double exact) { return std::fabs(float(exact)) >= 0x1p-126f; }

struct Result {
  uint64_t max_steps = 0;
  uint32_t worst = 0;
  uint64_t misrounded_normal = 0;  // counted only for correctly_rounded_when_normal functions
  uint32_t first_misrounded_normal = 0;
  uint64_t special_mismatches = 0;
  uint32_t first_special_mismatch = 0;
};

// Runs the array form over the given patterns, checks it against the scalar form bit for bit, and
// measures the ULP error (in domain) or the special-value rule (outside).
Result check_patterns(Unary f, const std::vector<float>& in) {
  const UnaryInfo& fn = info(f);
  std::vector<float> out(in.size());
  fn.hw_n(in.data(), out.data(), in.size());
  Result r;
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(bits(fn.hw(in[i])), bits(out[i])) << fn.name << " array != scalar at input " << std::hex << bits(in[i]);
    if (auto expected = special_result(f, in[i])) {
      if (bits(out[i]) != *expected && r.special_mismatches++ == 0) r.first_special_mismatch = bits(in[i]);
      continue;
    }
    const double exact = fn.exact(double(in[i]));
    const uint64_t steps = ulp_error(out[i], exact).steps;
    if (steps > r.max_steps) r.max_steps = steps, r.worst = bits(in[i]);
    if (steps != 0 && correctly_rounded_when_normal(f) && is_normal_result(exact) && r.misrounded_normal++ == 0) {
      r.first_misrounded_normal = bits(in[i]);
    }
  }
  return r;
}

// Patterns first, first + stride, ... below 2^32 (stride 1: all of them), in batches.
void check_strided(Unary f, uint64_t first, uint64_t stride) {
  Result total;
  std::vector<float> in;
  for (uint64_t u = first; u < (uint64_t(1) << 32); u += stride) {
    in.push_back(from_bits(uint32_t(u)));
    if (in.size() == (1u << 16) || u + stride >= (uint64_t(1) << 32)) {
      const Result r = check_patterns(f, in);
      if (r.max_steps > total.max_steps) total.max_steps = r.max_steps, total.worst = r.worst;
      if (r.misrounded_normal && !total.misrounded_normal) total.first_misrounded_normal = r.first_misrounded_normal;
      total.misrounded_normal += r.misrounded_normal;
      if (r.special_mismatches && !total.special_mismatches) total.first_special_mismatch = r.first_special_mismatch;
      total.special_mismatches += r.special_mismatches;
      in.clear();
      if (::testing::Test::HasFailure()) break;  // array != scalar: stop after the first batch
    }
  }
  EXPECT_LE(total.max_steps, max_ulp(f)) << info(f).name << " worst input 0x" << std::hex << total.worst;
  EXPECT_EQ(0u, total.special_mismatches) << info(f).name << " first at 0x" << std::hex << total.first_special_mismatch;
  EXPECT_EQ(0u, total.misrounded_normal) << info(f).name << " not correctly rounded at 0x" << std::hex
                                         << total.first_misrounded_normal;
}

class MathfnUnary : public ::testing::TestWithParam<Unary> {};

TEST_P(MathfnUnary, MaxUlpBoundHoldsOnEvery4099thPattern) { check_strided(GetParam(), 0, 4099); }

TEST_P(MathfnUnary, MaxUlpBoundHoldsOnAllPatterns) {
  if (!NPUSIM_LONG_TESTS) GTEST_SKIP() << "exhaustive: needs NPUSIM_LONG_TESTS";
  check_strided(GetParam(), 0, 1);
}

// Inputs where a vectorised path could diverge: every special class, subnormals, the exp
// overflow/underflow thresholds, ln near 1 and near the sqrt(2) reduction boundary, and neighbours.
std::vector<float> adversarial_inputs() {
  const uint32_t centres[] = {0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007fffff, 0x00800000, 0x00800001,
                              0x3f800000, 0x3f7ffff8, 0x3f800008, 0x3fb504f3, 0x3fb504f4, 0x3f3504f3, 0x40000000,
                              0x40800000, 0x7f7fffff, 0x7f000000, 0x7e800000, 0x42b17217, 0x42b17218, 0x42b20000,
                              0xc2aeac4f, 0xc2aeac50, 0xc2cff1b4, 0xc2cff1b5, 0xc2d00000, 0x42c80000, 0x33800000,
                              0x7f800000, 0x7f800001, 0x7fa00000, 0x7fc00000, 0x7fc12345, 0x7fffffff};
  std::vector<float> v;
  for (uint32_t c : centres)
    for (int d = -3; d <= 3; ++d)
      for (uint32_t sign : {0u, 0x80000000u}) v.push_back(from_bits((c + uint32_t(d)) ^ sign));
  uint64_t state = 99;
  while (v.size() < 5000) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(from_bits(uint32_t(state >> 32)));
  }
  return v;
}

TEST_P(MathfnUnary, ArrayFormEqualsScalarFormOnAdversarialInputs) {
  const std::vector<float> in = adversarial_inputs();
  check_patterns(GetParam(), in);
}

TEST_P(MathfnUnary, ArrayFormEqualsScalarFormForEveryLengthAndInPlace) {
  const UnaryInfo& fn = info(GetParam());
  const std::vector<float> src = adversarial_inputs();
  for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(7), size_t(8), size_t(9), size_t(15), size_t(17), size_t(63),
                   size_t(1001)}) {
    for (size_t offset : {size_t(0), size_t(1), size_t(5)}) {  // unaligned starts too
      std::vector<float> buf(src.begin() + long(offset), src.begin() + long(offset + n));
      std::vector<float> expected(n);
      for (size_t i = 0; i < n; ++i) expected[i] = fn.hw(buf[i]);
      fn.hw_n(buf.data(), buf.data(), n);  // in place: out == in
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(bits(expected[i]), bits(buf[i])) << fn.name << " n=" << n << " i=" << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllUnary, MathfnUnary, ::testing::ValuesIn(kAllUnary),
                         [](const ::testing::TestParamInfo<Unary>& p) {
                           return std::string(mathfn_ref::info(p.param).name);
                         });

// --- division -----------------------------------------------------------------------------------

std::vector<float> edge_values() {
  std::vector<float> v;
  const std::vector<float> adv = adversarial_inputs();
  for (size_t i = 0; i < 34 * 14; i += 3) v.push_back(adv[i]);  // a third of the edge neighbourhoods
  return v;
}

void check_div(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  hw_div_n(a.data(), b.data(), out.data(), a.size());
  uint64_t max_steps = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(bits(hw_div(a[i], b[i])), bits(out[i])) << "array != scalar: " << a[i] << " / " << b[i];
    if (auto expected = special_div(a[i], b[i])) {
      ASSERT_EQ(*expected, bits(out[i])) << "special: " << a[i] << " / " << b[i];
    } else {
      const double exact = exact_div(a[i], b[i]);
      const uint64_t steps = ulp_error(out[i], exact).steps;
      EXPECT_LE(steps, kDivMaxUlp) << std::hex << bits(a[i]) << " / " << bits(b[i]);
      if (kDivCorrectlyRoundedWhenNormal && is_normal_result(exact)) {
        EXPECT_EQ(0u, steps) << "not correctly rounded: " << std::hex << bits(a[i]) << " / " << bits(b[i]);
      }
      max_steps = std::max(max_steps, steps);
    }
  }
}

// Quotients just beside a rounding midpoint, where q + RN(y*r) lands exactly on the midpoint and only
// the remainder-sign check rounds correctly: (1 - 2^-24)^-1 = 1 + 2^-24 + 2^-48 and its scalings.
TEST(MathfnDiv, QuotientsBesideAMidpointAreCorrectlyRounded) {
  EXPECT_EQ(0x3f800001u, bits(hw_rec(from_bits(0x3f7fffffu))));
  EXPECT_EQ(0x3f000001u, bits(hw_rec(from_bits(0x3fffffffu))));
  EXPECT_EQ(0x3f800001u, bits(hw_div(from_bits(0x3f000000u), from_bits(0x3effffffu))));
  EXPECT_EQ(0x5e800001u, bits(hw_div(from_bits(0x5e800000u), from_bits(0x3f7fffffu))));
  EXPECT_EQ(0xbf800001u, bits(hw_div(from_bits(0x40000000u), from_bits(0xbfffffffu))));
  for (uint32_t m = 0x3f7ffff0u; m <= 0x3f800010u; ++m) {
    const float x = from_bits(m);
    EXPECT_EQ(float(1.0 / double(x)), hw_rec(x)) << std::hex << m;
    EXPECT_EQ(float(3.0 / double(x)), hw_div(3.0f, x)) << std::hex << m;
  }
}

TEST(MathfnDiv, MaxUlpBoundAndSpecialsHoldOnAllEdgePairs) {
  const std::vector<float> e = edge_values();
  std::vector<float> a, b;
  for (float x : e)
    for (float y : e) a.push_back(x), b.push_back(y);
  check_div(a, b);
}

TEST(MathfnDiv, MaxUlpBoundHoldsOnRandomPairs) {
  const size_t n = NPUSIM_LONG_TESTS ? 100'000'000 : 2'000'000;
  uint64_t state = 7;
  std::vector<float> a, b;
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t ua = uint32_t(state >> 32), ub = uint32_t(state);
    if (i & 1) {  // close exponents: normal quotients
      ua = (ua & 0x807fffffu) | ((100u + (ua >> 23 & 0x3f)) << 23);
      ub = (ub & 0x807fffffu) | ((100u + (ub >> 23 & 0x3f)) << 23);
    }
    a.push_back(from_bits(ua)), b.push_back(from_bits(ub));
    if (a.size() == (1u << 16) || i + 1 == n) {
      check_div(a, b);
      if (HasFatalFailure()) return;
      a.clear(), b.clear();
    }
  }
}

}  // namespace
}  // namespace npusim::isa
