// Fixpipe: L0C (fp32 / s32 NZ fractals) -> GM / L1 (or UB on coupled cores), with quantisation scale, ReLU and
// conversion per element, written ND (nz2nd) or NZ. Reference: isa/README.md section 3 "fixpipe".
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"

namespace npusim::isa::impl {

namespace {

std::string dt(DType t) { return std::string(dtype_name(t)); }

void check_conversion(const Fixpipe& in) {
  const DType s = in.src_dtype, d = in.dst_dtype;
  if (s != DType::F32 && s != DType::I32) isa_fail("field src_dtype: L0C holds f32 or s32, not " + dt(s));
  const bool ok = s == DType::F32 ? (d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::I8)
                                  : (d == DType::I32 || d == DType::F16 || d == DType::I8);
  if (!ok)
    isa_fail("fields src_dtype/dst_dtype: conversion " + dt(s) + " -> " + dt(d) +
             " is not supported (f32 -> f32 f16 bf16 s8; s32 -> s32 f16 s8)");
  if (s == DType::I32 && d == DType::I32 && in.quant != Quant::None)
    isa_fail("field quant: s32 -> s32 is a raw copy and takes no quantisation scale");
  if (s == DType::I32 && d == DType::F16 && !in.sat)
    isa_fail("field sat: s32 -> f16 always saturates (the vendor DEQF16 / VDEQF16 modes have no INF_NAN mode)");
}

void check_fixpipe_fields(const Fixpipe& in) {
  check_conversion(in);
  check_field("n", in.n, 1, 4095);
  check_field("m", in.m, 1, in.nz2nd ? 8192 : 65535);
  if (!in.nz2nd && in.n % 16 != 0)
    isa_fail("field n = " + std::to_string(in.n) + ": NZ output moves whole 16-column blocks (n a multiple of 16)");
  if (in.src_m_stride % 16 != 0 || in.src_m_stride < in.m)
    isa_fail("field src_m_stride = " + std::to_string(in.src_m_stride) +
             " must be a multiple of 16 and >= m = " + std::to_string(in.m));
  const uint32_t need = in.nz2nd ? in.n : in.m;
  if (in.dst_stride < need)
    isa_fail("field dst_stride = " + std::to_string(in.dst_stride) + " is below " + (in.nz2nd ? "n" : "m") + " = " +
             std::to_string(need) + ": destination " + (in.nz2nd ? "rows" : "column groups") + " would overlap");
}

// Converts one L0C element (raw 32 bits) to the destination type; writes bytes_of(dst_dtype) bytes at out.
void convert_element(const Fixpipe& in, uint32_t raw, float scale, uint8_t* out) {
  if (in.src_dtype == DType::I32 && in.dst_dtype == DType::I32) {
    int32_t x;
    std::memcpy(&x, &raw, 4);
    if (in.relu && x < 0) x = 0;
    std::memcpy(out, &x, 4);
    return;
  }
  float v;
  if (in.src_dtype == DType::I32) {
    int32_t x;
    std::memcpy(&x, &raw, 4);
    v = f32_from_bits(round_to_binary(double(x), 8, 23, RoundMode::RINT, Overflow::Ieee));
  } else {
    v = f32_from_bits(raw);
  }
  if (in.quant != Quant::None) v = v * scale;
  if (in.relu && !(v > 0.0f) && !std::isnan(v)) v = 0.0f;  // max(v, +0): -0 -> +0, NaN kept
  const Overflow o = in.sat ? Overflow::Saturate : Overflow::Ieee;
  switch (in.dst_dtype) {
    case DType::F32: std::memcpy(out, &v, 4); break;
    case DType::F16: {
      const uint16_t h = f32_to_f16(v, RoundMode::RINT, o);
      std::memcpy(out, &h, 2);
      break;
    }
    case DType::BF16: {
      const uint16_t h = f32_to_bf16(v, RoundMode::RINT, o);
      std::memcpy(out, &h, 2);
      break;
    }
    default: {
      const int8_t s = f32_to_s8(v, RoundMode::RINT);
      std::memcpy(out, &s, 1);
      break;
    }
  }
}

// One fractal row (16 fp32 accumulators) to 16 fp16 / bf16 values, RINT: vcvtps2ph for fp16, the RNE formula
// for bf16 (both bit-identical to f32_to_f16 / f32_to_bf16, tests/isa/test_numeric_exhaustive.cpp). Returns
// false when a lane is infinite or NaN (saturation and NaN encodings then go element by element).
bool narrow_row16(const uint8_t* src, DType dst, uint16_t* out) {
  const __m256 a = _mm256_loadu_ps(reinterpret_cast<const float*>(src));
  const __m256 b = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 32));
  const __m256i exp_mask = _mm256_set1_epi32(0x7f800000);
  const __m256i ea = _mm256_and_si256(_mm256_castps_si256(a), exp_mask),
                eb = _mm256_and_si256(_mm256_castps_si256(b), exp_mask);
  if (!_mm256_testz_si256(_mm256_or_si256(_mm256_cmpeq_epi32(ea, exp_mask), _mm256_cmpeq_epi32(eb, exp_mask)),
                          _mm256_set1_epi32(-1)))
    return false;  // inf / NaN input
  if (dst == DType::F16) {
    const __m128i ha = _mm256_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT),
                  hb = _mm256_cvtps_ph(b, _MM_FROUND_TO_NEAREST_INT);
    const __m128i inf = _mm_set1_epi16(0x7c00);
    const __m128i ovf =
        _mm_or_si128(_mm_cmpeq_epi16(_mm_and_si128(ha, inf), inf), _mm_cmpeq_epi16(_mm_and_si128(hb, inf), inf));
    if (!_mm_testz_si128(ovf, ovf)) return false;  // overflow: IEEE or saturating, element by element
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), ha);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8), hb);
    return true;
  }
  auto rne = [](__m256 v) {  // (u + 0x7fff + ((u >> 16) & 1)) >> 16
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
  };
  const __m256i ra = rne(a), rb = rne(b);
  const __m256i binf = _mm256_set1_epi32(0x7f80);
  const __m256i ovf = _mm256_or_si256(_mm256_cmpeq_epi32(_mm256_and_si256(ra, binf), binf),
                                      _mm256_cmpeq_epi32(_mm256_and_si256(rb, binf), binf));
  if (!_mm256_testz_si256(ovf, ovf)) return false;
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(ra, rb), 0xd8);  // 16 x u16 in order
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
  return true;
}

// The common FixPipe: fp32 to fp32 / fp16 / bf16 ND rows, no scale, no ReLU. A fractal row is 16 consecutive
// accumulators, converted at once; the same bits as convert_element.
bool try_fast_nd(const Fixpipe& in, const uint8_t* src, uint8_t* dst) {
  if (in.src_dtype != DType::F32 || in.quant != Quant::None || in.relu || !in.nz2nd) return false;
  if (in.dst_dtype != DType::F32 && in.dst_dtype != DType::F16 && in.dst_dtype != DType::BF16) return false;
  const uint64_t esize = bytes_of(in.dst_dtype);
  alignas(32) uint16_t h[16];
  for (uint64_t r = 0; r < in.m; ++r)
    for (uint64_t cb = 0; cb * 16 < in.n; ++cb) {
      const uint8_t* s = src + (cb * in.src_m_stride + r) * 64;
      uint8_t* d = dst + (r * in.dst_stride + cb * 16) * esize;
      const uint64_t cols = std::min<uint64_t>(16, in.n - cb * 16);
      if (in.dst_dtype == DType::F32) {
        std::memcpy(d, s, cols * 4);
      } else if (narrow_row16(s, in.dst_dtype, h)) {
        std::memcpy(d, h, cols * 2);
      } else {
        for (uint64_t c = 0; c < cols; ++c) {
          uint32_t raw;
          std::memcpy(&raw, s + c * 4, 4);
          convert_element(in, raw, 0.0f, d + c * esize);
        }
      }
    }
  return true;
}

}  // namespace

void exec(const Fixpipe& in, ExecContext& ctx) {
  check_fixpipe_fields(in);
  if (in.dst.buf == Buf::UB && !ctx.coupled) isa_fail("operand dst: L0C->UB exists on coupled cores only");
  const uint64_t esize = bytes_of(in.dst_dtype), c0 = kBlockBytes / esize;
  const uint64_t m = in.m, n = in.n;
  // L0C is read in whole 16-element (64-byte) fractal rows, including the columns beyond n of the last block.
  const uint64_t src_bytes = ((n - 1) / 16 * in.src_m_stride + m) * 64;
  const uint64_t dst_elems =
      in.nz2nd ? (m - 1) * in.dst_stride + n : ((n - 1) / c0 * in.dst_stride + m - 1) * c0 + (n - 1) % c0 + 1;
  const uint8_t* src = operand_bytes(ctx, "src", in.src, src_bytes, {Buf::L0C});
  uint8_t* dst = operand_bytes(ctx, "dst", in.dst, dst_elems * esize, {Buf::GM, Buf::L1, Buf::UB});
  const uint8_t* scales =
      in.quant == Quant::Vector ? operand_bytes(ctx, "quant_addr", in.quant_addr, n * 4, {Buf::FB}) : nullptr;
  if (try_fast_nd(in, src, dst)) return;
  const float scalar = static_cast<float>(in.quant_scale);
  for (uint64_t r = 0; r < m; ++r)
    for (uint64_t c = 0; c < n; ++c) {
      uint32_t raw;
      std::memcpy(&raw, src + ((c / 16 * in.src_m_stride + r) * 16 + c % 16) * 4, 4);
      float scale = scalar;
      if (scales) std::memcpy(&scale, scales + c * 4, 4);
      const uint64_t d = in.nz2nd ? r * in.dst_stride + c : ((c / c0) * in.dst_stride + r) * c0 + c % c0;
      convert_element(in, raw, scale, dst + d * esize);
    }
}

}  // namespace npusim::isa::impl
