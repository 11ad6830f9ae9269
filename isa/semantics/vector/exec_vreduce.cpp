// Reductions: vcmax vcmin vcadd (whole repeat), vcgmax vcgmin vcgadd (per 32-byte block), vcpadd (pairs).
// All three are the same balanced pairwise tree over a repeat's lanes, stopped after a different number of
// levels: 1 for vcpadd, log2(lanes per block) for block reduce, log2(lanes) for whole reduce.
// isa/README.md section 4 gives the tree, the identities and the rounding of every node.
#include <cstring>
#include <limits>
#include <vector>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"
#include "isa/semantics/vector/vec_drive.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::impl {

namespace {
using namespace vec;

struct Reduction {
  VRedOp op;
  bool f16;
  int levels;           // tree levels: lanes >> levels results per repeat
  uint64_t out_stride;  // bytes between the results of consecutive repeats
};

float identity(VRedOp op) {  // what a disabled lane contributes
  if (op == VRedOp::Max) return -std::numeric_limits<float>::infinity();
  if (op == VRedOp::Min) return std::numeric_limits<float>::infinity();
  return 0.0f;  // +0
}

VBinOp node_op(VRedOp op) { return op == VRedOp::Max ? VBinOp::Max : op == VRedOp::Min ? VBinOp::Min : VBinOp::Add; }

// One tree node: the fp32 operation, rounded to f16 for f16 data (every node rounds).
float node(const Reduction& red, float a, float b) {
  const float r = binary_f32(node_op(red.op), a, b);
  return red.f16 ? f16_to_f32(f16_round(r)) : r;
}

void write_results(const Reduction& red, const float* x, int count, uint8_t* out) {
  for (int i = 0; i < count; ++i)
    store_bits(out + i * (red.f16 ? 2 : 4), red.f16 ? 2 : 4, red.f16 ? f16_round(x[i]) : f32_bits(x[i]));
}

void reduce_reference(const Reduction& red, const VecGeom& g, const LaneOperand& src, uint8_t* dst) {
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    std::vector<float> x(g.lanes());
    for (int l = 0; l < g.lanes(); ++l) {
      if (!en.test(l)) {  // not read: a disabled lane may lie outside the checked footprint
        x[l] = identity(red.op);
        continue;
      }
      const uint32_t bits = load_bits(src.base + src.lane_offset(r, l), src.size);
      x[l] = red.f16 ? f16_to_f32(static_cast<uint16_t>(bits)) : f32_from_bits(bits);
    }
    for (int level = 0; level < red.levels; ++level) {  // t[i] = op(x[2i], x[2i+1])
      std::vector<float> t(x.size() / 2);
      for (size_t i = 0; i < t.size(); ++i) t[i] = node(red, x[2 * i], x[2 * i + 1]);
      x = std::move(t);
    }
    write_results(red, x.data(), static_cast<int>(x.size()), dst + r * red.out_stride);
  }
}

void reduce_fast(const Reduction& red, const VecGeom& g, const LaneOperand& src, uint8_t* dst) {
  alignas(32) float raw[kMaxLanes] = {}, x[kMaxLanes], even[kMaxLanes] = {}, odd[kMaxLanes] = {};
  alignas(32) uint16_t half[kMaxLanes];
  const LaneSet all = LaneSet::first_n(g.lanes());
  const VBinOp op = node_op(red.op);
  for (int r = 0; r < g.repeats(); ++r) {
    const LaneSet en = g.enabled(r);
    if (red.f16) {
      gather_repeat(src, r, en, g.lanes(), raw);
      widen_f16_n(raw, x, g.lanes());
    } else {
      gather_repeat(src, r, en, g.lanes(), x);  // fp32 lanes are the values: no staging copy
    }
    if (en.w[0] != all.w[0] || en.w[1] != all.w[1])
      for (int l = 0; l < g.lanes(); ++l)
        if (!en.test(l)) x[l] = identity(red.op);
    int n = g.lanes();
    for (int level = 0; level < red.levels; ++level, n /= 2) {
      for (int i = 0; i < n / 2; ++i) even[i] = x[2 * i], odd[i] = x[2 * i + 1];
      const int n8 = (n / 2 + 7) & ~7;  // entries past n/2 are computed and ignored
      binary_f32_n(op, even, odd, x, n8);
      if (red.f16) {
        round_f16_n(x, half, n8);
        widen_f16_n(half, x, n8);
      }
    }
    write_results(red, x, n, dst + r * red.out_stride);
  }
}

void run_reduction(ExecContext& ctx, const Reduction& red, DType dtype, const VecMask& mask, int repeat, Addr src_addr,
                   VStride src_s, Addr dst_addr) {
  const int size = bytes_of(dtype);
  const VecGeom g = VecGeom::from_mask(mask, repeat, lanes_for(size));
  LaneOperand src{"src", src_addr, src_s, size};
  const int results = g.lanes() >> red.levels;
  const Footprint src_fp = Footprint::of_lanes(src, g);
  const Footprint dst_fp = Footprint::of_runs("dst", dst_addr, g.repeats(), uint64_t(results) * size, red.out_stride);
  uint8_t* dst = check_operand(ctx, dst_addr, dst_fp);
  check_lane_operand(ctx, src, src_fp);
  check_reduction_overlap(dst_addr, dst_fp, src_addr, src_fp);
  if (exec_path() == ExecPath::Reference) reduce_reference(red, g, src, dst);
  else reduce_fast(red, g, src, dst);
}

int log2_of(int v) { return v <= 1 ? 0 : 1 + log2_of(v / 2); }

void check_reduce_fields(VRedOp op, DType dtype) {
  check_field("op", static_cast<int>(op), 0, static_cast<int>(VRedOp::Sum));
  check_dtype(dtype, {DType::F16, DType::F32});
}
}  // namespace

void exec(const VReduce& in, ExecContext& ctx) {
  check_reduce_fields(in.op, in.dtype);
  const int size = bytes_of(in.dtype);
  const Reduction red{in.op, in.dtype == DType::F16, log2_of(lanes_for(size)), uint64_t(in.dst_rep) * size};
  run_reduction(ctx, red, in.dtype, in.mask, in.repeat, in.src, in.src_s, in.dst);
}

void exec(const VBlockReduce& in, ExecContext& ctx) {
  check_reduce_fields(in.op, in.dtype);
  const int size = bytes_of(in.dtype);
  const Reduction red{in.op, in.dtype == DType::F16, log2_of(kBlockBytes / size),
                      uint64_t(in.dst_rep) * kRepeatBlocks * size};
  run_reduction(ctx, red, in.dtype, in.mask, in.repeat, in.src, in.src_s, in.dst);
}

void exec(const VPairAdd& in, ExecContext& ctx) {
  check_dtype(in.dtype, {DType::F16, DType::F32});
  const Reduction red{VRedOp::Sum, in.dtype == DType::F16, 1, uint64_t(in.dst_rep) * kBlockBytes};
  run_reduction(ctx, red, in.dtype, in.mask, in.repeat, in.src, in.src_s, in.dst);
}

}  // namespace npusim::isa::impl
