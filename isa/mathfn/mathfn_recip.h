#pragma once
// Internal to isa/mathfn.cpp: reciprocal, division, reciprocal square root and square root of the
// modelled vector unit. Each is a seed refined by Newton-Raphson steps written as separate fp32
// multiplies and adds (no FMA, no IEEE divide/sqrt), on a mantissa normalised to [1, 2) or [1, 4),
// with the exponent handled in integer arithmetic. Step-by-step specification: isa/README.md section 5.
#include "isa/mathfn/mathfn_bits.h"

namespace npusim::isa::mathfn_detail {

// Linear seed 1/m ~ 24/17 - (8/17) m on [1, 2): the minimax line, relative error <= 1/17.
constexpr float kRecSeedA = from_bits(0x3fb4b4b5u);  // 24/17 = 1.41176474
constexpr float kRecSeedB = from_bits(0x3ef0f0f1u);  //  8/17 = 0.470588237
// Bit-trick seed for 1/sqrt(m): bits(y0) = kRsqrtMagic - bits(m)/2, relative error <= 3.5%.
constexpr uint32_t kRsqrtMagic = 0x5f3759dfu;

// a - b*q with the product b*q formed exactly, for a, b, q in [0.5, 4) with b*q within a few ULP of
// a (the residual of a Newton step). b and q are split into a high part (top 12 significant bits, by
// clearing the low 12 bits of the pattern) and a low part (the exact remainder, at most 12 bits), so
// the four partial products are exact. They are subtracted largest first: the first difference is
// exact (Sterbenz) and the later ones are small multiples of the products' common grid, exact or
// nearly so, which leaves the residual with an absolute error below about 2^-34 * a -- instead of
// up to 2^-24 * a when b*q is rounded first, which is what made plain Newton lose the last bit.
// This models a divider whose residual multiplier is full width (what an FMA gives software).
NPUSIM_MATHFN_INLINE float high_half(float v) { return from_bits(to_bits(v) & 0xfffff000u); }
NPUSIM_MATHFN_INLINE float exact_residual(float a, float b, float q) {
  const float b_hi = high_half(b), b_lo = b - b_hi;
  const float q_hi = high_half(q), q_lo = q - q_hi;
  return (((a - b_hi * q_hi) - b_hi * q_lo) - b_lo * q_hi) - b_lo * q_lo;
}

// Final rounding decision of a quotient, as a divider does it from the sign of the remainder: given
// q within one fp32 step of the correctly rounded a/b (a, b in [1, 2), q in (0.5, 2]), returns the
// correctly rounded a/b. r = a - b*q is exact here (a multiple of 2^-47 below 2^-22: 24 bits), so
// comparing it with b*ulp/2 (exact: a power-of-two scaling) tells exactly on which side of the
// midpoints q +- ulp/2 the true quotient lies (it is never exactly on one). Needed because
// q + RN(y*r) can land exactly on a midpoint when a/b lies just beside it, e.g.
// 1/(1 - 2^-24) = 1 + 2^-24 + 2^-48.
NPUSIM_MATHFN_INLINE float round_quotient(float a, float b, float q) {
  const float r = exact_residual(a, b, q);
  const uint32_t exponent = to_bits(q) & kInfBits;
  const bool power_of_two = (to_bits(q) & 0x007fffffu) == 0;  // the step below q is half the step above
  const float ulp_up = from_bits(exponent - (23u << 23));
  const float ulp_down = from_bits(exponent - select_bits(power_of_two, 24u << 23, 23u << 23));
  const bool above = r > b * (0.5f * ulp_up);       // a/b > q + ulp_up/2
  const bool below = r < -(b * (0.5f * ulp_down));  // a/b < q - ulp_down/2
  return select(above, q + ulp_up, select(below, q - ulp_down, q));
}

// 1/m for m in [1, 2): result in (0.5, 1]. Each step y += y*(1 - m*y) squares the relative error.
// Three steps with the plainly rounded product m*y take the seed's 1/17 to 3.5e-3, 1.2e-5, then to
// the rounding floor of that form (~1 ULP, 6e-8); a fourth step with the exact residual squares that
// to ~4e-15, leaving only the rounding of y*e and of the final add (with two plain steps the 1.4e-10
// left over misrounded 0.04% of inputs); round_quotient settles the last near-midpoint cases. The
// residual form (rather than y*(2 - m*y)) keeps the rounding on a small correction term.
NPUSIM_MATHFN_INLINE float rec_mantissa(float m) {
  float y = kRecSeedA - kRecSeedB * m;
  for (int step = 0; step < 3; ++step) {
    const float e = 1.0f - m * y;
    y = y + y * e;
  }
  y = y + y * exact_residual(1.0f, m, y);
  return round_quotient(1.0f, m, y);
}

NPUSIM_MATHFN_INLINE float rec_kernel(float x) {
  const Split s = split_abs(x);
  const uint32_t sign = sign_of(x);
  // 1/x = (1/m) * 2^-e: scale_pow2 is exact for normal results, overflows to inf for tiny subnormal x
  // and rounds a second time for the subnormal results of |x| > 2^126.
  const float r = scale_pow2(with_sign(rec_mantissa(s.m), sign), -s.e);
  float out = select(is_zero(x), signed_inf(sign), r);
  out = select(is_inf(x), signed_zero(sign), out);
  return select(is_nan(x), quiet(x), out);
}

// a / b: q0 = ma * (1/mb), then one residual correction q0 + (ma - mb*q0) * (1/mb) with the exact
// residual and the remainder-sign rounding of round_quotient, on the normalised mantissas ma, mb in
// [1, 2) (so q1 is the correctly rounded ma/mb), then q1 * 2^(ea - eb) (exact for normal results).
// Working on mantissas keeps 1/b from over/underflowing when a and b are both huge or both tiny.
NPUSIM_MATHFN_INLINE float div_kernel(float a, float b) {
  const Split sa = split_abs(a);
  const Split sb = split_abs(b);
  const uint32_t sign = sign_of(a) ^ sign_of(b);
  const float y = rec_mantissa(sb.m);
  const float q0 = sa.m * y;
  const float residual = exact_residual(sa.m, sb.m, q0);
  const float q1 = round_quotient(sa.m, sb.m, q0 + residual * y);
  const float q = scale_pow2(with_sign(q1, sign), sa.e - sb.e);
  // IEEE 754 special cases, the last select having priority: NaN operand (a's first), then the
  // invalid 0/0 and inf/inf, then the exact infinities and zeros.
  const bool a_zero = is_zero(a), b_zero = is_zero(b), a_inf = is_inf(a), b_inf = is_inf(b);
  float out = select(a_zero | b_inf, signed_zero(sign), q);
  out = select(a_inf | b_zero, signed_inf(sign), out);
  out = select((a_zero & b_zero) | (a_inf & b_inf), default_nan(), out);
  out = select(is_nan(b), quiet(b), out);
  return select(is_nan(a), quiet(a), out);
}

// 1/sqrt(m) for m in [1, 4): result in (0.5, 1]. Step: y += (y/2) * e with e = 1 - m*y*y; the
// error goes 3.5e-2 -> 1.8e-3 -> 4.7e-6 -> rounding floor (~1 ULP) over three steps that form e from
// rounded products (m*y first, ~sqrt(m), so neither product loses range). A fourth step forms e
// almost exactly: m*y = t + t_low with t = fl(m*y) and t_low = -(t - m*y) from exact_residual, then
// e = (1 - t*y) - t_low*y with 1 - t*y again from exact_residual; it leaves ~1.5e-14.
NPUSIM_MATHFN_INLINE float rsqrt_mantissa(float m) {
  float y = from_bits(kRsqrtMagic - (to_bits(m) >> 1));
  for (int step = 0; step < 3; ++step) {
    const float e = 1.0f - (m * y) * y;
    y = y + (0.5f * y) * e;
  }
  const float t = m * y;
  const float t_low = -exact_residual(t, m, y);
  const float e = exact_residual(1.0f, t, y) - t_low * y;
  return y + (0.5f * y) * e;
}

// x = m * 2^(2h) with m in [1, 4), for finite x > 0: sqrt(x) = sqrt(m) * 2^h exactly scaled.
struct EvenSplit {
  float m;
  int32_t h;
};
NPUSIM_MATHFN_INLINE EvenSplit split_even(float x) {
  const Split s = split_abs(x);
  const int32_t odd = s.e & 1;
  return {from_bits(to_bits(s.m) + (uint32_t(odd) << 23)), (s.e - odd) >> 1};  // m * 2^odd
}

NPUSIM_MATHFN_INLINE float rsqrt_kernel(float x) {
  const EvenSplit s = split_even(x);
  // h is in [-75, 63], so 2^-h is a normal power of two and the product is exact.
  const float r = rsqrt_mantissa(s.m) * pow2(-s.h);
  float out = select(is_zero(x), signed_inf(sign_of(x)), r);
  out = select(is_inf(x), 0.0f, out);
  out = select(is_negative(x) & !is_zero(x), default_nan(), out);
  return select(is_nan(x), quiet(x), out);
}

// sqrt(m) = m * rsqrt(m), then one correction s += (y/2) * (m - s*s) with the exact residual.
NPUSIM_MATHFN_INLINE float sqrt_kernel(float x) {
  const EvenSplit s = split_even(x);
  const float y = rsqrt_mantissa(s.m);
  const float s0 = s.m * y;
  const float residual = exact_residual(s.m, s0, s0);
  const float s1 = s0 + (0.5f * y) * residual;
  const float r = s1 * pow2(s.h);  // exact: sqrt of any finite positive fp32 is normal
  float out = select(is_inf(x), x, r);
  out = select(is_zero(x), x, out);  // sqrt(+-0) = +-0
  out = select(is_negative(x) & !is_zero(x), default_nan(), out);
  return select(is_nan(x), quiet(x), out);
}

}  // namespace npusim::isa::mathfn_detail
