// Golden matmul: the Mmad accumulation order and FixPipe conversion of isa/README.md section 3, as plain loops.
#include "tests/golden/matmul_golden.h"

#include <stdexcept>
#include <string>

#include "isa/numeric/numeric.h"

namespace npusim::golden {

namespace {

using isa::Overflow;
using isa::RoundMode;
using op::ElemType;
using op::HostTensor;

constexpr uint32_t kCanonicalNan = 0x7FC00000u;  // what Mmad stores for any NaN result (README section 3, step 3)
constexpr int kFloatK0 = 16;                     // K depth of one fp16 / bf16 fractal

// HostTensor elements are little-endian in the dtype's own encoding.
uint32_t raw(const HostTensor& t, int64_t idx, int bytes) {
  uint32_t v = 0;
  for (int b = bytes - 1; b >= 0; --b) v = (v << 8) | t.bytes[size_t(idx * bytes + b)];
  return v;
}

void put_raw(HostTensor& t, int64_t idx, int bytes, uint32_t v) {
  for (int b = 0; b < bytes; ++b) t.bytes[size_t(idx * bytes + b)] = uint8_t(v >> (8 * b));
}

struct Matmul {
  const HostTensor &a, &b;
  const HostTensor* bias;
  bool ta, tb;
  int64_t m = 0, n = 0, k = 0;

  int64_t a_idx(int64_t i, int64_t kk) const { return ta ? kk * m + i : i * k + kk; }
  int64_t b_idx(int64_t kk, int64_t j) const { return tb ? j * k + kk : kk * n + j; }
  float widen(const HostTensor& t, int64_t idx) const {  // exact, as the cube widens its inputs
    const uint16_t bits = uint16_t(raw(t, idx, 2));
    return t.type == ElemType::F16 ? isa::f16_to_f32(bits) : isa::bf16_to_f32(bits);
  }
  int32_t s8(const HostTensor& t, int64_t idx) const { return int8_t(uint8_t(raw(t, idx, 1))); }
};

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("matmul_golden: " + what);
}

void check(const Matmul& mm, ElemType out) {
  const bool fl = mm.a.type == ElemType::F16 || mm.a.type == ElemType::BF16;
  require(mm.a.type == mm.b.type && (fl || mm.a.type == ElemType::I8), "a / b dtypes");
  require(fl ? (out == ElemType::F16 || out == ElemType::BF16 || out == ElemType::F32)
             : (out == ElemType::I32 || out == ElemType::F16),
          "out_dtype");
  require(!mm.bias || (mm.bias->type == (fl ? ElemType::F32 : ElemType::I32) && mm.bias->shape.size() == 1 &&
                       mm.bias->shape[0] == mm.n),
          "bias");
}

Matmul make(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool ta, bool tb, ElemType out) {
  require(a.shape.size() == 2 && b.shape.size() == 2, "a and b must be 2-D");
  Matmul mm{a, b, bias, ta, tb};
  mm.m = ta ? a.shape[1] : a.shape[0];
  mm.k = ta ? a.shape[0] : a.shape[1];
  mm.n = tb ? b.shape[0] : b.shape[1];
  require((tb ? b.shape[1] : b.shape[0]) == mm.k, "K of a and b differ");
  check(mm, out);
  return mm;
}

// Balanced pairwise tree, level by level: (p0+p1), (p2+p3), ..., then pairs of those.
float tree_sum(float* p, int count) {
  for (; count > 1; count /= 2)
    for (int q = 0; q < count / 2; ++q) p[q] = p[2 * q] + p[2 * q + 1];
  return p[0];
}

// Mmad, float inputs: start from the bias (BT) or +0, then one tree sum per K fractal added in fractal order.
float float_acc(const Matmul& mm, int64_t i, int64_t j) {
  float acc = mm.bias ? isa::f32_from_bits(raw(*mm.bias, j, 4)) : 0.0f;
  for (int64_t kb = 0; kb * kFloatK0 < mm.k; ++kb) {
    float p[kFloatK0];
    for (int t = 0; t < kFloatK0; ++t) {
      const int64_t kk = kb * kFloatK0 + t;
      p[t] = kk < mm.k ? mm.widen(mm.a, mm.a_idx(i, kk)) * mm.widen(mm.b, mm.b_idx(kk, j)) : 0.0f;  // pad lane: +0
    }
    acc = acc + tree_sum(p, kFloatK0);
  }
  return acc;
}

// Mmad, int8 inputs: exact products summed in int32 with wrap-around; the order (and so the 32-deep fractals)
// cannot matter because integer addition is associative.
uint32_t int_acc(const Matmul& mm, int64_t i, int64_t j) {
  uint32_t acc = mm.bias ? raw(*mm.bias, j, 4) : 0u;
  for (int64_t kk = 0; kk < mm.k; ++kk) acc += uint32_t(mm.s8(mm.a, mm.a_idx(i, kk)) * mm.s8(mm.b, mm.b_idx(kk, j)));
  return acc;
}

float to_f32_rint(double x) {
  return isa::f32_from_bits(isa::round_to_binary(x, 8, 23, RoundMode::RINT, Overflow::Ieee));
}

// FixPipe from an fp32 L0C value (already NaN-canonicalised by Mmad's store).
uint32_t fixpipe_f32(float acc, ElemType out) {
  if (out == ElemType::F16) return isa::f32_to_f16(acc, RoundMode::RINT, Overflow::Saturate);
  if (out == ElemType::BF16) return isa::f32_to_bf16(acc, RoundMode::RINT, Overflow::Saturate);
  return acc != acc ? kCanonicalNan : isa::f32_bits(acc);
}

// FixPipe from an s32 L0C value: raw copy, or dequant v = fp32(acc) * fp32(scale), then fp16 (saturating).
uint32_t fixpipe_s32(uint32_t acc, ElemType out, double scale) {
  if (out == ElemType::I32) return acc;
  const float v = to_f32_rint(double(int32_t(acc))) * to_f32_rint(scale);
  return isa::f32_to_f16(v, RoundMode::RINT, Overflow::Saturate);
}

}  // namespace

HostTensor matmul_golden(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                         bool transpose_b, ElemType out_dtype, double dequant_scale) {
  const Matmul mm = make(a, b, bias, transpose_a, transpose_b, out_dtype);
  HostTensor out;
  out.type = out_dtype;
  out.shape = {mm.m, mm.n};
  const int ob = op::elem_bytes(out_dtype);
  out.bytes.assign(size_t(mm.m * mm.n * ob), 0);
  const bool is_int = a.type == ElemType::I8;
  for (int64_t i = 0; i < mm.m; ++i)
    for (int64_t j = 0; j < mm.n; ++j) {
      const uint32_t v = is_int ? fixpipe_s32(int_acc(mm, i, j), out_dtype, dequant_scale)
                                : fixpipe_f32(float_acc(mm, i, j), out_dtype);
      put_raw(out, i * mm.n + j, ob, v);
    }
  return out;
}

}  // namespace npusim::golden
