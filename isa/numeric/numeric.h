#pragma once
// Bit-exact numeric types and conversions of the modelled AI Core.
//
// Storage types are raw bit patterns (uint16_t for fp16 / bf16, int8_t, packed int4) so that no host
// compiler setting (excess precision, FTZ) can touch them. Arithmetic happens in IEEE fp32 (or exactly
// in double where documented) and is rounded once by the functions below. isa/README.md is the spec.
#include <cstdint>
#include <optional>
#include <string_view>

namespace npusim::isa {

// Vendor rounding modes (suffixes r/a/f/c/z/o in the ini files). ODD exists for fp32 -> fp16 only.
enum class RoundMode : uint8_t { RINT, ROUND, FLOOR, CEIL, TRUNC, ODD };
std::string_view round_mode_name(RoundMode m);
std::optional<RoundMode> parse_round_mode(std::string_view s);

// Saturate: a result that would be +-inf becomes +-max finite, an infinite input becomes +-max finite and
// NaN becomes +0 (the runtime's ACL_RT_OVERFLOW_MODE_SATURATION, "Inf -> max, NaN -> 0").
// Ieee: IEEE 754 overflow (per rounding mode), infinities kept, NaN kept quiet with its top payload bits.
enum class Overflow : uint8_t { Saturate, Ieee };

// --- exact widening -----------------------------------------------------------------------------
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t b);
uint32_t f32_bits(float f);
float f32_from_bits(uint32_t u);

// --- narrowing, rounded once --------------------------------------------------------------------
uint16_t f32_to_f16(float x, RoundMode m = RoundMode::RINT, Overflow o = Overflow::Saturate);
// The same in portable integer arithmetic (every mode); f32_to_f16 takes F16C for RINT, where the exhaustive
// test shows both agree on all 2^32 inputs.
uint16_t f32_to_f16_reference(float x, RoundMode m, Overflow o);
uint16_t f32_to_bf16(float x, RoundMode m = RoundMode::RINT, Overflow o = Overflow::Saturate);
// int32 -> fp16 rounds the exact integer once (no detour through fp32).
uint16_t s32_to_f16(int32_t x, RoundMode m = RoundMode::RINT, Overflow o = Overflow::Saturate);
// Float -> integer: rounded by m (ODD is rejected), then clamped to the type's range; NaN -> 0.
int8_t f32_to_s8(float x, RoundMode m = RoundMode::RINT);
int8_t f32_to_s4(float x, RoundMode m = RoundMode::RINT);  // result in [-8, 7]
int8_t f16_to_s8(uint16_t h, RoundMode m = RoundMode::RINT);
int32_t f32_to_s32(float x, RoundMode m = RoundMode::RINT);
// fp32 rounded to an integral fp32 value by m (ODD is rejected): sign kept (-0.3 -> -0); |x| >= 2^23, infinities
// and NaN are returned unchanged (vconv f32 -> f32; the MSD antiquant limbs).
float f32_round_integral(float x, RoundMode m);
int8_t s32_to_s8(int32_t x);  // saturating
// The shared rounding core: x (finite or not) rounded to a binary format with exp_bits / man_bits.
uint32_t round_to_binary(double x, int exp_bits, int man_bits, RoundMode m, Overflow o);

// fp16 / bf16 arithmetic helpers: compute in fp32, round once (RINT, IEEE overflow as on A2 by default).
inline uint16_t f16_round(float x) { return f32_to_f16(x, RoundMode::RINT, Overflow::Ieee); }
inline uint16_t bf16_round(float x) { return f32_to_bf16(x, RoundMode::RINT, Overflow::Ieee); }

// --- int4 packing -------------------------------------------------------------------------------
// Two per byte: element 2i in the low nibble of byte i, element 2i+1 in the high nibble. The operator
// spec's eight-per-int32 packing is the same bytes read as a little-endian int32 (element j of a word in
// bits 4j..4j+3).
int8_t s4_get(const uint8_t* packed, uint64_t index);
void s4_set(uint8_t* packed, uint64_t index, int8_t value);  // value must be in [-8, 7]
int8_t s4_from_s32_word(int32_t word, int j);                // j in [0, 8)
int32_t s4_pack_s32_word(const int8_t values[8]);

// Constants that name fp16 / bf16 bit patterns used by tests and kernels.
inline constexpr uint16_t kF16MaxBits = 0x7bff;  // 65504
inline constexpr uint16_t kF16InfBits = 0x7c00;
inline constexpr uint16_t kBf16MaxBits = 0x7f7f;
inline constexpr uint16_t kBf16InfBits = 0x7f80;

}  // namespace npusim::isa
