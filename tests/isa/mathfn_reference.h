#pragma once
// Oracle for the vector-unit math functions (isa/mathfn.h), shared by tests/isa/test_mathfn*.cpp and
// tools/bench/ulp_table.cpp. Uses libm in double, which is allowed here and never in isa/:
//  - the correctly rounded fp32 reference is the double result rounded to fp32. For sqrt, 1/x and a/b
//    the double result is itself correctly rounded and 53 >= 2*24 + 2, so the double rounding is
//    harmless; for exp, ln and 1/sqrt the double result is within ~1 double ULP, so the fp32 rounding
//    can differ only when the exact value lies within ~2^-29 fp32 ULP of a rounding boundary;
//  - the special-value rules are spelled out independently of the implementation (isa/README.md section 5).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "isa/mathfn/mathfn.h"

namespace npusim::isa::mathfn_ref {

constexpr uint32_t kDefaultNaN = 0x7fc00000u;

inline uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
inline float from_bits(uint32_t u) { return std::bit_cast<float>(u); }
inline bool is_nan(float x) { return (bits(x) & 0x7fffffffu) > 0x7f800000u; }
inline uint32_t quiet(float nan) { return bits(nan) | 0x00400000u; }
inline uint32_t sign(float x) { return bits(x) & 0x80000000u; }
inline uint32_t inf_bits(uint32_t s) { return 0x7f800000u | s; }

// Position of x on the number line counted in fp32 steps (+0 and -0 both map to 0; inf is one step
// past FLT_MAX), so the ULP distance of two non-NaN floats is the difference of their ordinals.
inline int64_t ordinal(float x) {
  const uint32_t u = bits(x);
  const int64_t magnitude = int64_t(u & 0x7fffffffu);
  return (u & 0x80000000u) ? -magnitude : magnitude;
}
inline uint64_t ulp_distance(float a, float b) { return uint64_t(std::llabs(ordinal(a) - ordinal(b))); }

// Size of one fp32 ULP at the (finite) correctly rounded value r: 2^(exponent - 23), or 2^-149 for
// subnormals and zero. Used for errors against the exact double value in fractional ULPs.
inline double ulp_of(float r) {
  const int exponent_field = int((bits(r) >> 23) & 0xff);
  return std::ldexp(1.0, (exponent_field == 0 ? 1 : exponent_field) - 127 - 23);
}

enum class Unary { Exp, Ln, Rec, Sqrt, Rsqrt };

struct UnaryInfo {
  const char* name;
  const char* domain;  // the inputs measured for ULP error (everything else is a special value)
  float (*hw)(float);
  void (*hw_n)(const float*, float*, size_t);
  double (*exact)(double);  // libm double, the reference before rounding to fp32
};

inline const UnaryInfo& info(Unary f) {
  static const UnaryInfo table[] = {
      {"exp", "finite x", hw_exp, hw_exp_n, [](double x) { return std::exp(x); }},
      {"ln", "finite x > 0", hw_ln, hw_ln_n, [](double x) { return std::log(x); }},
      {"rec", "finite x != 0", hw_rec, hw_rec_n, [](double x) { return 1.0 / x; }},
      {"sqrt", "finite x > 0", hw_sqrt, hw_sqrt_n, [](double x) { return std::sqrt(x); }},
      {"rsqrt", "finite x > 0", hw_rsqrt, hw_rsqrt_n, [](double x) { return 1.0 / std::sqrt(x); }},
  };
  return table[int(f)];
}
constexpr Unary kAllUnary[] = {Unary::Exp, Unary::Ln, Unary::Rec, Unary::Sqrt, Unary::Rsqrt};

// The special-value table: the required result bits for every input outside the measured domain,
// and for the inputs with an exact required result (ln(1) = +0). nullopt = inside the domain.
inline std::optional<uint32_t> special_result(Unary f, float x) {
  const uint32_t u = bits(x);
  if (is_nan(x)) return quiet(x);
  const bool inf = (u & 0x7fffffffu) == 0x7f800000u, zero = (u & 0x7fffffffu) == 0, neg = sign(x) != 0;
  switch (f) {
    case Unary::Exp:
      if (inf) return neg ? 0u : inf_bits(0);
      return std::nullopt;
    case Unary::Ln:
      if (zero) return inf_bits(0x80000000u);
      if (neg) return kDefaultNaN;
      if (inf) return inf_bits(0);
      if (x == 1.0f) return 0u;
      return std::nullopt;
    case Unary::Rec:
      if (zero) return inf_bits(sign(x));
      if (inf) return sign(x);
      return std::nullopt;
    case Unary::Sqrt:
      if (zero) return u;
      if (neg) return kDefaultNaN;
      if (inf) return u;
      return std::nullopt;
    case Unary::Rsqrt:
      if (zero) return inf_bits(sign(x));
      if (neg) return kDefaultNaN;
      if (inf) return 0u;
      return std::nullopt;
  }
  return std::nullopt;
}

// IEEE 754 division special cases (NaN propagation: a's NaN first, then b's; invalid -> default NaN).
inline std::optional<uint32_t> special_div(float a, float b) {
  if (is_nan(a)) return quiet(a);
  if (is_nan(b)) return quiet(b);
  const uint32_t s = sign(a) ^ sign(b);
  const bool a_inf = std::isinf(a), b_inf = std::isinf(b), a_zero = a == 0.0f, b_zero = b == 0.0f;
  if ((a_inf && b_inf) || (a_zero && b_zero)) return kDefaultNaN;
  if (a_inf || b_zero) return inf_bits(s);
  if (b_inf || a_zero) return s;
  return std::nullopt;
}

inline double exact_div(float a, float b) { return double(a) / double(b); }

// Error of one in-domain result: whole fp32 steps to the correctly rounded reference, and the
// distance to the double value in ULPs of the reference (fractional; 0 when the reference overflows).
struct UlpError {
  uint64_t steps;
  double fractional;
};
inline UlpError ulp_error(float got, double exact) {
  const float rounded = float(exact);
  const double fractional = std::isinf(rounded) ? 0.0 : std::fabs(double(got) - exact) / ulp_of(rounded);
  return {ulp_distance(got, rounded), fractional};
}

}  // namespace npusim::isa::mathfn_ref
