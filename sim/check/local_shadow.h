#pragma once
// Internal to the race checker: shadow state of the local buffers (L1, L0A, L0B, L0C, BT, FB, UB) of every core
// at the granularity of the smallest unit accessed there: 32-byte blocks, 512 B in L0A / L0B and 64 B in L0C. An
// access touching any byte of a granule counts as touching the granule.
//
// What is remembered per granule is GranuleState: the last write (slot and epoch of its agent) and, per agent
// slot, the epoch of its last read since that write. Stored as flat arrays per (core, buffer), one per field
// (sim/README.md "Race detection" says why this layout):
//  - w_epoch / w_slot: the last write of every granule;
//  - read[slot]: per slot, its last read of every granule since the last write (0: none), allocated when the
//    slot first reads the buffer;
//  - per 4 KiB page, the newest write and read epoch of every slot: an access whose every other slot is
//    ordered before it on a page (the common case in a synchronised kernel) checks nothing there and only
//    records itself: over a whole page as the page's uniform value, over part of one by filling its own
//    fields, which are contiguous (a vector store loop, no per-granule branching).
// Memory is bounded by the buffers' sizes (about 80 B per KiB of buffer per reading slot); nothing grows
// with the length of the run.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"
#include "sim/check/same_pipe_rule.h"

namespace npusim::sim {

// What the checker remembers about one granule. Slots number the agents (pipes) of one core.
struct GranuleState {
  static constexpr int kSlots = 8;
  uint32_t read[kSlots] = {};  // epoch of each slot's last read since the last write (0: none)
  uint32_t w_epoch = 0;        // epoch of the last write (0: none)
  uint32_t w_slot = 0;         // slot of the last writer
  bool operator==(const GranuleState&) const = default;
};

class LocalShadow {
 public:
  static constexpr int kMaxSlots = GranuleState::kSlots;
  static constexpr uint64_t kMaxBufferBytes = uint64_t{256} << 20;  // sanity bound on a local buffer
  // Summary pages of 4 KiB: small enough that few accesses cover one partly, large enough that the pages of
  // a 72-core launch (~0.8 MB) stay in the checker thread's L2 (with 1 KiB pages, misses on them dominated).
  static constexpr unsigned kPageShift = 12;
  // Shadow granule of a buffer: the smallest unit any instruction accesses there, so checking per granule
  // is as exact as per byte. L0A / L0B are only touched in whole 512-byte fractals (load2d, mmad), L0C in
  // 64-byte rows of 16 accumulators (mmad fractals, FixPipe rows); everything else in 32-byte blocks.
  static constexpr unsigned granule_shift(isa::Buf b) {
    static_assert(isa::kFractalBytes == 512 && isa::kBlockBytes == 32);
    return b == isa::Buf::L0A || b == isa::Buf::L0B ? 9 : b == isa::Buf::L0C ? 6 : 5;
  }
  static constexpr uint64_t granule(isa::Buf b) { return uint64_t{1} << granule_shift(b); }
  // The granules [first, last) a byte range covers.
  static constexpr uint64_t first_granule(const AccessRange& r) { return r.begin >> granule_shift(r.buf); }
  static constexpr uint64_t end_granule(const AccessRange& r) {
    return (r.end + granule(r.buf) - 1) >> granule_shift(r.buf);
  }

  // `hazards[a]` is agent a's same-pipe rule (a SamePipeRule mask; empty: no agent has one).
  explicit LocalShadow(const std::vector<int>& core_of_agent, std::vector<uint8_t> hazards = {});
  // Prepares the checks of one instruction of agent `a` at `epoch`; `clock` is a's current clock and `done` its
  // newest own epoch known to have landed (HappensBefore::done): a's own accesses after `done` are hazards where
  // a's rule says so. `probe` (lo, hi]: a pipe_barrier completed a's epochs lo+1 .. hi and no access has needed it
  // yet; after the access, barrier_used() says whether this one did (hi == 0: no probe).
  void begin(AgentId a, uint32_t epoch, const VectorClock& clock, uint32_t done = 0, uint32_t probe_lo = 0,
             uint32_t probe_hi = 0);
  bool barrier_used() const { return probe_used_; }
  // Checks one local access (possibly strided) of that instruction and records it; returns the number of
  // granules it covers (the unit of RaceChecker::checks_run).
  uint64_t access(const AccessRange& r, RaceHits& hits);
  void reset();
  // The state of one granule of one core's buffer (tests).
  GranuleState state(int core, isa::Buf buf, uint64_t granule) const;

 private:
  // Per 4 KiB page: the newest write and read epoch of each slot (the summary an access checks first), and
  // which fields hold one value over the whole page. An access covering a whole page sets the uniform value
  // (one cache line) instead of filling granule arrays; a partial one first copies a uniform value into the
  // arrays of that page ("materialises" it).
  struct alignas(64) Page {
    // Each slot's newest write / read epoch here. An instruction's own accesses enter only when the next
    // instruction begins (`touched_`), so during it the own slot's entries are its earlier instructions' -- what
    // the same-pipe checks compare with the slot's `done`.
    std::array<uint32_t, kMaxSlots> last_write{}, last_read{};
    std::array<uint32_t, kMaxSlots> u_read{};  // the uniform read epoch of slot s (bit s of u_r)
    uint32_t u_w_epoch = 0;                    // the uniform last write (u_w)
    uint8_t u_w_slot = 0;
    bool u_w = false;        // every granule's last write is (u_w_epoch, u_w_slot)
    uint8_t u_r = 0;         // bit s: every granule's read[s] is u_read[s]
    uint8_t read_slots = 0;  // slots whose reads may be non-zero here
  };
  struct BufShadow {
    uint64_t granules = 0;  // the arrays cover granules [0, granules)
    std::vector<uint32_t> w_epoch;
    std::vector<uint8_t> w_slot;
    std::array<std::vector<uint32_t>, kMaxSlots> read;  // empty until the slot reads the buffer
    std::vector<Page> pages;
    uint32_t w_epoch_at(const Page& p, uint64_t g) const { return p.u_w ? p.u_w_epoch : w_epoch[g]; }
    uint32_t w_slot_at(const Page& p, uint64_t g) const { return p.u_w ? p.u_w_slot : w_slot[g]; }
    uint32_t read_at(const Page& p, uint32_t slot, uint64_t g) const {
      return (p.u_r >> slot & 1) ? p.u_read[slot] : g < read[slot].size() ? read[slot][g] : 0;
    }
  };

  BufShadow& shadow(isa::Buf b) {
    return *shadows_[static_cast<size_t>(core_) * isa::kNumBufs + static_cast<size_t>(b)];
  }
  void grow(BufShadow& s, isa::Buf b, uint64_t granules) const;
  // One segment of an access: its bytes and the granules [first, last) they cover.
  struct Seg {
    uint64_t begin, end, first, last;
  };
  // The segments of one access that lie in page `pi` (ascending), checked and recorded together: the page's
  // summary is compared with the clock and its record updated once, then each segment checked and filled in
  // turn (exactly what one segment at a time did; a strided operand puts several rows in a page).
  void read_page(BufShadow& s, isa::Buf buf, uint64_t pi, const Seg* segs, size_t n, RaceHits& hits);
  void write_page(BufShadow& s, isa::Buf buf, uint64_t pi, const Seg* segs, size_t n, RaceHits& hits);
  // Copies page p's uniform write state / slot's uniform read epoch into the arrays (granules [lo, hi) of p).
  static void materialise_write(BufShadow& s, Page& p, uint64_t lo, uint64_t hi);
  static void materialise_read(BufShadow& s, Page& p, uint32_t slot, uint64_t lo, uint64_t hi);
  // Per-granule checks of [lo, hi) within page p (flagged by its summary), in the reference checker's order.
  // (Cold: out of line, so the hot page functions stay small.)
  [[gnu::noinline, gnu::cold]] void check_reads_of(const BufShadow& s, const Page& p, const AccessRange& r, uint64_t lo,
                                                   uint64_t hi, RaceHits& hits) const;
  [[gnu::noinline, gnu::cold]] void check_writes_of(const BufShadow& s, const Page& p, const AccessRange& r,
                                                    uint64_t lo, uint64_t hi, bool waw, uint32_t war,
                                                    RaceHits& hits) const;
  void report(RaceKind kind, uint32_t slot, uint32_t epoch, uint64_t g, const AccessRange& r, RaceHits& hits) const;
  // Whether (slot, epoch) conflicts under the clock projection `clk`: unordered with another slot, or an own
  // access of an earlier instruction that has not landed (the current instruction's own accesses never do).
  bool conflicts(const uint32_t* clk, uint32_t slot, uint32_t epoch) const {
    return epoch > clk[slot] && (slot != own_slot_ || epoch != epoch_);
  }
  // Enters the previous instruction's accesses into the summaries of the pages it touched.
  void flush_touched();
  // Whether granules [lo, hi) of page p hold an own access of an earlier instruction newer than `thr`: a last write
  // of the own slot (writes) or an own read. The common same-pipe case -- only the own slot flagged on the page,
  // by an earlier instruction that touched other granules -- costs this branch-free scan, not a report walk.
  bool own_pending(const BufShadow& s, const Page& p, uint64_t lo, uint64_t hi, uint32_t thr, bool writes) const;
  // The barrier probe: does this access depend, under the rule, on an own epoch in (probe_lo_, probe_hi_]?
  [[gnu::noinline, gnu::cold]] void probe_page(const BufShadow& s, const Page& p, const Seg* segs, size_t n,
                                               bool write);

  std::vector<uint8_t> hazards_;  // per agent (SamePipeRule bits)
  std::vector<uint8_t> slot_of_agent_;
  std::vector<int> core_of_agent_;
  std::vector<std::array<AgentId, kMaxSlots>> agent_of_slot_;  // per core
  std::vector<uint8_t> slots_used_;                            // per core
  std::vector<std::unique_ptr<BufShadow>> shadows_;            // [core * kNumBufs + buf]
  // The instruction being checked. clk_*[s] is its agent's clock entry for slot s's agent, projected once per
  // instruction so a check is a table lookup; unused slots hold the maximum. The own slot holds `done` where
  // the agent's same-pipe rule makes that kind of dependence a hazard (RAW: a read after an own write; WAW,
  // WAR: a write after an own write / read), else the maximum (the pipe orders it itself).
  int core_ = 0;
  uint32_t own_slot_ = 0;
  uint32_t epoch_ = 0;
  uint8_t rule_ = 0;
  alignas(32) uint32_t clk_raw_[kMaxSlots] = {};
  alignas(32) uint32_t clk_waw_[kMaxSlots] = {};
  alignas(32) uint32_t clk_war_[kMaxSlots] = {};
  uint32_t probe_lo_ = 0, probe_hi_ = 0;
  bool probe_used_ = false;
  // This instruction re-read a page whose own reads the pending barrier completed (its reads replace theirs): if
  // it also writes, count the barrier as needed (WAR), as the write can no longer see which granules they were.
  bool probe_reread_ = false;
  // The pages this instruction read / wrote (buffer, page index), entered into their summaries at the next begin().
  std::vector<std::pair<BufShadow*, uint64_t>> touched_reads_, touched_writes_;
  uint32_t touched_slot_ = 0, touched_epoch_ = 0;
};

}  // namespace npusim::sim
