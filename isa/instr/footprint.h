#pragma once
// The bytes an instruction reads and writes, as the race checker, the memory model and traces see them.
// Vector operands cover their blocks (only blocks holding an enabled lane), not their whole span. Pieces are
// merged as they are listed: adjacent ones into one range, equal-length ones at a constant stride into one
// strided access (a row-strided operand, the bursts of a DMA), so consumers read a pattern directly instead
// of a list of thousands of ranges.
#include <cstdint>
#include <vector>

#include "isa/instr/exec_context.h"

namespace npusim::isa {

struct Access {
  Buf buf;
  uint64_t begin, end;  // bytes of the first segment, end exclusive
  bool write;
  uint32_t count = 1;   // segments [begin + i * stride, end + i * stride), i < count
  uint64_t stride = 0;  // bytes between segment starts; >= end - begin (only a DMA's GM bursts may touch)
  uint64_t last_end() const { return end + uint64_t(count - 1) * stride; }
  uint64_t bytes() const { return (end - begin) * count; }
  template <class F>
  void for_each_segment(F&& f) const {
    for (uint32_t i = 0; i < count; ++i) f(begin + uint64_t(i) * stride, end + uint64_t(i) * stride);
  }
};

// Appends the accesses of `in` to `out`. `regs` resolves scalar index registers (may be null otherwise).
void footprint(const Instr& in, const ScalarRegs* regs, std::vector<Access>& out);
// The same accesses one segment each (tests, and consumers that want plain ranges).
std::vector<Access> expand(const std::vector<Access>& in);

// Lanes per repeat and enabled-lane helpers shared with the cost model.
int lanes_per_repeat(int elem_bytes);
// Repeats a vector instruction executes: the repeat field, or ceil(count / lanes) in counter mode.
uint32_t effective_repeats(const VecMask& mask, uint32_t repeat, int lanes);

}  // namespace npusim::isa
