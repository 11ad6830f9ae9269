#pragma once
// What a pipe works out about an on-chip instruction from the instruction alone: its footprint, that the
// footprint lies inside the buffers of a core of its kind, and its local cost (the cost seam's `local` is a
// pure function of the instruction: cost_model.h). Kernels issue the same instructions tile after tile -- the
// same UB and L0 addresses, double-buffered -- so a direct-mapped memo keyed on the whole instruction answers
// most of them; in a timing run those three steps were a fifth of the host time of a vector-bound kernel.
// Anything with a GM operand is never stored: its cost depends on the memory system's state, and its footprint
// on the registers for a scalar access. Results are the same with or without the memo (the key is the whole
// instruction, compared field by field, and the core's kind); it changes only how fast they are found.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "isa/instr/footprint.h"
#include "isa/instr/instr.h"
#include "isa/instr/sync_rules.h"
#include "sim/machine/cost.h"

namespace npusim::sim {

class InstrMemo {
 public:
  static constexpr size_t kMaxAccesses = 4;  // footprints with more pieces are recomputed every time
  struct Entry {
    isa::Instr in;
    isa::CoreKind kind = isa::CoreKind::Cube;
    bool valid = false;
    uint8_t n = 0;  // accesses in acc
    PipeCost cost;
    std::array<isa::Access, kMaxAccesses> acc;
  };

  InstrMemo() : table_(kEntries) {}
  // The entry of `in` on a core of `kind`, or null.
  const Entry* find(const isa::Instr& in, isa::CoreKind kind) const {
    const Entry& e = table_[slot(in, kind)];
    return e.valid && e.kind == kind && e.in == in ? &e : nullptr;
  }
  // Records an instruction that passed its bounds check with this footprint (no GM access) and cost.
  void store(const isa::Instr& in, isa::CoreKind kind, const std::vector<isa::Access>& acc, const PipeCost& cost) {
    if (acc.size() > kMaxAccesses) return;
    Entry& e = table_[slot(in, kind)];
    e.in = in, e.kind = kind, e.valid = true, e.cost = cost;
    e.n = static_cast<uint8_t>(acc.size());
    std::copy(acc.begin(), acc.end(), e.acc.begin());
  }

 private:
  static constexpr size_t kEntries = 4096;  // power of two
  static size_t slot(const isa::Instr& in, isa::CoreKind kind);
  std::vector<Entry> table_;
};

}  // namespace npusim::sim
