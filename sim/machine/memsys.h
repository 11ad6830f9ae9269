#pragma once
// Memory model `lru_write_back` (the default of every bundled config): a shared L2 (line-granular, fully
// associative, LRU, write-back) in front of HBM whose bandwidth all cores share. Each transfer is costed at the
// moment its DMA starts; HBM time is reserved on one shared channel, so concurrent streams from many cores slow
// each other once their sum exceeds the HBM rate, while one core alone is capped by its own port rate.
#include <cstdint>
#include <vector>

#include "sim/machine/memory_model.h"

namespace npusim::sim {

// Fully associative LRU over line numbers, in flat arrays: an open-addressing index (linear probing,
// backward-shift deletion) into slots that form an intrusive doubly linked recency list. No allocation after
// construction; a touch is a probe and a few index updates.
class LruLines {
 public:
  explicit LruLines(uint64_t capacity);
  // Touches `line`: true on a hit (it becomes most recent, `write` marks it dirty). On a miss it is inserted
  // (dirty when written); when full the least recent line is evicted first and *evicted_dirty says whether
  // it was dirty.
  bool touch(uint64_t line, bool write, bool* evicted_dirty);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    uint64_t tag;
    uint32_t prev, next;  // toward more / less recent
    bool dirty;
  };
  size_t home(uint64_t tag) const { return size_t((tag * 0x9E3779B97F4A7C15ull) >> shift_); }
  uint32_t find(uint64_t tag) const;
  void index_insert(uint64_t tag, uint32_t slot);
  void index_erase(uint64_t tag);
  void unlink(uint32_t s);
  void push_front(uint32_t s);
  uint64_t capacity_;
  struct Entry {
    uint64_t tag;   // the line (valid when slot != kNone): a probe compares it without touching the slot
    uint32_t slot;  // kNone = empty
  };
  std::vector<Slot> slots_;
  std::vector<Entry> index_;
  int shift_ = 64;
  uint32_t head_ = kNone, tail_ = kNone, used_ = 0;
  uint32_t last_slot_ = kNone - 1;  // the slot touched last (its successor is tried first)
};

class MemorySystem final : public MemoryModel {
 public:
  explicit MemorySystem(const HwConfig& hw);
  TransferCost read(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, double hit_rate,
                    uint64_t startup) override;
  TransferCost write(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, uint64_t startup) override;
  const MemStats& stats() const override { return stats_; }
  double l2_hit_rate() const override;
  void reset_stats() override { stats_ = {}; }

 private:
  bool touch(uint64_t line, bool write, uint64_t now);  // true on hit; inserts on miss
  uint64_t burst_bytes(const std::vector<isa::Access>& gm) const;
  double reserve_hbm(uint64_t bytes, uint64_t now);  // returns the cycle the reservation ends

  const HwConfig& hw_;
  uint64_t line_bytes_;
  LruLines lines_;
  double hbm_free_at_ = 0;
  MemStats stats_;
};

}  // namespace npusim::sim
