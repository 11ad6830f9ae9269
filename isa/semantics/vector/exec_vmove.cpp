// Vector data movement without arithmetic: vcopy, vdup, vbrcb. Bits are copied unchanged (NaN payloads and
// signalling bits included), so every 16- and 32-bit type is accepted. isa/README.md section 4.
#include <cstring>
#include <memory>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"
#include "isa/semantics/vector/vec_drive.h"
#include "isa/semantics/vector/vec_math.h"

namespace npusim::isa::impl {

namespace {
using namespace vec;

constexpr std::initializer_list<DType> kMoveTypes = {DType::F16, DType::BF16, DType::F32, DType::I16, DType::I32};

// vbrcb, Fast: per repeat, the 8 source elements are read first (in place is allowed), then block b of the
// destination repeat is filled with element b.
void brcb_fast(const LaneOperand& dst, const uint8_t* src, int repeats) {
  for (int r = 0; r < repeats; ++r) {
    uint32_t v[kRepeatBlocks];
    for (int b = 0; b < kRepeatBlocks; ++b)
      v[b] = load_bits(src + (uint64_t(r) * kRepeatBlocks + b) * dst.size, dst.size);
    for (int b = 0; b < kRepeatBlocks; ++b) {
      alignas(32) uint8_t block[kBlockBytes];
      for (int i = 0; i < dst.epb(); ++i) store_bits(block + i * dst.size, dst.size, v[b]);
      std::memcpy(dst.base + dst.block_offset(r, b), block, kBlockBytes);
    }
  }
}
}  // namespace

void exec(const VCopy& in, ExecContext& ctx) {
  check_dtype(in.dtype, kMoveTypes);
  const int size = bytes_of(in.dtype);
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  LaneOperand srcs[] = {{"src", in.src, in.src_s, size}};
  check_elementwise(ctx, g, dst, srcs);
  if (exec_path() == ExecPath::Reference)
    return run_reference(g, dst, srcs, [](const uint32_t* s, uint64_t) { return s[0]; });
  run_fast(g, dst, srcs,
           [size](const Chunk& c, const void* const* s, void* d) { std::memcpy(d, s[0], size_t(c.n8) * size); });
}

void exec(const VDup& in, ExecContext& ctx) {
  check_dtype(in.dtype, kMoveTypes);
  const int size = bytes_of(in.dtype);
  const uint32_t bits = scalar_bits(in.dtype, in.value, "value");
  const VecGeom g = VecGeom::from_mask(in.mask, in.repeat, lanes_for(size));
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  check_elementwise(ctx, g, dst, {});
  if (exec_path() == ExecPath::Reference)
    return run_reference(g, dst, {}, [bits](const uint32_t*, uint64_t) { return bits; });
  const auto fill = std::make_unique<Broadcast>(bits, size);
  run_fast(g, dst, {},
           [&](const Chunk& c, const void* const*, void* d) { std::memcpy(d, fill->words, size_t(c.n8) * size); });
}

void exec(const VBrcb& in, ExecContext& ctx) {
  check_dtype(in.dtype, kMoveTypes);
  const int size = bytes_of(in.dtype), lanes = lanes_for(size);
  const VecGeom g = VecGeom::all_lanes(in.repeat, lanes);
  LaneOperand dst{"dst", in.dst, in.dst_s, size};
  const Footprint dst_fp = Footprint::of_lanes(dst, g);
  const Footprint src_fp = Footprint::of_runs("src", in.src, 1, uint64_t(g.repeats()) * kRepeatBlocks * size, 0);
  check_lane_operand(ctx, dst, dst_fp);
  const uint8_t* src = check_operand(ctx, in.src, src_fp);
  check_reduction_overlap(in.dst, dst_fp, in.src, src_fp);
  if (exec_path() == ExecPath::Fast) return brcb_fast(dst, src, g.repeats());
  const int epb = dst.epb();
  run_reference(g, dst, {}, [=](const uint32_t*, uint64_t e) {
    const uint64_t r = e / lanes, l = e % lanes;  // lane l of repeat r is in block l / epb
    return load_bits(src + (r * kRepeatBlocks + l / epb) * size, size);
  });
}

}  // namespace npusim::isa::impl
