#pragma once
// Internal structure of the Machine (sim/machine/*.cpp only), in parts:
//   MachineState   the state, in parts a runner takes separately: MachineResources (config, GM, models, cores,
//                  trace, memo), Waker (time, wake-ups), FaultSink, CheckHooks, LaunchCounters
//   SyncFabric     flags, cross-core counters, SyncAll (sync_exec.cpp)
//   PipeRunner     the pipes as state machines: pop, start, execute, cost (pipe_exec.cpp)
//   ScalarRunner   the scalar unit: issue at decoupled time, stalls as fiber yields (scalar_unit.cpp)
//   Machine::Impl  owns them and runs launches (launch.cpp), reports deadlocks (machine.cpp)
#include <array>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "isa/instr/footprint.h"
#include "sim/check/check_runner.h"
#include "sim/check/happens_before.h"
#include "sim/check/race_checker.h"
#include "sim/engine/engine.h"
#include "sim/machine/core_state.h"
#include "sim/machine/cost.h"
#include "sim/machine/cost_model.h"
#include "sim/machine/instr_memo.h"
#include "sim/machine/machine.h"
#include "sim/machine/memory_model.h"
#include "sim/machine/topology.h"
#include "sim/trace/trace_writer.h"

namespace npusim::sim {

// Thrown through a kernel program when the launch is aborted (a fatal fault elsewhere).
struct AbortLaunch {};

// The machine's state in the parts the runners take (each runner holds the parts it uses, not the whole state):
// The waker: the engine's time and the two ways to schedule a waiter. Waking is explicit: whoever makes a wait
// satisfiable schedules the waiter's event.
struct Waker {
  explicit Waker(SimMode m) : mode(m) {}
  SimMode mode;
  Engine* engine = nullptr;
  uint64_t now() const { return engine->now(); }
  // A timing parameter as this mode sees it: functional mode runs with zero-cost timing.
  uint64_t timed(int64_t cycles) const { return mode == SimMode::Functional ? 0 : static_cast<uint64_t>(cycles); }
  // Schedules the scalar unit / a pipe of core c to run at `cycle` (not before now).
  void wake_scalar(CoreState& c, uint64_t cycle);
  void wake_pipe(CoreState& c, PipeState& p, uint64_t cycle);
};

// The fault sink: what a launch found; the first fatal fault stops the engine.
struct FaultSink {
  std::vector<Fault> faults;
  bool fatal = false, unusable = false;
  Engine* stop_engine = nullptr;
  void fault(const std::string& kind, const std::string& msg, bool fatal_fault);
};

// The check hooks of a launch: the happens-before clocks and the race checker (null with Checks::Off), the agents,
// the op's read-only GM and the data caches' tracked lines.
struct CheckHooks {
  std::unique_ptr<HappensBefore> hb;
  std::unique_ptr<CheckRunner> races;
  std::vector<int> core_agent_base;                         // first agent id of each core (-1 = not in launch)
  std::vector<std::pair<uint64_t, uint64_t>> input_ranges;  // the op's read-only GM (sorted): never stale in a DCache
  int64_t dcache_tracked = 0;  // tracked lines resident in any core's DCache: DMA stores look at the caches only then
  bool is_input(uint64_t gm_byte) const;
  AgentId agent(int core, isa::Pipe p) const { return core_agent_base[size_t(core)] + static_cast<AgentId>(p); }
  bool checking() const { return hb != nullptr; }
};

// The counters of a launch.
struct LaunchCounters {
  uint64_t next_id = 0, launch_start = 0, flops = 0, executed_flops = 0, instructions = 0;
  std::array<std::chrono::steady_clock::duration, isa::kNumPipes> exec_time{};  // host time in isa::execute, per pipe
};

// The resources: config, GM and the memory, cost and topology models, the cores, the trace, the instruction memo
// and the per-instruction buffers (one event runs at a time).
struct MachineResources {
  MachineResources(HwConfig h, SimMode m);
  HwConfig hw;
  Checks checks = Checks::All;
  bool check_thread = std::thread::hardware_concurrency() > 1;  // the race checker on a second host thread
  bool run_ahead = true;  // kernel programs run ahead of a scalar unit waiting for a slot (scalar_unit.cpp)
  GlobalMemory gm;
  std::unique_ptr<MemoryModel> mem;
  std::unique_ptr<PipeCostModel> cost;      // hw.cost.impl
  std::unique_ptr<TopologyModel> topology;  // hw.topology
  std::vector<std::unique_ptr<CoreState>> cores;
  TraceWriter* trace = nullptr;
  std::set<int> trace_named;  // cores whose trace process has its name
  std::vector<isa::Access> scratch, gm_reads, gm_writes;
  InstrMemo memo;  // shared by the pipes (lookups) and the scalar units (queued instructions refer to its entries)
};

// Everything, for Machine::Impl and the launch; the runners take the parts.
struct MachineState : MachineResources, Waker, FaultSink, CheckHooks, LaunchCounters {
  MachineState(HwConfig h, SimMode m) : MachineResources(std::move(h), m), Waker(m) {}
  void set_engine(Engine* e) { engine = stop_engine = e; }
};

// Pending cross-core sets that wait for partners (mode 1: both AIVs; mode 2 from AIVs: both AIVs;
// mode 0: every core of the kind in the launch).
struct PartnerSets {
  std::vector<std::array<uint32_t, isa::kNumCrossFlags>> pending;  // indexed by core
  std::vector<std::array<VectorClock, isa::kNumCrossFlags>> vcs;
};

class SyncFabric {
 public:
  SyncFabric(MachineResources& r, Waker& w, FaultSink& f, CheckHooks& k) : res_(r), clock_(w), faults_(f), checks_(k) {}
  void reset(const std::vector<int>& launch_cores, size_t agents);
  void set_flag(CoreState& c, PipeState& p, const isa::SetFlag& f, const QueuedInstr& q);
  // True when the wait is satisfied (and done); false when the waiter must block (it is woken later).
  bool wait_flag(CoreState& c, PipeState& p, const isa::WaitFlag& f, const QueuedInstr& q, uint64_t wait_began);
  void cross_set(CoreState& c, PipeState& p, const isa::CrossSet& s, const QueuedInstr& q);
  bool cross_wait(CoreState& c, PipeState& p, const isa::CrossWait& w, const QueuedInstr& q, uint64_t wait_began);
  // SyncAll: the core arrives (its pipes drained); true when it may leave now.
  bool sync_all_arrive(CoreState& c, PipeState& p, const QueuedInstr& q);
  void sync_all_leave(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t began);

 private:
  void deliver_cross(int core, int flag, const VectorClock& vc, const QueuedInstr& q, int from_core,
                     isa::Pipe from_pipe);
  void gather(PartnerSets& ps, CoreState& c, PipeState& p, int id, const VectorClock& vc, const std::vector<int>& group,
              const std::vector<int>& targets, const QueuedInstr& q);
  MachineResources& res_;
  Waker& clock_;
  FaultSink& faults_;
  CheckHooks& checks_;
  PartnerSets mode0_, mode1_, mode2_;
  int sync_all_arrived_ = 0, sync_all_expected_ = 0;
  uint64_t sync_all_generation_ = 0, sync_all_release_ = 0;
  VectorClock sync_all_vc_, sync_all_released_;
  std::vector<int> waiting_all_;  // cores blocked in the current SyncAll
};

// The parts of the state the pipe and scalar runners hold (their issue, execution and counting need all five) and
// the sync fabric they both use.
class RunnerParts {
 protected:
  RunnerParts(MachineResources& r, Waker& w, FaultSink& f, CheckHooks& k, LaunchCounters& n, SyncFabric& sync)
      : res_(r), clock_(w), faults_(f), checks_(k), counters_(n), sync_(sync) {}
  MachineResources& res_;
  Waker& clock_;
  FaultSink& faults_;
  CheckHooks& checks_;
  LaunchCounters& counters_;
  SyncFabric& sync_;
};

class PipeRunner : RunnerParts {
 public:
  PipeRunner(MachineResources& r, Waker& w, FaultSink& f, CheckHooks& k, LaunchCounters& n, SyncFabric& sync)
      : RunnerParts(r, w, f, k, n, sync) {}
  // A pipe event: pop, start and execute instructions until the pipe must wait.
  void step(CoreState& c, PipeState& p);
  // An instruction was pushed: an idle pipe pops it once the scalar unit yields (as a SystemC delta would).
  void kick(CoreState& c, PipeState& p);
  static bool drained(const CoreState& c);

 private:
  bool run_popped(CoreState& c, PipeState& p);                                       // false: blocked in a wait
  bool run_sync(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t& start);  // false: blocked in a wait
  PipeCost execute_and_cost(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t start);
  void check_bounds(const CoreState& c, const std::vector<isa::Access>& acc);
  void finished(CoreState& c, PipeState& p, const PipeCost& cost, uint64_t slice_start, uint64_t bytes);
  // A DMA store to GM (checks on): the scalar data caches' resident copies of the lines it writes go stale.
  void stale_dcaches(const CoreState& c, const PipeState& p, const QueuedInstr& q, uint64_t start);
  // The trace's traffic counters: what one GM transfer added to the memory statistics, over its data phase.
  void trace_traffic(const MemStats& before, uint64_t start, uint64_t end);
};

class ScalarRunner : RunnerParts {
 public:
  ScalarRunner(MachineResources& r, Waker& w, FaultSink& f, CheckHooks& k, LaunchCounters& n, SyncFabric& sync,
               PipeRunner& pipes)
      : RunnerParts(r, w, f, k, n, sync), pipes_(pipes) {}
  void issue(CoreState& c, const isa::Instr& in);
  void finish_core(CoreState& c);
  // The core's scalar event while the program runs ahead: issues the pending instructions the scalar unit has
  // reached (scalar_unit.cpp "Running ahead").
  void replay(CoreState& c);
  // An error thrown out of the kernel program: reported once the scalar unit has reached the program.
  void fail_after_catch_up(CoreState& c, const Fault& f);
  int64_t load_scalar(CoreState& c, isa::DType t, isa::Addr a);

 private:
  // Yields the core's fiber until something schedules its scalar event; throws AbortLaunch on a fatal fault.
  // The simulated cycles it waited are added to *waited (a statistics counter) when given.
  void block(CoreState& c, ScalarWait why, uint64_t id, uint64_t* waited = nullptr);
  void sync_time(CoreState& c);  // catch up with the decoupled issue time
  void drain(CoreState& c);
  void scalar_side(CoreState& c, const isa::Instr& in, const QueuedInstr& q);
  bool issuable(CoreState& c, const isa::Instr& in, isa::Pipe pipe, std::string* why = nullptr) const;
  uint64_t charge_issue(CoreState& c);
  void wait_for_slot(CoreState& c, isa::Pipe pipe, uint64_t id, uint64_t own);
  void count_queue_full(CoreState& c, isa::Pipe pipe, uint64_t own);
  KnownInstr known(const CoreState& c, const isa::Instr& in);
  void push(CoreState& c, PipeState& p, const isa::Instr& in, KnownInstr known, uint64_t id, uint64_t ready,
            uint32_t stage);
  void catch_up(CoreState& c);  // suspends the program until the pending list is worked off
  void memory_access(CoreState& c, const isa::Instr& in, const QueuedInstr& q, bool load);
  void stale_hit(CoreState& c, const isa::Instr& in, const QueuedInstr& q, uint64_t line);
  void invalidate(CoreState& c, const isa::Dcci& d, const QueuedInstr& q);
  [[noreturn]] void reject(CoreState& c, uint64_t id, const isa::Instr& in, const std::string& why);
  PipeRunner& pipes_;
};

class ChipModule;

struct Machine::Impl final : EventHandler {
  Impl(HwConfig hw, SimMode mode);
  MachineState s;
  SyncFabric sync{s, s, s, s};
  PipeRunner pipes{s, s, s, s, s, sync};
  ScalarRunner scalar{s, s, s, s, s, sync, pipes};
  Engine engine;
  bool progress = false, progress_printed = false;
  std::chrono::steady_clock::time_point progress_wall0, progress_last;
  // Prints a progress line on stderr at most twice a second (an engine tick: no simulated effect).
  void maybe_progress();
  std::function<bool()> interrupt_poll;
  std::chrono::steady_clock::time_point interrupt_last;
  // An engine tick (every 4096 events, when progress or an interrupt poll is on): no simulated effect.
  void tick();
  void on_event(const Event& e) override;
  LaunchResult launch(const LaunchSpec& spec);
  std::string deadlock_report() const;
};

}  // namespace npusim::sim
