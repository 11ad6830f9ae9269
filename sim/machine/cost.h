#pragma once
// The cost model: one function per instruction class, parameterised only by the hardware config.
// An instruction occupies its pipe for `occupancy` cycles (the next instruction of the same pipe may start
// then) and its results land `latency` cycles later (set_flag and pipe_barrier wait for them). Engine
// start-up times (MTE1, FixPipe, MTE2/3) are latency: a queued transfer overlaps the previous one's tail.
// GM transfers are costed by MemorySystem; everything else here. Formulas: sim/README.md "Cost model".
#include <bit>
#include <cstdint>

#include "isa/instr/instr.h"
#include "sim/config/hw_config.h"

namespace npusim::sim {

struct PipeCost {
  uint64_t occupancy = 0;
  uint64_t latency = 0;
  uint64_t conflict_beats = 0;  // vector: the part of occupancy that UB bank conflicts add (statistics only)
};

// Simple: one tile operand (and a scalar); Binary: two tile operands (hardware.md, configs/README.md "Vector").
enum class VecClass : uint8_t { Simple, Binary, Div, Exp, Ln, Sqrt, Reduce, BlockReduce, Cast };
VecClass vec_class(const isa::Instr& in);

// UB bank geometry from the config: `groups` bank groups (ub.bank_groups); the banks of a row, one per group,
// hold row_bytes = groups x ub.bank_bytes, and rows stack up to ub_bytes (910B: 16 groups, 3 rows of 64 KiB).
// hardware.md §2.
struct UbBanks {
  int64_t groups, row_bytes;
  // The bank group and the bank of a byte address. Power-of-two geometries (every bundled config) take shifts
  // and masks: with a 64-bit division per block this walk was a fifth of a timing run.
  uint64_t group(uint64_t a) const {
    const auto g = static_cast<uint64_t>(groups);
    return (g & (g - 1)) == 0 ? (a >> 5) & (g - 1) : (a / 32) % g;
  }
  uint64_t bank(uint64_t a) const {
    const auto r = static_cast<uint64_t>(row_bytes);
    const uint64_t row = (r & (r - 1)) == 0 ? a >> std::countr_zero(r) : a / r;
    return static_cast<uint64_t>(groups) * row + group(a);
  }
};
UbBanks ub_banks(const HwConfig& hw);
// UB bank-conflict beats of one repeat: max over bank groups of blocks read (all sources) or written in
// that group, at least 1, plus 1 when a block is read and another written in the same bank.
uint64_t repeat_conflict_beats(const UbBanks& ub, const uint64_t* read_addrs, int n_reads, const uint64_t* write_addrs,
                               int n_writes);

// Cost of an instruction that does not touch GM (vector, cube, MTE1, on-chip FixPipe, scalar, sync).
PipeCost local_cost(const isa::Instr& in, const HwConfig& hw);
// FixPipe / MTE start-up and port rates used with MemorySystem for GM transfers.
double fixpipe_bytes_per_cycle(const isa::Fixpipe& f, const HwConfig& hw);
// Multiply-accumulates the cube executes for an mmad (whole fractals, padding included) and the
// algorithmic flops 2*m*n*k.
uint64_t mmad_executed_flops(const isa::Mmad& m);
uint64_t mmad_flops(const isa::Mmad& m);

}  // namespace npusim::sim
