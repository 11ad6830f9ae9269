#pragma once
// pto-isa's include/pto/common/constants.hpp: numeric constants of the A2 / A3 target (the subset npusim's PTO
// front end defines; kernels/pto/README.md).
#include <cstdint>

namespace pto {
constexpr uint32_t BLOCK_BYTE_SIZE = 32, C0_SIZE_BYTE = 32, FRACTAL_NZ_ROW = 16, ACC_C0_SIZE = 16,
                   CUBE_BLOCK_SIZE = 512, BLOCK_LEN = 16, REPEAT_BYTE = 256, REPEAT_MAX = 255;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;  // the scratch the 3-operand TROWEXPAND* forms use (8 KiB)
}  // namespace pto
