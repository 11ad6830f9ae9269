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
//  - per 1 KiB page, the newest write and read epoch of every slot: an access whose every other slot is
//    ordered before it on a page (the common case in a synchronised kernel) checks nothing there and only
//    fills its own fields, which are contiguous (a vector store loop, no per-granule branching).
// Memory is bounded by the buffers' sizes (about 80 B per KiB of buffer per reading slot); nothing grows
// with the length of the run.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"

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
  static constexpr unsigned kPageShift = 10;                         // summary pages of 1 KiB
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

  explicit LocalShadow(const std::vector<int>& core_of_agent);
  // Prepares the checks of one instruction of agent `a` at `epoch`; `clock` is a's current clock.
  void begin(AgentId a, uint32_t epoch, const VectorClock& clock);
  // Checks one local access (possibly strided) of that instruction and records it; returns the number of
  // granules it covers (the unit of RaceChecker::checks_run).
  uint64_t access(const AccessRange& r, RaceHits& hits);
  void reset();
  // The state of one granule of one core's buffer (tests).
  GranuleState state(int core, isa::Buf buf, uint64_t granule) const;

 private:
  struct PageSummary {
    std::array<uint32_t, kMaxSlots> last_write{}, last_read{};  // newest epochs of each slot on the page
  };
  struct BufShadow {
    uint64_t granules = 0;  // the arrays cover granules [0, granules)
    std::vector<uint32_t> w_epoch;
    std::vector<uint8_t> w_slot;
    std::array<std::vector<uint32_t>, kMaxSlots> read;  // empty until the slot reads the buffer
    std::vector<PageSummary> pages;
    std::vector<uint8_t> read_slots;  // per page: slots whose read[] may be non-zero there
  };

  BufShadow& shadow(isa::Buf b) {
    return *shadows_[static_cast<size_t>(core_) * isa::kNumBufs + static_cast<size_t>(b)];
  }
  void grow(BufShadow& s, isa::Buf b, uint64_t granules) const;
  void read_segment(BufShadow& s, const AccessRange& r, uint64_t first, uint64_t last, RaceHits& hits);
  void write_segment(BufShadow& s, const AccessRange& r, uint64_t first, uint64_t last, RaceHits& hits);
  // Per-granule checks of [lo, hi) (a page flagged by its summary), in the order of the reference checker.
  void check_reads_of(const BufShadow& s, const AccessRange& r, uint64_t lo, uint64_t hi, RaceHits& hits) const;
  void check_writes_of(const BufShadow& s, const AccessRange& r, uint64_t lo, uint64_t hi, bool waw, uint32_t war,
                       RaceHits& hits) const;
  void report(RaceKind kind, uint32_t slot, uint32_t epoch, uint64_t g, const AccessRange& r, RaceHits& hits) const;

  std::vector<uint8_t> slot_of_agent_;
  std::vector<int> core_of_agent_;
  std::vector<std::array<AgentId, kMaxSlots>> agent_of_slot_;  // per core
  std::vector<uint8_t> slots_used_;                            // per core
  std::vector<std::unique_ptr<BufShadow>> shadows_;            // [core * kNumBufs + buf]
  // The instruction being checked. clk_[s] is its agent's clock entry for slot s's agent, projected once per
  // instruction so a check is a table lookup; its own slot (and unused ones) hold the maximum, because an
  // in-order pipe never races with itself.
  int core_ = 0;
  uint32_t own_slot_ = 0;
  uint32_t epoch_ = 0;
  alignas(32) uint32_t clk_[kMaxSlots] = {};
};

}  // namespace npusim::sim
