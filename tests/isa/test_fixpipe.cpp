// Fixpipe: layouts, the per-element conversion chain (s32 -> fp32, scale, ReLU, convert) and every error rule
// (isa/README.md section 3 "fixpipe").
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "tests/isa/cube_fixture.h"

namespace npusim::isa {
namespace {

using testing::Core;
using testing::expect_isa_error;

Fixpipe fix(DType src, DType dst, uint16_t m, uint16_t n, uint32_t dst_stride, bool nd = true) {
  Fixpipe f;
  f.dst = {Buf::GM, 0}, f.src = {Buf::L0C, 0};
  f.src_dtype = src, f.dst_dtype = dst, f.m = m, f.n = n, f.dst_stride = dst_stride, f.nz2nd = nd;
  f.src_m_stride = uint16_t((m + 15) / 16 * 16);
  return f;
}

// L0C element (r, c) of a result with `rows` rows per column block.
uint64_t src_off(int rows, int r, int c) { return testing::l0c_index(rows, r, c) * 4; }

TEST(Fixpipe, NdOutputReadsColumnBlocksAndSkipsPadding) {
  Core c;
  c.fill(Buf::GM, 0xee);
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 20; ++col) c.put<float>(Buf::L0C, src_off(32, r, col), float(r * 100 + col));
  Fixpipe f = fix(DType::F32, DType::F16, 3, 20, 24);
  f.src_m_stride = 32;
  c.run(f);
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 20; ++col)
      EXPECT_EQ(c.get<uint16_t>(Buf::GM, (r * 24 + col) * 2), f32_to_f16(float(r * 100 + col)));
    EXPECT_EQ(c.get<uint16_t>(Buf::GM, (r * 24 + 20) * 2), 0xeeee);  // beyond n: untouched
  }
}

TEST(Fixpipe, NzOutputUsesTheDestinationC0) {
  Core c;
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 32; ++col) c.put<int32_t>(Buf::L0C, src_off(16, r, col), r * 32 + col - 40);
  Fixpipe f = fix(DType::I32, DType::I8, 3, 32, 4, false);  // s8: c0 = 32, one column group
  f.dst = {Buf::L1, 64};
  c.run(f);
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 32; ++col) EXPECT_EQ(int8_t(c.l1[64 + r * 32 + col]), r * 32 + col - 40);
  f = fix(DType::F32, DType::F32, 2, 16, 5, false);  // f32: c0 = 8, groups 5 rows apart
  c.put<float>(Buf::L0C, src_off(16, 1, 11), 7.5f);
  c.run(f);
  EXPECT_EQ(c.get<float>(Buf::GM, ((1 * 5 + 1) * 8 + 3) * 4), 7.5f);
}

TEST(Fixpipe, ScalarQuantIsOneFp32Multiply) {
  Core c;
  c.put<float>(Buf::L0C, 0, 3.0f);
  Fixpipe f = fix(DType::F32, DType::F32, 1, 1, 1);
  f.quant = Quant::Scalar, f.quant_scale = 0.1;
  c.run(f);
  EXPECT_EQ(c.get<float>(Buf::GM, 0), 3.0f * 0.1f);
}

TEST(Fixpipe, VectorQuantReadsOneScalePerColumnFromFb) {
  Core c;
  for (int col = 0; col < 3; ++col)
    c.put<float>(Buf::L0C, src_off(16, 0, col), 10.0f), c.put<float>(Buf::FB, 64 + col * 4, float(col + 1));
  Fixpipe f = fix(DType::F32, DType::F32, 1, 3, 3);
  f.quant = Quant::Vector, f.quant_addr = {Buf::FB, 64};
  c.run(f);
  for (int col = 0; col < 3; ++col) EXPECT_EQ(c.get<float>(Buf::GM, col * 4), 10.0f * float(col + 1));
}

TEST(Fixpipe, ReluKeepsNanAndMapsNegativeZeroToPlusZero) {
  Core c;
  const float in[4] = {-1.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
  for (int col = 0; col < 4; ++col) c.put<float>(Buf::L0C, src_off(16, 0, col), in[col]);
  Fixpipe f = fix(DType::F32, DType::F32, 1, 4, 4);
  f.relu = true;
  c.run(f);
  EXPECT_EQ(c.get<uint32_t>(Buf::GM, 0), 0u);
  EXPECT_EQ(c.get<uint32_t>(Buf::GM, 4), 0u);
  EXPECT_TRUE(std::isnan(c.get<float>(Buf::GM, 8)));
  EXPECT_EQ(c.get<float>(Buf::GM, 12), 2.0f);
}

TEST(Fixpipe, F16OverflowFollowsTheSatField) {
  Core c;
  c.put<float>(Buf::L0C, 0, 70000.0f);
  c.put<float>(Buf::L0C, 4, std::numeric_limits<float>::quiet_NaN());
  Fixpipe f = fix(DType::F32, DType::F16, 1, 2, 2);
  c.run(f);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 0), kF16MaxBits);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 2), 0);  // saturation mode: NaN -> 0
  f.sat = false;
  c.run(f);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 0), kF16InfBits);
  f.dst_dtype = DType::BF16, f.sat = true;
  c.put<float>(Buf::L0C, 0, std::numeric_limits<float>::infinity());
  c.run(f);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 0), kBf16MaxBits);
}

// The vectorised fp32 -> fp16 / bf16 ND path equals the element conversion on random accumulators mixed with
// every special (overflow, infinities, NaN, subnormal results, signed zeros), saturating or not, with a
// partial last column block.
TEST(Fixpipe, FastNdConversionIsTheElementConversion) {
  std::mt19937 rng(11);
  const float specials[] = {70000.0f,
                            -65520.0f,
                            65504.0f,
                            3.0e38f,
                            -3.4e38f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-7f,
                            -3e-8f,
                            1e-40f,
                            0.0f,
                            -0.0f};
  for (DType dst : {DType::F16, DType::BF16})
    for (bool sat : {true, false}) {
      Core c;
      const int m = 37, n = 45;
      std::vector<float> v;
      for (int i = 0; i < 48 * 48; ++i) {
        const float x = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), int(rng() % 40) - 20);
        v.push_back(rng() % 7 == 0 ? specials[rng() % std::size(specials)] : x);
      }
      for (int r = 0; r < m; ++r)
        for (int col = 0; col < n; ++col) c.put<float>(Buf::L0C, src_off(48, r, col), v[size_t(r * n + col)]);
      Fixpipe f = fix(DType::F32, dst, m, n, 50);
      f.src_m_stride = 48;
      f.sat = sat;
      c.run(f);
      const Overflow o = sat ? Overflow::Saturate : Overflow::Ieee;
      for (int r = 0; r < m; ++r)
        for (int col = 0; col < n; ++col) {
          const float x = v[size_t(r * n + col)];
          const uint16_t want =
              dst == DType::F16 ? f32_to_f16_reference(x, RoundMode::RINT, o) : f32_to_bf16(x, RoundMode::RINT, o);
          ASSERT_EQ(c.get<uint16_t>(Buf::GM, (r * 50 + col) * 2), want)
              << dtype_name(dst) << " sat " << sat << " " << x;
        }
    }
}

TEST(Fixpipe, S32GoesThroughFp32Rint) {
  Core c;
  c.put<int32_t>(Buf::L0C, 0, (1 << 24) + 3);  // fp32 RINT: 2^24 + 4, times 2^-2 = 2^22 + 1 exactly
  c.put<int32_t>(Buf::L0C, 4, -3);
  c.put<int32_t>(Buf::L0C, 8, 301);
  Fixpipe f = fix(DType::I32, DType::F16, 1, 3, 3);
  f.quant = Quant::Scalar, f.quant_scale = 0.25;
  c.run(f);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 0), kF16MaxBits);  // saturating
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 2), f32_to_f16(-0.75f));
  f.dst_dtype = DType::I8, f.quant_scale = 0.5;
  c.run(f);
  EXPECT_EQ(int8_t(c.gm[0]), 127);
  EXPECT_EQ(int8_t(c.gm[1]), -2);   // -1.5 rounds to even
  EXPECT_EQ(int8_t(c.gm[2]), 127);  // 150.5 saturates
}

TEST(Fixpipe, S32ToS32IsARawCopyWithOptionalRelu) {
  Core c;
  c.put<int32_t>(Buf::L0C, 0, (1 << 30) + 1);
  c.put<int32_t>(Buf::L0C, 4, -5);
  Fixpipe f = fix(DType::I32, DType::I32, 1, 2, 2);
  c.run(f);
  EXPECT_EQ(c.get<int32_t>(Buf::GM, 0), (1 << 30) + 1);
  EXPECT_EQ(c.get<int32_t>(Buf::GM, 4), -5);
  f.relu = true;
  c.run(f);
  EXPECT_EQ(c.get<int32_t>(Buf::GM, 4), 0);
}

TEST(Fixpipe, F32ToS8RoundsDirectly) {
  Core c;
  c.put<float>(Buf::L0C, 0, 2.5f);
  c.put<float>(Buf::L0C, 4, -200.0f);
  c.run(fix(DType::F32, DType::I8, 1, 2, 2));
  EXPECT_EQ(int8_t(c.gm[0]), 2);
  EXPECT_EQ(int8_t(c.gm[1]), -128);
}

TEST(Fixpipe, UbDestinationExistsOnCoupledCoresOnly) {
  Core split;
  Fixpipe f = fix(DType::F32, DType::F32, 1, 1, 1);
  f.dst = {Buf::UB, 0};
  expect_isa_error(split, f, "L0C->UB exists on coupled cores only");
  Core coupled(true);
  coupled.put<float>(Buf::L0C, 0, 4.0f);
  coupled.run(f);
  EXPECT_EQ(coupled.get<float>(Buf::UB, 0), 4.0f);
}

TEST(Fixpipe, UnsupportedConversions) {
  Core c;
  expect_isa_error(c, fix(DType::I32, DType::BF16, 1, 1, 1), "conversion s32 -> bf16 is not supported");
  expect_isa_error(c, fix(DType::F32, DType::I32, 1, 1, 1), "conversion f32 -> s32");
  expect_isa_error(c, fix(DType::F16, DType::F16, 1, 1, 1), "field src_dtype");
  Fixpipe f = fix(DType::I32, DType::I32, 1, 1, 1);
  f.quant = Quant::Scalar;
  expect_isa_error(c, f, "field quant");
  f = fix(DType::I32, DType::F16, 1, 1, 1);
  f.sat = false;
  expect_isa_error(c, f, "field sat");
}

TEST(Fixpipe, FieldRanges) {
  Core c;
  expect_isa_error(c, fix(DType::F32, DType::F16, 0, 16, 16), "field m");
  expect_isa_error(c, fix(DType::F32, DType::F16, 8193, 16, 16), "field m");
  expect_isa_error(c, fix(DType::F32, DType::F16, 1, 0, 16), "field n");
  expect_isa_error(c, fix(DType::F32, DType::F16, 1, 4096, 4096), "field n");
  expect_isa_error(c, fix(DType::F32, DType::F16, 1, 8, 1, false), "field n = 8: NZ output");
  Fixpipe f = fix(DType::F32, DType::F16, 20, 16, 16);
  f.src_m_stride = 24;
  expect_isa_error(c, f, "field src_m_stride");
  f.src_m_stride = 16;
  expect_isa_error(c, f, "field src_m_stride = 16 must be a multiple of 16 and >= m = 20");
  expect_isa_error(c, fix(DType::F32, DType::F16, 2, 16, 15), "field dst_stride = 15 is below n");
  expect_isa_error(c, fix(DType::F32, DType::F16, 4, 32, 3, false), "column groups would overlap");
}

TEST(Fixpipe, BuffersAlignmentAndBounds) {
  Core c;
  Fixpipe f = fix(DType::F32, DType::F16, 1, 16, 16);
  f.src = {Buf::UB, 0};
  expect_isa_error(c, f, "operand src: buffer ub is not allowed");
  f = fix(DType::F32, DType::F16, 1, 16, 16), f.src.off = 32;
  expect_isa_error(c, f, "operand src: address 0x20 in l0c is not aligned to 64");
  f = fix(DType::F32, DType::F16, 1, 16, 16), f.dst = {Buf::L0A, 0};
  expect_isa_error(c, f, "operand dst: buffer l0a is not allowed");
  f = fix(DType::F32, DType::F16, 1, 16, 16), f.dst = {Buf::L1, 16};
  expect_isa_error(c, f, "not aligned to 32");
  f = fix(DType::F32, DType::F16, 1, 16, 16), f.dst.off = 3;  // GM: any alignment
  c.put<float>(Buf::L0C, 0, 1.0f);
  c.run(f);
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, 3), 0x3c00);
  f.dst.off = (1 << 20) - 31;
  expect_isa_error(c, f, "operand dst: gm range");
  f = fix(DType::F32, DType::F16, 16, 32, 32), f.src.off = (128 << 10) - 2048 + 64;
  expect_isa_error(c, f, "operand src: l0c range");
  f = fix(DType::F32, DType::F32, 1, 32, 32), f.quant = Quant::Vector, f.quant_addr = {Buf::FB, 2048 - 64};
  expect_isa_error(c, f, "operand quant_addr: fb range");
  f.quant_addr = {Buf::BT, 0};
  expect_isa_error(c, f, "operand quant_addr: buffer bt is not allowed");
}

}  // namespace
}  // namespace npusim::isa
