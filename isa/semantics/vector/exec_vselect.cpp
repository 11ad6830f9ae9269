// Compare and select: vcmp writes one bit per lane, vsel picks src0 or src1 (or a scalar) by those bits.
// isa/README.md section 4.
#include <immintrin.h>

#include <cstring>
#include <vector>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"
#include "isa/semantics/vector/vec_drive.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::impl {

namespace {
using namespace vec;

bool compare(CmpOp op, float a, float b) {  // IEEE: every relation with a NaN is false, so NE is true
  switch (op) {
    case CmpOp::LT: return a < b;
    case CmpOp::GT: return a > b;
    case CmpOp::EQ: return a == b;
    case CmpOp::LE: return a <= b;
    case CmpOp::GE: return a >= b;
    case CmpOp::NE: return !(a == b);
  }
  return false;
}

// Eight lanes -> eight bits (lane i in bit i).
int compare8(CmpOp op, __m256 a, __m256 b) {
  switch (op) {
    case CmpOp::LT: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ));
    case CmpOp::GT: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ));
    case CmpOp::EQ: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ));
    case CmpOp::LE: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ));
    case CmpOp::GE: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ));
    case CmpOp::NE: return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ));
  }
  return 0;
}

float lane_f32(const LaneOperand& op, int r, int l) {
  const uint32_t bits = load_bits(op.base + op.lane_offset(r, l), op.size);
  return op.size == 2 ? f16_to_f32(static_cast<uint16_t>(bits)) : f32_from_bits(bits);
}

void cmp_reference(CmpOp op, const VecGeom& g, const LaneOperand& a, const LaneOperand& b, uint8_t* dst) {
  const int bytes = g.lanes() / 8;
  std::vector<uint8_t> bits(bytes);
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    std::fill(bits.begin(), bits.end(), 0);
    for (int l = 0; l < g.lanes(); ++l)
      if (en.test(l) && compare(op, lane_f32(a, r, l), lane_f32(b, r, l))) bits[l / 8] |= uint8_t(1u << (l % 8));
    std::memcpy(dst + uint64_t(r) * bytes, bits.data(), bytes);
  }
}

void cmp_fast(CmpOp op, const VecGeom& g, const LaneOperand& a, const LaneOperand& b, uint8_t* dst) {
  alignas(32) float ra[kMaxLanes] = {}, rb[kMaxLanes] = {}, fa[kMaxLanes], fb[kMaxLanes];
  const int bytes = g.lanes() / 8;
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    gather_repeat(a, r, en, g.lanes(), ra);
    gather_repeat(b, r, en, g.lanes(), rb);
    const float *pa = ra, *pb = rb;
    if (a.size == 2) {
      widen_f16_n(ra, fa, g.lanes());
      widen_f16_n(rb, fb, g.lanes());
      pa = fa, pb = fb;
    }
    uint8_t* out = dst + uint64_t(r) * bytes;
    for (int i = 0; i < bytes; ++i) {
      const auto enabled = static_cast<uint8_t>(en.w[i / 8] >> (8 * (i % 8)));
      out[i] = static_cast<uint8_t>(compare8(op, _mm256_loadu_ps(pa + 8 * i), _mm256_loadu_ps(pb + 8 * i))) & enabled;
    }
  }
}

// vsel, Fast: lanes 8 at a time, each selector byte expanded to a per-lane blend mask.
void select_chunk(const uint8_t* sel, int size, const Chunk& c, const void* a, const void* b, void* d) {
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  auto* pd = static_cast<uint8_t*>(d);
  for (int i = 0; i < c.n8; i += 8) {
    const int byte = sel[(c.first + i) / 8];
    if (size == 2) {
      const __m128i lane_bit = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
      const __m128i m = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(static_cast<int16_t>(byte)), lane_bit), lane_bit);
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa + 2 * i));
      const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pb + 2 * i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(pd + 2 * i), _mm_blendv_epi8(y, x, m));
    } else {
      const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
      const __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(byte), lane_bit), lane_bit);
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa + 4 * i));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb + 4 * i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(pd + 4 * i), _mm256_blendv_epi8(y, x, m));
    }
  }
}
}  // namespace

void exec(const VCmp& in, ExecContext& ctx) {
  check_field("op", static_cast<int>(in.op), 0, static_cast<int>(CmpOp::NE));
  check_dtype(in.dtype, {DType::F16, DType::F32});
  const int size = bytes_of(in.dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand a{"src0", in.src0, in.src0_s, size}, b{"src1", in.src1, in.src1_s, size};
  const Footprint dst_fp = Footprint::of_runs("dst", in.dst, 1, uint64_t(g.repeats()) * g.lanes() / 8, 0);
  const Footprint a_fp = Footprint::of_lanes(a, g), b_fp = Footprint::of_lanes(b, g);
  uint8_t* dst = check_operand(ctx, in.dst, dst_fp);
  check_lane_operand(ctx, a, a_fp);
  check_lane_operand(ctx, b, b_fp);
  check_no_overlap(dst_fp, a_fp);
  check_no_overlap(dst_fp, b_fp);
  if (exec_path() == ExecPath::Reference) cmp_reference(in.op, g, a, b, dst);
  else cmp_fast(in.op, g, a, b, dst);
}

void exec(const VSel& in, ExecContext& ctx) {
  check_dtype(in.dtype, {DType::F16, DType::BF16, DType::F32, DType::I16, DType::I32});
  const int size = bytes_of(in.dtype);
  const uint32_t scalar = in.scalar_mode ? scalar_bits(in.dtype, in.scalar, "scalar") : 0;
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  LaneOperand srcs[] = {{"src0", in.src0, in.src0_s, size}, {"src1", in.src1, in.src1_s, size}};
  const std::span<LaneOperand> used(srcs, in.scalar_mode ? 1 : 2);  // scalar mode ignores src1 entirely
  check_elementwise(ctx, g, dst, used);
  const Footprint sel_fp = Footprint::of_runs("sel", in.sel, 1, uint64_t(g.repeats()) * g.lanes() / 8, 0);
  const uint8_t* sel = check_operand(ctx, in.sel, sel_fp);
  check_no_overlap(Footprint::of_lanes(dst, g), sel_fp);
  const bool scalar_mode = in.scalar_mode;
  if (exec_path() == ExecPath::Reference)
    return run_reference(g, dst, used, [=](const uint32_t* s, uint64_t e) {
      return ((sel[e / 8] >> (e % 8)) & 1) ? s[0] : (scalar_mode ? scalar : s[1]);
    });
  Broadcast fill(scalar, size);
  run_fast(g, dst, used, [&](const Chunk& c, const void* const* s, void* d) {
    select_chunk(sel, size, c, s[0], scalar_mode ? fill.words : s[1], d);
  });
}

}  // namespace npusim::isa::impl
