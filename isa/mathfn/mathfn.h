#pragma once
// Transcendental and division algorithms of the modelled vector unit, built from IEEE fp32 operations
// only (no libm), so every host gives the same bits. fp16 instructions widen to fp32 exactly, call these
// and round once. The algorithms and their measured ULP errors are specified in isa/README.md.
#include <cstddef>

namespace npusim::isa {

float hw_exp(float x);
float hw_ln(float x);
float hw_rec(float x);  // 1 / x
float hw_sqrt(float x);
float hw_rsqrt(float x);  // 1 / sqrt(x)
float hw_div(float a, float b);

// Array forms: out[i] = f(in[i]); bit-identical to the scalar forms, written so the compiler vectorises
// them (no data-dependent branches). `out` may equal `in`.
void hw_exp_n(const float* in, float* out, size_t n);
void hw_ln_n(const float* in, float* out, size_t n);
void hw_rec_n(const float* in, float* out, size_t n);
void hw_sqrt_n(const float* in, float* out, size_t n);
void hw_rsqrt_n(const float* in, float* out, size_t n);
void hw_div_n(const float* a, const float* b, float* out, size_t n);

}  // namespace npusim::isa
