#include "sim/machine/instr_memo.h"

#include <bit>
#include <variant>

namespace npusim::sim {

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
constexpr size_t kFlagsPerKind = size_t(isa::kNumPipes) * isa::kNumPipes * isa::kNumEventIds;
size_t flag_index(isa::Pipe src, isa::Pipe dst, uint8_t event) {
  return (size_t(src) * isa::kNumPipes + size_t(dst)) * isa::kNumEventIds + event;
}
}  // namespace

InstrMemo::InstrMemo() : table_(kEntries), accesses_(kEntries), pins_(kEntries), flags_(2 * kFlagsPerKind) {
  for (int s = 0; s < isa::kNumPipes; ++s)
    for (int d = 0; d < isa::kNumPipes; ++d)
      for (int e = 0; e < isa::kNumEventIds; ++e) {
        const auto src = isa::Pipe(s), dst = isa::Pipe(d);
        const size_t i = flag_index(src, dst, uint8_t(e));
        flags_[i] = isa::SetFlag{src, dst, uint8_t(e)};
        flags_[kFlagsPerKind + i] = isa::WaitFlag{src, dst, uint8_t(e)};
      }
}

const isa::Instr* InstrMemo::shared_flag(const isa::Instr& in) const {
  auto in_range = [](const auto& f) {
    constexpr auto kPipes = size_t(isa::kNumPipes);
    return size_t(f.src) < kPipes && size_t(f.dst) < kPipes && f.event < isa::kNumEventIds;
  };
  if (const auto* f = std::get_if<isa::SetFlag>(&in); f && in_range(*f))
    return &flags_[flag_index(f->src, f->dst, f->event)];
  if (const auto* w = std::get_if<isa::WaitFlag>(&in); w && in_range(*w))
    return &flags_[kFlagsPerKind + flag_index(w->src, w->dst, w->event)];
  return nullptr;
}

// A hash of the fields that tell a kernel's instructions apart: kind, operation, types, operand addresses and
// sizes, fractal indices, masks and scalar values. Kernels issue runs of instructions on the same operands that
// differ only in their operation or scalar (a softmax's sub, exp and muls in place on one tile; the load2d's of
// one L1 tile's fractals): left out of the hash, those shared a slot and evicted each other, and a fifth of a
// prompt kernel's instructions missed. Fields still left out (strides, gaps) only make instructions that differ
// in nothing else share a set.
size_t InstrMemo::set(const isa::Instr& in, isa::CoreKind kind) {
  const uint64_t h = std::visit(
      [&](const auto& x) {
        uint64_t v = mix(in.index(), uint64_t(kind));
        if constexpr (requires { x.op; }) v = mix(v, uint64_t(x.op));
        if constexpr (requires { x.dtype; }) v = mix(v, uint64_t(x.dtype));
        if constexpr (requires { x.dst_dtype; }) v = mix(v, uint64_t(x.dst_dtype));
        if constexpr (requires { x.dst.off; }) v = mix(v, x.dst.off);
        if constexpr (requires { x.src.off; }) v = mix(v, x.src.off);
        if constexpr (requires { x.src0.off; }) v = mix(v, x.src0.off);
        if constexpr (requires { x.src1.off; }) v = mix(v, x.src1.off);
        if constexpr (requires { x.a.off; }) v = mix(mix(mix(v, x.a.off), x.b.off), x.c.off);
        if constexpr (requires { x.repeat; }) v = mix(v, x.repeat);
        if constexpr (requires { x.m; }) v = mix(v, uint64_t(x.m) << 32 | x.n);
        if constexpr (requires { x.k; }) v = mix(v, x.k);
        if constexpr (requires { x.start_index; }) v = mix(v, x.start_index);
        if constexpr (requires { x.n_value; }) v = mix(v, uint64_t(x.n_value) << 32 | x.d_value);
        if constexpr (requires { x.nburst; }) v = mix(v, uint64_t(x.nburst) << 32 | x.burst_bytes);
        if constexpr (requires { x.mask.lo; }) v = mix(mix(v, x.mask.lo), x.mask.hi);
        if constexpr (requires { x.scalar; }) v = mix(v, std::bit_cast<uint64_t>(x.scalar));
        if constexpr (requires { x.value; }) v = mix(v, std::bit_cast<uint64_t>(x.value));
        return v;
      },
      in);
  return static_cast<size_t>((h * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(kSets)));
}

}  // namespace npusim::sim
