// Data movement semantics: DataCopy (MTE2 / MTE3 bursts), Nd2Nz (GM ND -> L1 NZ) and Load2d (L1 -> L0A / L0B).
// Reference: isa/README.md section 2. Every buffer access is validated by operand_bytes() before any byte moves, so a
// failing instruction leaves all buffers untouched.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"

namespace npusim::isa::impl {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
std::string bufs(Buf b) { return std::string(buf_name(b)); }

// ---- DataCopy ------------------------------------------------------------------------------------

// Rejects every (src, dst) pair that is not a transfer path of the modelled cores.
void check_copy_path(const DataCopy& in, const ExecContext& ctx) {
  const Buf s = in.src.buf, d = in.dst.buf;
  const bool gm_in = s == Buf::GM && (d == Buf::UB || d == Buf::L1);
  const bool ub_out = s == Buf::UB && d == Buf::GM;
  if (gm_in || ub_out) return;
  if (s == Buf::UB && d == Buf::L1) {
    if (!ctx.coupled) isa_fail("operands src/dst: UB->L1 exists on coupled cores only");
    return;
  }
  if (s == Buf::L1 && (d == Buf::BT || d == Buf::FB)) return;  // MTE1 fills the bias table / FixPipe buffer
  isa_fail("operands src/dst: " + bufs(s) + "->" + bufs(d) +
           " is not a DataCopy path (gm->ub, gm->l1, ub->gm, l1->bt, l1->fb, ub->l1 on coupled cores)");
}

// The bytes one pad element is made of (s4: one byte holding the value in both nibbles).
std::vector<uint8_t> pad_pattern(DType t, double v) {
  auto integral = [&](double lo, double hi) {
    if (!(v == std::floor(v) && v >= lo && v <= hi))
      isa_fail("field pad_value: " + std::to_string(v) + " is not representable in " + std::string(dtype_name(t)));
    return static_cast<int64_t>(v);
  };
  std::vector<uint8_t> p(t == DType::I4 ? 1 : bytes_of(t));
  switch (t) {
    case DType::F16:
    case DType::BF16: {
      const auto bits =
          static_cast<uint16_t>(t == DType::F16 ? round_to_binary(v, 5, 10, RoundMode::RINT, Overflow::Ieee)
                                                : round_to_binary(v, 8, 7, RoundMode::RINT, Overflow::Ieee));
      std::memcpy(p.data(), &bits, 2);
      break;
    }
    case DType::F32: {
      const float f = static_cast<float>(v);
      std::memcpy(p.data(), &f, 4);
      break;
    }
    case DType::I8: p[0] = static_cast<uint8_t>(integral(-128, 127)); break;
    case DType::U8: p[0] = static_cast<uint8_t>(integral(0, 255)); break;
    case DType::I16: {
      const auto x = static_cast<int16_t>(integral(-32768, 32767));
      std::memcpy(p.data(), &x, 2);
      break;
    }
    case DType::I32: {
      const auto x = static_cast<int32_t>(integral(-2147483648.0, 2147483647.0));
      std::memcpy(p.data(), &x, 4);
      break;
    }
    case DType::I4: {
      const auto x = static_cast<uint8_t>(integral(-8, 7) & 0xf);
      p[0] = static_cast<uint8_t>(x | (x << 4));
      break;
    }
  }
  return p;
}

// Bytes covered on one side of a DataCopy: a GM side is byte-strided, a local side block-strided.
uint64_t copy_extent(const DataCopy& in, Buf b, uint32_t gap, bool fills_last_block) {
  const uint64_t n = in.nburst, len = in.burst_bytes;
  if (b == Buf::GM) return (n - 1) * (len + gap) + len;
  const uint64_t stride = (ceil_div(len, kBlockBytes) + gap) * kBlockBytes;
  return (n - 1) * stride + (fills_last_block ? ceil_div(len, kBlockBytes) * kBlockBytes : len);
}

uint64_t burst_stride(const DataCopy& in, Buf b, uint32_t gap) {
  if (b == Buf::GM) return uint64_t{in.burst_bytes} + gap;
  return (ceil_div(in.burst_bytes, kBlockBytes) + gap) * kBlockBytes;
}

// ---- Nd2Nz ---------------------------------------------------------------------------------------

void check_nd2nz_fields(const Nd2Nz& in) {
  switch (in.dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::I8:
    case DType::U8:
    case DType::I16:
    case DType::I32: break;
    case DType::I4:
      isa_fail(
          "field dtype: s4 is not supported by nd2nz (the vendor ND2NZ path has no 4-bit type and an ND row of odd "
          "length would start inside a byte)");
  }
  // Ranges of the vendor Nd2NzParams (CANN 8.5 DataCopy ND2NZ page); dst_nz_matrix_stride also accepts 0, which
  // vendor kernels pass when nd_num is 1.
  check_field("nd_num", in.nd_num, 0, 4095);
  check_field("n_value", in.n_value, 0, 16384);
  check_field("d_value", in.d_value, 0, 65535);
  check_field("src_nd_matrix_stride", in.src_nd_matrix_stride, 0, 65535);
  check_field("src_d_value", in.src_d_value, 1, 65535);
  check_field("dst_nz_c0_stride", in.dst_nz_c0_stride, 1, 16384);
  check_field("dst_nz_n_stride", in.dst_nz_n_stride, 1, 16384);
  check_field("dst_nz_matrix_stride", in.dst_nz_matrix_stride, 0, 65535);
  const uint64_t esize = bytes_of(in.dtype);
  if (in.nd_num > 1 && in.dst_nz_matrix_stride * esize % kBlockBytes != 0)
    isa_fail("field dst_nz_matrix_stride: " + std::to_string(in.dst_nz_matrix_stride) +
             " elements is not a whole number of 32-byte blocks, so the next matrix would start inside a block");
}

struct NzGeometry {
  uint64_t esize, c0, groups, matrix_blocks;
  uint64_t block_of(uint64_t i, uint64_t r, uint64_t g, const Nd2Nz& in) const {
    return i * matrix_blocks + g * in.dst_nz_c0_stride + r * in.dst_nz_n_stride;
  }
};

// Every destination block is written whole (data plus zeroed tail); two (matrix, row, column group) triples that
// map to the same block would make the result depend on write order, so they are rejected.
void check_nz_blocks_distinct(const Nd2Nz& in, const NzGeometry& g, uint64_t extent_blocks) {
  // The usual tile layout is distinct by construction: rows are consecutive blocks of a group, groups do not
  // reach into the next group's rows, matrices do not reach into the next matrix.
  const uint64_t n = in.n_value, cs = in.dst_nz_c0_stride;
  if (in.dst_nz_n_stride == 1 && (g.groups == 1 || cs >= n) &&
      (in.nd_num == 1 || g.matrix_blocks >= (g.groups - 1) * cs + n))
    return;
  std::vector<uint8_t> seen(extent_blocks, 0);
  for (uint64_t i = 0; i < in.nd_num; ++i)
    for (uint64_t r = 0; r < in.n_value; ++r)
      for (uint64_t c = 0; c < g.groups; ++c) {
        const uint64_t b = g.block_of(i, r, c, in);
        if (seen[b])
          isa_fail("operand dst: destination block " + std::to_string(b) + " (matrix " + std::to_string(i) + ", row " +
                   std::to_string(r) + ", column group " + std::to_string(c) +
                   ") is written twice; the strides make rows or matrices overlap");
        seen[b] = 1;
      }
}

// ---- Load2d --------------------------------------------------------------------------------------

// out[r][c] = in[c][r] for one 16 x 16 fractal of 16-bit elements.
// AVX2: 16 rows of 16 lanes; unpacking 16-, 32- and 64-bit pairs transposes each 8 x 8 quarter's rows into
// lanes, the 128-bit swaps put the quarters in place (tests/isa/test_cube_e2e.cpp compares the element loop).
void transpose_fractal16(uint8_t* dst, const uint8_t* src) {
  const auto* in = reinterpret_cast<const __m256i*>(src);
  auto* out = reinterpret_cast<__m256i*>(dst);
  __m256i p16[16], p32[16], p64[16];  // one array per stage: no value is overwritten, nothing is copied
  for (int i = 0; i < 8; ++i) {       // 16-bit pairs of rows 2i, 2i+1
    const __m256i x = _mm256_loadu_si256(in + 2 * i), y = _mm256_loadu_si256(in + 2 * i + 1);
    p16[2 * i] = _mm256_unpacklo_epi16(x, y);
    p16[2 * i + 1] = _mm256_unpackhi_epi16(x, y);
  }
  for (int i = 0; i < 4; ++i)  // 32-bit pairs of the row pairs (4i, 4i+2) and (4i+1, 4i+3)
    for (int h = 0; h < 2; ++h) {
      p32[4 * i + 2 * h] = _mm256_unpacklo_epi32(p16[4 * i + h], p16[4 * i + 2 + h]);
      p32[4 * i + 2 * h + 1] = _mm256_unpackhi_epi32(p16[4 * i + h], p16[4 * i + 2 + h]);
    }
  for (int i = 0; i < 2; ++i)  // 64-bit pairs of the row quads (8i .. 8i+3) and (8i+4 .. 8i+7)
    for (int h = 0; h < 4; ++h) {
      p64[8 * i + 2 * h] = _mm256_unpacklo_epi64(p32[8 * i + h], p32[8 * i + 4 + h]);
      p64[8 * i + 2 * h + 1] = _mm256_unpackhi_epi64(p32[8 * i + h], p32[8 * i + 4 + h]);
    }
  // p64[k] holds input column k (low half) and k + 8 (high half) of rows 0-7, p64[8 + k] the same of rows 8-15.
  for (int k = 0; k < 8; ++k) {
    _mm256_storeu_si256(out + k, _mm256_permute2x128_si256(p64[k], p64[8 + k], 0x20));
    _mm256_storeu_si256(out + k + 8, _mm256_permute2x128_si256(p64[k], p64[8 + k], 0x31));
  }
}

// The 8-bit transpose of one repeat: src holds two 16 x 32-byte fractals, the rows 0-15 and 16-31 of a 32 x 32
// square S; T = S^T; dst0 gets rows 0-15 of T, dst1 rows 16-31 (vendor LoadDataWithTranspose, b8).
void transpose_square8(uint8_t* dst0, uint8_t* dst1, const uint8_t* src) {
  uint8_t t[32][32];
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) t[c][r] = src[r * 32 + c];
  std::memcpy(dst0, t[0], kFractalBytes);
  std::memcpy(dst1, t[16], kFractalBytes);
}

// The 4-bit transpose of one repeat: src holds four 16 x 64-nibble fractals, the rows 0-63 of a 64 x 64 square S
// (element c of a row in nibble c % 2 of byte c / 2, the low nibble first); T = S^T; fractal k of dst (k = 0..3,
// `step` bytes apart) gets rows 16k .. 16k + 15 of T (vendor LoadDataWithTranspose, int4b_t).
void transpose_square4(uint8_t* dst, uint64_t step, const uint8_t* src) {
  uint8_t t[64][32] = {};
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) {
      const uint8_t nib = (src[r * 32 + c / 2] >> (4 * (c & 1))) & 0xf;
      t[c][r / 2] = static_cast<uint8_t>(t[c][r / 2] | (nib << (4 * (r & 1))));
    }
  for (int k = 0; k < 4; ++k) std::memcpy(dst + k * step, t[16 * k], kFractalBytes);
}

}  // namespace

void exec(const DataCopy& in, ExecContext& ctx) {
  check_copy_path(in, ctx);
  check_field("nburst", in.nburst, 1, 4095);
  check_field("burst_bytes", in.burst_bytes, 1, 1 << 21);
  std::vector<uint8_t> pad;
  if (in.pad) {
    if (in.dst.buf == Buf::GM) isa_fail("field pad: padding fills local blocks and needs a ub or l1 destination");
    pad = pad_pattern(in.pad_dtype, in.pad_value);
    if (in.burst_bytes % pad.size() != 0)
      isa_fail("field burst_bytes: " + std::to_string(in.burst_bytes) + " is not a whole number of " +
               std::string(dtype_name(in.pad_dtype)) + " pad elements");
  }
  const uint8_t* src = operand_bytes(ctx, "src", in.src, copy_extent(in, in.src.buf, in.src_gap, false), {in.src.buf});
  uint8_t* dst = operand_bytes(ctx, "dst", in.dst, copy_extent(in, in.dst.buf, in.dst_gap, in.pad), {in.dst.buf});
  const uint64_t src_stride = burst_stride(in, in.src.buf, in.src_gap);
  const uint64_t dst_stride = burst_stride(in, in.dst.buf, in.dst_gap);
  const uint64_t padded = ceil_div(in.burst_bytes, kBlockBytes) * kBlockBytes;
  for (uint64_t b = 0; b < in.nburst; ++b) {
    uint8_t* d = dst + b * dst_stride;
    std::memcpy(d, src + b * src_stride, in.burst_bytes);
    if (in.pad)
      for (uint64_t x = in.burst_bytes; x < padded; ++x) d[x] = pad[x % pad.size()];
  }
}

void exec(const Nd2Nz& in, ExecContext& ctx) {
  check_nd2nz_fields(in);
  NzGeometry g;
  g.esize = bytes_of(in.dtype);
  g.c0 = kBlockBytes / g.esize;
  g.groups = ceil_div(in.d_value, g.c0);
  g.matrix_blocks = in.dst_nz_matrix_stride * g.esize / kBlockBytes;
  if (in.nd_num == 0 || in.n_value == 0 || in.d_value == 0) {  // nothing moves; the buffers must still be right
    operand_bytes(ctx, "src", in.src, 0, {Buf::GM});
    operand_bytes(ctx, "dst", in.dst, 0, {Buf::L1});
    return;
  }
  const uint64_t src_elems =
      (in.nd_num - 1ull) * in.src_nd_matrix_stride + (in.n_value - 1ull) * in.src_d_value + in.d_value;
  const uint64_t dst_blocks = g.block_of(in.nd_num - 1ull, in.n_value - 1ull, g.groups - 1, in) + 1;
  const uint8_t* src = operand_bytes(ctx, "src", in.src, src_elems * g.esize, {Buf::GM});
  uint8_t* dst = operand_bytes(ctx, "dst", in.dst, dst_blocks * kBlockBytes, {Buf::L1});
  check_nz_blocks_distinct(in, g, dst_blocks);
  // In bands of 16 rows (one fractal), column group by column group: the destination blocks of a group are
  // consecutive rows, so each band writes 512 contiguous bytes per group and reads each source row's band
  // while it is in the host cache. Row-major order wrote each row's blocks a whole group apart (n_value x 32
  // bytes, often a multiple of 4 KiB: a few host cache sets fought over), group-major order read a row per page.
  // Every block is distinct (checked above), so the order does not change the result.
  constexpr uint64_t kBand = 16;
  const uint64_t row_step = in.src_d_value * g.esize;
  for (uint64_t i = 0; i < in.nd_num; ++i)
    for (uint64_t r0 = 0; r0 < in.n_value; r0 += kBand) {
      const uint64_t r1 = std::min<uint64_t>(in.n_value, r0 + kBand);
      for (uint64_t c = 0; c < g.groups; ++c) {
        const uint64_t bytes = std::min<uint64_t>(g.c0, in.d_value - c * g.c0) * g.esize;
        const uint8_t* col = src + (i * in.src_nd_matrix_stride + c * g.c0) * g.esize;
        for (uint64_t r = r0; r < r1; ++r) {
          uint8_t* blk = dst + g.block_of(i, r, c, in) * kBlockBytes;
          if (bytes == kBlockBytes) {  // a whole block: a fixed-size copy (inlined)
            std::memcpy(blk, col + r * row_step, kBlockBytes);
            continue;
          }
          std::memcpy(blk, col + r * row_step, bytes);
          std::memset(blk + bytes, 0, kBlockBytes - bytes);  // the zeroed tail doubles as K / N padding
        }
      }
    }
}

void exec(const Load2d& in, ExecContext& ctx) {
  // Squares: an 8-bit transpose merges two fractals (32 x 32 bytes), a 4-bit one four (64 x 64 nibbles).
  const uint64_t per = load2d_fractals(in);  // source (and destination) fractals per repeat
  if (in.transpose && bits_of(in.dtype) != 16 && per == 1)
    isa_fail(
        "field transpose: load2d transposes 16 x 16 fractals of 16-bit types (f16, bf16, s16), 32 x 32 squares of "
        "8-bit types (s8, u8) and 64 x 64 squares of s4, not " +
        std::string(dtype_name(in.dtype)));
  if (in.dst_frac_gap != 0 && per == 1)
    isa_fail("field dst_frac_gap = " + std::to_string(in.dst_frac_gap) +
             ": only an 8-bit or 4-bit transpose writes several fractals per repeat (it must be 0 here)");
  if (per == 4 && in.dst.buf != Buf::L0B)
    isa_fail("field dst: an s4 transpose writes L0B only (vendor LoadDataWithTranspose: int4b_t only to B2), not " +
             std::string(buf_name(in.dst.buf)));
  const uint64_t reps = in.repeat, step = per > 1 ? 1ull + in.dst_frac_gap : 0;  // destination fractals of a square
  const uint64_t src_len = reps ? (in.start_index + (reps - 1) * in.src_stride + per) * kFractalBytes : 0;
  const uint64_t dst_len = reps ? ((reps - 1) * (1ull + in.dst_gap) + 1 + (per - 1) * step) * kFractalBytes : 0;
  const uint8_t* src = operand_bytes(ctx, "src", in.src, src_len, {Buf::L1});
  uint8_t* dst = operand_bytes(ctx, "dst", in.dst, dst_len, {Buf::L0A, Buf::L0B});
  for (uint64_t j = 0; j < reps; ++j) {
    const uint8_t* s = src + (in.start_index + j * in.src_stride) * kFractalBytes;
    uint8_t* d = dst + j * (1ull + in.dst_gap) * kFractalBytes;
    if (per == 2) transpose_square8(d, d + step * kFractalBytes, s);
    else if (per == 4) transpose_square4(d, step * kFractalBytes, s);
    else if (in.transpose) transpose_fractal16(d, s);
    else std::memcpy(d, s, kFractalBytes);
  }
}

}  // namespace npusim::isa::impl
