#pragma once
// Memory model `lru_write_back` (the default of every bundled config): a shared L2 (line-granular, fully
// associative, LRU, write-back) in front of HBM whose bandwidth all cores share. Each transfer is costed at the
// moment its DMA starts; HBM time (misses, write-backs) and L2 time (every byte moved) are reserved on two shared
// channels, so concurrent streams from many cores slow each other once their sum exceeds a channel's rate, while
// one core alone is capped by its own port rates and its per-segment request cost.
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/flat_index.h"
#include "sim/machine/memory_model.h"

namespace npusim::sim {

// Fully associative LRU over line numbers, in flat arrays. The lines form an intrusive doubly linked recency
// list over a fixed slot array. The index from line to slot is two-level: an open-addressing hash (linear
// probing, backward-shift deletion) from a region of 64 consecutive lines to a table of their 64 slots. A
// transfer walks consecutive lines and an eviction the consecutive lines of an old transfer, so nearly every
// lookup finds its region in a one-entry cache and then reads one word of a table it has just read: one
// hash probe per 64 lines instead of per line (a decode launch streams gigabytes through the L2, every line
// a miss and an eviction). No allocation once the region pool has grown to the working set.
//
// Until the L2 first fills, nothing is evicted, so the recency order is not needed yet: a touch only stamps the
// line (a touch counter, kept in the line's link fields), and the list is built once, from the stamps, when the
// first eviction needs its tail. A run whose working set fits the L2 (FIA prompt S 2048, GEMM 4096^3) never
// relinks a line; the list it would have had is exactly the lines in order of their last touch.
class LruLines {
 public:
  explicit LruLines(uint64_t capacity);
  // Touches `line`: true on a hit (it becomes most recent, `write` marks it dirty). On a miss it is inserted
  // (dirty when written); when full the least recent line is evicted first and *evicted_dirty says whether
  // it was dirty.
  bool touch(uint64_t line, bool write, bool* evicted_dirty);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr unsigned kRegionShift = 6;  // 64 lines per region
  // 16 bytes, so a transfer's stream of consecutive slots spans a third fewer host cache lines than with a
  // separate flag (line numbers are GM offsets / line size: far below 2^63).
  struct Slot {
    uint64_t tag : 63;
    uint64_t dirty : 1;
    uint32_t prev, next;  // toward more / less recent
  };
  static_assert(sizeof(Slot) == 16);
  struct Region {
    uint64_t tag = 0;
    uint32_t used = 0;                       // lines of the region in the L2
    uint32_t slot[1u << kRegionShift] = {};  // kNone = not in the L2
  };
  // The region of `tag` (its pool index), or kNone; `create` adds an empty one when missing. `cache` is the
  // one-entry cache of the caller (lookups and evictions each walk their own stream of regions).
  uint32_t region(uint64_t tag, bool create, uint32_t& cache);
  uint32_t add_region(uint64_t tag, uint32_t& cache);  // `tag` is known to be missing
  void drop_region(uint32_t r);  // its last line left: back to the pool, out of the index
  void unlink(uint32_t s);
  void push_front(uint32_t s);
  void stamp(uint32_t s);    // before the first fill: records the touch
  void order_by_stamps();    // at the first eviction: the recency list from the stamps
  uint64_t capacity_;
  std::vector<Slot> slots_;
  std::vector<Region> regions_;
  std::vector<uint32_t> free_regions_;
  FlatIndex index_;  // region tag -> index into regions_
  uint32_t head_ = kNone, tail_ = kNone, used_ = 0;
  bool ordered_ = false;   // the list is built (after the first fill); before, slots hold stamps
  uint64_t touches_ = 0;   // the stamp clock
  uint32_t last_slot_ = kNone - 1;  // the slot touched last (its successor is tried first)
  uint32_t touch_cache_ = kNone, evict_cache_ = kNone;
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
  const MemStats& stats() const override { return stats_; }
  double l2_hit_rate() const override;
  void reset_stats() override { stats_ = {}; }

 private:
  bool touch(uint64_t line, bool write, uint64_t now);  // true on hit; inserts on miss
  struct Bursts {
    uint64_t bytes = 0, segments = 0;  // burst-rounded bytes moved, contiguous GM ranges (requests)
  };
  Bursts bursts(const std::vector<isa::Access>& gm) const;  // one walk over the segments for both
  double reserve_hbm(uint64_t bytes, uint64_t now);  // returns the cycle the reservation ends
  double reserve_l2(uint64_t bytes, uint64_t now);   // the same on the chip's shared L2 channel

  const HwConfig& hw_;
  uint64_t line_bytes_;
  SizeDivisor line_, burst_;
  LruLines lines_;
  double hbm_free_at_ = 0, l2_free_at_ = 0;
  MemStats stats_;
};

}  // namespace npusim::sim
