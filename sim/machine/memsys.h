#pragma once
// The memory system behind GM: a shared L2 (line-granular, fully associative, LRU, write-back) in front of
// HBM whose bandwidth all cores share. Each transfer is costed at the moment its DMA starts; HBM time is
// reserved on one shared channel, so concurrent streams from many cores slow each other once their sum
// exceeds the HBM rate, while one core alone is capped by its own port rate.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "isa/instr/footprint.h"
#include "sim/config/hw_config.h"

namespace npusim::sim {

// A transfer occupies its engine for the data phase; the start-up and the memory latency delay its
// completion but overlap the next queued transfer (engines keep several requests in flight).
struct TransferCost {
  uint64_t occupancy;  // data phase: the next transfer of the same engine may start after it
  uint64_t latency;    // start-up + memory latency until the data has landed
};

struct MemStats {
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t l2_hit_bytes = 0, l2_miss_bytes = 0;
  uint64_t hbm_bytes = 0;  // misses + dirty write-backs
};

class MemorySystem {
 public:
  explicit MemorySystem(const HwConfig& hw);
  // GM ranges read by one transfer (e.g. MTE2) at cycle `now`, through a port of `port_rate` bytes/cycle
  // (HBM path) and `hit_rate` bytes/cycle (L2 hit path).
  TransferCost read(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, double hit_rate,
                    uint64_t startup);
  // GM ranges written (MTE3, FixPipe): absorbed by L2 (write-allocate), written back to HBM on eviction.
  TransferCost write(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, uint64_t startup);
  const MemStats& stats() const { return stats_; }
  double l2_hit_rate() const;
  void reset_stats() { stats_ = {}; }

 private:
  struct Line { uint64_t tag; bool dirty; };
  bool touch(uint64_t line, bool write, uint64_t now);  // true on hit; inserts on miss
  uint64_t burst_bytes(const std::vector<isa::Access>& gm) const;
  double reserve_hbm(uint64_t bytes, uint64_t now);  // returns the cycle the reservation ends

  const HwConfig& hw_;
  uint64_t line_bytes_, capacity_lines_;
  std::list<Line> lru_;  // front = most recent
  std::unordered_map<uint64_t, std::list<Line>::iterator> map_;
  double hbm_free_at_ = 0;
  MemStats stats_;
};

}  // namespace npusim::sim
