#pragma once
// The matmul op's problem, tiling and GM layout: everything the host decides before the launch and the
// cube program reads while it runs.
#include <cstdint>
#include <string>

#include "isa/instr/instr.h"
#include "kernels/op/tiling.h"
#include "sim/config/hw_config.h"

namespace npusim::op {

// The matmul tiling's key handles (kernels/op/tiling.h KeyName).
namespace matmul_keys {
inline constexpr KeyName base_m{"base_m"};
inline constexpr KeyName base_n{"base_n"};
inline constexpr KeyName base_k{"base_k"};
inline constexpr KeyName k_l1{"k_l1"};
using keys::block_dim;
}  // namespace matmul_keys

struct MatmulShape {
  int64_t m = 0, n = 0, k = 0;
  isa::DType in = isa::DType::F16;   // f16, bf16 or s8 (a and b)
  isa::DType acc = isa::DType::F32;  // f32 (float inputs) or s32 (int8)
  isa::DType out = isa::DType::F16;  // f16 bf16 f32 (float inputs); s32, or f16 with dequant (int8)
  bool transpose_a = false, transpose_b = false, bias = false;
  double dequant_scale = 1.0;  // int8 -> f16 only
};

// The M / N granule of an output tile: 32 where an int8 operand stored with K as rows is transposed in 32 x 32
// squares (A with transpose_a, B without transpose_b), else 16 (one fractal).
inline int64_t square_m(const MatmulShape& s) { return s.in == isa::DType::I8 && s.transpose_a ? 32 : 16; }
inline int64_t square_n(const MatmulShape& s) { return s.in == isa::DType::I8 && !s.transpose_b ? 32 : 16; }

struct MatmulTiling {
  int64_t base_m = 0, base_n = 0;  // one output tile: L0C holds base_m x base_n accumulators
  int64_t base_k = 0;              // K per mmad; one L0A / L0B half holds base_m x base_k / base_k x base_n
  int64_t k_l1 = 0;                // K per L1 chunk; two chunks of A and B (double buffer) fit L1
  int64_t block_dim = 0;           // AI cores used; output tiles are dealt round-robin in row-major order
};

struct MatmulPlan {
  MatmulShape s;
  MatmulTiling t;
  uint64_t a_gm = 0, b_gm = 0, bias_gm = 0, c_gm = 0;  // byte offsets of the GM allocations
  int64_t tiles_m() const { return (s.m + t.base_m - 1) / t.base_m; }
  int64_t tiles_n() const { return (s.n + t.base_n - 1) / t.base_n; }
  int k0() const { return isa::fractal_k(s.in); }  // K of one fractal
  int elem() const { return isa::bytes_of(s.in); }
};

// The declared tiling keys of matmul (kernels/matmul/README.md "Tiling").
const TilingSpace& matmul_tiling_space();

// Chooses the tiling from the shape and the hardware capacities and core count (never rates); `t` applies the
// case's overrides. Throws CaseError when a value (chosen or overridden) cannot fit its buffer, naming the key
// and the capacity.
MatmulTiling choose_matmul_tiling(const MatmulShape& s, const sim::HwConfig& hw, Tiling& t);

}  // namespace npusim::op
