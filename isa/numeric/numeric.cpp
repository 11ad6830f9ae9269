#include "isa/numeric/numeric.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace npusim::isa {

namespace {
constexpr std::string_view kRoundNames[] = {"rint", "round", "floor", "ceil", "trunc", "odd"};

// Rounds the non-negative integer part n (with exact fraction frac in [0, 1)) by mode m. `negative` is
// the sign of the value being rounded, which FLOOR and CEIL need because n is a magnitude.
uint64_t round_magnitude(uint64_t n, double frac, bool negative, RoundMode m) {
  if (frac == 0.0) return n;
  switch (m) {
    case RoundMode::RINT: return (frac > 0.5 || (frac == 0.5 && (n & 1))) ? n + 1 : n;
    case RoundMode::ROUND: return frac >= 0.5 ? n + 1 : n;
    case RoundMode::FLOOR: return negative ? n + 1 : n;
    case RoundMode::CEIL: return negative ? n : n + 1;
    case RoundMode::TRUNC: return n;
    case RoundMode::ODD: return n | 1;
  }
  return n;
}

// IEEE overflow result for a rounding mode: inf, or the largest finite value when the mode rounds
// towards zero for this sign.
bool overflow_gives_inf(bool negative, RoundMode m) {
  switch (m) {
    case RoundMode::RINT:
    case RoundMode::ROUND: return true;
    case RoundMode::FLOOR: return negative;
    case RoundMode::CEIL: return !negative;
    case RoundMode::TRUNC:
    case RoundMode::ODD: return false;
  }
  return true;
}

int64_t round_to_integer(double x, RoundMode m) {
  if (m == RoundMode::ODD) throw std::invalid_argument("rounding mode odd is defined for fp32 -> fp16 only");
  const bool neg = x < 0;
  const double a = std::fabs(x);
  if (a >= 9.0e18) return neg ? INT64_MIN : INT64_MAX;
  const double ip = std::floor(a);
  const auto n = round_magnitude(static_cast<uint64_t>(ip), a - ip, neg, m);
  return neg ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
}

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
}  // namespace

std::string_view round_mode_name(RoundMode m) { return kRoundNames[static_cast<int>(m)]; }

std::optional<RoundMode> parse_round_mode(std::string_view s) {
  for (int i = 0; i < 6; ++i)
    if (kRoundNames[i] == s) return static_cast<RoundMode>(i);
  return std::nullopt;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
  if (man == 0) return f32_from_bits(sign);
  int e = 113;  // subnormal: normalise the significand
  while (!(man & 0x400)) {
    man <<= 1;
    --e;
  }
  return f32_from_bits(sign | (static_cast<uint32_t>(e) << 23) | ((man & 0x3ff) << 13));
}

float bf16_to_f32(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }

namespace {
// Encodes sign * n * 2^q (n already rounded, n < 2^(man_bits+2)) into the format, applying overflow.
uint32_t encode_rounded(uint32_t sign, uint64_t n, int q, int exp_bits, int man_bits, RoundMode m, Overflow o) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t inf = ((1u << exp_bits) - 1) << man_bits;
  if (n >> (man_bits + 1)) {  // rounding carried into a new binade
    n >>= 1;
    ++q;
  }
  const int biased = (n >> man_bits) ? q + man_bits + bias : 0;
  if (biased >= (1 << exp_bits) - 1) {
    const bool to_inf = o == Overflow::Ieee && overflow_gives_inf(sign != 0, m);
    return sign | (to_inf ? inf : inf - 1);
  }
  if (biased == 0) return sign | static_cast<uint32_t>(n);  // subnormal or zero
  return sign | (static_cast<uint32_t>(biased) << man_bits) | (static_cast<uint32_t>(n) & ((1u << man_bits) - 1));
}

// Rounds an integer significand sig * 2^e2 (sig > 0) whose leading bit has weight 2^lead to the format.
uint32_t round_significand(uint32_t sign, uint64_t sig, int e2, int lead, int exp_bits, int man_bits, RoundMode m,
                           Overflow o) {
  const int emin = 2 - (1 << (exp_bits - 1));
  const int q = std::max(lead, emin) - man_bits;  // weight of the last kept bit
  const int shift = q - e2;
  uint64_t n, rem, half;
  if (shift <= 0) {
    n = sig << -shift;
    rem = 0;
    half = 1;
  } else if (shift >= 63) {
    n = 0;
    rem = 1;
    half = uint64_t{1} << 62;  // far below the last bit: sticky only
  } else {
    n = sig >> shift;
    rem = sig & ((uint64_t{1} << shift) - 1);
    half = uint64_t{1} << (shift - 1);
  }
  const double frac = rem == 0 ? 0.0 : (rem < half ? 0.25 : (rem == half ? 0.5 : 0.75));
  return encode_rounded(sign, round_magnitude(n, frac, sign != 0, m), q, exp_bits, man_bits, m, o);
}

// fp32 (finite or not, NaN handled by the caller) narrowed to a smaller binary format.
uint32_t narrow_f32(uint32_t u, int exp_bits, int man_bits, RoundMode m, Overflow o) {
  const uint32_t sign = (u >> 31) << (exp_bits + man_bits);
  const uint32_t e = (u >> 23) & 0xff, man = u & 0x7fffff;
  const uint32_t inf = ((1u << exp_bits) - 1) << man_bits;
  if (e == 0xff)
    return o == Overflow::Saturate ? (man ? 0u : sign | (inf - 1)) : (sign | inf | (man ? 1u << (man_bits - 1) : 0));
  if (e == 0 && man == 0) return sign;
  if (e == 0) return round_significand(sign, man, -149, 31 - __builtin_clz(man) - 149, exp_bits, man_bits, m, o);
  return round_significand(sign, man | 0x800000u, static_cast<int>(e) - 150, static_cast<int>(e) - 127, exp_bits,
                           man_bits, m, o);
}
}  // namespace

uint32_t round_to_binary(double x, int exp_bits, int man_bits, RoundMode m, Overflow o) {
  const uint32_t sign = std::signbit(x) ? 1u << (exp_bits + man_bits) : 0u;
  const uint32_t inf = ((1u << exp_bits) - 1) << man_bits;
  if (std::isnan(x)) return o == Overflow::Saturate ? 0u : (inf | (1u << (man_bits - 1)));
  if (std::isinf(x)) return sign | (o == Overflow::Saturate ? inf - 1 : inf);
  if (x == 0.0) return sign;
  int e;
  const double f = std::frexp(std::fabs(x), &e);              // |x| = f * 2^e, f in [0.5, 1)
  const auto sig = static_cast<uint64_t>(std::ldexp(f, 53));  // exact 53-bit significand
  return round_significand(sign, sig, e - 53, e - 1, exp_bits, man_bits, m, o);
}

uint16_t f32_to_f16(float x, RoundMode m, Overflow o) {
  if (m == RoundMode::RINT) {  // vcvtps2ph gives these bits (every pattern: tests/isa/test_numeric_exhaustive.cpp)
    const uint16_t h = static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
    if (o == Overflow::Ieee || (h & 0x7c00) != 0x7c00) return h;  // saturation differs only at inf / NaN
  }
  return f32_to_f16_reference(x, m, o);
}

uint16_t f32_to_f16_reference(float x, RoundMode m, Overflow o) {
  const uint32_t u = f32_bits(x);
  if (std::isnan(x) && o == Overflow::Ieee)  // as F16C: quieted, top payload bits kept
    return static_cast<uint16_t>(((u >> 16) & 0x8000) | 0x7e00 | ((u >> 13) & 0x3ff));
  return static_cast<uint16_t>(narrow_f32(u, 5, 10, m, o));
}

uint16_t f32_to_bf16(float x, RoundMode m, Overflow o) {
  if (m == RoundMode::ODD) throw std::invalid_argument("rounding mode odd is defined for fp32 -> fp16 only");
  const uint32_t u = f32_bits(x);
  if (m == RoundMode::RINT && o == Overflow::Ieee && !std::isnan(x))  // the RNE formula of numerics.md §4
    return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
  if (std::isnan(x) && o == Overflow::Ieee) return static_cast<uint16_t>((u >> 16) | 0x40);
  return static_cast<uint16_t>(narrow_f32(u, 8, 7, m, o));
}

uint16_t s32_to_f16(int32_t x, RoundMode m, Overflow o) {
  return static_cast<uint16_t>(round_to_binary(static_cast<double>(x), 5, 10, m, o));
}

int8_t f32_to_s8(float x, RoundMode m) {
  if (std::isnan(x)) return 0;
  return static_cast<int8_t>(clamp64(round_to_integer(x, m), -128, 127));
}

int8_t f32_to_s4(float x, RoundMode m) {
  if (std::isnan(x)) return 0;
  return static_cast<int8_t>(clamp64(round_to_integer(x, m), -8, 7));
}

int8_t f16_to_s8(uint16_t h, RoundMode m) { return f32_to_s8(f16_to_f32(h), m); }

int32_t f32_to_s32(float x, RoundMode m) {
  if (std::isnan(x)) return 0;
  return static_cast<int32_t>(clamp64(round_to_integer(x, m), INT32_MIN, INT32_MAX));
}

float f32_round_integral(float x, RoundMode m) {
  if (!(std::fabs(x) < 8388608.0f)) return x;  // NaN, infinities and magnitudes that are integral already
  const auto r = static_cast<float>(round_to_integer(x, m));
  return r == 0.0f ? std::copysign(0.0f, x) : r;
}

int8_t s32_to_s8(int32_t x) { return static_cast<int8_t>(clamp64(x, -128, 127)); }

int8_t s4_get(const uint8_t* packed, uint64_t index) {
  const uint8_t byte = packed[index / 2];
  const int nib = (index & 1) ? (byte >> 4) : (byte & 0xf);
  return static_cast<int8_t>(nib >= 8 ? nib - 16 : nib);
}

void s4_set(uint8_t* packed, uint64_t index, int8_t value) {
  if (value < -8 || value > 7) throw std::invalid_argument("int4 value out of range [-8, 7]");
  uint8_t& byte = packed[index / 2];
  const uint8_t nib = static_cast<uint8_t>(value) & 0xf;
  byte = (index & 1) ? static_cast<uint8_t>((byte & 0x0f) | (nib << 4)) : static_cast<uint8_t>((byte & 0xf0) | nib);
}

int8_t s4_from_s32_word(int32_t word, int j) {
  const int nib = (static_cast<uint32_t>(word) >> (4 * j)) & 0xf;
  return static_cast<int8_t>(nib >= 8 ? nib - 16 : nib);
}

int32_t s4_pack_s32_word(const int8_t values[8]) {
  uint32_t w = 0;
  for (int j = 0; j < 8; ++j) {
    if (values[j] < -8 || values[j] > 7) throw std::invalid_argument("int4 value out of range [-8, 7]");
    w |= (static_cast<uint32_t>(values[j]) & 0xf) << (4 * j);
  }
  return static_cast<int32_t>(w);
}

}  // namespace npusim::isa
