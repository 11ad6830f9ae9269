#pragma once
// Race detection on buffer ranges (issue 3, "checks"): two accesses to overlapping bytes, at least one a
// write, by different agents with no happens-before order between them. Local buffers (L1, L0A, L0B,
// L0C, BT, FB, UB) are tracked per core at 32-byte-block granularity; GM is tracked as segments of
// the exact byte ranges touched in the launch, in 4 KiB pages (so terabyte-scale address spaces cost nothing).
// Reports name both instructions: core, pipe, start cycle and assembly text.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/instr/footprint.h"
#include "isa/instr/instr.h"
#include "sim/check/happens_before.h"

namespace npusim::sim {

// One byte range an instruction reads or writes, possibly strided (count segments, stride apart: a row-strided
// operand is one range); callers may pass many ranges per instruction. The ISA's footprint type is passed
// through unchanged.
using AccessRange = isa::Access;

// Identifies an executed instruction in reports.
struct InstrInfo {
  uint64_t id = 0;        // unique in the launch, increasing in issue order
  int core = 0;           // global core index (as in traces)
  std::string core_name;  // e.g. "aic3", "aiv7"
  isa::Pipe pipe = isa::Pipe::S;
  uint64_t cycle = 0;  // start cycle
  std::string text;    // assembly text; when empty the checker renders isa::to_asm(instr) on demand
  isa::Instr instr{};  // the instruction itself (cheap to keep; text is only made for reports)
};

// The same identity without copies (the machine's path: the checker thread builds one per access from its
// log, and an InstrInfo would copy the instruction and the core name each time).
struct InstrRef {
  uint64_t id = 0;
  int core = 0;
  std::string_view core_name;
  isa::Pipe pipe = isa::Pipe::S;
  uint64_t cycle = 0;
  std::string_view text;
  const isa::Instr* instr = nullptr;
  InstrInfo info() const { return {id, core, std::string(core_name), pipe, cycle, std::string(text), *instr}; }
};

// How every report names an instruction: "#id core pipe (cycle N) `asm`".
std::string describe_instruction(uint64_t id, std::string_view core, isa::Pipe pipe, uint64_t cycle,
                                 std::string_view text);

struct Fault {
  std::string kind;     // "race", "gm-race", "bounds", "deadlock", "flags-pending", "cross-flag-overflow", ...
  std::string message;  // complete, human-readable, names the instructions involved
};

class RaceChecker {
 public:
  static constexpr size_t kHistory = 1024;   // instruction records kept per agent for reports
  static constexpr size_t kMaxFaults = 100;  // faults stored; further distinct races are only counted

  // `core_of_agent[a]` is the core index of agent a (local buffers are per core). With check_gm = false only
  // the local buffers are checked (`--checks local`). `hazards[a]` is agent a's same-pipe rule (SamePipeRule
  // bits, local_shadow.h; empty: none): an own access after an earlier own one that has not landed
  // (HappensBefore::done) is a `hazard` fault where the rule says so.
  RaceChecker(const HappensBefore& hb, std::vector<int> core_of_agent, bool check_gm = true,
              std::vector<uint8_t> hazards = {});
  ~RaceChecker();
  RaceChecker(const RaceChecker&) = delete;
  RaceChecker& operator=(const RaceChecker&) = delete;
  // Checks and records the accesses of one instruction executed by agent `a` (its clock already
  // includes every acquire that precedes it). `epoch` is what tick(a) returned for this instruction
  // (never 0: 0 means "no access" in the shadow state). Faults are appended to faults(): each pair of
  // instructions at most once, at most kMaxFaults of them; reset() also clears faults and counters.
  void on_access(AgentId a, uint32_t epoch, const InstrInfo& info, std::span<const AccessRange> ranges);
  void on_access(AgentId a, uint32_t epoch, const InstrRef& ref, std::span<const AccessRange> ranges);
  // A pipe_barrier executed by agent a at `epoch`; `done_before` was a's done() before it. The barrier is
  // judged when a's next barrier comes or at close_barriers(): one that no later access of a needed (under a's
  // rule, against the instructions it completed) is a `redundant-barrier` note.
  void on_barrier(AgentId a, uint32_t epoch, uint32_t done_before, const InstrRef& ref);
  void close_barriers();  // the launch ended: judges every barrier still open
  const std::vector<Fault>& faults() const { return faults_; }
  const std::vector<Fault>& notes() const { return notes_; }
  uint64_t checks_run() const { return checks_; }  // local blocks + GM segments checked
  uint64_t faults_dropped() const;                 // distinct races found beyond kMaxFaults
  void reset();                                    // new launch: forget all shadow state
  // GM ranges the kernels only read (sorted [begin, end)): reads there need no shadow (nothing may write
  // them); a write there is an `input-write` fault naming the instruction.
  void set_read_only(std::vector<std::pair<uint64_t, uint64_t>> ranges);

 private:
  struct Impl;
  Impl* impl_;
  std::vector<Fault> faults_;
  std::vector<Fault> notes_;
  uint64_t checks_ = 0;
};

}  // namespace npusim::sim
