#include "sim/machine/instr_memo.h"

#include <bit>
#include <variant>

namespace npusim::sim {

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
}  // namespace

// A hash of the fields that tell a kernel's instructions apart: kind, operand addresses and sizes. Fields
// left out (strides, masks, values) only make instructions that differ in nothing else share a slot.
size_t InstrMemo::slot(const isa::Instr& in, isa::CoreKind kind) {
  const uint64_t h = std::visit(
      [&](const auto& x) {
        uint64_t v = mix(in.index(), uint64_t(kind));
        if constexpr (requires { x.dst.off; }) v = mix(v, x.dst.off);
        if constexpr (requires { x.src.off; }) v = mix(v, x.src.off);
        if constexpr (requires { x.src0.off; }) v = mix(v, x.src0.off);
        if constexpr (requires { x.src1.off; }) v = mix(v, x.src1.off);
        if constexpr (requires { x.a.off; }) v = mix(mix(mix(v, x.a.off), x.b.off), x.c.off);
        if constexpr (requires { x.repeat; }) v = mix(v, x.repeat);
        if constexpr (requires { x.m; }) v = mix(v, uint64_t(x.m) << 32 | x.n);
        if constexpr (requires { x.nburst; }) v = mix(v, uint64_t(x.nburst) << 32 | x.burst_bytes);
        return v;
      },
      in);
  return static_cast<size_t>((h * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(kEntries)));
}

}  // namespace npusim::sim
