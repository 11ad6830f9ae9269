// Deterministic ln and sin / cos: exact range reduction, then short series evaluated in a fixed order.
#include "kernels/host/det_math.h"

#include <bit>

namespace npusim::op {

namespace {
constexpr double kSqrt2 = 1.4142135623730951;
// ln 2 split so that e * kLn2Hi is exact for every binary64 exponent (Cody and Waite).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kPiOver2 = 1.5707963267948966;

// sin a and cos a for a in [0, pi/4] by Taylor series in Horner form; the 10th terms are below 1e-21.
void sincos_small(double a, double& s, double& c) {
  const double a2 = a * a;
  double ts = 1, tc = 1;
  for (int k = 10; k >= 1; --k) {
    ts = 1 - a2 / ((2.0 * k) * (2.0 * k + 1)) * ts;
    tc = 1 - a2 / ((2.0 * k - 1) * (2.0 * k)) * tc;
  }
  s = a * ts;
  c = tc;
}
}  // namespace

double det_ln(double x) {
  uint64_t bits = std::bit_cast<uint64_t>(x);
  int e = static_cast<int>((bits >> 52) & 0x7ff);
  if (e == 0) {  // subnormal: scale into the normal range (exact)
    bits = std::bit_cast<uint64_t>(x * 0x1p54);
    e = static_cast<int>((bits >> 52) & 0x7ff) - 54;
  }
  e -= 1023;
  double m = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > kSqrt2) {
    m *= 0.5;  // exact; m now in (sqrt(1/2), 1]
    ++e;
  }
  // ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1), |s| <= 0.1716; m - 1 is exact.
  const double s = (m - 1) / (m + 1), z = s * s;
  double p = 0;
  for (int k = 12; k >= 1; --k) p = 1.0 / (2 * k + 1) + z * p;
  const double ln_m = 2 * s + 2 * s * (z * p);
  return e * kLn2Hi + (e * kLn2Lo + ln_m);
}

void det_sincos_2pi(double u, double& s, double& c) {
  // 2*pi*u = (q + f) * pi/2 with q = floor(4u) and f in [0, 1): 4u and 4u - q are exact.
  const double u4 = u * 4;
  const int q = static_cast<int>(u4);
  const double f = u4 - q;
  double sp, cp;  // sin and cos of f * pi/2
  if (f <= 0.5) {
    sincos_small(f * kPiOver2, sp, cp);
  } else {
    sincos_small((1 - f) * kPiOver2, cp, sp);  // sin(pi/2 - x) = cos x; 1 - f is exact
  }
  switch (q & 3) {
    case 0: s = sp, c = cp; break;
    case 1: s = cp, c = -sp; break;
    case 2: s = -sp, c = -cp; break;
    default: s = -cp, c = sp; break;
  }
}

}  // namespace npusim::op
