#pragma once
// The memory-system seam: how GM transfers are timed. Implementations register under a name
// (sim/registry.h) and the config chooses one with `memory.impl` (configs/README.md).
#include <cstdint>
#include <memory>
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

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // GM ranges read by one transfer (e.g. MTE2) at cycle `now`, through a port of `port_rate` bytes/cycle
  // (HBM path) and `hit_rate` bytes/cycle (L2 hit path).
  virtual TransferCost read(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, double hit_rate,
                            uint64_t startup) = 0;
  // GM ranges written (MTE3, FixPipe).
  virtual TransferCost write(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, uint64_t startup) = 0;
  virtual const MemStats& stats() const = 0;
  virtual double l2_hit_rate() const = 0;
  virtual void reset_stats() = 0;
};

// The implementation named by hw.memory.impl (ConfigError listing the valid names otherwise).
std::unique_ptr<MemoryModel> make_memory_model(const HwConfig& hw);

}  // namespace npusim::sim
