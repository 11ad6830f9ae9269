#pragma once
// Internal to isa/: the two implementations of Mmad (exec_cube.cpp validates, then calls one of them) and the
// operand layouts they share. isa/README.md section 3 is the specification; both paths produce identical bits.
#include <cstdint>
#include <cstring>

#include "isa/instr/instr.h"
#include "isa/numeric/dtype.h"
#include "isa/numeric/numeric.h"

namespace npusim::isa::mmad {

// One validated Mmad: sizes, fractal counts and the operand bytes (already bounds-checked).
struct Job {
  DType t;
  int m, n, k;          // logical sizes, each in [1, 4095]
  int k0, mb, nb, kb;   // fractal counts: mb = ceil(m/16), nb = ceil(n/16), kb = ceil(k/k0)
  const uint8_t* a;     // L0A, mb*kb fractals (ZZ)
  const uint8_t* b;     // L0B, kb*nb fractals (ZN)
  uint8_t* c;           // L0C, mb*nb 16x16 fractals of fp32 / s32, column-block-major
  const uint8_t* bias;  // BT, nb*16 fp32 / s32, or null
  bool init;            // start from +0 (ignored when bias is set)
  int mp() const { return mb * 16; }
  int np() const { return nb * 16; }
  int kp() const { return kb * k0; }
  bool is_int() const { return t == DType::I8 || t == DType::I4; }
};

// Element indices inside the operands (in elements of the operand type).
inline uint64_t a_index(const Job& j, int i, int kk) {
  return ((uint64_t(i / 16) * j.kb + kk / j.k0) * 16 + i % 16) * j.k0 + kk % j.k0;
}
inline uint64_t b_index(const Job& j, int kk, int col) {
  return ((uint64_t(kk / j.k0) * j.nb + col / 16) * 16 + col % 16) * j.k0 + kk % j.k0;
}
inline uint64_t c_index(const Job& j, int i, int col) { return (uint64_t(col / 16) * j.mp() + i) * 16 + col % 16; }

// Exact widening of one float operand element to fp32 (f32 is read as is).
inline float widen_float(DType t, const uint8_t* base, uint64_t idx) {
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, base + idx * 4, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, base + idx * 2, 2);
  return t == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
}
inline int32_t widen_int(DType t, const uint8_t* base, uint64_t idx) {
  return t == DType::I4 ? s4_get(base, idx) : static_cast<int8_t>(base[idx]);
}

// NaN results are stored as one canonical quiet NaN: the host's NaN payload depends on operand order, which the
// compiler may swap for commutative operations, and the hardware's payload is not documented.
inline constexpr uint32_t kCanonicalNan = 0x7fc00000u;

void run_reference(const Job& j);
void run_fast(const Job& j);

}  // namespace npusim::isa::mmad
