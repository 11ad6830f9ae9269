#pragma once
// Microbenchmarks: small kernels that stream one unit at its peak so the simulated rate can be compared
// with the configured one (sim/README.md "Validation"). Each returns the measured and the expected rate.
#include <string>
#include <vector>

#include "sim/machine/machine.h"

namespace npusim::kernels::micro {

struct MicroResult {
  std::string name;
  uint64_t cycles = 0;
  double measured = 0, expected = 0;  // in `unit`
  std::string unit;
  uint64_t instructions = 0;
  double ratio() const { return expected > 0 ? measured / expected : 0; }
};

// GM -> L1 on `cores` AICs, each streaming `bytes_per_core` of distinct data in `chunk`-byte DMAs.
// Expected: min(cores * mte2.port, l2.fill, hbm) bytes/cycle when the data misses L2.
MicroResult mte2_bandwidth(sim::Machine& m, int cores, uint64_t bytes_per_core, uint64_t chunk = 256 * 1024);
// UB -> GM on one AIV: expected mte3.port bytes/cycle.
MicroResult mte3_bandwidth(sim::Machine& m, uint64_t bytes);
// L1 -> L0A (or L0B) with 64 KiB load2d instructions: expected mte1 rate.
MicroResult mte1_bandwidth(sim::Machine& m, isa::Buf dst, int loads);
// Back-to-back fp16 mmads of 128x128x128: expected 4096 MAC per fractal step, over 512 steps x
// fractal_cycles_b16 + cube.startup_cycles per mmad.
MicroResult mmad_peak(sim::Machine& m, int mmads);
// L0C -> L1 fixpipes of 128 x 128: expected fixpipe.elems_per_cycle.
MicroResult fixpipe_rate(sim::Machine& m, int ops);
// Contiguous fp32 vector ops of 255 repeats: vadd (two tile operands, binary class), vmuls (tile and scalar,
// simple class), vexp (exp class), vcmax (whole-repeat reduction) or vcgmax (block reduction): expected 1 / class
// beats repeats per cycle.
enum class VectorMicro { Add, Muls, Exp, WholeReduce, BlockReduce };
MicroResult vector_rate(sim::Machine& m, VectorMicro kind, int ops);
// A chain of `ops` fp32 vadds of `repeats` repeats, each reading the one before's result, with pipe_barrier(V)
// between them (the V pipe does not order that dependence itself): expected repeats x binary beats + the binary
// latency per op, in cycles per dependent op -- what a barrier costs a dependent instruction.
MicroResult vector_dependent(sim::Machine& m, int ops, int repeats);
// AIC <-> AIV cross-core flag round trips: expected 2 * sync.cross_core_latency_cycles per round trip
// (plus issue cycles), measured in cycles per round trip.
MicroResult cross_flag_pingpong(sim::Machine& m, int rounds);

// Memory system (memory_micro.cpp): the probes of calibration.md §6 on the AIVs (GM -> UB in 64 KiB DMAs), each
// against the 910B2's measured figure. A `footprint` re-read until 469.8 MB have moved, cached or L2-bypass.
MicroResult memory_read(sim::Machine& m, uint64_t footprint, bool bypass, double device);
// A cold 469.8 MB read on the AICs (GM -> L1), the AIVs, or both at once (one ceiling: they do not add).
MicroResult memory_read_units(sim::Machine& m, bool aic, bool aiv, double device);
MicroResult memory_bypass_burst(sim::Machine& m);  // bypass rows of 256 B vs 512 B, as a rate ratio
MicroResult memory_write(sim::Machine& m);         // a write stream in steady state
MicroResult memory_read_write(sim::Machine& m);    // read and write together vs apart, as a time ratio

// Launches one microbenchmark kernel; a fault is an exception naming it. `overwrites`: the kernel rewrites one
// destination again and again on purpose (nothing reads it), so the race and hazard checks are off for it.
sim::LaunchResult run(sim::Machine& m, sim::LaunchSpec spec, bool overwrites = false);

std::vector<std::string> micro_names();
MicroResult run_micro(sim::Machine& m, const std::string& name);  // default sizes

}  // namespace npusim::kernels::micro
