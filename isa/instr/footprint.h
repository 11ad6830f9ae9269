#pragma once
// The bytes an instruction reads and writes, as the race checker, the memory model and traces see them.
// Vector operands are listed block by block (only blocks holding an enabled lane), so a strided operand
// covers its blocks and not its whole span; adjacent pieces are merged.
#include <cstdint>
#include <vector>

#include "isa/semantics/exec.h"

namespace npusim::isa {

struct Access {
  Buf buf;
  uint64_t begin, end;  // bytes, end exclusive
  bool write;
};

// Appends the accesses of `in` to `out`. `regs` resolves scalar index registers (may be null otherwise).
void footprint(const Instr& in, const ScalarRegs* regs, std::vector<Access>& out);

// Lanes per repeat and enabled-lane helpers shared with the cost model.
int lanes_per_repeat(int elem_bytes);
// Repeats a vector instruction executes: the repeat field, or ceil(count / lanes) in counter mode.
uint32_t effective_repeats(const VecMask& mask, uint32_t repeat, int lanes);

}  // namespace npusim::isa
