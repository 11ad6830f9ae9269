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

// Array forms. Each loop runs one step for every element, so each is a straight vectorisable loop; the
// per-element sequence of operations is exactly that of the scalar code (selects instead of branches).
void det_ln_n(const double* x, double* out, int n) {
  alignas(32) double m[kDetBlock], s[kDetBlock], z[kDetBlock], p[kDetBlock], ef[kDetBlock];
  for (int i = 0; i < n; ++i) {
    const bool sub = ((std::bit_cast<uint64_t>(x[i]) >> 52) & 0x7ff) == 0;
    const uint64_t bits = std::bit_cast<uint64_t>(sub ? x[i] * 0x1p54 : x[i]);
    int64_t e = static_cast<int64_t>((bits >> 52) & 0x7ff) - (sub ? 54 : 0) - 1023;
    double mi = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    const bool big = mi > kSqrt2;
    mi = big ? mi * 0.5 : mi;
    e += big ? 1 : 0;
    m[i] = mi;
    ef[i] = static_cast<double>(e);
  }
  for (int i = 0; i < n; ++i) {
    s[i] = (m[i] - 1) / (m[i] + 1);
    z[i] = s[i] * s[i];
    p[i] = 0;
  }
  for (int k = 12; k >= 1; --k) {
    const double ck = 1.0 / (2 * k + 1);
    for (int i = 0; i < n; ++i) p[i] = ck + z[i] * p[i];
  }
  for (int i = 0; i < n; ++i) {
    const double ln_m = 2 * s[i] + 2 * s[i] * (z[i] * p[i]);
    out[i] = ef[i] * kLn2Hi + (ef[i] * kLn2Lo + ln_m);
  }
}

void det_sincos_2pi_n(const double* u, double* s, double* c, int n) {
  alignas(32) double a2[kDetBlock], ts[kDetBlock], tc[kDetBlock], a[kDetBlock];
  alignas(32) int q[kDetBlock];
  alignas(32) bool low[kDetBlock];
  for (int i = 0; i < n; ++i) {
    const double u4 = u[i] * 4;
    q[i] = static_cast<int>(u4);
    const double f = u4 - q[i];
    low[i] = f <= 0.5;
    a[i] = (low[i] ? f : 1 - f) * kPiOver2;
    a2[i] = a[i] * a[i];
    ts[i] = 1, tc[i] = 1;
  }
  for (int k = 10; k >= 1; --k) {
    const double ds = (2.0 * k) * (2.0 * k + 1), dc = (2.0 * k - 1) * (2.0 * k);
    for (int i = 0; i < n; ++i) {
      ts[i] = 1 - a2[i] / ds * ts[i];
      tc[i] = 1 - a2[i] / dc * tc[i];
    }
  }
  for (int i = 0; i < n; ++i) {
    const double sn = a[i] * ts[i], cs = tc[i];
    const double sp = low[i] ? sn : cs, cp = low[i] ? cs : sn;  // sin(pi/2 - x) = cos x
    const int quad = q[i] & 3;
    s[i] = quad == 0 ? sp : quad == 1 ? cp : quad == 2 ? -sp : -cp;
    c[i] = quad == 0 ? cp : quad == 1 ? -sp : quad == 2 ? -cp : sp;
  }
}

}  // namespace npusim::op
