#pragma once
// Internal to isa/mathfn.cpp: exp and ln of the modelled vector unit. Range reduction in fp32 with a
// two-constant (Cody-Waite) ln 2, a minimax polynomial in Horner form (separate multiply and add, no
// FMA), and the exponent handled in integer arithmetic. Step-by-step specification and the origin of
// every constant: isa/README.md section 5.
#include "isa/mathfn/mathfn_bits.h"

namespace npusim::isa::mathfn_detail {

constexpr float kLog2e = from_bits(0x3fb8aa3bu);  // 1.44269502 = log2(e) rounded
constexpr float kLn2Hi =
    from_bits(0x3f317200u);  // 0.693145752: 15 significant bits, so k*kLn2Hi is exact for |k| < 512
constexpr float kLn2Lo = from_bits(0x35bfbe8eu);       // 1.42860677e-06 = ln 2 - kLn2Hi rounded
constexpr float kRoundMagic = from_bits(0x4b400000u);  // 1.5 * 2^23: (t + it) - it rounds t to an integer, ties to even
// exp argument clamps: below -104 the result rounds to +0, above 89 it is +inf (exp(88.7228) ~ FLT_MAX).
constexpr float kExpMin = -104.0f;
constexpr float kExpMax = 89.0f;

// (e^r - 1 - r) / r^2 on |r| <= ln2/2 + 2e-4, degree-4 minimax for the relative error of e^r
// (Remez, levelled error 3.1e-9 = 2^-28.3 before rounding the coefficients to fp32).
constexpr float kExpP0 = from_bits(0x3efffffeu);  // 0.49999994
constexpr float kExpP1 = from_bits(0x3e2aaa48u);  // 0.166665196
constexpr float kExpP2 = from_bits(0x3d2aac7au);  // 0.0416683927
constexpr float kExpP3 = from_bits(0x3c091d15u);  // 0.0083687501
constexpr float kExpP4 = from_bits(0x3ab511deu);  // 0.00138145289

NPUSIM_MATHFN_INLINE float exp_kernel(float x) {
  const bool nan = is_nan(x);
  float xc = select(nan, 0.0f, x);  // keep the integer conversion below defined for every input
  xc = select(xc < kExpMin, kExpMin, xc);
  xc = select(xc > kExpMax, kExpMax, xc);
  // x = k ln2 + r, k = round(x log2e) in [-150, 129]; both steps of r are exact but the last.
  const float kf = (xc * kLog2e + kRoundMagic) - kRoundMagic;
  const int32_t k = int32_t(kf);
  const float r = (xc - kf * kLn2Hi) - kf * kLn2Lo;
  const float p = kExpP0 + r * (kExpP1 + r * (kExpP2 + r * (kExpP3 + r * kExpP4)));
  const float er = 1.0f + (r + (r * r) * p);  // e^r in [0.70, 1.42]
  const float out = scale_pow2(er, k);        // overflow to +inf, gradual underflow to subnormals/+0
  return select(nan, quiet(x), out);
}

constexpr uint32_t kSqrt2MantissaBits = 0x003504f4u;  // mantissa field of the first fp32 above sqrt(2)

// (log1p(f) - f) / f^2 on f in [sqrt(1/2) - 1, sqrt(2) - 1], degree-8 minimax for the relative error
// of log1p(f) (Remez, levelled error 4.1e-9 = 2^-27.9 before rounding the coefficients to fp32).
constexpr float kLnQ0 = from_bits(0xbefffffcu);  // -0.499999881
constexpr float kLnQ1 = from_bits(0x3eaaaaa8u);  // 0.333333254
constexpr float kLnQ2 = from_bits(0xbe800213u);  // -0.250015825
constexpr float kLnQ3 = from_bits(0x3e4cd1f9u);  // 0.200019732
constexpr float kLnQ4 = from_bits(0xbe2a13b7u);  // -0.166090831
constexpr float kLnQ5 = from_bits(0x3e1138ceu);  // 0.141818255
constexpr float kLnQ6 = from_bits(0xbe079bb3u);  // -0.132429883
constexpr float kLnQ7 = from_bits(0x3e042432u);  // 0.129044324
constexpr float kLnQ8 = from_bits(0xbd9c1811u);  // -0.076217778

NPUSIM_MATHFN_INLINE float ln_kernel(float x) {
  // x = m' * 2^e' with m' in [sqrt(1/2), sqrt(2)): halve mantissas at or above sqrt(2) in the bits.
  const Split s = split_abs(x);
  const uint32_t mantissa = to_bits(s.m) & 0x007fffffu;
  const bool halve = mantissa >= kSqrt2MantissaBits;
  const float m = from_bits(mantissa | select_bits(halve, 0x3f000000u, 0x3f800000u));
  const float e = float(s.e + int32_t(halve));
  const float f = m - 1.0f;  // exact (Sterbenz)
  const float q =
      kLnQ0 +
      f * (kLnQ1 + f * (kLnQ2 + f * (kLnQ3 + f * (kLnQ4 + f * (kLnQ5 + f * (kLnQ6 + f * (kLnQ7 + f * kLnQ8)))))));
  const float log1p_f = f + (f * f) * q;
  // ln x = e ln2 + log1p(f); e*kLn2Hi is exact (|e| <= 149), the small parts are added first.
  const float r = e * kLn2Hi + (log1p_f + e * kLn2Lo);
  float out = select(is_zero(x), signed_inf(kSignBit), r);
  out = select(is_inf(x), x, out);
  out = select(is_negative(x) & !is_zero(x), default_nan(), out);
  return select(is_nan(x), quiet(x), out);
}

}  // namespace npusim::isa::mathfn_detail
