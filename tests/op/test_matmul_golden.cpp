// The matmul golden model (tests/golden/matmul_golden.h) on hand-computed cases, and the op references
// (kernels/op/matmul_reference.h).
// The cross-check against the ISA instructions is in test_matmul_vs_mmad.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "isa/numeric/numeric.h"
#include "kernels/matmul/matmul_reference.h"
#include "tests/golden/matmul_golden.h"

namespace npusim::golden {
namespace {

using op::ElemType;
using op::HostTensor;

constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor tensor(ElemType t, std::vector<int64_t> shape, const std::vector<double>& v) {
  HostTensor h = HostTensor::zeros(t, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) h.set(int64_t(i), v[i]);
  return h;
}

std::vector<double> values(const HostTensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.get(int64_t(i));
  return v;
}

uint32_t f32_bits_at(const HostTensor& t, int64_t i) {
  uint32_t u;
  std::memcpy(&u, t.bytes.data() + i * 4, 4);
  return u;
}

// 2 x 2 x 20, fp16: two K fractals, the second with 4 of 16 lanes used.
//   a row 0 = 4096, 1 x 19     b col 0 = 4096, 1 x 19
//   a row 1 = 0.5 x 20         b col 1 = 1, 2, ..., 20
// (0,0): fractal 0 tree: (2^24 + 1) rounds to 2^24 (tie to even), seven (1+1) = 2; then 2^24+2, 4, 4, 4;
//        2^24+6, 8; 2^24+14. Fractal 1: 1+1+1+1 (+0 lanes) = 4. acc = 2^24 + 18 = 16777234.
//        (In k order every +1 is absorbed: 2^24. Exactly: 2^24 + 19.)
// (0,1) = 4096 + (2 + ... + 20) = 4305; (1,0) = 2048 + 9.5 = 2057.5; (1,1) = 0.5 * 210 = 105: all exact.
struct Hand {
  HostTensor a = HostTensor::zeros(ElemType::F16, {2, 20}), b = HostTensor::zeros(ElemType::F16, {20, 2});
  Hand() {
    for (int k = 0; k < 20; ++k) {
      a.set(k, k == 0 ? 4096 : 1), a.set(20 + k, 0.5);
      b.set(2 * k, k == 0 ? 4096 : 1), b.set(2 * k + 1, k + 1);
    }
  }
};

TEST(MatmulGolden, HandComputed2x2x20TreePerFractalThenSequential) {
  Hand h;
  EXPECT_EQ(values(matmul_golden(h.a, h.b, nullptr, false, false, ElemType::F32, 0)),
            (std::vector<double>{16777234, 4305, 2057.5, 105}));
  // fp16: 2^24+18 saturates to 65504; 4305 -> 4304 (spacing 4); 2057.5 -> 2058 (spacing 2).
  EXPECT_EQ(values(matmul_golden(h.a, h.b, nullptr, false, false, ElemType::F16, 0)),
            (std::vector<double>{65504, 4304, 2058, 105}));
  // bf16 (8 significant bits): 2^24+18 -> 2^24; 4305 -> 4320 (spacing 32); 2057.5 -> 2064 (spacing 16).
  EXPECT_EQ(values(matmul_golden(h.a, h.b, nullptr, false, false, ElemType::BF16, 0)),
            (std::vector<double>{16777216, 4320, 2064, 105}));
}

TEST(MatmulReference, Ref64IsExactAndNaiveIsSequentialFp32) {
  Hand h;
  EXPECT_EQ(op::matmul_ref64(h.a, h.b, nullptr, false, false, ElemType::F32, 0),
            (std::vector<double>{16777235, 4305, 2057.5, 105}));
  EXPECT_EQ(op::matmul_naive(h.a, h.b, nullptr, false, false, ElemType::F32, 0),
            (std::vector<double>{16777216, 4305, 2057.5, 105}));
  // The naive result rounds to fp16 with IEEE overflow (the textbook formula), not the cube's saturation.
  EXPECT_EQ(op::matmul_naive(h.a, h.b, nullptr, false, false, ElemType::F16, 0),
            (std::vector<double>{kInf, 4304, 2058, 105}));
}

TEST(MatmulReference, Ref64SumIsExactWhateverTheOrder) {
  // bf16 2^100 + 1 - 2^100: fp64 in k order gives 0, the exact sum is 1. The golden's tree also loses the 1.
  const HostTensor a = tensor(ElemType::BF16, {1, 3}, {0x1p100, 1, -0x1p100});
  const HostTensor b = tensor(ElemType::BF16, {3, 1}, {1, 1, 1});
  EXPECT_EQ(op::matmul_ref64(a, b, nullptr, false, false, ElemType::F32, 0), std::vector<double>{1.0});
  EXPECT_EQ(op::matmul_naive(a, b, nullptr, false, false, ElemType::F32, 0), std::vector<double>{0.0});
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::F32, 0)), std::vector<double>{0.0});
  // Correct rounding: 1 + 2^-53 is a tie (fp64 in k order gives 1); the 2^-120 beyond it (too far to share a
  // partial with 2^-53) decides the direction.
  for (double tail : {0x1p-120, -0x1p-120}) {
    const HostTensor c = tensor(ElemType::BF16, {1, 3}, {1, 0x1p-53, tail});
    EXPECT_EQ(op::matmul_ref64(c, b, nullptr, false, false, ElemType::F32, 0),
              std::vector<double>{tail > 0 ? 1 + 0x1p-52 : 1.0});
  }
  const HostTensor inf = tensor(ElemType::F16, {1, 2}, {kInf, 1}), ones = tensor(ElemType::F16, {2, 1}, {1, 1});
  EXPECT_EQ(op::matmul_ref64(inf, ones, nullptr, false, false, ElemType::F16, 0), std::vector<double>{kInf});
}

TEST(MatmulGolden, TransposedStorageGivesTheSameResult) {
  constexpr int M = 5, N = 7, K = 19;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2, 2);
  HostTensor a = HostTensor::zeros(ElemType::F16, {M, K}), at = HostTensor::zeros(ElemType::F16, {K, M});
  HostTensor b = HostTensor::zeros(ElemType::F16, {K, N}), bt = HostTensor::zeros(ElemType::F16, {N, K});
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a.set(i * K + k, u(rng)), at.set(k * M + i, a.get(i * K + k));
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b.set(k * N + j, u(rng)), bt.set(j * K + k, b.get(k * N + j));
  const HostTensor ref = matmul_golden(a, b, nullptr, false, false, ElemType::F32, 0);
  EXPECT_EQ(ref.shape, (std::vector<int64_t>{M, N}));
  EXPECT_EQ(matmul_golden(at, b, nullptr, true, false, ElemType::F32, 0).bytes, ref.bytes);
  EXPECT_EQ(matmul_golden(a, bt, nullptr, false, true, ElemType::F32, 0).bytes, ref.bytes);
  EXPECT_EQ(matmul_golden(at, bt, nullptr, true, true, ElemType::F32, 0).bytes, ref.bytes);
  EXPECT_EQ(op::matmul_ref64(at, bt, nullptr, true, true, ElemType::F32, 0),
            op::matmul_ref64(a, b, nullptr, false, false, ElemType::F32, 0));
}

TEST(MatmulGolden, BiasIsTheAccumulatorsStartingValue) {
  // K = 17: a = 1 at k = 0 and k = 16. Column 0 (b = 1, bias 2^24): 2^24 + 1 -> 2^24 (tie to even), + 1 -> 2^24.
  // Summing the products first (the naive formula) gives 2^24 + 2. Column 1 (b = 0.5, bias -3.5): -3 then -2.5.
  std::vector<double> av(17, 0.0), bv;
  av[0] = av[16] = 1;
  for (int k = 0; k < 17; ++k) bv.push_back(1), bv.push_back(0.5);
  const HostTensor a = tensor(ElemType::F16, {1, 17}, av), b = tensor(ElemType::F16, {17, 2}, bv);
  const HostTensor bias = tensor(ElemType::F32, {2}, {0x1p24, -3.5});
  EXPECT_EQ(values(matmul_golden(a, b, &bias, false, false, ElemType::F32, 0)), (std::vector<double>{0x1p24, -2.5}));
  EXPECT_EQ(op::matmul_naive(a, b, &bias, false, false, ElemType::F32, 0), (std::vector<double>{0x1p24 + 2, -2.5}));
  EXPECT_EQ(op::matmul_ref64(a, b, &bias, false, false, ElemType::F32, 0), (std::vector<double>{0x1p24 + 2, -2.5}));
}

// int8 2x3 . 3x2 + bias (1000, -7):
//   (0,0) = -128*127 + 127*-128 + 1*5 + 1000 = -31507   (0,1) = 16384 + 127 + 6 - 7 = 16510
//   (1,0) = 254 + 384 + 20 + 1000 = 1658                (1,1) = -256 - 3 + 24 - 7 = -242
struct IntCase {
  HostTensor a = tensor(ElemType::I8, {2, 3}, {-128, 127, 1, 2, -3, 4});
  HostTensor b = tensor(ElemType::I8, {3, 2}, {127, -128, -128, 1, 5, 6});
  HostTensor bias = tensor(ElemType::I32, {2}, {1000, -7});
};

TEST(MatmulGolden, Int8ToInt32IsExact) {
  IntCase c;
  const HostTensor out = matmul_golden(c.a, c.b, &c.bias, false, false, ElemType::I32, 0);
  EXPECT_EQ(out.type, ElemType::I32);
  EXPECT_EQ(values(out), (std::vector<double>{-31507, 16510, 1658, -242}));
  EXPECT_EQ(op::matmul_ref64(c.a, c.b, &c.bias, false, false, ElemType::I32, 0), values(out));
  EXPECT_EQ(op::matmul_naive(c.a, c.b, &c.bias, false, false, ElemType::I32, 0), values(out));
}

TEST(MatmulGolden, Int8DequantToFp16SaturatesAt65504) {
  IntCase c;
  // x 0.25: -7876.75 -> -7876 (spacing 4), 4127.5 -> 4128, 414.5 and -60.5 exact.
  EXPECT_EQ(values(matmul_golden(c.a, c.b, &c.bias, false, false, ElemType::F16, 0.25)),
            (std::vector<double>{-7876, 4128, 414.5, -60.5}));
  // x 4: -126028 and 66040 saturate; 6632 and -968 exact.
  EXPECT_EQ(values(matmul_golden(c.a, c.b, &c.bias, false, false, ElemType::F16, 4.0)),
            (std::vector<double>{-65504, 65504, 6632, -968}));
  EXPECT_EQ(op::matmul_ref64(c.a, c.b, &c.bias, false, false, ElemType::F16, 4.0),
            (std::vector<double>{-126028, 66040, 6632, -968}));
  EXPECT_EQ(op::matmul_naive(c.a, c.b, &c.bias, false, false, ElemType::F16, 4.0),
            (std::vector<double>{-kInf, kInf, 6632, -968}));
}

TEST(MatmulGolden, DequantScaleIsRoundedToFp32First) {
  // acc = 127*16 + 1*17 = 2049, a tie in fp16. scale 1 + 2^-30 is 1.0f in fp32 -> 2049 -> 2048 (to even);
  // applied in double it would tip the tie up to 2050.
  const HostTensor a = tensor(ElemType::I8, {1, 2}, {127, 1}), b = tensor(ElemType::I8, {2, 1}, {16, 17});
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::F16, 1 + 0x1p-30)), std::vector<double>{2048});
}

TEST(MatmulGolden, Fp16OverflowSaturatesAndBf16KeepsTheValue) {
  const HostTensor a = tensor(ElemType::F16, {2, 2}, {256, 256, -256, -256});
  const HostTensor b = tensor(ElemType::F16, {2, 1}, {256, 256});
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::F16, 0)), (std::vector<double>{65504, -65504}));
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::BF16, 0)),
            (std::vector<double>{131072, -131072}));
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::F32, 0)),
            (std::vector<double>{131072, -131072}));
}

TEST(MatmulGolden, NanIsCanonicalInFp32AndZeroInFp16InfSaturates) {
  // Rows 0 / 1: a NaN with a payload (f16 0x7E01, negative 0xFE01) -> fp32 0x7FC00000, fp16 0 (saturation).
  // Rows 2 / 3: +-inf * 1 + 1 -> +-inf (fp16: +-65504); +-inf * 0 -> NaN.
  HostTensor a = tensor(ElemType::F16, {4, 2}, {0, 1, 0, 1, kInf, 1, -kInf, 1});
  const uint16_t nan_bits[2] = {0x7E01, 0xFE01};
  std::memcpy(a.bytes.data(), &nan_bits[0], 2);
  std::memcpy(a.bytes.data() + 4, &nan_bits[1], 2);
  const HostTensor b = tensor(ElemType::F16, {2, 2}, {1, 0, 1, 1});  // column 0: 1, 1; column 1: 0, 1
  const HostTensor f = matmul_golden(a, b, nullptr, false, false, ElemType::F32, 0);
  for (int64_t i : {0, 1, 2, 3, 5, 7}) EXPECT_EQ(f32_bits_at(f, i), 0x7FC00000u) << i;
  EXPECT_EQ(f.get(4), kInf);
  EXPECT_EQ(f.get(6), -kInf);
  EXPECT_EQ(values(matmul_golden(a, b, nullptr, false, false, ElemType::F16, 0)),
            (std::vector<double>{0, 0, 0, 0, 65504, 0, -65504, 0}));
}

TEST(MatmulGolden, PaddedLanesContributePlusZero) {
  // All products -0 with bias -0: a full fractal (K = 16) sums to -0; with K = 15 the +0 pad lane makes it +0.
  const HostTensor bias = tensor(ElemType::F32, {1}, {-0.0});
  for (int k : {15, 16}) {
    const HostTensor a = tensor(ElemType::F16, {1, k}, std::vector<double>(size_t(k), -1.0));
    const HostTensor b = tensor(ElemType::F16, {k, 1}, std::vector<double>(size_t(k), 0.0));
    EXPECT_EQ(f32_bits_at(matmul_golden(a, b, &bias, false, false, ElemType::F32, 0), 0), k == 16 ? 0x80000000u : 0u)
        << k;
  }
}

TEST(MatmulGolden, RejectsShapesAndDtypesOutsideTheOp) {
  const HostTensor a = tensor(ElemType::F16, {2, 3}, {}), b = tensor(ElemType::F16, {4, 2}, {});
  const HostTensor b3 = tensor(ElemType::F16, {3, 2}, {}), i8 = tensor(ElemType::I8, {3, 2}, {});
  const HostTensor bias_i32 = tensor(ElemType::I32, {2}, {});
  EXPECT_THROW(matmul_golden(a, b, nullptr, false, false, ElemType::F32, 0), std::invalid_argument);
  EXPECT_THROW(matmul_golden(a, i8, nullptr, false, false, ElemType::F32, 0), std::invalid_argument);
  EXPECT_THROW(matmul_golden(a, b3, nullptr, false, false, ElemType::I32, 0), std::invalid_argument);
  EXPECT_THROW(matmul_golden(a, b3, &bias_i32, false, false, ElemType::F32, 0), std::invalid_argument);
  EXPECT_THROW(op::matmul_ref64(a, b, nullptr, false, false, ElemType::F32, 0), std::invalid_argument);
  EXPECT_THROW(op::matmul_naive(a, b3, &bias_i32, false, false, ElemType::F16, 0), std::invalid_argument);
  EXPECT_NO_THROW(matmul_golden(a, b3, nullptr, false, false, ElemType::BF16, 0));
}

}  // namespace
}  // namespace npusim::golden
