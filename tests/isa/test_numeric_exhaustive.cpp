// Exhaustive conversion checks: every fp16 pattern, and every one of the 2^32 fp32 patterns against the
// host's F16C conversion and against the textbook bf16 RNE formula. Split into 16 shards of 2^28 inputs so
// that ctest can run them in parallel.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>

#include "isa/numeric/numeric.h"

namespace npusim::isa {
namespace {

constexpr int kShards = 16;
constexpr uint64_t kPerShard = (uint64_t{1} << 32) / kShards;

bool f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

TEST(F16RoundTrip, EveryPatternWidensAndNarrowsBack) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    const float host = _cvtsh_ss(static_cast<uint16_t>(h));
    if (f16_is_nan(static_cast<uint16_t>(h))) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // NaN comes back quiet with its payload (quiet bit set), as F16C does.
      ASSERT_EQ(f32_to_f16(f, RoundMode::RINT, Overflow::Ieee), h | 0x200) << std::hex << h;
    } else {
      ASSERT_EQ(f32_bits(f), f32_bits(host)) << std::hex << h;
      for (int m = 0; m < 6; ++m)  // exact values are unaffected by the rounding mode
        ASSERT_EQ(f32_to_f16(f, static_cast<RoundMode>(m), Overflow::Ieee), h) << std::hex << h;
    }
  }
}

class AllFp32 : public ::testing::TestWithParam<int> {};

// The portable reference with RINT and IEEE overflow must equal vcvtps2ph (inf on overflow, NaN quieted keeping top
// payload bits); saturating mode must equal it except where F16C gives inf (-> +-65504) or NaN (-> +0).
TEST_P(AllFp32, F32ToF16MatchesF16CAndSaturatesWhereItMust) {
  const uint64_t begin = GetParam() * kPerShard;
  alignas(32) uint32_t in[8];
  alignas(16) uint16_t host[8];
  for (uint64_t base = begin; base < begin + kPerShard; base += 8) {
    for (int i = 0; i < 8; ++i) in[i] = static_cast<uint32_t>(base + i);
    const __m256 v = _mm256_load_ps(reinterpret_cast<const float*>(in));
    _mm_store_si128(reinterpret_cast<__m128i*>(host), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    for (int i = 0; i < 8; ++i) {
      const float x = f32_from_bits(in[i]);
      const uint16_t ieee = f32_to_f16_reference(x, RoundMode::RINT, Overflow::Ieee);
      if (ieee != host[i]) FAIL() << "ieee mismatch for 0x" << std::hex << in[i] << ": " << ieee << " vs " << host[i];
      const uint16_t sat = f32_to_f16_reference(x, RoundMode::RINT, Overflow::Saturate);
      uint16_t want = host[i];
      if ((host[i] & 0x7fff) == kF16InfBits) want = (host[i] & 0x8000) | kF16MaxBits;
      if (f16_is_nan(host[i])) want = 0;
      if (sat != want) FAIL() << "saturate mismatch for 0x" << std::hex << in[i] << ": " << sat << " vs " << want;
      // f32_to_f16 (RINT) returns vcvtps2ph's value, i.e. host[i], except where it saturates: check those
      if ((host[i] & 0x7c00) == 0x7c00 && f32_to_f16(x, RoundMode::RINT, Overflow::Saturate) != sat)
        FAIL() << "fast saturating path differs for 0x" << std::hex << in[i];
    }
  }
}

// The RNE formula of numerics.md §4: NaN -> (u >> 16) | 0x40, else (u + 0x7fff + ((u >> 16) & 1)) >> 16.
TEST_P(AllFp32, F32ToBf16MatchesTheRneFormula) {
  const uint64_t begin = GetParam() * kPerShard;
  for (uint64_t i = begin; i < begin + kPerShard; ++i) {
    const auto u = static_cast<uint32_t>(i);
    const bool nan = (u & 0x7fffffff) > 0x7f800000;
    const auto want = static_cast<uint16_t>(nan ? (u >> 16) | 0x40 : (u + 0x7fff + ((u >> 16) & 1)) >> 16);
    const uint16_t got = f32_to_bf16(f32_from_bits(u), RoundMode::RINT, Overflow::Ieee);
    if (got != want) FAIL() << "bf16 mismatch for 0x" << std::hex << u << ": " << got << " vs " << want;
    // and the general rounding (float -> double is exact), which does not use the formula: on every pattern
    // next to a tie and on one in 64 of the others (it is slow)
    const uint32_t low = u & 0xffff;
    if (!nan && ((low >= 0x7ffe && low <= 0x8001) || (u & 63) == 0) &&
        round_to_binary(static_cast<double>(f32_from_bits(u)), 8, 7, RoundMode::RINT, Overflow::Ieee) != want)
      FAIL() << "bf16 formula differs from round_to_binary for 0x" << std::hex << u;
  }
}

INSTANTIATE_TEST_SUITE_P(Shard, AllFp32, ::testing::Range(0, kShards));

// Every exponent with the tie, above-tie and below-tie low halves, both parities and signs, in all modes
// that bf16 supports; checked against an independent definition on doubles.
TEST(F32ToBf16, EveryExponentTieAboveBelowInAllModes) {
  const uint32_t lows[] = {0x8000, 0x8001, 0x7fff, 0x0000, 0xffff};
  for (uint32_t e = 0; e < 255; ++e)
    for (uint32_t hi_man : {0u, 1u, 0x7eu, 0x7fu})
      for (uint32_t low : lows)
        for (uint32_t s : {0u, 1u}) {
          const uint32_t u = (s << 31) | (e << 23) | (hi_man << 16) | low;
          const double x = f32_from_bits(u);
          for (int m = 0; m < 5; ++m) {
            const auto mode = static_cast<RoundMode>(m);
            ASSERT_EQ(f32_to_bf16(static_cast<float>(x), mode, Overflow::Ieee),
                      round_to_binary(x, 8, 7, mode, Overflow::Ieee))
                << std::hex << u << " mode " << round_mode_name(mode);
          }
        }
}

}  // namespace
}  // namespace npusim::isa
