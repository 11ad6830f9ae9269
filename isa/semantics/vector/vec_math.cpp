// Scalar definitions of the vector unit's element arithmetic (the Reference path) and its dtype rules.
#include "isa/semantics/vector/vec_math.h"

#include <cmath>
#include <string>

#include "isa/instr/operand.h"
#include "isa/mathfn/mathfn.h"

namespace npusim::isa::vec {

void check_dtype(DType t, std::initializer_list<DType> allowed) {
  std::string names;
  for (DType a : allowed) {
    if (a == t) return;
    if (!names.empty()) names += ' ';
    names += dtype_name(a);
  }
  if (t == DType::BF16)
    isa_fail(
        "field dtype = bf16: the A2 vector unit has no bf16 arithmetic (bf16 data only moves through vconv, vcopy, "
        "vdup, vsel and vbrcb; convert to f32 first)");
  isa_fail("field dtype = " + std::string(dtype_name(t)) + " is not supported here (expected one of: " + names + ")");
}

uint32_t scalar_bits(DType t, double v, const char* field) {
  switch (t) {
    case DType::F16: return round_to_binary(v, 5, 10, RoundMode::RINT, Overflow::Ieee);
    case DType::BF16: return round_to_binary(v, 8, 7, RoundMode::RINT, Overflow::Ieee);
    case DType::F32: return f32_bits(static_cast<float>(v));
    case DType::I16:
    case DType::I32: {
      const double lo = t == DType::I16 ? -32768.0 : -2147483648.0, hi = t == DType::I16 ? 32767.0 : 2147483647.0;
      if (!(v >= lo && v <= hi))  // also catches NaN
        isa_fail("field " + std::string(field) + " = " + std::to_string(v) + " is outside the range of " +
                 std::string(dtype_name(t)));
      const auto i = static_cast<int64_t>(v);
      if (static_cast<double>(i) != v)
        isa_fail("field " + std::string(field) + " = " + std::to_string(v) + " is not an integer (dtype " +
                 std::string(dtype_name(t)) + ")");
      return wrap_bits(i, bits_of(t));
    }
    default: isa_fail("field dtype = " + std::string(dtype_name(t)) + " has no scalar form here");
  }
}

float quiet(float x) { return f32_from_bits(f32_bits(x) | 0x00400000u); }

// The x86 rule made explicit: the compiler may commute a + b, which would change which NaN's payload
// survives when both operands are NaN; this fixes it to src0 first.
float add_f32(float a, float b) { return std::isnan(a) ? quiet(a) : std::isnan(b) ? quiet(b) : a + b; }
float sub_f32(float a, float b) { return std::isnan(a) ? quiet(a) : std::isnan(b) ? quiet(b) : a - b; }
float mul_f32(float a, float b) { return std::isnan(a) ? quiet(a) : std::isnan(b) ? quiet(b) : a * b; }

float max_f32(float a, float b) {
  if (std::isnan(a)) return quiet(a);
  if (std::isnan(b)) return quiet(b);
  if (a == b) return std::signbit(a) ? b : a;  // only +-0 differ: prefer +0
  return a > b ? a : b;
}

float min_f32(float a, float b) {
  if (std::isnan(a)) return quiet(a);
  if (std::isnan(b)) return quiet(b);
  if (a == b) return std::signbit(a) ? a : b;  // prefer -0
  return a < b ? a : b;
}

float binary_f32(VBinOp op, float a, float b) {
  switch (op) {
    case VBinOp::Add: return add_f32(a, b);
    case VBinOp::Sub: return sub_f32(a, b);
    case VBinOp::Mul: return mul_f32(a, b);
    case VBinOp::Div: return hw_div(a, b);
    case VBinOp::Max: return max_f32(a, b);
    case VBinOp::Min: return min_f32(a, b);
  }
  return 0.0f;
}

float unary_f32(VUnaryOp op, float x) {
  switch (op) {
    case VUnaryOp::Exp: return hw_exp(x);
    case VUnaryOp::Ln: return hw_ln(x);
    case VUnaryOp::Abs: return f32_from_bits(f32_bits(x) & 0x7fffffffu);
    case VUnaryOp::Rec: return hw_rec(x);
    case VUnaryOp::Sqrt: return hw_sqrt(x);
    case VUnaryOp::Rsqrt: return hw_rsqrt(x);
    case VUnaryOp::Relu: return max_f32(x, 0.0f);
  }
  return 0.0f;
}

int64_t binary_int(VBinOp op, int64_t a, int64_t b) {
  switch (op) {
    case VBinOp::Add: return a + b;
    case VBinOp::Sub: return a - b;
    case VBinOp::Mul: return a * b;  // |a|, |b| < 2^31: exact in 64 bits
    case VBinOp::Max: return a > b ? a : b;
    case VBinOp::Min: return a < b ? a : b;
    case VBinOp::Div: break;  // rejected before execution
  }
  return 0;
}

int64_t unary_int(VUnaryOp op, int64_t x) {
  if (op == VUnaryOp::Abs) return x < 0 ? -x : x;
  return x > 0 ? x : 0;  // Relu
}

uint32_t wrap_bits(int64_t v, int bits) {
  return static_cast<uint32_t>(static_cast<uint64_t>(v) & (bits >= 32 ? 0xffffffffull : (1ull << bits) - 1));
}

}  // namespace npusim::isa::vec
