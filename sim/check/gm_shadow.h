#pragma once
// Internal to the race checker: shadow state of GM, where any agent of any core may access any byte.
// An interval map over the exact byte ranges touched in the launch: segments are split at every access
// boundary, so two accesses conflict only if their bytes really overlap (write [0,100) and read
// [100,200) never do), and untouched address space costs nothing.
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <map>
#include <memory_resource>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"

namespace npusim::sim {

class GmShadow {
 public:
  // use_hint = false always looks segments up from the root (tests compare both ways).
  explicit GmShadow(const HappensBefore& hb, bool use_hint = true) : hb_(hb), segments_(&pool_), use_hint_(use_hint) {}
  // Checks one GM range of an instruction of agent `a` at `epoch` and records it; returns segments checked.
  uint64_t access(AgentId a, uint32_t epoch, uint64_t id, const AccessRange& r, RaceHits& hits);
  void reset() {
    segments_.clear();
    has_hint_ = false;
  }
  size_t segments() const { return segments_.size(); }

 private:
  struct Access {
    AgentId agent;
    uint32_t epoch;  // 0: none
    uint64_t id;
  };
  struct Segment {
    uint64_t end;
    Access writer;
    // Since the writer; pruned so no reader is ordered before another. Inline for the usual one or two
    // (a workspace row read by one AIV), so a segment costs no allocation of its own.
    boost::container::small_vector<Access, 2> readers;
  };
  // Nodes come from a pool: a launch creates and erases segments by the hundred thousand.
  using Map = std::pmr::map<uint64_t, Segment>;

  Map::iterator first_ending_after(const Access& me, uint64_t pos);
  Map::iterator split(Map::iterator it, uint64_t pos);
  // Whether a recorded access races with agent a's current one (never for a's own accesses).
  bool unordered(const Access& earlier, AgentId a) const {
    return earlier.epoch != 0 && !hb_.ordered_before(earlier.agent, earlier.epoch, a);
  }
  void add_reader(Segment& s, const Access& me) const;
  uint64_t read(const Access& me, const AccessRange& r, RaceHits& hits);
  uint64_t write(const Access& me, const AccessRange& r, RaceHits& hits);
  static void report(RaceKind kind, const Access& earlier, uint64_t lo, uint64_t hi, RaceHits& hits) {
    hits.add(kind, isa::Buf::GM, earlier.agent, earlier.epoch, true, earlier.id, lo, hi);
  }

  static constexpr int kHintSteps = 8;  // segments walked from the hint before a lookup from the root

  const HappensBefore& hb_;
  std::pmr::unsynchronized_pool_resource pool_;
  Map segments_;  // keyed by first byte; disjoint
  Map::iterator hint_;  // the segment the last access ended in (valid when has_hint_)
  Access hint_owner_{};  // the instruction that made that access
  bool has_hint_ = false;
  bool use_hint_;
};

}  // namespace npusim::sim
