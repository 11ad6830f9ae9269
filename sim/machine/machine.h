#pragma once
// The simulated chip. A machine may run several launches; a process may build machines one after another (or
// several at once: their launches take turns, sim/README.md "Machines per process"). A launch runs kernel
// programs on the scalar units of the chosen cores at simulated time; their instructions flow into per-pipe
// queues and execute there (arithmetic + timing + checks).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/config/hw_config.h"
#include "sim/machine/gm.h"
#include "sim/machine/memory_model.h"

namespace npusim::sim {

class CoreCtx;
class TraceWriter;
using KernelFn = std::function<void(CoreCtx&)>;

enum class SimMode : uint8_t { Full, Functional, Timing };
std::string sim_mode_name(SimMode m);

// Which checks run (sim/README.md "Checks"). All is the default; Local skips the GM race shadow (cores share
// nothing but GM, so races between cores go unseen); Off skips the happens-before clocks and both shadows.
// Bounds, capacity, flag and deadlock checks always run.
enum class Checks : uint8_t { All, Local, Off };
std::string checks_name(Checks c);

// Which cores a launch uses (block_dim counts AI Cores for CubeOnly and Mix1_2, vector cores for
// VectorOnly). On a coupled chip every mode runs the `cube` program on block_dim coupled cores.
enum class MixMode : uint8_t { CubeOnly, VectorOnly, Mix1_2 };

struct LaunchSpec {
  std::string name = "kernel";
  int block_dim = 1;
  MixMode mix = MixMode::Mix1_2;
  KernelFn cube;    // runs on each AIC (or coupled core)
  KernelFn vector;  // runs on each AIV
};

struct PipeStats {
  uint64_t busy_cycles = 0, instructions = 0;
  uint64_t flag_wait_cycles = 0;   // in wait_flag for a flag not yet set (the S entry: the scalar unit's wait_flag)
  uint64_t queue_full_cycles = 0;  // the scalar unit blocked because this pipe's queue was full
  uint64_t conflict_beats = 0;     // of busy_cycles, those UB bank conflicts added (vector)
};

// Cycles the scalar unit spent blocked on something other than its own issue time or a full queue.
struct ScalarWaitStats {
  uint64_t cross_wait = 0;  // cross_wait: a cross-core flag not yet delivered
  uint64_t sync_all = 0;    // sync_all: the other cores not yet arrived (and the release cost)
  uint64_t drain = 0;       // pipe_barrier(all), sync_all and the kernel's end: its pipes draining
  uint64_t gm_load = 0;     // scalar GM loads: the load latency
};

struct CoreStats {
  std::string name;  // aic0, aiv1, core0
  bool used = false;
  std::array<PipeStats, 8> pipes{};  // indexed by isa::Pipe
  ScalarWaitStats scalar_waits;
  uint64_t start_cycle = 0,
           end_cycle = 0;  // when its block was dispatched and when it finished (from the launch's start)
  std::array<uint64_t, isa::kNumBufs> buffer_peak{};  // highest local-buffer offset the kernel allocated, per isa::Buf
};

struct LaunchResult {
  uint64_t cycles = 0;
  std::vector<CoreStats> cores;
  MemStats mem;
  double l2_hit_rate = 0;
  uint64_t flops = 0, executed_flops = 0, instructions = 0;
  std::vector<Fault> faults;  // empty on success
  std::vector<Fault> notes;   // findings that are not faults (`redundant-barrier`); checks on only
  uint64_t race_checks = 0;
  double wall_s = 0;
  double exec_s = 0;  // host time inside the ISA semantics of pipe instructions (0 in timing mode)
  std::array<double, isa::kNumPipes> exec_pipe_s{};  // the same per pipe: M + V is the arithmetic, the rest moves data
  bool ok() const { return faults.empty(); }
};

// A kernel program reported a problem that is the user's input, not the kernel's fault (e.g. a tiling
// that does not fit a buffer). The CLI maps it to exit status 2.
class KernelInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A kernel program found that the instruction it is about to issue would fault, and says why in the terms of
// its inputs (e.g. a block id from block_table past the cache). Reported as a fatal fault of `kind` (exit 3),
// the same status the instruction itself would have produced.
class KernelFault : public std::runtime_error {
 public:
  KernelFault(std::string kind, const std::string& what) : std::runtime_error(what), kind(std::move(kind)) {}
  std::string kind;
};

class Machine {
 public:
  Machine(HwConfig hw, SimMode mode);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const HwConfig& hw() const;
  SimMode mode() const;
  GlobalMemory& gm();
  void set_trace(TraceWriter* trace);  // nullptr = no trace
  void set_progress(bool on);          // progress lines on stderr during long launches
  void set_checks(Checks c);           // for the following launches
  // Robustness probe: simultaneous events run in the reverse of their scheduling order (sim/README.md
  // "Engine"). A model whose cycles move much under it depends on an arbitrary arbitration order.
  void set_reverse_ties(bool on);
  // The race checker on a second host thread (default when the host has two or more CPUs): the same
  // faults and counts, overlapped with the simulation (sim/README.md "Checks on a second thread").
  void set_check_thread(bool on);
  // Kernel programs run ahead of their scalar units while these wait for a queue slot (default; always off with
  // a trace). A probe for tests: on and off give the same results (sim/README.md "Running ahead").
  void set_run_ahead(bool on);
  // Polled about every 50 ms of host time during a launch; when it returns true the launch stops with a fatal
  // `interrupted` fault (the Python module's Ctrl-C). Empty = never polled.
  void set_interrupt(std::function<bool()> poll);
  // Runs one launch to completion (or to the first fatal fault / deadlock) and returns its statistics.
  // After a fatal fault or a deadlock the machine cannot run another launch (throws std::logic_error).
  LaunchResult launch(const LaunchSpec& spec);
  // Global core index of AIC i / AIV j (split) or coupled core i, and the name shown in traces.
  int num_cores() const;
  std::string core_name(int core) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace npusim::sim
