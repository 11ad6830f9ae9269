#pragma once
// Deterministic double-precision elementary functions for the case-file generator: built from IEEE
// + - * / and sqrt (all correctly rounded by IEEE 754) and bit manipulation only, never libm, so the
// same inputs give the same bits on every host and compiler (with -ffp-contract=off, SSE2 doubles).
// Accuracy is a few ulp, far more than a random-number generator needs.
#include <cstdint>

namespace npusim::op {

// Natural logarithm of a finite x > 0 (subnormals included).
double det_ln(double x);
// sin(2*pi*u) and cos(2*pi*u) for u in [0, 1). Working in turns keeps the range reduction exact.
void det_sincos_2pi(double u, double& s, double& c);
// The same functions over arrays, bit-identical to the scalar definitions above (the same operations in the
// same order per element, branches turned into selects) and written lane-parallel so that the compiler
// vectorises them: the generator spends most of its time here (tests/op/test_case_generate.cpp compares
// both on a million inputs and the edge cases).
void det_ln_n(const double* x, double* out, int n);
void det_sincos_2pi_n(const double* u, double* s, double* c, int n);
inline constexpr int kDetBlock = 256;  // the largest n the array functions take

// SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then two xor-shift-multiply rounds.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // The top 53 bits as a multiple of 2^-53 in [0, 1) (exact).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

}  // namespace npusim::op
