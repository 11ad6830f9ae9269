// The golden matmul equals, bit for bit, the ISA's Mmad + Fixpipe semantics run on hand-laid-out L0A / L0B
// fractals (tests/op/mmad_harness.h) for M = 17, N = 33, K = 40 (partial M / N fractals, a partial K fractal),
// on both execution paths: this proves the golden follows the documented accumulation order and conversion.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "isa/numeric/numeric.h"
#include "tests/golden/matmul_golden.h"
#include "tests/op/mmad_harness.h"

namespace npusim::golden {
namespace {

using isa::DType;
using op::ElemType;
using op::HostTensor;

constexpr int M = 17, N = 33, K = 40;

ElemType elem_of(DType t) {
  switch (t) {
    case DType::F16: return ElemType::F16;
    case DType::BF16: return ElemType::BF16;
    case DType::I8: return ElemType::I8;
    case DType::I32: return ElemType::I32;
    default: return ElemType::F32;
  }
}

// A rows x cols logical matrix of raw bits as a HostTensor, stored transposed (cols x rows) when asked.
HostTensor stored(DType t, int rows, int cols, const std::vector<uint16_t>& bits, bool transpose) {
  HostTensor h;
  h.type = elem_of(t);
  h.shape = transpose ? std::vector<int64_t>{cols, rows} : std::vector<int64_t>{rows, cols};
  const int es = isa::bytes_of(t);
  h.bytes.resize(size_t(rows * cols * es));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      std::memcpy(&h.bytes[size_t((transpose ? c * rows + r : r * cols + c) * es)], &bits[size_t(r * cols + c)], es);
  return h;
}

// Random raw elements: kind 0 uniform values in [-2, 2]; 1 any finite bit pattern (subnormals, huge values,
// products that overflow / underflow in bf16); 2 like 1 with 1 in 16 replaced by +-0, +-inf or NaN.
std::vector<uint16_t> random_bits(DType t, size_t count, int kind, std::mt19937& rng) {
  std::vector<uint16_t> v(count);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const uint16_t exp_mask = t == DType::F16 ? 0x7C00 : 0x7F80;
  const uint16_t specials[5] = {0x0000, 0x8000, exp_mask, uint16_t(0x8000 | exp_mask), uint16_t(exp_mask | 0x0041)};
  for (auto& x : v) {
    if (t == DType::I8) {
      x = uint16_t(rng() & 0xFF);
      continue;
    }
    if (kind == 0) {
      x = t == DType::F16 ? isa::f32_to_f16(u(rng)) : isa::f32_to_bf16(u(rng));
      continue;
    }
    do x = uint16_t(rng());
    while ((x & exp_mask) == exp_mask);
    if (kind == 2 && rng() % 16 == 0) x = specials[rng() % 5];
  }
  return v;
}

struct Variant {
  DType in, out;
  int kind;
  bool bias, ta, tb;
  double scale;
};

class MatmulVsMmad : public ::testing::TestWithParam<isa::ExecPath> {
 protected:
  void check(const Variant& v, uint32_t seed) {
    std::mt19937 rng(seed);
    optest::CubeCase cc{.in = v.in,
                        .out = v.out,
                        .m = M,
                        .n = N,
                        .k = K,
                        .a = random_bits(v.in, M * K, v.kind, rng),
                        .b = random_bits(v.in, K * N, v.kind, rng),
                        .dequant_scale = v.scale};
    HostTensor bias;
    bias.type = v.in == DType::I8 ? ElemType::I32 : ElemType::F32;
    bias.shape = {N};
    if (v.bias) {
      std::uniform_real_distribution<float> u(-100.0f, 100.0f);
      for (int j = 0; j < N; ++j)
        cc.bias.push_back(v.in == DType::I8 ? uint32_t(int32_t(u(rng) * 1000)) : isa::f32_bits(u(rng)));
      bias.bytes.resize(size_t(N) * 4);
      std::memcpy(bias.bytes.data(), cc.bias.data(), bias.bytes.size());
    }
    const optest::CubeResult hw = optest::run_cube(cc, GetParam());
    const HostTensor a = stored(v.in, M, K, cc.a, v.ta), b = stored(v.in, K, N, cc.b, v.tb);
    const HostTensor* bp = v.bias ? &bias : nullptr;
    const ElemType acc_type = v.in == DType::I8 ? ElemType::I32 : ElemType::F32;
    const HostTensor acc = matmul_golden(a, b, bp, v.ta, v.tb, acc_type, 0);
    ASSERT_EQ(acc.bytes.size(), hw.l0c.size() * 4);
    for (size_t i = 0; i < hw.l0c.size(); ++i) {
      uint32_t g;
      std::memcpy(&g, &acc.bytes[i * 4], 4);
      ASSERT_EQ(g, hw.l0c[i]) << "C[" << i / N << "][" << i % N << "]";
    }
    const HostTensor out = matmul_golden(a, b, bp, v.ta, v.tb, elem_of(v.out), v.scale);
    ASSERT_EQ(out.bytes, hw.out);
  }
};

TEST_P(MatmulVsMmad, Fp16UniformValues) {
  check({DType::F16, DType::F32, 0, false, false, false, 0}, 1);
  check({DType::F16, DType::F16, 0, true, true, false, 0}, 2);
}

TEST_P(MatmulVsMmad, Fp16AnyFiniteBitPattern) {
  check({DType::F16, DType::F32, 1, false, false, true, 0}, 3);
  check({DType::F16, DType::F16, 1, true, true, true, 0}, 4);
}

TEST_P(MatmulVsMmad, Fp16WithZerosInfinitiesAndNans) {
  check({DType::F16, DType::F32, 2, true, false, false, 0}, 5);
  check({DType::F16, DType::BF16, 2, false, false, true, 0}, 6);
}

TEST_P(MatmulVsMmad, Bf16ProductsThatOverflowAndUnderflow) {
  check({DType::BF16, DType::F32, 1, true, false, false, 0}, 7);
  check({DType::BF16, DType::BF16, 2, false, true, true, 0}, 8);
}

TEST_P(MatmulVsMmad, Int8ToInt32AndDequantFp16) {
  check({DType::I8, DType::I32, 1, true, false, true, 0}, 9);
  check({DType::I8, DType::F16, 1, true, true, false, 0.0123}, 10);
}

INSTANTIATE_TEST_SUITE_P(BothPaths, MatmulVsMmad, ::testing::Values(isa::ExecPath::Reference, isa::ExecPath::Fast),
                         [](const auto& info) { return info.param == isa::ExecPath::Fast ? "Fast" : "Reference"; });

}  // namespace
}  // namespace npusim::golden
