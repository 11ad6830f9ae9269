#pragma once
// Runs the race checker either inline or on a second host thread (sim/README.md "Checks on a second
// thread"). Threaded, the simulation thread only appends each access to a log (its ranges, and the
// accessing agent's vector clock whenever an acquire changed it since that agent's last access); the
// checker thread replays the log in order against a mirror of the clocks, so every check sees exactly the
// clock it would have seen inline and the faults, their order and the counts are identical.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "sim/check/happens_before.h"
#include "sim/check/race_checker.h"

namespace npusim::sim {

// One executed instruction's identity, as the machine knows it (no strings: names come from core_names).
struct AccessEvent {
  uint64_t id;
  int core;
  isa::Pipe pipe;
  uint64_t cycle;
  const isa::Instr& instr;
};

class CheckRunner {
 public:
  // `hb` is the machine's clock state (read at each access); `core_names[c]` names global core c.
  // `hazards[a]`: agent a's same-pipe rule (RaceChecker).
  CheckRunner(const HappensBefore& hb, std::vector<int> core_of_agent, std::vector<std::string> core_names,
              bool check_gm, bool threaded, std::vector<uint8_t> hazards = {});
  ~CheckRunner();
  CheckRunner(const CheckRunner&) = delete;
  CheckRunner& operator=(const CheckRunner&) = delete;

  void set_read_only(std::vector<std::pair<uint64_t, uint64_t>> ranges);
  // Checks (inline) or logs (threaded) one instruction's accesses; `epoch` is what hb.tick(a) returned for it.
  void on_access(AgentId a, uint32_t epoch, const AccessEvent& e, std::span<const AccessRange> ranges);
  // A pipe_barrier of agent a at `epoch` (after hb.complete(a)); `done_before` was hb.done(a) before it.
  void on_barrier(AgentId a, uint32_t epoch, uint32_t done_before, const AccessEvent& e);
  // Waits until every logged access is checked (rethrows what the checker thread threw) and judges the barriers
  // still open. Call before faults() and notes().
  void finish();
  const std::vector<Fault>& faults() const { return checker_->faults(); }
  const std::vector<Fault>& notes() const { return checker_->notes(); }
  uint64_t checks_run() const { return checker_->checks_run(); }
  bool threaded() const { return threaded_; }

 private:
  struct Record {
    AgentId agent;
    uint32_t epoch;
    uint32_t done;  // hb.done(agent) at the access; for a barrier, done() before it
    bool barrier;   // a pipe_barrier (no ranges)
    uint32_t first_range, n_ranges;
    uint32_t clock;  // offset of the agent's clock in Batch::clocks, or kNoClock: unchanged since its last access
    uint64_t id;
    int core;
    isa::Pipe pipe;
    uint64_t cycle;
    isa::Instr instr;
  };
  struct Batch {
    std::vector<Record> records;
    std::vector<AccessRange> ranges;
    std::vector<uint32_t> clocks;
  };
  static constexpr uint32_t kNoClock = UINT32_MAX;
  static constexpr size_t kBatchRecords = 4096;  // accesses handed over at once
  static constexpr size_t kBatchesInFlight = 8;  // the simulation waits when the checker is this far behind

  void check_inline(AgentId a, uint32_t epoch, const AccessEvent& e, std::span<const AccessRange> ranges);
  // The log's record of one access or barrier; copies a's clock into the batch when an acquire changed it.
  Record& log(AgentId a, uint32_t epoch, uint32_t done, bool barrier, const AccessEvent& e, size_t n_ranges);
  void hand_over();  // queues the current batch for the checker thread
  void worker();     // the checker thread
  void replay(const Batch& b);

  const HappensBefore& hb_;
  std::vector<std::string> core_names_;
  bool threaded_;
  HappensBefore mirror_;  // threaded: the clocks as the checker thread replays them
  std::unique_ptr<RaceChecker> checker_;
  // threaded: the simulation thread's side
  std::vector<uint64_t> logged_version_;  // per agent: the clock version last copied into the log
  std::unique_ptr<Batch> current_;
  // shared with the checker thread
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Batch>> full_;  // batches to check, oldest first
  std::vector<std::unique_ptr<Batch>> free_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace npusim::sim
