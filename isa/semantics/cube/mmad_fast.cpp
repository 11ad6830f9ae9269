// Mmad Fast path: the same arithmetic as run_reference(), vectorised ACROSS OUTPUT COLUMNS so that every SIMD lane
// performs exactly the scalar sequence of one output element (numerics.md §4: "vectorise across outputs").
//
// Floats: A and B are widened once to fp32 (exact), with the lanes kk >= k set to +0 in BOTH operands so that their
// product is exactly +0, as the specification requires. For each output row i and K block kb the k0 products are
// combined depth-first with one partial sum per tree level; for a power-of-two k0 this adds the same operand pairs
// as the level-by-level tree, so the bits match. Only _mm256_mul_ps / _mm256_add_ps are used: never FMA.
// Integers: exact int16 products summed in int32 with wrap-around (vpmaddwd + vpaddd); integer addition is
// associative, so any order gives the reference bits.
#include <immintrin.h>

#include <vector>

#include "isa/semantics/cube/mmad_kernels.h"

namespace npusim::isa::mmad {

namespace {

struct Scratch {
  std::vector<float> a, b;
  std::vector<int16_t> ai, bi;
};
thread_local Scratch g_scratch;

// ---- widening ------------------------------------------------------------------------------------

void widen_row(DType t, const uint8_t* src, float* dst, int n) {
  if (t == DType::F32) {
    std::memcpy(dst, src, size_t(n) * 4);
    return;
  }
  for (int c = 0; c < n; c += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c * 2));
    const __m256 f =
        t == DType::F16 ? _mm256_cvtph_ps(h) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    _mm256_storeu_ps(dst + c, f);
  }
}

// A (ZZ fractals) -> row-major fp32 [mp][kp]; columns kk >= k are +0.
void widen_a(const Job& j, float* out) {
  const int kp = j.kp(), esize = bytes_of(j.t);
  for (int mb = 0; mb < j.mb; ++mb)
    for (int kb = 0; kb < j.kb; ++kb) {
      const uint8_t* frac = j.a + (uint64_t(mb) * j.kb + kb) * 512;
      for (int r = 0; r < 16; ++r)
        widen_row(j.t, frac + r * j.k0 * esize, out + size_t(mb * 16 + r) * kp + kb * j.k0, j.k0);
    }
  for (int i = 0; i < j.mp(); ++i)
    for (int kk = j.k; kk < kp; ++kk) out[size_t(i) * kp + kk] = 0.0f;
}

// B (ZN fractals: 16 n-rows of k0 k-elements) -> fp32 column panels [nb][kp][16]: the 16 output columns of a panel
// are contiguous for each kk and a panel is one contiguous stream (a [kp][np] layout would put the rows of a panel
// a power-of-two stride apart and thrash the cache sets). Rows kk >= k are +0.
void widen_b(const Job& j, float* out) {
  const int kp = j.kp(), esize = bytes_of(j.t);
  alignas(32) float tmp[16][16];
  for (int nb = 0; nb < j.nb; ++nb) {
    float* panel = out + size_t(nb) * kp * 16;
    for (int kb = 0; kb < j.kb; ++kb) {
      const uint8_t* frac = j.b + (uint64_t(kb) * j.nb + nb) * 512;
      for (int jj = 0; jj < 16; ++jj) widen_row(j.t, frac + jj * j.k0 * esize, tmp[jj], j.k0);
      for (int t = 0; t < j.k0; ++t)
        for (int jj = 0; jj < 16; ++jj) panel[(kb * j.k0 + t) * 16 + jj] = tmp[jj][t];
    }
    for (int kk = j.k; kk < kp; ++kk)
      for (int jj = 0; jj < 16; ++jj) panel[kk * 16 + jj] = 0.0f;
  }
}

// ---- float kernel --------------------------------------------------------------------------------

constexpr int log2_of(int x) { return x <= 1 ? 0 : 1 + log2_of(x / 2); }

// Number of trailing one bits of t: how many pending partial sums product t completes (its tree depth-first).
constexpr int trailing_ones(int t) { return (t & 1) ? 1 + trailing_ones(t >> 1) : 0; }

// Product t of one K block for R rows x 16 columns, folded into the tree. st[r][h][l] holds the pending partial
// sum of tree level l (2^l products); ak: row i0 of A at this K block; bk: this K block of a B panel.
template <int K0, int R, int T>
inline void tree_step(const float* ak, int kp, const float* bk, __m256 (&st)[R][2][log2_of(K0) + 1],
                      __m256 (&acc)[R][2]) {
  constexpr int L = log2_of(K0), depth = trailing_ones(T);
  const __m256 b0 = _mm256_loadu_ps(bk + T * 16), b1 = _mm256_loadu_ps(bk + T * 16 + 8);
  for (int r = 0; r < R; ++r) {
    const __m256 av = _mm256_broadcast_ss(ak + size_t(r) * kp + T);
    __m256 v0 = _mm256_mul_ps(av, b0), v1 = _mm256_mul_ps(av, b1);
    for (int l = 0; l < depth; ++l) {  // earlier (left) partial + later (right) one, as in the level-order tree
      v0 = _mm256_add_ps(st[r][0][l], v0);
      v1 = _mm256_add_ps(st[r][1][l], v1);
    }
    if constexpr (depth == L) {  // T == K0-1: the whole tree is summed; one fp32 add onto the accumulator
      acc[r][0] = _mm256_add_ps(acc[r][0], v0);
      acc[r][1] = _mm256_add_ps(acc[r][1], v1);
    } else {
      st[r][0][depth] = v0;
      st[r][1][depth] = v1;
    }
  }
  if constexpr (T + 1 < K0) tree_step<K0, R, T + 1>(ak, kp, bk, st, acc);
}

// R output rows x 16 columns over all K blocks. a: row i0 of the widened A; b: the B panel of the columns.
template <int K0, int R>
inline void rows_kernel(const float* a, int kp, const float* b, int kb_count, __m256 (&acc)[R][2]) {
  for (int kb = 0; kb < kb_count; ++kb) {
    __m256 st[R][2][log2_of(K0) + 1];
    tree_step<K0, R, 0>(a + kb * K0, kp, b + kb * K0 * 16, st, acc);
  }
}

__m256 load_start(const Job& j, int i, int col) {
  if (j.bias) return _mm256_loadu_ps(reinterpret_cast<const float*>(j.bias) + col);
  if (j.init) return _mm256_setzero_ps();
  return _mm256_loadu_ps(reinterpret_cast<const float*>(j.c) + c_index(j, i, col));
}

void store_result(const Job& j, int i, int col, __m256 v) {
  const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(int(kCanonicalNan)));
  v = _mm256_blendv_ps(v, nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  _mm256_storeu_ps(reinterpret_cast<float*>(j.c) + c_index(j, i, col), v);
}

template <int K0>
void run_float(const Job& j) {
  // One row x 16 columns at a time: its tree partials (up to 4 levels x 2 ymm) and accumulator fit the 16 ymm
  // registers; blocking two rows spills and measured no faster.
  constexpr int R = 1;
  const int kp = j.kp(), np = j.np();
  auto& s = g_scratch;
  s.a.resize(size_t(j.mp()) * kp);
  s.b.resize(size_t(kp) * np);
  widen_a(j, s.a.data());
  widen_b(j, s.b.data());
  for (int nb = 0; nb < j.nb; ++nb)
    for (int i0 = 0; i0 < j.mp(); i0 += R) {
      __m256 acc[R][2];
      for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2; ++h) acc[r][h] = load_start(j, i0 + r, nb * 16 + h * 8);
      rows_kernel<K0, R>(s.a.data() + size_t(i0) * kp, kp, s.b.data() + size_t(nb) * kp * 16, j.kb, acc);
      for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2; ++h) store_result(j, i0 + r, nb * 16 + h * 8, acc[r][h]);
    }
}

// ---- integer kernel ------------------------------------------------------------------------------

// A -> int16 [mp][kp]; B -> int16 pairs [kp/2][np][2] (k-pairs interleaved for vpmaddwd). Lanes kk >= k are 0.
void widen_ints(const Job& j, int16_t* a, int16_t* b) {
  const int kp = j.kp(), np = j.np();
  for (int i = 0; i < j.mp(); ++i)
    for (int kk = 0; kk < kp; ++kk)
      a[size_t(i) * kp + kk] = kk < j.k ? int16_t(widen_int(j.t, j.a, a_index(j, i, kk))) : 0;
  for (int kk = 0; kk < kp; ++kk)
    for (int c = 0; c < np; ++c)
      b[(size_t(kk / 2) * np + c) * 2 + kk % 2] = kk < j.k ? int16_t(widen_int(j.t, j.b, b_index(j, kk, c))) : 0;
}

void run_int(const Job& j) {
  const int kp = j.kp(), np = j.np();
  auto& s = g_scratch;
  s.ai.resize(size_t(j.mp()) * kp);
  s.bi.resize(size_t(kp) * np);
  widen_ints(j, s.ai.data(), s.bi.data());
  for (int nb = 0; nb < j.nb; ++nb)
    for (int i = 0; i < j.mp(); ++i) {
      __m256i acc[2];
      for (int h = 0; h < 2; ++h) acc[h] = _mm256_castps_si256(load_start(j, i, nb * 16 + h * 8));
      const int16_t* arow = s.ai.data() + size_t(i) * kp;
      for (int p = 0; p < kp / 2; ++p) {
        int32_t pair;
        std::memcpy(&pair, arow + 2 * p, 4);
        const __m256i av = _mm256_set1_epi32(pair);
        const int16_t* brow = s.bi.data() + (size_t(p) * np + nb * 16) * 2;
        for (int h = 0; h < 2; ++h) {
          const __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(brow + h * 16));
          acc[h] = _mm256_add_epi32(acc[h], _mm256_madd_epi16(av, bv));
        }
      }
      for (int h = 0; h < 2; ++h)
        _mm256_storeu_si256(
            reinterpret_cast<__m256i*>(reinterpret_cast<int32_t*>(j.c) + c_index(j, i, nb * 16 + h * 8)), acc[h]);
    }
}

}  // namespace

void run_fast(const Job& j) {
  switch (j.t) {
    case DType::F16:
    case DType::BF16: run_float<16>(j); break;
    case DType::F32: run_float<8>(j); break;
    default: run_int(j); break;
  }
}

}  // namespace npusim::isa::mmad
