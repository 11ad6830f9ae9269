#pragma once
// Internal to the race checker: shadow state of GM, where any agent of any core may access any byte.
// Exact byte ranges: segments are split at every access boundary, so two accesses conflict only if their
// bytes really overlap (write [0,100) and read [100,200) never do), and untouched address space costs nothing.
//
// Why it looks like this: the segments live in 4 KiB pages, each a short vector sorted by address, found
// through a hash table with a one-page cache. A std::map of segments cost a pointer chase per segment
// walked: a strided write (FixPipe rows of one column block of a workspace whose other blocks lie between
// them) stepped over the other blocks' segments, node by cold node, and that walk was a fifth of the checker
// thread on a FlashAttention launch. In a page the neighbours are adjacent in memory (and a page is one hash
// probe away: with a node-based std::unordered_map, rows a page apart cost a tenth of the checker on FIA 8k),
// and a segment crossing
// a page boundary is simply two segments (the same state on both sides, so the checks and the reports are
// those of one segment; only the count of segments checked counts both).
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"
#include "sim/check/same_pipe_rule.h"
#include "sim/flat_index.h"

namespace npusim::sim {

class GmShadow {
 public:
  static constexpr unsigned kPageShift = 12;

  explicit GmShadow(const HappensBefore& hb) : hb_(hb) {}
  // The accessing instruction's same-pipe rule (SamePipeRule bits) and its agent's done epoch
  // (HappensBefore::done): an own earlier access after `done` conflicts where the rule says so.
  // `probe` (lo, hi]: the epochs a pending pipe_barrier completed (LocalShadow::begin); barrier_used() after the
  // access says whether an own conflict fell there.
  void begin(uint8_t rule, uint32_t done, uint32_t probe_lo = 0, uint32_t probe_hi = 0) {
    rule_ = rule, done_ = done, probe_lo_ = probe_lo, probe_hi_ = probe_hi, probe_used_ = false;
  }
  bool barrier_used() const { return probe_used_; }
  // Checks one GM range of an instruction of agent `a` at `epoch` and records it; returns segments checked.
  uint64_t access(AgentId a, uint32_t epoch, uint64_t id, const AccessRange& r, RaceHits& hits);
  void reset() {
    pages_.clear();
    index_.clear();
    dense_.clear();
    cached_ = FlatIndex::kNone;
  }
  size_t segments() const;

 private:
  struct Access {
    AgentId agent;
    uint32_t epoch;  // 0: none
    uint64_t id;
  };
  struct Segment {
    uint64_t begin, end;
    Access writer;
    // Since the writer; pruned so no reader is ordered before another. Inline for the usual one or two
    // (a workspace row read by one AIV), so a segment costs no allocation of its own.
    boost::container::small_vector<Access, 2> readers;
  };
  using Page = std::vector<Segment>;  // disjoint, by address, inside the page

  Page& page(uint64_t number);
  // Whether a recorded access conflicts with `me` as dependence `kind` (a SamePipeRule bit): unordered with
  // another agent, or an own access of an earlier instruction that has not landed where the rule says so.
  bool conflicts(const Access& earlier, const Access& me, uint8_t kind) const {
    if (earlier.epoch == 0) return false;
    if (earlier.agent != me.agent) return !hb_.ordered_before(earlier.agent, earlier.epoch, me.agent);
    if (!(rule_ & kind)) return false;
    if (earlier.epoch > probe_lo_ && earlier.epoch <= probe_hi_) probe_used_ = true;
    return earlier.epoch > done_ && earlier.epoch != me.epoch;
  }
  void add_reader(Segment& s, const Access& me) const;
  // One access within one page: [lo, hi) lies inside it.
  uint64_t read(Page& p, const Access& me, uint64_t lo, uint64_t hi, RaceHits& hits);
  uint64_t write(Page& p, const Access& me, uint64_t lo, uint64_t hi, RaceHits& hits);
  static void report(RaceKind kind, const Access& earlier, uint64_t lo, uint64_t hi, RaceHits& hits) {
    hits.add(kind, isa::Buf::GM, earlier.agent, earlier.epoch, true, earlier.id, lo, hi);
  }

  const HappensBefore& hb_;
  uint8_t rule_ = 0;
  uint32_t done_ = 0, probe_lo_ = 0, probe_hi_ = 0;
  mutable bool probe_used_ = false;
  // Page number -> index into pages_ (pages are only added; reset() drops them all). GM is bump-allocated from
  // address 0, so the pages of a launch are dense: a plain array indexed by page number (4 bytes per 4 KiB of GM)
  // holds them, neighbours share a host cache line, and a lookup is one load instead of a hash probe (most
  // lookups are misses of the one-page cache: FixPipe rows land on a new page each). Pages beyond kDensePages
  // (64 GiB) go through the hash index.
  static constexpr uint64_t kDensePages = uint64_t{1} << 24;
  std::vector<uint32_t> dense_;
  FlatIndex index_;
  std::vector<Page> pages_;
  uint64_t cached_number_ = 0;
  uint32_t cached_ = FlatIndex::kNone;
};

}  // namespace npusim::sim
