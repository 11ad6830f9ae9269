#pragma once
// Happens-before bookkeeping with vector clocks. An "agent" is one pipe (including the scalar unit) of one
// core in the current launch; the machine numbers them 0..N-1. Sync instructions move clocks:
//   set_flag / cross_set / sync_all arrival  -> release(agent) gives a snapshot to store with the flag;
//   wait_flag / cross_wait / sync_all leave  -> acquire(agent, snapshot) joins it into the waiter's clock;
//   the scalar unit issuing an instruction to pipe p -> acquire(p, clock(scalar)) before p executes it
//   (an instruction issued after a scalar wait is ordered after that wait).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::sim {

using AgentId = uint32_t;

class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(size_t n) : c_(n, 0) {}
  uint32_t operator[](AgentId a) const { return c_[a]; }
  uint32_t& operator[](AgentId a) { return c_[a]; }
  void join(const VectorClock& o);  // element-wise max
  size_t size() const { return c_.size(); }
  uint32_t* data() { return c_.data(); }
  const uint32_t* data() const { return c_.data(); }

 private:
  std::vector<uint32_t> c_;
};

class HappensBefore {
 public:
  explicit HappensBefore(size_t agents);
  // Starts a new epoch of `a` (one per executed instruction); returns the epoch's clock value.
  uint32_t tick(AgentId a);
  const VectorClock& clock(AgentId a) const { return clocks_[a]; }
  // The clock to store with a flag. A reference, not a copy: assigning it to the flag's stored clock
  // reuses that clock's storage instead of allocating one per set_flag.
  const VectorClock& release(AgentId a) const { return clocks_[a]; }
  void acquire(AgentId a, const VectorClock& released);
  // Whether the event (agent, epoch) happens before everything agent `b` does from now on.
  bool ordered_before(AgentId a, uint32_t epoch, AgentId b) const { return a == b || clocks_[b][a] >= epoch; }
  // Join version of an agent's clock: bumps whenever acquire() changed it (lets callers skip joins).
  uint64_t version(AgentId a) const { return versions_[a]; }
  size_t agents() const { return clocks_.size(); }
  // For a mirror of another HappensBefore (the checker thread, check_runner.h): a's clock becomes `clock`
  // (agents() entries), or only its own entry becomes `epoch` (what tick() changes).
  void assign(AgentId a, const uint32_t* clock);
  void assign_own(AgentId a, uint32_t epoch) { clocks_[a][a] = epoch; }

 private:
  std::vector<VectorClock> clocks_;
  std::vector<uint64_t> versions_;
};

}  // namespace npusim::sim
