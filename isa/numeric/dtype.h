#pragma once
// Element types of the AI Core and their storage sizes.
#include <cstdint>
#include <optional>
#include <string_view>

namespace npusim::isa {

enum class DType : uint8_t { F16, BF16, F32, I8, U8, I4, I16, I32 };

// Storage size in bits (I4 is packed two per byte).
constexpr int bits_of(DType t) {
  switch (t) {
    case DType::I4: return 4;
    case DType::I8:
    case DType::U8: return 8;
    case DType::F16:
    case DType::BF16:
    case DType::I16: return 16;
    case DType::F32:
    case DType::I32: return 32;
  }
  return 0;
}
// Bytes per element for byte-addressable types; I4 reports 0 (use bits_of).
constexpr int bytes_of(DType t) { return bits_of(t) >= 8 ? bits_of(t) / 8 : 0; }
constexpr bool is_float(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32; }

// Short assembly names: f16 bf16 f32 s8 u8 s4 s16 s32.
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view s);

}  // namespace npusim::isa
