// vconv: element type conversion. Each supported (source, destination) pair maps to one function of
// isa/numeric.h; isa/README.md section 4 lists the pairs, rounding modes and the saturation flag.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"
#include "isa/semantics/vector/vec_drive.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::impl {

namespace {
using namespace vec;

enum class Conv {
  F32toF16,
  F32toBF16,
  F16toF32,
  BF16toF32,
  F16toS8,
  F32toS32,
  F16toS32,
  S32toF32,
  S32toF16,
  U8toF16,
  S8toF16,
  F32toF32,
  F16toS4
};

struct ConvPair {
  DType src, dst;
  Conv conv;
};
constexpr ConvPair kPairs[] = {
    {DType::F32, DType::F16, Conv::F32toF16},
    {DType::F32, DType::BF16, Conv::F32toBF16},
    {DType::F16, DType::F32, Conv::F16toF32},
    {DType::BF16, DType::F32, Conv::BF16toF32},
    {DType::F16, DType::I8, Conv::F16toS8},
    {DType::F32, DType::I32, Conv::F32toS32},
    {DType::F16, DType::I32, Conv::F16toS32},
    {DType::I32, DType::F32, Conv::S32toF32},
    {DType::I32, DType::F16, Conv::S32toF16},
    // Byte -> f16 (vendor vconv_u82f16 / vconv_s82f16): exact; attention kernels turn mask bytes into f16 to compare.
    {DType::U8, DType::F16, Conv::U8toF16},
    {DType::I8, DType::F16, Conv::S8toF16},
    // f32 -> f32 rounded to an integral value (vendor Cast<float, float> with CAST_RINT / ROUND / FLOOR / CEIL /
    // TRUNC; the MSD antiquant kernels split the query into int8 limbs with CAST_ROUND, msd_research.md §2).
    {DType::F32, DType::F32, Conv::F32toF32},
    // f16 -> s4, packed two per byte (vendor Cast<int4b_t, half>; the int4 MSD limbs, msd_research.md §9).
    {DType::F16, DType::I4, Conv::F16toS4},
};

std::string pair_name(DType s, DType d) { return std::string(dtype_name(s)) + " -> " + std::string(dtype_name(d)); }

Conv find_conv(const VCast& in) {
  for (const auto& p : kPairs)
    if (p.src == in.src_dtype && p.dst == in.dst_dtype) return p.conv;
  std::string list;
  for (const auto& p : kPairs) {
    if (!list.empty()) list += ", ";
    list += pair_name(p.src, p.dst);
  }
  isa_fail("vconv " + pair_name(in.src_dtype, in.dst_dtype) + " is not supported (supported: " + list + ")");
}

void check_round(const VCast& in, Conv c) {
  check_field("round", static_cast<int>(in.round), 0, static_cast<int>(RoundMode::ODD));
  const bool exact =
      c == Conv::F16toF32 || c == Conv::BF16toF32 || c == Conv::U8toF16 || c == Conv::S8toF16;  // mode ignored
  if (in.round == RoundMode::ODD && c != Conv::F32toF16 && !exact)
    isa_fail("field round = odd is not supported for vconv " + pair_name(in.src_dtype, in.dst_dtype) +
             " (round to odd exists for f32 -> f16 only)");
}

struct Cast {
  Conv conv;
  RoundMode mode;
  Overflow overflow;
};

// Rounds to an integral fp32 value in the mode (every fp32 of magnitude >= 2^23 already is one); saturation turns
// NaN into +0 and infinities into +-max finite like every saturating conversion.
uint32_t f32_integral(float x, RoundMode m, Overflow o) {
  if (o == Overflow::Saturate && std::isnan(x)) return 0u;
  if (o == Overflow::Saturate && std::isinf(x)) return f32_bits(std::copysign(FLT_MAX, x));
  return f32_bits(f32_round_integral(x, m));
}

uint32_t convert(const Cast& c, uint32_t bits) {
  const auto h = static_cast<uint16_t>(bits);
  const auto i = static_cast<int32_t>(bits);
  switch (c.conv) {
    case Conv::F32toF16: return f32_to_f16(f32_from_bits(bits), c.mode, c.overflow);
    case Conv::F32toBF16: return f32_to_bf16(f32_from_bits(bits), c.mode, c.overflow);
    case Conv::F16toF32: return f32_bits(f16_to_f32(h));
    case Conv::BF16toF32: return f32_bits(bf16_to_f32(h));
    case Conv::F16toS8: return static_cast<uint8_t>(f16_to_s8(h, c.mode));
    case Conv::F32toS32: return static_cast<uint32_t>(f32_to_s32(f32_from_bits(bits), c.mode));
    case Conv::F16toS32: return static_cast<uint32_t>(f32_to_s32(f16_to_f32(h), c.mode));
    case Conv::S32toF32: return round_to_binary(static_cast<double>(i), 8, 23, c.mode, c.overflow);
    case Conv::S32toF16: return s32_to_f16(i, c.mode, c.overflow);
    case Conv::U8toF16: return s32_to_f16(static_cast<int32_t>(bits & 0xffu), RoundMode::RINT, Overflow::Ieee);
    case Conv::S8toF16: return s32_to_f16(static_cast<int8_t>(bits & 0xffu), RoundMode::RINT, Overflow::Ieee);
    case Conv::F32toF32: return f32_integral(f32_from_bits(bits), c.mode, c.overflow);
    case Conv::F16toS4:
      return static_cast<uint8_t>(f32_to_s4(f16_to_f32(h), c.mode) & 0xf);  // one nibble (cast_to_s4 packs)
  }
  return 0;
}

// ---- Fast kernels for the conversions on a softmax's path; the others call convert() per element ----
void f32_to_f16_rint(const Cast& c, const void* src, void* dst, int n8) {
  round_f16_n(static_cast<const float*>(src), dst, n8);
  if (c.overflow == Overflow::Ieee) return;
  // Saturate: infinities (from overflow or an infinite input) become +-65504, NaN becomes +0.
  uint16_t h[kChunkLanes];
  std::memcpy(h, dst, size_t(n8) * 2);
  for (int k = 0; k < n8; ++k) {
    const uint16_t mag = h[k] & 0x7fff;
    h[k] = mag > kF16InfBits ? 0 : mag == kF16InfBits ? static_cast<uint16_t>((h[k] & 0x8000) | kF16MaxBits) : h[k];
  }
  std::memcpy(dst, h, size_t(n8) * 2);
}

void f32_to_bf16_rint(const Cast& c, const void* src, void* dst, int n8) {
  uint32_t u[kChunkLanes];
  uint16_t out[kChunkLanes];
  std::memcpy(u, src, size_t(n8) * 4);
  const bool sat = c.overflow == Overflow::Saturate;
  for (int k = 0; k < n8; ++k) {
    const bool nan = (u[k] & 0x7fffffffu) > 0x7f800000u;
    // Round to nearest even on the bits: add 0x7fff plus the lowest kept bit; carries reach the exponent
    // exactly when the value rounds up into the next binade (or to infinity).
    const auto r = static_cast<uint16_t>((u[k] + 0x7fffu + ((u[k] >> 16) & 1u)) >> 16);
    const bool inf = (r & 0x7fff) == kBf16InfBits;
    const auto ieee = nan ? static_cast<uint16_t>((u[k] >> 16) | 0x40u) : r;
    const auto satd = nan ? uint16_t{0} : inf ? static_cast<uint16_t>((r & 0x8000) | kBf16MaxBits) : r;
    out[k] = sat ? satd : ieee;
  }
  std::memcpy(dst, out, size_t(n8) * 2);
}

void bf16_to_f32(const void* src, void* dst, int n8) {
  uint16_t h[kChunkLanes];
  uint32_t out[kChunkLanes];
  std::memcpy(h, src, size_t(n8) * 2);
  for (int k = 0; k < n8; ++k) out[k] = uint32_t{h[k]} << 16;
  std::memcpy(dst, out, size_t(n8) * 4);
}

void per_element(const Cast& c, int src_size, int dst_size, const void* src, void* dst, int n8) {
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  for (int k = 0; k < n8; ++k)
    store_bits(d + k * dst_size, dst_size, convert(c, load_bits(s + k * src_size, src_size)));
}

ChunkFn fast_cast(const Cast& c, int src_size, int dst_size) {
  return [=](const Chunk& ch, const void* const* s, void* d) {
    if (c.conv == Conv::F16toF32) return widen_f16_n(s[0], static_cast<float*>(d), ch.n8);
    if (c.conv == Conv::BF16toF32) return bf16_to_f32(s[0], d, ch.n8);
    if (c.mode == RoundMode::RINT && c.conv == Conv::F32toF16) return f32_to_f16_rint(c, s[0], d, ch.n8);
    if (c.mode == RoundMode::RINT && c.conv == Conv::F32toBF16) return f32_to_bf16_rint(c, s[0], d, ch.n8);
    per_element(c, src_size, dst_size, s[0], d, ch.n8);
  };
}
// f16 -> s4: 128 lanes per repeat; the destination is packed, lane l of repeat r in nibble l % 2 (the low one
// first) of byte dst + r * rep * 32 + l / 2: a repeat writes 64 contiguous bytes (dst blk must be 1).
void cast_to_s4(const VCast& in, const Cast& c, ExecContext& ctx) {
  if (in.dst_s.blk != 1)
    isa_fail("field dst_blk = " + std::to_string(in.dst_s.blk) +
             ": an s4 destination is packed, a repeat writes 64 contiguous bytes (dst_blk must be 1)");
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(2));
  LaneOperand src{"src", in.src, in.src_s, 2};
  const Footprint src_fp = Footprint::of_lanes(src, g);
  const Footprint dst_fp =
      Footprint::of_runs("dst", in.dst, uint64_t(g.repeats()), kRepeatBytes / 4, uint64_t(in.dst_s.rep) * kBlockBytes);
  check_lane_operand(ctx, src, src_fp);
  uint8_t* dst = check_operand(ctx, in.dst, dst_fp);
  check_reduction_overlap(in.dst, dst_fp, in.src, src_fp);
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet on = g.enabled(r);
    uint8_t* d = dst + uint64_t(r) * in.dst_s.rep * kBlockBytes;
    for (int l = 0; l < g.lanes(); ++l)
      if (on.test(l)) {
        const auto h = static_cast<uint16_t>(load_bits(src.base + src.lane_offset(r, l), 2));
        s4_set(d, uint64_t(l), f32_to_s4(f16_to_f32(h), c.mode));
      }
  }
}
}  // namespace

void exec(const VCast& in, ExecContext& ctx) {
  const Conv conv = find_conv(in);
  check_round(in, conv);
  if (conv == Conv::F16toS4) return cast_to_s4(in, {conv, in.round, Overflow::Saturate}, ctx);
  const int src_size = bytes_of(in.src_dtype), dst_size = bytes_of(in.dst_dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(std::max(src_size, dst_size)));
  LaneOperand dst{"dst", in.dst, in.dst_s, dst_size};
  LaneOperand srcs[] = {{"src", in.src, in.src_s, src_size}};
  if (src_size == dst_size) {
    check_elementwise(ctx, g, dst, srcs);
  } else {  // a size-changing cast moves lanes between blocks: only the in-place start is allowed
    const Footprint dst_fp = Footprint::of_lanes(dst, g), src_fp = Footprint::of_lanes(srcs[0], g);
    check_lane_operand(ctx, dst, dst_fp);
    check_lane_operand(ctx, srcs[0], src_fp);
    check_reduction_overlap(in.dst, dst_fp, in.src, src_fp);
  }
  const Cast c{conv, in.round, in.sat ? Overflow::Saturate : Overflow::Ieee};
  if (exec_path() == ExecPath::Reference)
    return run_reference(g, dst, srcs, [c](const uint32_t* s, uint64_t) { return convert(c, s[0]); });
  run_fast(g, dst, srcs, fast_cast(c, src_size, dst_size));
}

}  // namespace npusim::isa::impl
