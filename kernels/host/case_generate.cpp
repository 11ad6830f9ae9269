// Generated case inputs. The algorithm is part of the case-file contract (same seed -> same bits on
// every host), so it is spelled out here and must not change without a note in the case-file docs:
//
//  * One SplitMix64 stream per tensor, its state initialised to init.seed (nothing else mixed in, so two
//    tensors with the same seed and shape get the same values). Elements are produced in C order.
//  * uniform: u = (next() >> 11) * 2^-53 in [0, 1); v = low + (high - low) * u.
//  * normal (Box-Muller, two elements per pair of draws, the second dropped for an odd count):
//      u1 = ((next() >> 11) + 1) * 2^-53 in (0, 1], u2 = (next() >> 11) * 2^-53 in [0, 1),
//      r = sqrt(-2 ln u1), element 2k = mean + std * r cos(2 pi u2), element 2k+1 = mean + std * r sin(2 pi u2),
//    with ln / sin / cos from det_math.h (IEEE + - * / sqrt only, double precision).
//  * zeros / ones: constant.
//  * bernoulli: 1 where u < p, else 0, with u drawn per element as for uniform (masks: p = share masked).
//  * triu: no draws; over the last two dims (row r, column c) 1 where c > r, else 0 -- triu(ones, 1), the
//    compressed causal mask of FIA sparse modes 2-4. Needs rank >= 2.
//  * permutation: the values 0 .. numel-1 in a seeded order (distinct block ids for a page table): a[k] = k,
//    then for i = numel-1 down to 1: j = next() % (i + 1), swap a[i], a[j] (Fisher-Yates with the stream's
//    integers; the modulo bias is irrelevant here and keeps it integer-only). Integer dtypes holding numel-1.
//  * Float dtypes round v once to the dtype (RNE, IEEE overflow). Integer and bool dtypes clamp v to the
//    type's range, then take floor(v) for uniform (integers in [low, high) for integral bounds) and round
//    half to even for normal.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "kernels/host/case_file.h"
#include "kernels/host/det_math.h"

namespace npusim::op {

namespace {
bool is_float(ElemType t) { return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32; }

void int_bounds(ElemType t, double& lo, double& hi) {
  switch (t) {
    case ElemType::I8: lo = -128, hi = 127; return;
    case ElemType::U8: lo = 0, hi = 255; return;
    case ElemType::I32: lo = -2147483648.0, hi = 2147483647.0; return;
    case ElemType::Bool: lo = 0, hi = 1; return;
    case ElemType::I4: lo = -8, hi = 7; return;
    case ElemType::U16: lo = 0, hi = 65535; return;
    case ElemType::U64: lo = 0, hi = 9007199254740992.0; return;
    default: lo = -9223372036854775808.0, hi = 9223372036854774784.0; return;  // int64: largest doubles in range
  }
}

// v clamped to [lo, hi] (integers), then made integral; the int64 casts are exact and in range.
double to_integer(double v, ElemType t, bool floor_mode) {
  double lo, hi;
  int_bounds(t, lo, hi);
  v = v != v ? 0 : (v < lo ? lo : (v > hi ? hi : v));
  const auto ti = static_cast<int64_t>(v);       // truncation
  const double d = v - static_cast<double>(ti);  // exact fraction in (-1, 1)
  if (floor_mode) return static_cast<double>(d < 0 ? ti - 1 : ti);
  const bool odd = ti & 1;
  if (d > 0.5 || (d == 0.5 && odd)) return static_cast<double>(ti + 1);
  if (d < -0.5 || (d == -0.5 && odd)) return static_cast<double>(ti - 1);
  return static_cast<double>(ti);
}

void put(HostTensor& h, int64_t i, double v, bool floor_mode) {
  h.set(i, is_float(h.type) ? v : to_integer(v, h.type, floor_mode));
}

void fill_triu(HostTensor& h) {
  const size_t r = h.shape.size();
  const int64_t rows = h.shape[r - 2], cols = h.shape[r - 1], n = h.numel();
  for (int64_t i = 0; i < n; ++i) h.set(i, i % cols > (i / cols) % rows ? 1 : 0);
}

void fill_permutation(HostTensor& h, const InitSpec& init) {
  const int64_t n = h.numel();
  std::vector<int64_t> a(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) a[static_cast<size_t>(k)] = k;
  SplitMix64 rng{init.seed};
  for (int64_t i = n - 1; i >= 1; --i) {
    const auto j = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(i + 1));
    std::swap(a[static_cast<size_t>(i)], a[static_cast<size_t>(j)]);
  }
  for (int64_t k = 0; k < n; ++k) h.set(k, static_cast<double>(a[static_cast<size_t>(k)]));
}

// Blocks of kDetBlock pairs: the draws in stream order, then ln, sqrt, sin / cos over the block (the array
// forms vectorise), then the elements in C order. Same values as pair by pair.
void fill_normal(HostTensor& h, const InitSpec& init) {
  SplitMix64 rng{init.seed};
  const int64_t n = h.numel();
  alignas(32) double u1[kDetBlock], u2[kDetBlock], r[kDetBlock], s[kDetBlock], c[kDetBlock];
  for (int64_t i0 = 0; i0 < n; i0 += 2 * kDetBlock) {
    const int pairs = static_cast<int>(std::min<int64_t>(kDetBlock, (n - i0 + 1) / 2));
    for (int k = 0; k < pairs; ++k) {
      u1[k] = static_cast<double>((rng.next() >> 11) + 1) * 0x1p-53;
      u2[k] = rng.uniform();
    }
    det_ln_n(u1, r, pairs);
    for (int k = 0; k < pairs; ++k) r[k] = std::sqrt(-2 * r[k]);  // IEEE sqrt is correctly rounded: host-independent
    det_sincos_2pi_n(u2, s, c, pairs);
    for (int k = 0; k < pairs; ++k) {
      const int64_t i = i0 + 2 * k;
      put(h, i, init.mean + init.std * (r[k] * c[k]), false);
      if (i + 1 < n) put(h, i + 1, init.mean + init.std * (r[k] * s[k]), false);
    }
  }
}
}  // namespace

void check_generator(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init) {
  if (init.dist == "triu" && shape.size() < 2)
    throw CaseError("dist triu fills the last two dims: it needs rank >= 2, got rank " + std::to_string(shape.size()));
  if (is_float(t) && (init.dist == "normal" || init.dist == "uniform")) {
    // A value past the dtype's range would silently become inf (regression: fp16 with std 1e6).
    const double largest = t == ElemType::F16 ? 65504.0 : 3.3895313892515355e38;  // fp16; bf16 (fp32 is larger)
    // Box-Muller's largest radius is sqrt(-2 ln 2^-53) = 8.57 (u1 >= 2^-53).
    const double reach = init.dist == "normal" ? std::abs(init.mean) + 8.57 * init.std
                                               : std::max(std::abs(init.low), std::abs(init.high));
    if (reach > largest) {
      std::ostringstream m;
      m << "dist " << init.dist << " reaches |x| = " << reach
        << (init.dist == "normal" ? " (|mean| + 8.57 std, the generator's widest draw)" : " (max |low|, |high|)")
        << ", beyond the largest " << elem_type_name(t) << " (" << largest << "): those values would become inf; lower "
        << (init.dist == "normal" ? "std / mean" : "low / high");
      throw CaseError(m.str());
    }
  }
  if (init.dist != "permutation") return;
  if (is_float(t) || t == ElemType::Bool)
    throw CaseError("dist permutation needs an integer dtype (int8, uint8, int32, int64, uint16, int4), not " +
                    elem_type_name(t));
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  double lo, hi;
  int_bounds(t, lo, hi);
  if (static_cast<double>(n - 1) > hi)
    throw CaseError("dist permutation of " + std::to_string(n) + " elements needs values up to " +
                    std::to_string(n - 1) + ", beyond " + elem_type_name(t));
}

HostTensor generate(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init) {
  check_generator(t, shape, init);
  HostTensor h = HostTensor::zeros(t, shape);
  const int64_t n = h.numel();
  if (init.dist == "zeros") return h;
  if (init.dist == "ones") {
    for (int64_t i = 0; i < n; ++i) h.set(i, 1);
  } else if (init.dist == "uniform") {
    SplitMix64 rng{init.seed};
    for (int64_t i = 0; i < n; ++i) put(h, i, init.low + (init.high - init.low) * rng.uniform(), true);
  } else if (init.dist == "normal") {
    fill_normal(h, init);
  } else if (init.dist == "bernoulli") {
    SplitMix64 rng{init.seed};
    for (int64_t i = 0; i < n; ++i) h.set(i, rng.uniform() < init.p ? 1 : 0);
  } else if (init.dist == "triu") {
    if (n > 0) fill_triu(h);
  } else if (init.dist == "permutation") {
    fill_permutation(h, init);
  } else {
    throw CaseError("init.dist '" + init.dist +
                    "' is not one of normal, uniform, zeros, ones, bernoulli, triu, permutation");
  }
  return h;
}

}  // namespace npusim::op
