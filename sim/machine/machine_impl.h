#pragma once
// Internal state of the Machine (sim/machine/*.cpp only).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "sim/machine/dcache.h"

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "isa/semantics/exec.h"
#include "isa/instr/footprint.h"
#include "isa/instr/sync_rules.h"
#include "sim/check/happens_before.h"
#include "sim/check/race_checker.h"
#include "sim/machine/cost.h"
#include "sim/machine/machine.h"
#include "sim/trace/trace_writer.h"

namespace npusim::sim {

inline uint64_t now_cycles() { return sc_core::sc_time_stamp().value(); }
void wait_until(uint64_t cycle);

struct QueuedInstr {
  isa::Instr in;
  uint64_t id = 0;
  uint64_t ready = 0;  // the scalar unit's (decoupled) time at issue
};

struct PipeState {
  isa::Pipe pipe = isa::Pipe::S;
  std::deque<QueuedInstr> q;
  size_t depth = 32;
  sc_core::sc_event pushed, progressed;  // progressed: popped or finished one
  uint64_t next_free = 0, last_completion = 0;
  bool active = false;                    // an instruction was popped and is being processed
  std::string blocked_on;                 // non-empty while waiting on a flag / counter
  AgentId agent = 0;
  uint64_t scalar_version_seen = UINT64_MAX;
};

struct FlagSlot {
  bool set = false;
  uint64_t set_id = 0, set_cycle = 0;
  std::string set_text;
  VectorClock vc;
  sc_core::sc_event ev;
};

struct CrossCounter {
  std::deque<uint64_t> visible_at;  // one entry per pending set: the cycle it becomes visible, oldest first
  VectorClock vc;
  sc_core::sc_event ev;
  uint64_t last_set_id = 0;
  int last_set_core = 0;
  isa::Pipe last_set_pipe = isa::Pipe::S;
  uint64_t last_set_cycle = 0;
};

struct CoreState {
  int index = 0;
  isa::CoreKind kind = isa::CoreKind::Cube;
  std::string name;
  int ai_core = 0;  // the AI Core this core belongs to
  int sub = 0;      // 0 / 1 for the AIVs of an AI Core
  std::array<PipeState, isa::kNumPipes> pipes;
  std::array<std::vector<uint8_t>, isa::kNumBufs> local;
  std::array<uint64_t, isa::kNumBufs> alloc_top{};
  isa::ExecContext ctx;
  isa::ScalarRegs regs{};
  DCache dcache;  // scalar loads: timing only
  std::array<std::array<std::array<FlagSlot, isa::kNumEventIds>, isa::kNumPipes>, isa::kNumPipes> flags;
  std::array<CrossCounter, isa::kNumCrossFlags> cross;
  // per launch
  bool in_launch = false, done = false;
  int block_idx = 0, block_num = 0, sub_block = 0;
  uint64_t local_offset = 0;  // scalar cycles not yet synchronised with simulated time
  std::string scalar_blocked_on;
  CoreStats stats;
};

// Pending cross-core sets that wait for partners (mode 1: both AIVs; mode 2 from AIVs: both AIVs;
// mode 0: every core of the kind in the launch).
struct PartnerSets {
  std::vector<std::array<uint32_t, isa::kNumCrossFlags>> pending;  // indexed by core
  std::vector<std::array<VectorClock, isa::kNumCrossFlags>> vcs;
};

class ChipModule;

struct Machine::Impl {
  Impl(HwConfig hw, SimMode mode);
  HwConfig hw;
  SimMode mode;
  GlobalMemory gm;
  MemorySystem mem;
  TraceWriter* trace = nullptr;
  std::set<int> trace_named;  // cores whose trace process has its name
  bool progress = false, progress_printed = false;
  uint64_t progress_tick = 0;
  std::chrono::steady_clock::time_point progress_wall0, progress_last;
  // Prints a progress line on stderr at most twice a second. Called from a pipe thread; it adds no SystemC
  // process or event, so it cannot change the order of simultaneous events (and thus the cycle counts).
  void maybe_progress();
  std::vector<std::unique_ptr<CoreState>> cores;
  std::unique_ptr<ChipModule> chip;
  // launch state
  std::unique_ptr<HappensBefore> hb;
  std::unique_ptr<RaceChecker> races;
  std::vector<int> core_agent_base;  // first agent id of each core (-1 = not in launch)
  std::vector<Fault> faults;
  bool fatal = false, unusable = false;
  uint64_t next_id = 0, launch_start = 0, flops = 0, executed_flops = 0, instructions = 0;
  PartnerSets partners_mode0, partners_mode1, partners_mode2;
  int sync_all_arrived = 0, sync_all_expected = 0;
  uint64_t sync_all_generation = 0;
  VectorClock sync_all_vc, sync_all_released;
  sc_core::sc_event sync_all_ev, abort_ev;
  std::vector<isa::Access> scratch, gm_reads, gm_writes;  // per-instruction buffers (one pipe thread runs at a time)

  // A timing parameter as this mode sees it: functional mode runs with zero-cost timing.
  uint64_t timed(int64_t cycles) const { return mode == SimMode::Functional ? 0 : static_cast<uint64_t>(cycles); }
  AgentId agent(int core, isa::Pipe p) const { return core_agent_base[core] + static_cast<AgentId>(p); }
  void fault(const std::string& kind, const std::string& msg, bool fatal_fault);
  // pipe side
  void pipe_thread(CoreState& c, PipeState& p);
  void run_instr(CoreState& c, PipeState& p, const QueuedInstr& q);
  void do_set_flag(CoreState& c, PipeState& p, const isa::SetFlag& f, const QueuedInstr& q);
  void do_wait_flag(CoreState& c, PipeState& p, const isa::WaitFlag& f, const QueuedInstr& q);
  void do_cross_set(CoreState& c, PipeState& p, const isa::CrossSet& s, const QueuedInstr& q);
  void do_cross_wait(CoreState& c, PipeState& p, const isa::CrossWait& w, const QueuedInstr& q);
  void do_sync_all(CoreState& c, PipeState& p, const QueuedInstr& q);
  void deliver_cross(int core, int flag, const VectorClock& vc, const QueuedInstr& q, int from_core, isa::Pipe from_pipe);
  PipeCost execute_and_cost(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t start);
  void check_bounds(const CoreState& c, const std::vector<isa::Access>& acc);
  // scalar side
  void scalar_issue(CoreState& c, const isa::Instr& in);
  void scalar_sync(CoreState& c);
  void drain(CoreState& c);
  void finish_core(CoreState& c);
  // reports
  std::string deadlock_report() const;
};

}  // namespace npusim::sim
