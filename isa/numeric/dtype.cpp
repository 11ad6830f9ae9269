#include "isa/numeric/dtype.h"

namespace npusim::isa {

namespace {
constexpr std::string_view kNames[] = {"f16", "bf16", "f32", "s8", "u8", "s4", "s16", "s32"};
}

std::string_view dtype_name(DType t) { return kNames[static_cast<int>(t)]; }

std::optional<DType> parse_dtype(std::string_view s) {
  for (int i = 0; i < 8; ++i)
    if (kNames[i] == s) return static_cast<DType>(i);
  return std::nullopt;
}

}  // namespace npusim::isa
