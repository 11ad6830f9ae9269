#pragma once
// Internal to isa/mathfn.cpp: fp32 bit-field helpers shared by the vector-unit math algorithms.
// Everything here is branch-free and always inlined, so the same code is compiled into the scalar
// functions and into the auto-vectorised array loops.
//
// Every data-dependent choice goes through select() below, an and/or blend with an all-ones mask,
// never `c ? a : b`. Reason: under -ftrapping-math (the default, kept) GCC sinks an fp operation whose
// result is used on one side of a ternary into that branch, and then refuses to if-convert it because
// it "could trap", so the loop is not vectorised. A mask blend has no branch to sink into.
#include <bit>
#include <cstdint>

namespace npusim::isa::mathfn_detail {

#define NPUSIM_MATHFN_INLINE [[gnu::always_inline]] inline

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kAbsMask = 0x7fffffffu;
constexpr uint32_t kInfBits = 0x7f800000u;
constexpr uint32_t kQuietBit = 0x00400000u;
// The NaN produced by an invalid operation (0/0, ln(-1), ...): positive, quiet, zero payload. x86
// would give 0xffc00000; the Ascend value is unpublished, so this is a model choice (see mathfn.md).
constexpr uint32_t kDefaultNaNBits = 0x7fc00000u;

NPUSIM_MATHFN_INLINE constexpr uint32_t to_bits(float x) { return std::bit_cast<uint32_t>(x); }
NPUSIM_MATHFN_INLINE constexpr float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

NPUSIM_MATHFN_INLINE uint32_t mask_of(bool c) { return 0u - uint32_t(c); }
NPUSIM_MATHFN_INLINE uint32_t select_bits(bool c, uint32_t if_true, uint32_t if_false) {
  const uint32_t m = mask_of(c);
  return (if_true & m) | (if_false & ~m);
}
NPUSIM_MATHFN_INLINE int32_t select(bool c, int32_t if_true, int32_t if_false) {
  return int32_t(select_bits(c, uint32_t(if_true), uint32_t(if_false)));
}
NPUSIM_MATHFN_INLINE float select(bool c, float if_true, float if_false) {
  return from_bits(select_bits(c, to_bits(if_true), to_bits(if_false)));
}

NPUSIM_MATHFN_INLINE uint32_t abs_bits(float x) { return to_bits(x) & kAbsMask; }
NPUSIM_MATHFN_INLINE uint32_t sign_of(float x) { return to_bits(x) & kSignBit; }
NPUSIM_MATHFN_INLINE bool is_nan(float x) { return abs_bits(x) > kInfBits; }
NPUSIM_MATHFN_INLINE bool is_inf(float x) { return abs_bits(x) == kInfBits; }
NPUSIM_MATHFN_INLINE bool is_zero(float x) { return abs_bits(x) == 0; }
NPUSIM_MATHFN_INLINE bool is_negative(float x) { return sign_of(x) != 0; }

// A NaN operand propagates with its sign and payload, made quiet (what IEEE 754 recommends and
// what x86/Arm do for a single NaN operand).
NPUSIM_MATHFN_INLINE float quiet(float nan) { return from_bits(to_bits(nan) | kQuietBit); }
NPUSIM_MATHFN_INLINE float default_nan() { return from_bits(kDefaultNaNBits); }
NPUSIM_MATHFN_INLINE float signed_inf(uint32_t sign) { return from_bits(kInfBits | sign); }
NPUSIM_MATHFN_INLINE float signed_zero(uint32_t sign) { return from_bits(sign); }
// `magnitude` must be non-negative (sign bit clear).
NPUSIM_MATHFN_INLINE float with_sign(float magnitude, uint32_t sign) { return from_bits(to_bits(magnitude) | sign); }

// 2^k as an fp32 built from the exponent field; k must be in [-126, 127] (normal range).
NPUSIM_MATHFN_INLINE float pow2(int32_t k) { return from_bits(uint32_t(k + 127) << 23); }

// p * 2^k rounded once, for |p| in [0.5, 2) and any k. The shift is split into two normal powers of
// two: the first product p*2^floor(k/2) stays normal and is exact, so the second multiply is the only
// rounding, which gives IEEE overflow to inf and gradual underflow to subnormals/0 for free. k is
// clamped to [-252, 254] first; beyond that the result is 0 or inf anyway (|p| * 2^-252 < 2^-150).
NPUSIM_MATHFN_INLINE float scale_pow2(float p, int32_t k) {
  k = select(k < -252, -252, k);
  k = select(k > 254, 254, k);
  const int32_t k_low = k >> 1;  // floor(k / 2): arithmetic shift (C++20)
  const int32_t k_high = k - k_low;
  return (p * pow2(k_low)) * pow2(k_high);
}

// |x| = m * 2^e with m in [1, 2), for finite non-zero x. Subnormals are normalised, never flushed:
// their bit pattern, read as an integer N, is |x| * 2^149, and converting N to fp32 (exact, N < 2^23)
// lets the converter do the leading-zero count.
struct Split {
  float m;
  int32_t e;
};
NPUSIM_MATHFN_INLINE Split split_abs(float x) {
  const uint32_t a = abs_bits(x);
  const bool subnormal = a < 0x00800000u;
  const uint32_t u = select_bits(subnormal, to_bits(float(int32_t(a))), a);
  const int32_t e = int32_t(u >> 23) - 127 - select(subnormal, 149, 0);
  return {from_bits((u & 0x007fffffu) | 0x3f800000u), e};
}

}  // namespace npusim::isa::mathfn_detail
