// Array kernels of the vector unit's element arithmetic (the Fast path), 8 lanes per AVX2 step. Each one is
// the vectorised form of a scalar function in vec_math.cpp and gives identical bits.
#include <immintrin.h>

#include "isa/mathfn/mathfn.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::vec {

namespace {
__m256 quiet8(__m256 x) { return _mm256_or_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000))); }

// quiet(a) where a is NaN, else quiet(b) where b is NaN, else r (the rule of add_f32 and max_f32).
__m256 propagate_nan(__m256 r, __m256 a, __m256 b) {
  r = _mm256_blendv_ps(r, quiet8(b), _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_ps(r, quiet8(a), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

// maxps returns its second operand on equal inputs; for +-0 the AND of the bits is +0 if either is +0.
__m256 max8(__m256 a, __m256 b) {
  const __m256 m = _mm256_blendv_ps(_mm256_max_ps(a, b), _mm256_and_ps(a, b), _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
  return propagate_nan(m, a, b);
}
__m256 min8(__m256 a, __m256 b) {
  const __m256 m = _mm256_blendv_ps(_mm256_min_ps(a, b), _mm256_or_ps(a, b), _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
  return propagate_nan(m, a, b);
}

template <VBinOp op>
void binary_loop(const float* a, const float* b, float* out, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    const __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
    __m256 r;
    if constexpr (op == VBinOp::Add) r = propagate_nan(_mm256_add_ps(x, y), x, y);
    else if constexpr (op == VBinOp::Sub) r = propagate_nan(_mm256_sub_ps(x, y), x, y);
    else if constexpr (op == VBinOp::Mul) r = propagate_nan(_mm256_mul_ps(x, y), x, y);
    else if constexpr (op == VBinOp::Max) r = max8(x, y);
    else r = min8(x, y);
    _mm256_storeu_ps(out + i, r);
  }
}
}  // namespace

void widen_f16_n(const void* in, float* out, size_t n) {
  const auto* h = static_cast<const uint8_t*>(in);
  for (size_t i = 0; i < n; i += 8) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 2 * i));
    const __m256 f = _mm256_cvtph_ps(x);
    // vcvtph2ps quiets signalling NaNs; f16_to_f32 keeps them: clear the quiet bit again for those lanes.
    const __m256i w = _mm256_cvtepu16_epi32(x);
    const __m256i nan_exp =
        _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x7e00)), _mm256_set1_epi32(0x7c00));
    const __m256i zero_payload =
        _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x1ff)), _mm256_setzero_si256());
    const __m256i snan = _mm256_andnot_si256(zero_payload, nan_exp);
    const __m256 qbit = _mm256_castsi256_ps(_mm256_and_si256(snan, _mm256_set1_epi32(0x00400000)));
    _mm256_storeu_ps(out + i, _mm256_andnot_ps(qbit, f));
  }
}

void round_f16_n(const float* in, void* out, size_t n) {
  auto* h = static_cast<uint8_t*>(out);
  for (size_t i = 0; i < n; i += 8) {
    const __m128i r = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 2 * i), r);
  }
}

void binary_f32_n(VBinOp op, const float* a, const float* b, float* out, size_t n) {
  switch (op) {
    case VBinOp::Add: return binary_loop<VBinOp::Add>(a, b, out, n);
    case VBinOp::Sub: return binary_loop<VBinOp::Sub>(a, b, out, n);
    case VBinOp::Mul: return binary_loop<VBinOp::Mul>(a, b, out, n);
    case VBinOp::Div: return hw_div_n(a, b, out, n);
    case VBinOp::Max: return binary_loop<VBinOp::Max>(a, b, out, n);
    case VBinOp::Min: return binary_loop<VBinOp::Min>(a, b, out, n);
  }
}

void unary_f32_n(VUnaryOp op, const float* a, float* out, size_t n) {
  switch (op) {
    case VUnaryOp::Exp: return hw_exp_n(a, out, n);
    case VUnaryOp::Ln: return hw_ln_n(a, out, n);
    case VUnaryOp::Rec: return hw_rec_n(a, out, n);
    case VUnaryOp::Sqrt: return hw_sqrt_n(a, out, n);
    case VUnaryOp::Rsqrt: return hw_rsqrt_n(a, out, n);
    case VUnaryOp::Abs: {
      const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u)));
      for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(out + i, _mm256_andnot_ps(sign, _mm256_loadu_ps(a + i)));
      return;
    }
    case VUnaryOp::Relu:
      for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(out + i, max8(_mm256_loadu_ps(a + i), _mm256_setzero_ps()));
      return;
  }
}

namespace {
// Wrapping integer ops: the low 16 / 32 bits of the exact result (mullo keeps exactly those).
__m128i int16_op(VBinOp op, __m128i x, __m128i y) {
  switch (op) {
    case VBinOp::Add: return _mm_add_epi16(x, y);
    case VBinOp::Sub: return _mm_sub_epi16(x, y);
    case VBinOp::Mul: return _mm_mullo_epi16(x, y);
    case VBinOp::Max: return _mm_max_epi16(x, y);
    default: return _mm_min_epi16(x, y);
  }
}
__m256i int32_op(VBinOp op, __m256i x, __m256i y) {
  switch (op) {
    case VBinOp::Add: return _mm256_add_epi32(x, y);
    case VBinOp::Sub: return _mm256_sub_epi32(x, y);
    case VBinOp::Mul: return _mm256_mullo_epi32(x, y);
    case VBinOp::Max: return _mm256_max_epi32(x, y);
    default: return _mm256_min_epi32(x, y);
  }
}
}  // namespace

void binary_int_n(VBinOp op, int bits, const void* a, const void* b, void* out, size_t n) {
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  auto* po = static_cast<uint8_t*>(out);
  const size_t step = bits / 8 * 8;  // bytes of 8 lanes
  for (size_t i = 0; i < n; i += 8, pa += step, pb += step, po += step) {
    if (bits == 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa));
      const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pb));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(po), int16_op(op, x, y));
    } else {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(po), int32_op(op, x, y));
    }
  }
}

void unary_int_n(VUnaryOp op, int bits, const void* a, void* out, size_t n) {
  const auto* pa = static_cast<const uint8_t*>(a);
  auto* po = static_cast<uint8_t*>(out);
  const size_t step = bits / 8 * 8;
  const bool abs = op == VUnaryOp::Abs;  // else Relu; abs of the minimum wraps to itself
  for (size_t i = 0; i < n; i += 8, pa += step, po += step) {
    if (bits == 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(po), abs ? _mm_abs_epi16(x) : _mm_max_epi16(x, _mm_setzero_si128()));
    } else {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(po),
                          abs ? _mm256_abs_epi32(x) : _mm256_max_epi32(x, _mm256_setzero_si256()));
    }
  }
}

}  // namespace npusim::isa::vec
