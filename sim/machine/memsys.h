#pragma once
// Memory model `write_back_l2` (the default of every bundled config; `lru_write_back` is its older name): a
// shared write-back L2 (line-granular, fully associative, LRU or random replacement: l2.replacement) in front of
// HBM. Each transfer is costed at the moment its DMA starts and reserves time on channels all cores share:
//   the L2 controller: every read-hit byte at l2.bytes_per_cycle, every read-miss byte at l2.fill_bytes_per_cycle
//     (miss-and-allocate: the cached path's ceiling), every dirty line evicted at l2.writeback_bytes_per_cycle; AIC
//     and AIV traffic add on it, and so do cold reads and the write-backs a write stream causes (calibration.md §6);
//   the L2's write path: every byte written at l2.write_bytes_per_cycle (writes land in the L2; a written line
//     reaches HBM when it is evicted);
//   HBM: read misses, dirty write-backs and L2-bypass reads at hbm.bytes_per_cycle; a bypass request shorter than
//     hbm.min_request_bytes costs that many bytes (short bursts waste the DRAM's burst).
// An allocation marked L2-bypass (GlobalMemory::set_l2_bypass, Ascend C's SetL2CacheHint(CACHE_MODE_DISABLE))
// is read around the L2: only its HBM time is reserved. So concurrent streams from many cores slow each other once
// their sum exceeds a channel's rate, while one core alone is capped by its own port rates and its per-segment
// request cost.
#include <bit>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/flat_index.h"
#include "sim/machine/memory_model.h"

namespace npusim::sim {

// The L2's resident lines: touch a line, learn whether it hit and whether making room evicted a dirty line.
class L2Lines {
 public:
  virtual ~L2Lines() = default;
  // Touches `line`: true on a hit (`write` marks it dirty). On a miss it is inserted (dirty when written); when
  // that evicts a line, *evicted_dirty says whether the evicted line was dirty.
  virtual bool touch(uint64_t line, bool write, bool* evicted_dirty) = 0;
};

// The index from line number to slot shared by the replacement policies: two-level, an open-addressing hash
// (linear probing, backward-shift deletion) from a region of 64 consecutive lines to a table of their 64 slots.
// A transfer walks consecutive lines and an eviction the lines of an old transfer, so nearly every lookup finds
// its region in a one-entry cache and then reads one word of a table it has just read: one hash probe per 64
// lines instead of per line (a decode launch streams gigabytes through the L2, every line a miss and an
// eviction). No allocation once the region pool has grown to the working set.
class LineRegions {
 protected:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr unsigned kRegionShift = 6;  // 64 lines per region
  static constexpr uint64_t kLow = (uint64_t{1} << kRegionShift) - 1;
  struct Region {
    uint64_t tag = 0;
    uint32_t used = 0;                       // lines of the region in the L2
    uint32_t slot[1u << kRegionShift] = {};  // kNone = not in the L2
  };
  explicit LineRegions(uint64_t capacity) : index_(capacity >> kRegionShift) {}
  // The region of `tag` (its pool index), or kNone; `create` adds an empty one when missing. `cache` is the
  // one-entry cache of the caller (lookups and evictions each walk their own stream of regions).
  uint32_t region(uint64_t tag, bool create, uint32_t& cache);
  uint32_t add_region(uint64_t tag, uint32_t& cache);  // `tag` is known to be missing
  void drop_region(uint32_t r);                        // its last line left: back to the pool, out of the index
  void forget(uint64_t line);                          // `line` (present) leaves the index
  std::vector<Region> regions_;
  std::vector<uint32_t> free_regions_;
  FlatIndex index_;  // region tag -> index into regions_
  uint32_t touch_cache_ = kNone, evict_cache_ = kNone;
};

// Fully associative LRU over line numbers, in flat arrays: an intrusive doubly linked recency list over a fixed
// slot array, indexed by LineRegions.
//
// Until the L2 first fills, nothing is evicted, so the recency order is not needed yet: a touch only stamps the
// line (a touch counter, kept in the line's link fields), and the list is built once, from the stamps, when the
// first eviction needs its tail. A run whose working set fits the L2 (FIA prompt S 2048, GEMM 4096^3) never
// relinks a line; the list it would have had is exactly the lines in order of their last touch.
class LruLines final : public L2Lines, LineRegions {
 public:
  explicit LruLines(uint64_t capacity);
  bool touch(uint64_t line, bool write, bool* evicted_dirty) override;

 private:
  // 16 bytes, so a transfer's stream of consecutive slots spans a third fewer host cache lines than with a
  // separate flag (line numbers are GM offsets / line size: far below 2^63).
  struct Slot {
    uint64_t tag : 63;
    uint64_t dirty : 1;
    uint32_t prev, next;  // toward more / less recent
  };
  static_assert(sizeof(Slot) == 16);
  void unlink(uint32_t s);
  void push_front(uint32_t s);
  void stamp(uint32_t s);  // before the first fill: records the touch
  void order_by_stamps();  // at the first eviction: the recency list from the stamps
  uint64_t capacity_;
  std::vector<Slot> slots_;
  uint32_t head_ = kNone, tail_ = kNone, used_ = 0;
  bool ordered_ = false;            // the list is built (after the first fill); before, slots hold stamps
  uint64_t touches_ = 0;            // the stamp clock
  uint32_t last_slot_ = kNone - 1;  // the slot touched last (its successor is tried first)
};

// Random replacement over the whole capacity: a missing line goes to a slot drawn uniformly from all of them,
// evicting whatever is there, as if the L2 were always full of older data (a device's L2 is: earlier kernels
// left it so). A footprint F re-read in a loop then keeps losing lines to its own insertions until few miss:
// the hit rate falls gradually with F / capacity instead of LRU's step at the capacity, which is the shape of
// the 910B2's measured read rate against the footprint (calibration.md §6; configs/README.md "Memory system").
// The draws come from a fixed-seed generator, so a run is reproducible.
class RandomLines final : public L2Lines, LineRegions {
 public:
  explicit RandomLines(uint64_t capacity);
  bool touch(uint64_t line, bool write, bool* evicted_dirty) override;

 private:
  static constexpr uint64_t kEmpty = (uint64_t{1} << 63) - 1;  // a tag no line has
  struct Slot {
    uint64_t tag : 63;
    uint64_t dirty : 1;
  };
  uint64_t draw();  // uniform in [0, capacity)
  uint64_t capacity_;
  std::vector<Slot> slots_;
  uint64_t rng_ = 0x9E3779B97F4A7C15ull;
};

// Division by a configured size: a shift when it is a power of two (every bundled config), which this
// per-segment arithmetic meets on every transfer; a real division otherwise.
struct SizeDivisor {
  explicit SizeDivisor(uint64_t d) : d(d), shift(std::has_single_bit(d) ? std::countr_zero(d) : -1) {}
  uint64_t div(uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
  uint64_t round_up(uint64_t x) const { return div(x + d - 1) * d; }
  uint64_t d;
  int shift;
};

class MemorySystem final : public MemoryModel {
 public:
  explicit MemorySystem(const HwConfig& hw);
  TransferCost read(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) override;
  TransferCost write(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) override;
  void warm(uint64_t begin, uint64_t end) override;
  void set_bypass(std::vector<std::pair<uint64_t, uint64_t>> ranges) override { bypass_ = std::move(ranges); }
  const MemStats& stats() const override { return stats_; }
  double l2_hit_rate() const override;
  void reset_stats() override { stats_ = {}; }

 private:
  bool touch(uint64_t line, bool write, uint64_t now);  // true on hit; inserts on miss
  struct Bursts {
    uint64_t bytes = 0, segments = 0;  // burst-rounded bytes moved, contiguous GM ranges (requests)
  };
  Bursts bursts(const std::vector<isa::Access>& gm) const;  // one walk over the segments for both
  bool bypasses(const std::vector<isa::Access>& gm) const;  // reads an L2-bypass allocation
  TransferCost read_bypass(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port);
  // Channel time: each returns the cycle its reservation ends (cycles = bytes / rate, after earlier ones).
  double reserve_hbm(double bytes, uint64_t now);
  double reserve_l2(double cycles, uint64_t now);       // the L2 controller, in cycles (its rates differ per kind)
  double reserve_l2_write(double bytes, uint64_t now);  // the L2's write path

  const HwConfig& hw_;
  uint64_t line_bytes_;
  SizeDivisor line_, burst_;
  std::unique_ptr<L2Lines> lines_;
  std::vector<std::pair<uint64_t, uint64_t>> bypass_;  // [begin, end) of the L2-bypass allocations, sorted
  double hbm_free_at_ = 0, l2_free_at_ = 0, l2_write_free_at_ = 0;
  bool evicted_ = false;  // the current write evicted a dirty line
  MemStats stats_;
};

}  // namespace npusim::sim
