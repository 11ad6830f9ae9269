// Elementwise vector arithmetic with one source: vadds .. vmins (scalar operand) and vexp .. vrelu.
// Every run() also checks Reference == Fast.
#include <cmath>
#include <limits>

#include "isa/mathfn/mathfn.h"
#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {
namespace {

constexpr uint64_t kDst = 0, kSrc0 = 0x1000;

VScalar sca(VScalarOp op, DType t, double s) {
  VScalar v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src = ub(kSrc0);
  v.scalar = s;
  return v;
}

VUnary una(VUnaryOp op, DType t) {
  VUnary v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src = ub(kSrc0);
  return v;
}

using VScalarTest = VecTest;

TEST_F(VScalarTest, ScalarIsRoundedToTheDtypeFirst) {
  // 1 + 2^-11 rounds (tie to even) to 1.0 as an f16 scalar, so muls leaves 1 + 2^-10 unchanged; with the
  // unrounded scalar the product would round up to 1 + 2^-9.
  put16(kSrc0, 0x3c01);
  auto v = sca(VScalarOp::Muls, DType::F16, 1.0 + std::ldexp(1.0, -11));
  v.mask = {false, 1, 0};
  run(v);
  EXPECT_EQ(get16(kDst), 0x3c01);
}

TEST_F(VScalarTest, AddsMaxsMinsOnFloatsAndIntegers) {
  for (int i = 0; i < 64; ++i) put_f32(kSrc0 + 4 * i, float(i) - 32);
  auto v = sca(VScalarOp::Adds, DType::F32, 0.25);
  run(v);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(get_f32(kDst + 4 * i), float(i) - 31.75f);
  v.op = VScalarOp::Maxs, v.scalar = 0;
  run(v);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(get_f32(kDst + 4 * i), std::max(float(i) - 32, 0.0f));
  v.op = VScalarOp::Mins, v.scalar = -0.0;
  run(v);
  EXPECT_EQ(get32(kDst + 4 * 32), 0x80000000u) << "min(+0, -0) = -0";
  for (int i = 0; i < 128; ++i) put16(kSrc0 + 2 * i, uint16_t(int16_t(i * 300 - 20000)));
  auto w = sca(VScalarOp::Muls, DType::I16, 3);
  run(w);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get16(kDst + 2 * i), uint16_t(int16_t(i * 300 - 20000) * 3)) << i;
}

TEST_F(VScalarTest, IntegerScalarMustBeIntegralAndInRange) {
  expect_error(sca(VScalarOp::Adds, DType::I16, 1.5), {"scalar", "not an integer"});
  expect_error(sca(VScalarOp::Adds, DType::I16, 40000), {"scalar", "range"});
  expect_error(sca(VScalarOp::Adds, DType::I32, std::nan("")), {"scalar"});
  expect_error(sca(VScalarOp::Adds, DType::BF16, 1), {"bf16"});
}

using VUnaryTest = VecTest;

TEST_F(VUnaryTest, TranscendentalsMatchHwFunctionsPerElement) {
  const float xs[] = {0.0f,
                      -0.0f,
                      1.0f,
                      -1.0f,
                      0.5f,
                      2.0f,
                      10.0f,
                      -10.0f,
                      1e-6f,
                      65504.0f,
                      1e30f,
                      -1e30f,
                      std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(),
                      std::ldexp(1.0f, -140),
                      88.5f};
  const int n = sizeof xs / sizeof xs[0];
  for (int i = 0; i < n; ++i) put_f32(kSrc0 + 4 * i, xs[i]), put_f16(kSrc0 + 0x400 + 2 * i, xs[i]);
  const VUnaryOp ops[] = {VUnaryOp::Exp, VUnaryOp::Ln, VUnaryOp::Rec, VUnaryOp::Sqrt, VUnaryOp::Rsqrt};
  float (*fns[])(float) = {hw_exp, hw_ln, hw_rec, hw_sqrt, hw_rsqrt};
  for (int k = 0; k < 5; ++k) {
    auto v = una(ops[k], DType::F32);
    v.mask = {true, uint64_t(n), 0};
    run(v);
    auto h = una(ops[k], DType::F16);
    h.dst = ub(kDst + 0x400), h.src = ub(kSrc0 + 0x400);
    h.mask = {true, uint64_t(n), 0};
    run(h);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(get32(kDst + 4 * i), f32_bits(fns[k](xs[i]))) << k << " " << i;
      EXPECT_EQ(get16(kDst + 0x400 + 2 * i), f16_round(fns[k](get_f16(kSrc0 + 0x400 + 2 * i)))) << k << " " << i;
    }
  }
}

TEST_F(VUnaryTest, AbsAndReluOnSpecialValues) {
  put16s(kSrc0, {f16_round(-2.0f), 0x8000, 0xfc01, f16_round(5.0f), 0xfc00});
  auto v = una(VUnaryOp::Abs, DType::F16);
  v.mask = {false, 0x1f, 0};
  run(v);
  const uint16_t want_abs[] = {0x4000, 0x0000, 0x7e01, 0x4500, 0x7c00};  // the f16 NaN is quieted by rounding
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get16(kDst + 2 * i), want_abs[i]) << i;
  v.op = VUnaryOp::Relu;
  run(v);
  const uint16_t want_relu[] = {0x0000, 0x0000, 0xfe01, 0x4500, 0x0000};  // relu(-0) = +0, NaN stays NaN
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get16(kDst + 2 * i), want_relu[i]) << i;
  put32(kSrc0, 0xff800001);
  auto f = una(VUnaryOp::Abs, DType::F32);
  f.mask = {false, 1, 0};
  run(f);
  EXPECT_EQ(get32(kDst), 0x7f800001u) << "f32 abs only clears the sign bit";
}

TEST_F(VUnaryTest, IntegerAbsWrapsAndReluClamps) {
  put16s(kSrc0, {0x8000, 0xfff6, 7});
  auto v = una(VUnaryOp::Abs, DType::I16);
  v.mask = {false, 7, 0};
  run(v);
  EXPECT_EQ(get16(kDst), 0x8000);
  EXPECT_EQ(get16(kDst + 2), 10);
  put32(kSrc0, uint32_t(-5)), put32(kSrc0 + 4, 9);
  auto w = una(VUnaryOp::Relu, DType::I32);
  w.mask = {false, 3, 0};
  run(w);
  EXPECT_EQ(get32(kDst), 0u);
  EXPECT_EQ(get32(kDst + 4), 9u);
  expect_error(una(VUnaryOp::Exp, DType::I32), {"dtype", "s32"});
  expect_error(una(VUnaryOp::Sqrt, DType::BF16), {"bf16"});
}

}  // namespace
}  // namespace npusim::isa::vtest
