#pragma once
// Element arithmetic of the vector unit, twice: scalar functions that state the definition (Reference path)
// and array kernels over 8-lane AVX2 vectors (Fast path). Each kernel gives the same bits as its scalar
// function for every input; tests/isa/test_vector_fast.cpp proves it on adversarial inputs.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "isa/instr/instr.h"

namespace npusim::isa::vec {

// ---- dtype rules and scalar operands ----------------------------------------------------------
// Throws IsaError naming field dtype unless t is one of `allowed`; bf16 gets its own message because the
// A2 vector unit has no bf16 arithmetic (bf16 only moves through vconv / vcopy / vdup / vsel / vbrcb).
void check_dtype(DType t, std::initializer_list<DType> allowed);
// An immediate (vdup value, vadds scalar, vsel scalar) rounded to dtype t, as raw bits: f16 and bf16 RINT
// with IEEE overflow, f32 the host's double -> float; integers must be integral and in range (IsaError
// naming `field` otherwise).
uint32_t scalar_bits(DType t, double v, const char* field);

// ---- scalar definitions (fp32; f16 callers widen exactly and round once with f16_round) -----------
float quiet(float x);             // x with the quiet bit set (x a NaN)
float add_f32(float a, float b);  // IEEE fp32; a NaN operand gives quiet(a) if a is NaN, else quiet(b)
float sub_f32(float a, float b);
float mul_f32(float a, float b);
float max_f32(float a, float b);                // IEEE 754-2019 maximum: NaN wins (same rule), max(-0, +0) = +0
float min_f32(float a, float b);                // minimum: min(-0, +0) = -0
float binary_f32(VBinOp op, float a, float b);  // Div: hw_div
float unary_f32(VUnaryOp op, float x);          // Exp Ln Rec Sqrt Rsqrt: hw_*; Abs clears the sign; Relu max(x, +0)
// Integer ops, exact in 64 bits; the caller wraps to the element width.
int64_t binary_int(VBinOp op, int64_t a, int64_t b);
int64_t unary_int(VUnaryOp op, int64_t x);  // Abs, Relu
uint32_t wrap_bits(int64_t v, int bits);    // v modulo 2^bits, as raw bits

// ---- array kernels: n is a multiple of 8; out may be the same array as an input -----------------
void widen_f16_n(const void* in, float* out, size_t n);  // == f16_to_f32, signalling NaNs kept
void round_f16_n(const float* in, void* out, size_t n);  // == f16_round (F16C, round to nearest even)
void binary_f32_n(VBinOp op, const float* a, const float* b, float* out, size_t n);
void unary_f32_n(VUnaryOp op, const float* a, float* out, size_t n);
void binary_int_n(VBinOp op, int bits, const void* a, const void* b, void* out, size_t n);  // s16 / s32
void unary_int_n(VUnaryOp op, int bits, const void* a, void* out, size_t n);

}  // namespace npusim::isa::vec
