// Conversions of isa/numeric.h on hand-derived edge cases, one test per rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "isa/numeric/numeric.h"

namespace npusim::isa {
namespace {

using RM = RoundMode;
constexpr auto kSat = Overflow::Saturate;
constexpr auto kIeee = Overflow::Ieee;

float pow2(int e) { return std::ldexp(1.0f, e); }

struct ModeCase {
  RM mode;
  uint16_t expect;
};

void expect_f16_modes(float x, std::initializer_list<ModeCase> cases) {
  for (auto c : cases)
    EXPECT_EQ(f32_to_f16(x, c.mode, kIeee), c.expect) << "x=" << x << " mode=" << round_mode_name(c.mode);
}

TEST(F32ToF16, TieAtOneRoundsPerMode) {
  // 1 + 2^-11 is exactly half an fp16 ulp above 1.0 (ulp = 2^-10); 1.0 has an even significand.
  expect_f16_modes(1.0f + pow2(-11), {{RM::RINT, 0x3c00},
                                      {RM::ROUND, 0x3c01},
                                      {RM::FLOOR, 0x3c00},
                                      {RM::CEIL, 0x3c01},
                                      {RM::TRUNC, 0x3c00},
                                      {RM::ODD, 0x3c01}});
  expect_f16_modes(-(1.0f + pow2(-11)), {{RM::RINT, 0xbc00},
                                         {RM::ROUND, 0xbc01},
                                         {RM::FLOOR, 0xbc01},
                                         {RM::CEIL, 0xbc00},
                                         {RM::TRUNC, 0xbc00},
                                         {RM::ODD, 0xbc01}});
}

TEST(F32ToF16, TieBetweenOddAndEvenGoesToEven) {
  // 1 + 3*2^-11 lies halfway between 0x3c01 (odd) and 0x3c02 (even).
  expect_f16_modes(1.0f + 3 * pow2(-11), {{RM::RINT, 0x3c02},
                                          {RM::ROUND, 0x3c02},
                                          {RM::FLOOR, 0x3c01},
                                          {RM::CEIL, 0x3c02},
                                          {RM::TRUNC, 0x3c01},
                                          {RM::ODD, 0x3c01}});
}

TEST(F32ToF16, BelowAndAboveTie) {
  expect_f16_modes(1.0f + pow2(-11) - pow2(-23), {{RM::RINT, 0x3c00}, {RM::ROUND, 0x3c00}, {RM::CEIL, 0x3c01}});
  expect_f16_modes(1.0f + pow2(-11) + pow2(-23), {{RM::RINT, 0x3c01}, {RM::TRUNC, 0x3c00}, {RM::ODD, 0x3c01}});
}

TEST(F32ToF16, ExactValuesIgnoreTheMode) {
  for (int m = 0; m < 6; ++m) {
    EXPECT_EQ(f32_to_f16(0.5f, static_cast<RM>(m)), 0x3800);
    EXPECT_EQ(f32_to_f16(-0.0f, static_cast<RM>(m)), 0x8000);
    EXPECT_EQ(f32_to_f16(65504.0f, static_cast<RM>(m)), kF16MaxBits);
  }
}

TEST(F32ToF16, OverflowIeeeDependsOnModeAndSign) {
  expect_f16_modes(65520.0f, {{RM::RINT, 0x7c00},
                              {RM::ROUND, 0x7c00},
                              {RM::FLOOR, 0x7bff},
                              {RM::CEIL, 0x7c00},
                              {RM::TRUNC, 0x7bff},
                              {RM::ODD, 0x7bff}});
  expect_f16_modes(-65520.0f, {{RM::RINT, 0xfc00}, {RM::FLOOR, 0xfc00}, {RM::CEIL, 0xfbff}, {RM::TRUNC, 0xfbff}});
  expect_f16_modes(65519.996f, {{RM::RINT, 0x7bff}, {RM::CEIL, 0x7c00}});  // below the tie
}

TEST(F32ToF16, SaturateClampsOverflowAndInfinityAndZeroesNaN) {
  EXPECT_EQ(f32_to_f16(65520.0f, RM::RINT, kSat), kF16MaxBits);
  EXPECT_EQ(f32_to_f16(1e30f, RM::CEIL, kSat), kF16MaxBits);
  EXPECT_EQ(f32_to_f16(-1e30f, RM::FLOOR, kSat), 0xfbff);
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity(), RM::RINT, kSat), kF16MaxBits);
  EXPECT_EQ(f32_to_f16(-std::numeric_limits<float>::infinity(), RM::RINT, kSat), 0xfbff);
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::quiet_NaN(), RM::RINT, kSat), 0x0000);
}

TEST(F32ToF16, IeeeKeepsInfinityAndQuietsNaNKeepingTopPayload) {
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity(), RM::RINT, kIeee), kF16InfBits);
  EXPECT_EQ(f32_to_f16(f32_from_bits(0x7f802000), RM::RINT, kIeee), 0x7e01);  // signalling -> quiet, payload 1
  EXPECT_EQ(f32_to_f16(f32_from_bits(0xffc00000), RM::RINT, kIeee), 0xfe00);
}

TEST(F32ToF16, SubnormalsRoundPerMode) {
  // 2^-25 is half the smallest subnormal 2^-24; 0 is even.
  expect_f16_modes(pow2(-25), {{RM::RINT, 0x0000},
                               {RM::ROUND, 0x0001},
                               {RM::FLOOR, 0x0000},
                               {RM::CEIL, 0x0001},
                               {RM::TRUNC, 0x0000},
                               {RM::ODD, 0x0001}});
  expect_f16_modes(3 * pow2(-26), {{RM::RINT, 0x0001}, {RM::TRUNC, 0x0000}});
  expect_f16_modes(-pow2(-30), {{RM::RINT, 0x8000}, {RM::FLOOR, 0x8001}, {RM::CEIL, 0x8000}, {RM::ODD, 0x8001}});
  // Halfway between the largest subnormal 0x03ff and the smallest normal 0x0400 (even).
  expect_f16_modes(pow2(-14) - pow2(-25), {{RM::RINT, 0x0400}, {RM::TRUNC, 0x03ff}});
  // fp32 subnormal inputs are far below fp16's range.
  expect_f16_modes(f32_from_bits(0x00000001), {{RM::RINT, 0x0000}, {RM::CEIL, 0x0001}, {RM::ODD, 0x0001}});
}

TEST(F16ToF32, SubnormalsAndSpecialsWidenExactly) {
  EXPECT_EQ(f16_to_f32(0x0001), pow2(-24));
  EXPECT_EQ(f16_to_f32(0x03ff), pow2(-14) - pow2(-24));
  EXPECT_EQ(f16_to_f32(0x8000), -0.0f);
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
  EXPECT_EQ(f16_to_f32(kF16MaxBits), 65504.0f);
  EXPECT_TRUE(std::isinf(f16_to_f32(kF16InfBits)));
  EXPECT_EQ(f32_bits(f16_to_f32(0x7e01)), 0x7fc02000u);
}

TEST(F32ToBf16, RoundPerMode) {
  // 1 + 2^-8 is half a bf16 ulp above 1.0.
  const float tie = 1.0f + pow2(-8);
  EXPECT_EQ(f32_to_bf16(tie, RM::RINT), 0x3f80);
  EXPECT_EQ(f32_to_bf16(tie, RM::ROUND), 0x3f81);
  EXPECT_EQ(f32_to_bf16(tie, RM::FLOOR), 0x3f80);
  EXPECT_EQ(f32_to_bf16(tie, RM::CEIL), 0x3f81);
  EXPECT_EQ(f32_to_bf16(-tie, RM::FLOOR), 0xbf81);
  EXPECT_EQ(f32_to_bf16(-tie, RM::TRUNC), 0xbf80);
  EXPECT_THROW(f32_to_bf16(tie, RM::ODD), std::invalid_argument);
}

TEST(F32ToBf16, OverflowAndNaN) {
  const float big = f32_from_bits(0x7f7fffff);  // fp32 max rounds up past bf16 max
  EXPECT_EQ(f32_to_bf16(big, RM::RINT, kIeee), kBf16InfBits);
  EXPECT_EQ(f32_to_bf16(big, RM::RINT, kSat), kBf16MaxBits);
  EXPECT_EQ(f32_to_bf16(big, RM::TRUNC, kIeee), kBf16MaxBits);
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x7f800001), RM::RINT, kIeee), 0x7fc0);  // quieted
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x7f800001), RM::RINT, kSat), 0x0000);
}

TEST(F32ToInt, RoundPerModeThenSaturate) {
  struct C {
    float x;
    RM m;
    int expect;
  };
  const C cases[] = {{2.5f, RM::RINT, 2},      {2.5f, RM::ROUND, 3},   {2.5f, RM::FLOOR, 2},   {2.5f, RM::CEIL, 3},
                     {2.5f, RM::TRUNC, 2},     {-2.5f, RM::RINT, -2},  {-2.5f, RM::ROUND, -3}, {-2.5f, RM::FLOOR, -3},
                     {-2.5f, RM::CEIL, -2},    {-2.5f, RM::TRUNC, -2}, {3.5f, RM::RINT, 4},    {127.5f, RM::RINT, 127},
                     {-200.f, RM::RINT, -128}, {1e30f, RM::RINT, 127}};
  for (auto c : cases) EXPECT_EQ(f32_to_s8(c.x, c.m), c.expect) << c.x << " " << round_mode_name(c.m);
  EXPECT_EQ(f32_to_s8(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(f32_to_s8(-std::numeric_limits<float>::infinity()), -128);
  EXPECT_EQ(f32_to_s4(7.5f), 7);
  EXPECT_EQ(f32_to_s4(-8.5f, RM::RINT), -8);
  EXPECT_EQ(f32_to_s4(-9.0f), -8);
  EXPECT_EQ(f32_to_s4(6.5f, RM::ROUND), 7);
  EXPECT_EQ(f16_to_s8(0x3e00, RM::RINT), 2);  // 1.5 -> 2
  EXPECT_EQ(f32_to_s32(3e9f), INT32_MAX);
  EXPECT_EQ(s32_to_s8(-1000), -128);
  EXPECT_THROW(f32_to_s8(1.0f, RM::ODD), std::invalid_argument);
}

TEST(S32ToF16, RoundsTheExactIntegerOnce) {
  // fp16 ulp at 2048 is 2: 2049 is a tie between 2048 (even significand) and 2050.
  EXPECT_EQ(s32_to_f16(2049, RM::RINT), 0x6800);
  EXPECT_EQ(s32_to_f16(2049, RM::ROUND), 0x6801);
  EXPECT_EQ(s32_to_f16(-2049, RM::FLOOR), 0xe801);
  EXPECT_EQ(s32_to_f16(65535, RM::RINT, kSat), kF16MaxBits);
  EXPECT_EQ(s32_to_f16(65535, RM::RINT, kIeee), kF16InfBits);
  EXPECT_EQ(s32_to_f16(INT32_MIN, RM::RINT, kIeee), 0xfc00);
  EXPECT_EQ(s32_to_f16(0, RM::RINT), 0x0000);
  EXPECT_EQ(s32_to_f16(-7, RM::RINT), 0xc700);
}

TEST(RoundToBinary, DoubleInputsRoundOnce) {
  // 1 + 2^-11 + 2^-40: above the fp16 tie only by a bit that fp32 cannot hold; rounding via fp32 would tie.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(round_to_binary(x, 5, 10, RM::RINT, kIeee), 0x3c01u);
  EXPECT_EQ(f32_to_f16(static_cast<float>(x), RM::RINT, kIeee), 0x3c00);
}

TEST(Int4, TwoPerByteLowNibbleFirst) {
  uint8_t buf[2] = {0, 0};
  s4_set(buf, 0, -1);
  s4_set(buf, 1, 7);
  s4_set(buf, 2, -8);
  EXPECT_EQ(buf[0], 0x7f);
  EXPECT_EQ(buf[1], 0x08);
  EXPECT_EQ(s4_get(buf, 0), -1);
  EXPECT_EQ(s4_get(buf, 1), 7);
  EXPECT_EQ(s4_get(buf, 2), -8);
  EXPECT_THROW(s4_set(buf, 3, 8), std::invalid_argument);
}

TEST(Int4, EightPerInt32WordMatchesByteOrder) {
  const int8_t v[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  const int32_t w = s4_pack_s32_word(v);
  uint8_t bytes[4];
  std::memcpy(bytes, &w, 4);  // little-endian host: the word's bytes are the two-per-byte packing
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(s4_from_s32_word(w, j), v[j]);
    EXPECT_EQ(s4_get(bytes, j), v[j]);
  }
}

TEST(RoundModeNames, ParseBack) {
  for (int m = 0; m < 6; ++m) EXPECT_EQ(parse_round_mode(round_mode_name(static_cast<RM>(m))), static_cast<RM>(m));
  EXPECT_FALSE(parse_round_mode("nearest").has_value());
}

}  // namespace
}  // namespace npusim::isa
