// The deterministic input generator: SplitMix64 reference outputs, exact uniform and normal values for
// fixed seeds, the double-precision ln / sin / cos it uses, distribution statistics, integer dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/numeric/numeric.h"
#include "kernels/host/case_file.h"
#include "kernels/host/det_math.h"
#include "kernels/host/input_cache.h"
#include "tests/support/scratch.h"

namespace npusim::op {
namespace {

std::vector<uint32_t> f32_bits_of(const HostTensor& h) {
  std::vector<uint32_t> out;
  for (int64_t i = 0; i < h.numel(); ++i) out.push_back(isa::f32_bits(static_cast<float>(h.get(i))));
  return out;
}

TEST(Generator, SplitMix64MatchesThePublishedSequence) {
  // The reference outputs of Vigna's splitmix64.c for seed 0.
  SplitMix64 g{0};
  EXPECT_EQ(g.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(g.next(), 0x06c45d188009454full);
}

TEST(Generator, UniformFirstValuesAreFixed) {
  InitSpec s;
  s.dist = "uniform", s.low = -2, s.high = 5, s.seed = 42;
  const HostTensor h = generate(ElemType::F32, {2, 2}, s);
  // Computed independently (Python: splitmix64, then -2 + 7 * ((x >> 11) * 2^-53) rounded to float32).
  const std::vector<double> expect = {3.1909542083740234, -0.8806272745132446, -0.0497920885682106,
                                      0.40933501720428467};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h.get(i), expect[static_cast<size_t>(i)]) << i;
  // The same rule written out here.
  SplitMix64 g{42};
  for (int i = 0; i < 4; ++i) {
    const double u = static_cast<double>(g.next() >> 11) / 9007199254740992.0;
    EXPECT_EQ(h.get(i), static_cast<double>(static_cast<float>(-2 + 7 * u)));
  }
}

// The array forms the generator uses are the scalar definitions, bit for bit: a million random inputs of
// each (ln over the generator's (0, 1] draws and over all magnitudes, subnormals included; sin / cos over
// [0, 1)) and the edge cases, in blocks of every length up to kDetBlock.
TEST(Generator, ArrayFormsOfLnAndSinCosAreBitIdenticalToTheScalarOnes) {
  SplitMix64 g{2024};
  std::vector<double> x, u;
  for (int i = 0; i < 1000000; ++i) {
    x.push_back(i % 2 ? static_cast<double>((g.next() >> 11) + 1) * 0x1p-53
                      : std::fabs(std::bit_cast<double>((g.next() & 0x7fefffffffffffffull) | 1)));
    u.push_back(g.uniform());
  }
  for (double e : {1.0, 0x1p-53, 4.9406564584124654e-324, 2.2250738585072014e-308, 1.4142135623730951,
                   1.4142135623730954, 1.7976931348623157e308})
    x.push_back(e);
  for (double e : {0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 0.9999999999999999}) u.push_back(e);
  auto same = [](double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); };
  double out[kDetBlock], s[kDetBlock], c[kDetBlock];
  for (size_t i0 = 0, len = 1; i0 < x.size(); i0 += len, len = len % kDetBlock + 1) {
    const int n = static_cast<int>(std::min(len, x.size() - i0));
    det_ln_n(x.data() + i0, out, n);
    for (int k = 0; k < n; ++k) ASSERT_TRUE(same(out[k], det_ln(x[i0 + k]))) << x[i0 + k];
  }
  for (size_t i0 = 0, len = 1; i0 < u.size(); i0 += len, len = len % kDetBlock + 1) {
    const int n = static_cast<int>(std::min(len, u.size() - i0));
    det_sincos_2pi_n(u.data() + i0, s, c, n);
    for (int k = 0; k < n; ++k) {
      double rs, rc;
      det_sincos_2pi(u[i0 + k], rs, rc);
      ASSERT_TRUE(same(s[k], rs) && same(c[k], rc)) << u[i0 + k];
    }
  }
}

// HostTensor::set rounds doubles through float when that is exact: the same bits as rounding once, on
// random values of every magnitude, on exact ties of each format (and one float ulp either side) and on
// its subnormals, overflow boundary and non-finite values.
TEST(Generator, FloatStoresRoundOnceLikeTheGeneralRounding) {
  SplitMix64 g{5};
  std::vector<double> vals = {0.0,      -0.0,     65504.0, 65519.99999, 65520.0,   65536.0,     3.4e38,
                              1e300,    -1e300,   0x1p-14, 0x1p-24,     0x1p-25,   3 * 0x1p-26, 0x1p-126,
                              0x1p-133, 0x1p-149, 1e-320,  INFINITY,    -INFINITY, NAN};
  for (int i = 0; i < 300000; ++i) {
    const double mag = std::ldexp(1.0, static_cast<int>(g.next() % 80) - 40);
    const double x = (g.uniform() * 2 - 1) * mag;
    vals.push_back(x);
    // ties of float16 and bfloat16 around x, exactly and nudged by less than a float ulp
    for (int drop : {13, 16}) {
      const double q = std::ldexp(1.0, std::ilogb(x == 0 ? 1 : x) - 23 + drop);
      const double tie = (std::floor(x / q) + 0.5) * q;
      vals.push_back(tie);
      vals.push_back(std::nextafter(tie, 0));
      vals.push_back(std::nextafter(tie, INFINITY));
      vals.push_back(tie + q * 0x1p-30);
    }
  }
  for (ElemType t : {ElemType::F16, ElemType::BF16, ElemType::F32}) {
    const int exp_bits = t == ElemType::F16 ? 5 : 8,
              man_bits = t == ElemType::F16 ? 10 : (t == ElemType::BF16 ? 7 : 23);
    HostTensor h = HostTensor::zeros(t, {1});
    for (double v : vals) {
      h.set(0, v);
      uint64_t got = 0;
      for (int b = elem_bytes(t) - 1; b >= 0; --b) got = (got << 8) | h.bytes[static_cast<size_t>(b)];
      ASSERT_EQ(got, isa::round_to_binary(v, exp_bits, man_bits, isa::RoundMode::RINT, isa::Overflow::Ieee))
          << elem_type_name(t) << " " << v;
    }
  }
}

// The input cache returns the generator's bits: a miss writes the entry, a hit reads the same bytes, a
// damaged entry (a flipped data byte) fails its hash and is regenerated and rewritten, NPUSIM_INPUT_CACHE=0
// bypasses it, and small tensors are never stored.
TEST(Generator, InputCacheHitsAreTheGeneratedBitsAndDamagedEntriesAreRegenerated) {
  setenv("NPUSIM_CACHE_DIR", test::scratch_dir().c_str(), 1);
  InitSpec s;
  s.dist = "normal", s.seed = 42, s.std = 0.5;
  const std::vector<int64_t> shape = {1024, 1024};
  const HostTensor want = generate(ElemType::BF16, shape, s);
  const std::string entry = input_cache_entry(ElemType::BF16, shape, s);
  ASSERT_FALSE(entry.empty());
  EXPECT_FALSE(std::filesystem::exists(entry));
  EXPECT_EQ(generate_cached(ElemType::BF16, shape, s).bytes, want.bytes);  // miss: generated, stored
  ASSERT_TRUE(std::filesystem::exists(entry));
  EXPECT_EQ(generate_cached(ElemType::BF16, shape, s).bytes, want.bytes);  // hit
  {
    std::fstream f(entry, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(-100, std::ios::end);
    f.put('\x5a');
  }
  EXPECT_EQ(generate_cached(ElemType::BF16, shape, s).bytes, want.bytes);  // damaged: regenerated
  s.seed = 43;                                                             // another key: another entry, other bits
  EXPECT_NE(generate_cached(ElemType::BF16, shape, s).bytes, want.bytes);
  EXPECT_NE(input_cache_entry(ElemType::BF16, shape, s), entry);
  EXPECT_TRUE(input_cache_entry(ElemType::F16, {8, 8}, s).size() > 0);
  generate_cached(ElemType::F16, {8, 8}, s);  // 128 bytes: below kMinCacheBytes, not stored
  EXPECT_FALSE(std::filesystem::exists(input_cache_entry(ElemType::F16, {8, 8}, s)));
  setenv("NPUSIM_INPUT_CACHE", "0", 1);
  EXPECT_EQ(input_cache_dir(), "");
  unsetenv("NPUSIM_INPUT_CACHE");
}

TEST(Generator, NormalFirstValuesAreFixed) {
  InitSpec s;
  s.dist = "normal", s.seed = 7;
  const HostTensor h = generate(ElemType::F32, {4}, s);
  // The generator's float32 bits, pinned; Python's Box-Muller with libm gives the same float32 values
  // (1.3649922974572282, 0.14452122126941494, -0.39652397525381783, -0.22759631143286652 in double).
  EXPECT_EQ(f32_bits_of(h), (std::vector<uint32_t>{0x3faeb811, 0x3e13fd5f, 0xbecb0531, 0xbe690f02}));
  // mean and std scale the same draws; an odd count is a prefix of the even one.
  s.mean = 10, s.std = 0.5;
  const HostTensor scaled = generate(ElemType::F32, {3}, s);
  EXPECT_NEAR(scaled.get(0), 10 + 0.5 * 1.3649922974572282, 1e-6);
  EXPECT_NEAR(scaled.get(2), 10 - 0.5 * 0.39652397525381783, 1e-6);
  s.mean = 0, s.std = 1;
  EXPECT_EQ(f32_bits_of(generate(ElemType::F32, {3}, s)), (std::vector<uint32_t>{0x3faeb811, 0x3e13fd5f, 0xbecb0531}));
}

TEST(Generator, DoublePrecisionLnSinCosAreAccurate) {
  SplitMix64 g{123};
  for (int i = 0; i < 100000; ++i) {
    const double u = g.uniform();
    const double x = static_cast<double>((g.next() >> 11) + 1) * 0x1p-53;
    EXPECT_NEAR(det_ln(x), std::log(x), 4e-16 * std::fabs(std::log(x)) + 1e-300) << x;
    double s, c;
    det_sincos_2pi(u, s, c);
    EXPECT_NEAR(s, std::sin(2 * M_PI * u), 2e-15) << u;
    EXPECT_NEAR(c, std::cos(2 * M_PI * u), 2e-15) << u;
  }
  EXPECT_EQ(det_ln(1.0), 0.0);
  EXPECT_NEAR(det_ln(0x1p-53), -53 * M_LN2, 1e-13);
  EXPECT_NEAR(det_ln(4.9406564584124654e-324), -744.44007192138126, 1e-12);  // smallest subnormal
  double s, c;
  det_sincos_2pi(0.25, s, c);
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(c, 0.0);
}

TEST(Generator, NormalMeanAndStdAreRight) {
  InitSpec s;
  s.dist = "normal", s.mean = 3, s.std = 2, s.seed = 99;
  const HostTensor h = generate(ElemType::F32, {100000}, s);
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < h.numel(); ++i) sum += h.get(i);
  const double mean = sum / 1e5;
  for (int64_t i = 0; i < h.numel(); ++i) sq += (h.get(i) - mean) * (h.get(i) - mean);
  EXPECT_NEAR(mean, 3, 0.02);  // standard error 2 / sqrt(1e5) = 0.0063
  EXPECT_NEAR(std::sqrt(sq / 1e5), 2, 0.02);
}

TEST(Generator, SameSeedSameBitsDifferentSeedDifferentBits) {
  InitSpec s;
  s.seed = 5;
  const HostTensor a = generate(ElemType::BF16, {64}, s), b = generate(ElemType::BF16, {64}, s);
  EXPECT_EQ(a.bytes, b.bytes);
  s.seed = 6;
  EXPECT_NE(generate(ElemType::BF16, {64}, s).bytes, a.bytes);
}

TEST(Generator, IntegerTypesFloorUniformAndRoundNormalWithinRange) {
  InitSpec s;
  s.dist = "uniform", s.low = -3, s.high = 3, s.seed = 1;
  const HostTensor u = generate(ElemType::I8, {1000}, s);
  std::vector<int> seen(6, 0);
  for (int64_t i = 0; i < u.numel(); ++i) {
    const double v = u.get(i);
    ASSERT_TRUE(v >= -3 && v <= 2) << v;
    ++seen[static_cast<size_t>(v + 3)];
  }
  for (int n : seen) EXPECT_GT(n, 100);
  s.dist = "normal", s.mean = 0, s.std = 100;
  const HostTensor b = generate(ElemType::Bool, {200}, s), q = generate(ElemType::I4, {200}, s);
  for (int64_t i = 0; i < 200; ++i) {
    EXPECT_TRUE(b.get(i) == 0 || b.get(i) == 1);
    EXPECT_TRUE(q.get(i) >= -8 && q.get(i) <= 7);
  }
  s.std = 3;  // the same draws as a float tensor, rounded to the nearest integer
  const HostTensor n = generate(ElemType::I32, {1000}, s), f = generate(ElemType::F32, {1000}, s);
  for (int64_t i = 0; i < n.numel(); ++i) EXPECT_EQ(n.get(i), std::nearbyint(f.get(i))) << i;
}

TEST(Generator, BernoulliIsOneWhereTheUniformDrawIsBelowP) {
  InitSpec s;
  s.dist = "bernoulli", s.p = 0.3, s.seed = 42;
  const HostTensor m = generate(ElemType::Bool, {4000}, s), i8 = generate(ElemType::I8, {4000}, s);
  SplitMix64 g{42};
  int64_t ones = 0;
  for (int64_t i = 0; i < m.numel(); ++i) {
    const double want = g.uniform() < 0.3 ? 1 : 0;  // the rule, written out
    EXPECT_EQ(m.get(i), want) << i;
    EXPECT_EQ(i8.get(i), want) << i;
    ones += m.get(i) == 1;
  }
  EXPECT_NEAR(static_cast<double>(ones) / 4000, 0.3, 0.03);
  s.p = 0;
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(generate(ElemType::U8, {100}, s).get(i), 0);
  s.p = 1;
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(generate(ElemType::U8, {100}, s).get(i), 1);
}

TEST(Generator, TriuIsOneStrictlyAboveTheDiagonalOfTheLastTwoDims) {
  InitSpec s;
  s.dist = "triu";
  const HostTensor t = generate(ElemType::Bool, {2, 3, 4}, s);  // two 3 x 4 matrices
  const std::vector<double> one = {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1};
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(t.get(i), one[static_cast<size_t>(i % 12)]) << i;
  EXPECT_THROW(generate(ElemType::Bool, {5}, s), CaseError);
}

TEST(Generator, PermutationHoldsEveryValueOnceInASeededOrder) {
  InitSpec s;
  s.dist = "permutation", s.seed = 7;
  const HostTensor a = generate(ElemType::I32, {4, 25}, s);
  std::vector<int> seen(100, 0);
  bool moved = false;
  for (int64_t i = 0; i < 100; ++i) {
    ++seen[static_cast<size_t>(a.get(i))];
    moved |= a.get(i) != static_cast<double>(i);
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_TRUE(moved);
  // Fisher-Yates with j = next() % (i + 1), written out for 3 elements.
  SplitMix64 g{7};
  std::vector<int> w = {0, 1, 2};
  for (int i = 2; i >= 1; --i)
    std::swap(w[static_cast<size_t>(i)], w[static_cast<size_t>(g.next() % static_cast<uint64_t>(i + 1))]);
  const HostTensor three = generate(ElemType::I64, {3}, s);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(three.get(i), w[static_cast<size_t>(i)]);
  EXPECT_EQ(generate(ElemType::I32, {4, 25}, s).bytes, a.bytes);  // deterministic
  EXPECT_THROW(generate(ElemType::F32, {3}, s), CaseError);
  EXPECT_THROW(generate(ElemType::I8, {129}, s), CaseError);  // 128 does not fit
}

TEST(Generator, ZerosAndOnesForEveryType) {
  for (int ti = 0; ti < 10; ++ti) {
    const auto t = static_cast<ElemType>(ti);
    InitSpec s;
    s.dist = "zeros";
    const HostTensor z = generate(t, {3, 2}, s);
    s.dist = "ones";
    const HostTensor o = generate(t, {3, 2}, s);
    ASSERT_EQ(z.numel(), 6);
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(z.get(i), 0) << elem_type_name(t);
      EXPECT_EQ(o.get(i), 1) << elem_type_name(t);
    }
  }
  InitSpec bad;
  bad.dist = "cauchy";
  EXPECT_THROW(generate(ElemType::F32, {1}, bad), CaseError);
}

}  // namespace
}  // namespace npusim::op
