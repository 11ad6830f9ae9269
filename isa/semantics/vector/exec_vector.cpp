// Elementwise vector arithmetic: vadd vsub vmul vdiv vmax vmin, vadds vmuls vmaxs vmins and the unary ops.
// Semantics and the reasons for them: isa/README.md section 4.
#include <memory>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"
#include "isa/semantics/vector/vec_drive.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::impl {

namespace {
using namespace vec;

// Source lanes -> fp32 (f16 widened exactly), op in fp32, f16 rounded once.
float to_f32(DType t, uint32_t bits) {
  return t == DType::F16 ? f16_to_f32(static_cast<uint16_t>(bits)) : f32_from_bits(bits);
}
uint32_t from_f32(DType t, float x) { return t == DType::F16 ? f16_round(x) : f32_bits(x); }
int64_t to_int(DType t, uint32_t bits) {
  return t == DType::I16 ? int64_t(static_cast<int16_t>(bits)) : int64_t(static_cast<int32_t>(bits));
}

// ---- Reference lane functions --------------------------------------------------------------------
LaneFn ref_binary(VBinOp op, DType t, const uint32_t* scalar) {
  // scalar != nullptr: the second operand is that immediate (already rounded to t) instead of src1.
  if (is_float(t))
    return [=](const uint32_t* s, uint64_t) {
      return from_f32(t, binary_f32(op, to_f32(t, s[0]), to_f32(t, scalar ? *scalar : s[1])));
    };
  return [=](const uint32_t* s, uint64_t) {
    return wrap_bits(binary_int(op, to_int(t, s[0]), to_int(t, scalar ? *scalar : s[1])), bits_of(t));
  };
}

LaneFn ref_unary(VUnaryOp op, DType t) {
  if (is_float(t)) return [=](const uint32_t* s, uint64_t) { return from_f32(t, unary_f32(op, to_f32(t, s[0]))); };
  return [=](const uint32_t* s, uint64_t) { return wrap_bits(unary_int(op, to_int(t, s[0])), bits_of(t)); };
}

// ---- Fast chunk kernels -------------------------------------------------------------------------
// `b_override`: a pre-filled array used as the second operand (the vadds scalar broadcast).
ChunkFn fast_binary(VBinOp op, DType t, const void* b_override) {
  if (t == DType::F16)
    return [=](const Chunk& c, const void* const* s, void* d) {
      alignas(32) float a[kChunkLanes], b[kChunkLanes];
      widen_f16_n(s[0], a, c.n8);
      widen_f16_n(b_override ? b_override : s[1], b, c.n8);
      binary_f32_n(op, a, b, a, c.n8);
      round_f16_n(a, d, c.n8);
    };
  if (t == DType::F32)
    return [=](const Chunk& c, const void* const* s, void* d) {
      binary_f32_n(op, static_cast<const float*>(s[0]), static_cast<const float*>(b_override ? b_override : s[1]),
                   static_cast<float*>(d), c.n8);
    };
  const int bits = bits_of(t);
  return [=](const Chunk& c, const void* const* s, void* d) {
    binary_int_n(op, bits, s[0], b_override ? b_override : s[1], d, c.n8);
  };
}

ChunkFn fast_unary(VUnaryOp op, DType t) {
  if (t == DType::F16)
    return [=](const Chunk& c, const void* const* s, void* d) {
      alignas(32) float a[kChunkLanes];
      widen_f16_n(s[0], a, c.n8);
      unary_f32_n(op, a, a, c.n8);
      round_f16_n(a, d, c.n8);
    };
  if (t == DType::F32)
    return [=](const Chunk& c, const void* const* s, void* d) {
      unary_f32_n(op, static_cast<const float*>(s[0]), static_cast<float*>(d), c.n8);
    };
  const int bits = bits_of(t);
  return [=](const Chunk& c, const void* const* s, void* d) { unary_int_n(op, bits, s[0], d, c.n8); };
}

void run(const VecGeom& g, LaneOperand& dst, std::span<LaneOperand> srcs, const LaneFn& ref, const ChunkFn& fast) {
  if (exec_path() == ExecPath::Reference) run_reference(g, dst, srcs, ref);
  else run_fast(g, dst, srcs, fast);
}

VBinOp scalar_to_binary(VScalarOp op) {
  switch (op) {
    case VScalarOp::Adds: return VBinOp::Add;
    case VScalarOp::Muls: return VBinOp::Mul;
    case VScalarOp::Maxs: return VBinOp::Max;
    case VScalarOp::Mins: return VBinOp::Min;
  }
  return VBinOp::Add;
}
}  // namespace

void exec(const VBinary& in, ExecContext& ctx) {
  check_field("op", static_cast<int>(in.op), 0, static_cast<int>(VBinOp::Min));
  if (in.op == VBinOp::Div) check_dtype(in.dtype, {DType::F16, DType::F32});
  else check_dtype(in.dtype, {DType::F16, DType::F32, DType::I16, DType::I32});
  const int size = bytes_of(in.dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  LaneOperand srcs[] = {{"src0", in.src0, in.src0_s, size}, {"src1", in.src1, in.src1_s, size}};
  check_elementwise(ctx, g, dst, srcs);
  run(g, dst, srcs, ref_binary(in.op, in.dtype, nullptr), fast_binary(in.op, in.dtype, nullptr));
}

void exec(const VScalar& in, ExecContext& ctx) {
  check_field("op", static_cast<int>(in.op), 0, static_cast<int>(VScalarOp::Mins));
  check_dtype(in.dtype, {DType::F16, DType::F32, DType::I16, DType::I32});
  const int size = bytes_of(in.dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  const uint32_t scalar = scalar_bits(in.dtype, in.scalar, "scalar");
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  LaneOperand srcs[] = {{"src", in.src, in.src_s, size}};
  check_elementwise(ctx, g, dst, srcs);
  const VBinOp op = scalar_to_binary(in.op);
  if (exec_path() == ExecPath::Reference) return run_reference(g, dst, srcs, ref_binary(op, in.dtype, &scalar));
  const auto broadcast = std::make_unique<Broadcast>(scalar, size);
  run_fast(g, dst, srcs, fast_binary(op, in.dtype, broadcast->words));
}

void exec(const VUnary& in, ExecContext& ctx) {
  check_field("op", static_cast<int>(in.op), 0, static_cast<int>(VUnaryOp::Relu));
  if (in.op == VUnaryOp::Abs || in.op == VUnaryOp::Relu)
    check_dtype(in.dtype, {DType::F16, DType::F32, DType::I16, DType::I32});
  else check_dtype(in.dtype, {DType::F16, DType::F32});
  const int size = bytes_of(in.dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  LaneOperand srcs[] = {{"src", in.src, in.src_s, size}};
  check_elementwise(ctx, g, dst, srcs);
  run(g, dst, srcs, ref_unary(in.op, in.dtype), fast_unary(in.op, in.dtype));
}

}  // namespace npusim::isa::impl
