// PLACEHOLDER: replaced by the real algorithms.
#include "isa/mathfn.h"
namespace npusim::isa {
float hw_exp(float) { return 0; }
float hw_ln(float) { return 0; }
float hw_rec(float) { return 0; }
float hw_sqrt(float) { return 0; }
float hw_rsqrt(float) { return 0; }
float hw_div(float, float) { return 0; }
void hw_exp_n(const float*, float*, size_t) {}
void hw_ln_n(const float*, float*, size_t) {}
void hw_rec_n(const float*, float*, size_t) {}
void hw_sqrt_n(const float*, float*, size_t) {}
void hw_rsqrt_n(const float*, float*, size_t) {}
void hw_div_n(const float*, const float*, float*, size_t) {}
}  // namespace npusim::isa
