// fp64 and naive low-precision references of the matmul op (matmul_reference.h).
#include "kernels/matmul/matmul_reference.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "isa/numeric/numeric.h"

namespace npusim::op {

namespace {

bool is_float_input(ElemType t) { return t == ElemType::F16 || t == ElemType::BF16; }

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("matmul: " + what);
}

void check_dtypes(const HostTensor& a, const HostTensor& b, const HostTensor* bias, ElemType out) {
  require(a.type == b.type, "a is " + elem_type_name(a.type) + " but b is " + elem_type_name(b.type));
  if (is_float_input(a.type)) {
    require(out == ElemType::F16 || out == ElemType::BF16 || out == ElemType::F32,
            "out_dtype " + elem_type_name(out) + " is not float16, bfloat16 or float32");
    require(!bias || bias->type == ElemType::F32, "bias must be float32 for float inputs");
  } else {
    require(a.type == ElemType::I8, "a dtype " + elem_type_name(a.type) + " is not float16, bfloat16 or int8");
    require(out == ElemType::I32 || out == ElemType::F16,
            "out_dtype " + elem_type_name(out) + " is not int32 or float16 for int8 inputs");
    require(!bias || bias->type == ElemType::I32, "bias must be int32 for int8 inputs");
  }
}

// Reads the logical a[i][k] / b[k][j] of the (possibly transposed) storage.
struct Operands {
  const HostTensor &a, &b;
  const HostTensor* bias;
  bool ta, tb;
  MatmulDims d;
  double av(int64_t i, int64_t k) const { return a.get(ta ? k * d.m + i : i * d.k + k); }
  double bv(int64_t k, int64_t j) const { return b.get(tb ? j * d.k + k : k * d.n + j); }
  double biasv(int64_t j) const { return bias ? bias->get(j) : 0.0; }
};

// Error-free accumulation (a growing list of non-overlapping partials, each step a two-sum), so the fp64
// result is the exact sum correctly rounded rather than depending on the order of the terms.
class ExactSum {
 public:
  void add(double x) {
    if (!std::isfinite(x)) {  // the partials cannot hold inf / NaN (inf - inf); keep their IEEE sum apart
      special_ += x, has_special_ = true;
      return;
    }
    size_t used = 0;
    for (double y : partials_) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y, lo = y - (hi - x);
      if (lo != 0) partials_[used++] = lo;
      x = hi;
    }
    partials_.resize(used);
    partials_.push_back(x);
  }
  double value() const {
    if (has_special_) return special_;  // finite terms cannot change an inf / NaN sum
    return rounded();
  }

 private:
  // Sums the partials from the largest; when the remainder lands exactly half-way, the next partial's sign
  // decides the rounding direction (otherwise ties-to-even could round the wrong way).
  double rounded() const {
    size_t n = partials_.size();
    if (n == 0) return 0.0;
    double hi = partials_[--n], lo = 0;
    while (n > 0) {
      const double x = hi, y = partials_[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0) break;
    }
    if (n > 0 && ((lo < 0 && partials_[n - 1] < 0) || (lo > 0 && partials_[n - 1] > 0))) {
      const double y = lo * 2, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }
  std::vector<double> partials_;
  double special_ = 0;
  bool has_special_ = false;
};

double round_out(float v, ElemType out) {
  using isa::Overflow;
  using isa::RoundMode;
  if (out == ElemType::F16) return isa::f16_to_f32(isa::f32_to_f16(v, RoundMode::RINT, Overflow::Ieee));
  if (out == ElemType::BF16) return isa::bf16_to_f32(isa::f32_to_bf16(v, RoundMode::RINT, Overflow::Ieee));
  return v;
}

double naive_float(const Operands& o, int64_t i, int64_t j, ElemType out) {
  float acc = 0.0f;
  for (int64_t k = 0; k < o.d.k; ++k) acc = acc + float(o.av(i, k)) * float(o.bv(k, j));
  if (o.bias) acc = acc + float(o.biasv(j));
  return round_out(acc, out);
}

double naive_int(const Operands& o, int64_t i, int64_t j, ElemType out, double scale) {
  int64_t acc = int64_t(o.biasv(j));
  for (int64_t k = 0; k < o.d.k; ++k) acc += int64_t(o.av(i, k)) * int64_t(o.bv(k, j));
  if (out == ElemType::I32) return double(acc);
  return round_out(float(acc) * float(scale), out);
}

template <class F>
std::vector<double> per_output(const Operands& o, F f) {
  std::vector<double> r(size_t(o.d.m * o.d.n));
  for (int64_t i = 0; i < o.d.m; ++i)
    for (int64_t j = 0; j < o.d.n; ++j) r[size_t(i * o.d.n + j)] = f(i, j);
  return r;
}

}  // namespace

MatmulDims matmul_dims(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                       bool transpose_b, ElemType out_dtype) {
  require(a.shape.size() == 2, "a must be 2-D");
  require(b.shape.size() == 2, "b must be 2-D");
  MatmulDims d;
  d.m = transpose_a ? a.shape[1] : a.shape[0];
  d.k = transpose_a ? a.shape[0] : a.shape[1];
  d.n = transpose_b ? b.shape[0] : b.shape[1];
  const int64_t kb = transpose_b ? b.shape[1] : b.shape[0];
  require(kb == d.k, "K of a (" + std::to_string(d.k) + ") differs from K of b (" + std::to_string(kb) + ")");
  require(!bias || (bias->shape.size() == 1 && bias->shape[0] == d.n),
          "bias must have shape (N) = (" + std::to_string(d.n) + ")");
  check_dtypes(a, b, bias, out_dtype);
  return d;
}

std::vector<double> matmul_ref64(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                                 bool transpose_b, ElemType out_dtype, double dequant_scale) {
  const Operands o{a, b, bias, transpose_a, transpose_b, matmul_dims(a, b, bias, transpose_a, transpose_b, out_dtype)};
  const bool dequant = a.type == ElemType::I8 && out_dtype == ElemType::F16;
  return per_output(o, [&](int64_t i, int64_t j) {
    ExactSum s;  // products of fp16 / bf16 / int8 values are exact in fp64
    if (bias) s.add(o.biasv(j));
    for (int64_t k = 0; k < o.d.k; ++k) s.add(o.av(i, k) * o.bv(k, j));
    return dequant ? s.value() * dequant_scale : s.value();
  });
}

std::vector<double> matmul_naive(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                                 bool transpose_b, ElemType out_dtype, double dequant_scale) {
  const Operands o{a, b, bias, transpose_a, transpose_b, matmul_dims(a, b, bias, transpose_a, transpose_b, out_dtype)};
  return per_output(o, [&](int64_t i, int64_t j) {
    return a.type == ElemType::I8 ? naive_int(o, i, j, out_dtype, dequant_scale) : naive_float(o, i, j, out_dtype);
  });
}

}  // namespace npusim::op
