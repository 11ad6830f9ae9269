// vconv: supported pairs, rounding modes, saturation, lane addressing with two element sizes, errors.
#include <cmath>
#include <limits>

#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {
namespace {

constexpr uint64_t kDst = 0, kSrc = 0x1000;

VCast cast(DType from, DType to, RoundMode m = RoundMode::RINT, bool sat = true) {
  VCast v;
  v.src_dtype = from;
  v.dst_dtype = to;
  v.round = m;
  v.sat = sat;
  v.dst = ub(kDst);
  v.src = ub(kSrc);
  return v;
}

using VCastTest = VecTest;

TEST_F(VCastTest, F32ToF16EveryRoundingMode) {
  const float above = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -13);  // between 1 and 1 + 2^-10
  const float tie = 1.0f + std::ldexp(1.0f, -11);
  put_f32(kSrc, above), put_f32(kSrc + 4, -above), put_f32(kSrc + 8, tie), put_f32(kSrc + 12, 2.0f);
  struct Want {
    RoundMode m;
    uint16_t h[4];
  };
  const Want wants[] = {
      {RoundMode::RINT, {0x3c01, 0xbc01, 0x3c00, 0x4000}},  {RoundMode::ROUND, {0x3c01, 0xbc01, 0x3c01, 0x4000}},
      {RoundMode::FLOOR, {0x3c00, 0xbc01, 0x3c00, 0x4000}}, {RoundMode::CEIL, {0x3c01, 0xbc00, 0x3c01, 0x4000}},
      {RoundMode::TRUNC, {0x3c00, 0xbc00, 0x3c00, 0x4000}}, {RoundMode::ODD, {0x3c01, 0xbc01, 0x3c01, 0x4000}}};
  for (const auto& w : wants) {
    auto v = cast(DType::F32, DType::F16, w.m);
    v.mask = {false, 0xf, 0};
    run(v);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(get16(kDst + 2 * i), w.h[i]) << round_mode_name(w.m) << " " << i;
  }
}

// f32 -> f32 rounds to an integral value (the MSD limbs: CAST_ROUND): ties by the mode, the sign of a zero kept,
// values from 2^23 on (integral already) unchanged; saturation turns NaN into +0 and infinities into +-max.
TEST_F(VCastTest, F32ToF32RoundsToIntegralValues) {
  const float in[] = {2.5f, -2.5f, 3.5f, -0.3f, 1.75f, 4194304.5f, 8388609.0f, -7.0f};
  for (int i = 0; i < 8; ++i) put_f32(kSrc + 4 * i, in[i]);
  struct Want {
    RoundMode m;
    float r[8];
  };
  const Want wants[] = {{RoundMode::RINT, {2, -2, 4, -0.0f, 2, 4194304, 8388609, -7}},
                        {RoundMode::ROUND, {3, -3, 4, -0.0f, 2, 4194305, 8388609, -7}},
                        {RoundMode::FLOOR, {2, -3, 3, -1, 1, 4194304, 8388609, -7}},
                        {RoundMode::CEIL, {3, -2, 4, -0.0f, 2, 4194305, 8388609, -7}},
                        {RoundMode::TRUNC, {2, -2, 3, -0.0f, 1, 4194304, 8388609, -7}}};
  for (const auto& w : wants) {
    auto v = cast(DType::F32, DType::F32, w.m);
    v.mask = {false, 0xff, 0};
    run(v);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(get32(kDst + 4 * i), f32_bits(w.r[i])) << round_mode_name(w.m) << " " << i << " " << in[i];
  }
  put32(kSrc, 0x7fc00000), put_f32(kSrc + 4, -INFINITY);
  auto v = cast(DType::F32, DType::F32, RoundMode::ROUND);
  v.mask = {false, 0x3, 0};
  run(v);
  EXPECT_EQ(get32(kDst), 0u) << "NaN saturates to +0";
  EXPECT_EQ(get32(kDst + 4), f32_bits(-std::numeric_limits<float>::max()));
  v.sat = false;
  run(v);
  EXPECT_EQ(get32(kDst), 0x7fc00000u);
  EXPECT_EQ(get32(kDst + 4), f32_bits(-INFINITY));
}

TEST_F(VCastTest, SatFlagChoosesSaturationOrIeeeOverflow) {
  put_f32(kSrc, 70000.0f), put32(kSrc + 4, 0x7fd00000), put_f32(kSrc + 8, -INFINITY), put_f32(kSrc + 12, 65519.0f);
  auto v = cast(DType::F32, DType::F16);
  v.mask = {false, 0xf, 0};
  run(v);
  const uint16_t sat[] = {0x7bff, 0x0000, 0xfbff, 0x7bff};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(get16(kDst + 2 * i), sat[i]) << i;
  v.sat = false;
  run(v);
  const uint16_t ieee[] = {0x7c00, 0x7e80, 0xfc00, 0x7bff};  // NaN keeps its top payload bits
  for (int i = 0; i < 4; ++i) EXPECT_EQ(get16(kDst + 2 * i), ieee[i]) << i;
  auto b = cast(DType::F32, DType::BF16, RoundMode::RINT, true);
  b.mask = {false, 0xf, 0};
  run(b);
  EXPECT_EQ(get16(kDst + 4), 0xff7f) << "-inf saturates to -max";
  EXPECT_EQ(get16(kDst + 2), 0x0000) << "NaN saturates to +0";
}

TEST_F(VCastTest, F32ToBf16RoundsAndRejectsOdd) {
  put_f32(kSrc, 1.0f + std::ldexp(1.0f, -8));  // tie between 1 and 1 + 2^-7
  put_f32(kSrc + 4, 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20));
  auto v = cast(DType::F32, DType::BF16);
  v.mask = {false, 3, 0};
  run(v);
  EXPECT_EQ(get16(kDst), 0x3f80);
  EXPECT_EQ(get16(kDst + 2), 0x3f81);
  v.round = RoundMode::ROUND;
  run(v);
  EXPECT_EQ(get16(kDst), 0x3f81);
  v.round = RoundMode::ODD;
  expect_error(v, {"odd", "f32 -> bf16"});
}

TEST_F(VCastTest, WideningIsExactAndIgnoresTheMode) {
  put16s(kSrc, {0x7c01, 0x0001, 0xfbff, 0x8000});
  auto v = cast(DType::F16, DType::F32, RoundMode::ODD);
  v.mask = {false, 0xf, 0};
  run(v);
  EXPECT_EQ(get32(kDst), 0x7f802000u) << "signalling NaN kept";
  EXPECT_EQ(get_f32(kDst + 4), std::ldexp(1.0f, -24));
  EXPECT_EQ(get_f32(kDst + 8), -65504.0f);
  EXPECT_EQ(get32(kDst + 12), 0x80000000u);
  put16s(kSrc, {0x3f81, 0xff81});
  auto b = cast(DType::BF16, DType::F32);
  b.mask = {false, 3, 0};
  run(b);
  EXPECT_EQ(get32(kDst), 0x3f810000u);
  EXPECT_EQ(get32(kDst + 4), 0xff810000u);
}

TEST_F(VCastTest, ToIntegersRoundThenClamp) {
  put16s(kSrc, {f16_round(300), f16_round(-1.5f), 0x7e00, f16_round(-200), f16_round(2.5f)});
  auto v = cast(DType::F16, DType::I8);
  v.mask = {false, 0x1f, 0};
  run(v);
  const int8_t rint[] = {127, -2, 0, -128, 2};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(int8_t(ubuf[kDst + i]), rint[i]) << i;
  v.round = RoundMode::TRUNC;
  run(v);
  EXPECT_EQ(int8_t(ubuf[kDst + 1]), -1);
  put_f32(kSrc, 3e9f), put_f32(kSrc + 4, -2.5f), put32(kSrc + 8, 0xffc00000);
  auto w = cast(DType::F32, DType::I32, RoundMode::FLOOR);
  w.mask = {false, 7, 0};
  run(w);
  EXPECT_EQ(int32_t(get32(kDst)), INT32_MAX);
  EXPECT_EQ(int32_t(get32(kDst + 4)), -3);
  EXPECT_EQ(get32(kDst + 8), 0u);
  put16s(kSrc, {f16_round(-65504), f16_round(7.5f)});
  auto h = cast(DType::F16, DType::I32);
  h.mask = {false, 3, 0};
  run(h);
  EXPECT_EQ(int32_t(get32(kDst)), -65504);
  EXPECT_EQ(int32_t(get32(kDst + 4)), 8);
}

// f16 -> s4 (the int4 MSD limbs): rounded in the mode, clamped to [-8, 7], packed two per byte with the lower lane in
// the low nibble; a disabled lane leaves its nibble alone; a repeat writes 64 contiguous bytes.
TEST_F(VCastTest, F16ToS4PacksNibblesLowFirst) {
  put16s(kSrc, {f16_round(2.5f), f16_round(-2.5f), f16_round(9.0f), f16_round(-9.0f), f16_round(-0.4f), 0x7e00,
                f16_round(7.49f), f16_round(1.5f)});
  auto v = cast(DType::F16, DType::I4, RoundMode::ROUND);
  v.mask = {true, 8, 0};
  ubuf[kDst + 4] = 0x5a;
  run(v);
  EXPECT_EQ(ubuf[kDst + 0], 0xd3);  // 3 (2.5 away from zero), -3
  EXPECT_EQ(ubuf[kDst + 1], 0x87);  // 7 (clamped), -8
  EXPECT_EQ(ubuf[kDst + 2], 0x00);  // -0.4 -> 0, NaN -> 0
  EXPECT_EQ(ubuf[kDst + 3], 0x27);  // 7, 2
  EXPECT_EQ(ubuf[kDst + 4], 0x5a);  // past the count: untouched
  v.round = RoundMode::RINT;
  run(v);
  EXPECT_EQ(ubuf[kDst + 0], 0xe2);  // ties to even: 2, -2
  v.mask = {false, 0x2, 0};         // normal mode: lane 1 only
  ubuf[kDst + 0] = 0x0f;
  run(v);
  EXPECT_EQ(ubuf[kDst + 0], 0xef);
  for (int i = 0; i < 256; ++i) put16(kSrc + 2 * i, f16_round(float(i % 15 - 7)));  // two repeats
  auto w = cast(DType::F16, DType::I4, RoundMode::ROUND);
  w.repeat = 2, w.dst_s.rep = 2;
  run(w);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(int((ubuf[kDst + i / 2] >> (4 * (i % 2))) & 0xf), (i % 15 - 7) & 0xf) << i;
  w.dst_s.blk = 2;
  expect_error(w, {"field dst_blk = 2"});
  w.dst_s.blk = 1, w.round = RoundMode::ODD;
  expect_error(w, {"field round = odd"});
}

TEST_F(VCastTest, FromS32RoundsTheExactInteger) {
  put32(kSrc, 16777217), put32(kSrc + 4, uint32_t(-16777219)), put32(kSrc + 8, 65520), put32(kSrc + 12, 2049);
  auto v = cast(DType::I32, DType::F32);
  v.mask = {false, 3, 0};
  run(v);
  EXPECT_EQ(get_f32(kDst), 16777216.0f);
  EXPECT_EQ(get_f32(kDst + 4), -16777220.0f);
  v.round = RoundMode::CEIL;
  run(v);
  EXPECT_EQ(get_f32(kDst), 16777218.0f);
  EXPECT_EQ(get_f32(kDst + 4), -16777218.0f);
  auto h = cast(DType::I32, DType::F16);
  h.mask = {false, 0xc, 0};
  run(h);
  EXPECT_EQ(get16(kDst + 4), kF16MaxBits) << "65520 saturates";
  EXPECT_EQ(get16(kDst + 6), f16_round(2048));
  h.sat = false;
  run(h);
  EXPECT_EQ(get16(kDst + 4), kF16InfBits);
}

TEST_F(VCastTest, LanesFollowTheLargerSizeEachOperandItsOwnAddressing) {
  // f32 -> f16: 64 lanes; src in every other block (blk 2), dst 4 blocks of 16 f16 per repeat (rep 4).
  for (int i = 0; i < 256; ++i) put_f32(kSrc + 4 * i, float(i));
  fill16(kDst, 256, 0x1111);
  auto v = cast(DType::F32, DType::F16);
  v.repeat = 2;
  v.src_s = {2, 16};
  v.dst_s = {1, 4};
  v.mask = {false, ~0ull, ~0ull};  // hi is ignored: 64 lanes
  run(v);
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 64; ++l)
      EXPECT_EQ(get_f16(kDst + r * 128 + 2 * l), float(r * 128 + (l / 8) * 16 + l % 8)) << r << " " << l;
  EXPECT_EQ(get16(kDst + 256), 0x1111);
  // f16 -> s8: 128 lanes, the s8 destination is 4 blocks of 32 lanes; hi enables lanes 64..127.
  for (int i = 0; i < 128; ++i) put_f16(kSrc + 2 * i, float(i - 64));
  fill16(kDst, 128, 0x5555);
  auto w = cast(DType::F16, DType::I8);
  w.mask = {false, 0, 0x3};
  run(w);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(ubuf[kDst + i], (i == 64 || i == 65) ? uint8_t(i - 64) : 0x55) << i;
}

TEST_F(VCastTest, UnsupportedPairsAndModesAreRejected) {
  expect_error(cast(DType::F16, DType::U8), {"f16 -> u8", "not supported"});
  expect_error(cast(DType::I16, DType::F16), {"s16 -> f16"});
  expect_error(cast(DType::BF16, DType::F16), {"bf16 -> f16"});
  expect_error(cast(DType::F32, DType::F32, RoundMode::ODD), {"odd", "f32 -> f32"});
  expect_error(cast(DType::F16, DType::I8, RoundMode::ODD), {"odd", "f16 -> s8"});
  expect_error(cast(DType::I32, DType::F32, RoundMode::ODD), {"odd"});
  auto v = cast(DType::F32, DType::F16);
  v.round = static_cast<RoundMode>(7);
  expect_error(v, {"field round"});
}

TEST_F(VCastTest, OverlapRules) {
  // Same size: only the identical operand; size-changing: only the same start address.
  for (int i = 0; i < 128; ++i) put_f32(kSrc + 4 * i, float(i) + 0.5f);
  auto s = cast(DType::F32, DType::I32);
  s.dst = s.src;
  run(s);
  EXPECT_EQ(get32(kSrc + 4 * 3), 4u) << "3.5 -> 4 (RINT)";
  s.dst = ub(kSrc + 32);
  expect_error(s, {"src", "dst", "overlap"});
  for (int i = 0; i < 128; ++i) put_f32(kSrc + 4 * i, float(i));
  auto n = cast(DType::F32, DType::F16);
  n.dst = n.src;
  n.repeat = 2;
  n.dst_s.rep = 4;
  run(n);  // compacts in place: repeat 1 reads bytes 256.. after repeat 0 wrote bytes 0..127
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get_f16(kSrc + 2 * i), float(i)) << i;
  n.dst = ub(kSrc + 128);
  expect_error(n, {"overlap"});
}

}  // namespace
}  // namespace npusim::isa::vtest
