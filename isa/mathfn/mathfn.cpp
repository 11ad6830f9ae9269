// Vector-unit transcendental and division algorithms (specification: isa/README.md section 5).
// Each algorithm is written once, as a branch-free always-inline kernel in mathfn_recip.h /
// mathfn_explog.h; the scalar function and the array loop both call it, so they give the same bits,
// and the loops auto-vectorise (-O3 -march=x86-64-v3; check with -fopt-info-vec-optimized).
#include "isa/mathfn/mathfn.h"

#include "isa/mathfn/mathfn_explog.h"
#include "isa/mathfn/mathfn_recip.h"

namespace npusim::isa {

using namespace mathfn_detail;

float hw_exp(float x) { return exp_kernel(x); }
float hw_ln(float x) { return ln_kernel(x); }
float hw_rec(float x) { return rec_kernel(x); }
float hw_sqrt(float x) { return sqrt_kernel(x); }
float hw_rsqrt(float x) { return rsqrt_kernel(x); }
float hw_div(float a, float b) { return div_kernel(a, b); }

// `out` may equal `in`: each element is read before it is written, and the vectoriser's run-time
// alias check accepts the exact-overlap case.
void hw_exp_n(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = exp_kernel(in[i]);
}
void hw_ln_n(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = ln_kernel(in[i]);
}
void hw_rec_n(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = rec_kernel(in[i]);
}
void hw_sqrt_n(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = sqrt_kernel(in[i]);
}
void hw_rsqrt_n(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = rsqrt_kernel(in[i]);
}
void hw_div_n(const float* a, const float* b, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = div_kernel(a[i], b[i]);
}

}  // namespace npusim::isa
