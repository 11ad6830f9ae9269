#pragma once
// Happens-before bookkeeping with vector clocks. An "agent" is one pipe (including the scalar unit) of one
// core in the current launch; the machine numbers them 0..N-1. Sync instructions move clocks:
//   set_flag / cross_set / sync_all arrival  -> release(agent) gives a snapshot to store with the flag;
//   wait_flag / cross_wait / sync_all leave  -> acquire(agent, snapshot) joins it into the waiter's clock;
//   the scalar unit issuing an instruction to pipe p -> acquire(p, clock(scalar)) before p executes it
//   (an instruction issued after a scalar wait is ordered after that wait).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::sim {

using AgentId = uint32_t;

// A vector clock over N agents, block-sparse: entries come in blocks of 8 (the machine numbers one core's
// 8 agents as one block) and a bit mask says which blocks may hold a non-zero entry. An agent's clock only
// ever holds the agents it synchronised with, directly or transitively -- in a 72-core launch that is one
// AI Core's 24 agents unless the kernel uses SyncAll -- so joins, copies and the checker thread's log touch
// those few blocks instead of all 576 entries. Lookups stay one load from the dense array.
class VectorClock {
 public:
  static constexpr unsigned kBlockShift = 3;
  static constexpr size_t kBlock = size_t{1} << kBlockShift;

  VectorClock() = default;
  explicit VectorClock(size_t n) : n_(n), c_(blocks_of(n) * kBlock, 0), nz_((blocks_of(n) + 63) / 64, 0) {}
  VectorClock(const VectorClock&) = default;
  VectorClock(VectorClock&&) noexcept = default;
  VectorClock& operator=(VectorClock&&) noexcept = default;
  // Copies only the blocks either clock may have non-zero (a flag's stored clock is overwritten by every set).
  VectorClock& operator=(const VectorClock& o);

  uint32_t operator[](AgentId a) const { return c_[a]; }
  void set(AgentId a, uint32_t v) {
    c_[a] = v;
    mark(a >> kBlockShift);
  }
  uint32_t bump(AgentId a) {  // ++entry a; returns the new value
    mark(a >> kBlockShift);
    return ++c_[a];
  }
  bool join(const VectorClock& o);  // element-wise max; true when some entry grew
  size_t size() const { return n_; }
  const uint32_t* data() const { return c_.data(); }  // size() entries (padded to whole blocks)

  // Calls f(block) for every block that may hold a non-zero entry, in increasing order.
  template <class F>
  void for_each_block(F&& f) const {
    for (size_t w = 0; w < nz_.size(); ++w)
      for (uint64_t m = nz_[w]; m; m &= m - 1) f(w * 64 + size_t(std::countr_zero(m)));
  }
  // Every entry back to 0 (only the marked blocks are written).
  void clear();
  // Block `k` becomes the kBlock values at `v` (marked).
  void set_block(size_t k, const uint32_t* v);

 private:
  static size_t blocks_of(size_t n) { return (n + kBlock - 1) / kBlock; }
  void mark(size_t block) { nz_[block >> 6] |= uint64_t{1} << (block & 63); }
  void resize_to(size_t n);
  size_t n_ = 0;
  std::vector<uint32_t> c_;   // dense, padded to whole blocks
  std::vector<uint64_t> nz_;  // bit k: block k may hold a non-zero entry (a superset)
};

// An agent's own entry lives apart from its clock, in a dense array: tick() runs for every executed
// instruction and then touches one shared cache line instead of a line of each agent's 2 KiB clock. The
// clock's copy of it is brought up to date whenever the clock is read or joined into.
class HappensBefore {
 public:
  explicit HappensBefore(size_t agents);
  // Starts a new epoch of `a` (one per executed instruction); returns the epoch's clock value.
  uint32_t tick(AgentId a) { return ++own_[a]; }
  const VectorClock& clock(AgentId a) const {
    sync_own(a);
    return clocks_[a];
  }
  // The clock to store with a flag. A reference, not a copy: assigning it to the flag's stored clock
  // reuses that clock's storage instead of allocating one per set_flag. A release runs after the agent's
  // earlier results have landed (set_flag, cross_set and a SyncAll arrival wait for them), so it also
  // completes the agent's own epochs.
  const VectorClock& release(AgentId a) {
    complete(a);
    return clock(a);
  }
  void acquire(AgentId a, const VectorClock& released) {
    sync_own(a);
    // a's entry in a released clock comes from a release of a (or a drain): everything a did up to it landed.
    if (a < released.size()) done_[a] = std::max(done_[a], released[a]);
    if (clocks_[a].join(released)) ++versions_[a];
  }
  // Same-pipe completion (sim/README.md "Same-pipe hazards"): the newest own epoch of `a` whose results are
  // known to have landed before a's next instruction starts. A pipe_barrier on a's pipe completes every epoch
  // so far; so do a's releases and acquiring a clock that holds a's own entry.
  uint32_t done(AgentId a) const { return done_[a]; }
  void complete(AgentId a) { done_[a] = own_[a]; }
  // Whether the event (agent, epoch) happens before everything agent `b` does from now on.
  bool ordered_before(AgentId a, uint32_t epoch, AgentId b) const { return a == b || clocks_[b][a] >= epoch; }
  // Join version of an agent's clock: bumps whenever acquire() changed it (lets callers skip joins).
  uint64_t version(AgentId a) const { return versions_[a]; }
  size_t agents() const { return clocks_.size(); }
  // For a mirror of another HappensBefore (the checker thread, check_runner.h): a's clock to overwrite, and
  // its own entry (what tick() changes).
  VectorClock& mutable_clock(AgentId a) { return clocks_[a]; }
  void assign_own(AgentId a, uint32_t epoch) { own_[a] = epoch; }
  void assign_done(AgentId a, uint32_t epoch) { done_[a] = epoch; }

 private:
  void sync_own(AgentId a) const {
    if (clocks_[a][a] != own_[a]) clocks_[a].set(a, own_[a]);
  }
  mutable std::vector<VectorClock> clocks_;  // entry a of clocks_[a] is own_[a] once synced
  std::vector<uint32_t> own_;
  std::vector<uint32_t> done_;  // per agent: see done()
  std::vector<uint64_t> versions_;
};

}  // namespace npusim::sim
