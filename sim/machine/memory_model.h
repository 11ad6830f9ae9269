#pragma once
// The memory-system seam: how GM transfers are timed. Implementations register under a name
// (sim/registry.h) and the config chooses one with `memory.impl` (configs/README.md).
#include <cstdint>
#include <memory>
#include <utility>
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

// One DMA engine's side of a transfer: rates in bytes / cycle, the engine's start-up latency and its minimum
// occupancy per contiguous GM segment (a burst request: short rows cost requests, not bytes).
struct DmaPort {
  double miss_rate = 0, hit_rate = 0;
  uint64_t startup = 0, segment_cycles = 0;
};

struct MemStats {
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t l2_hit_bytes = 0, l2_miss_bytes = 0;
  uint64_t hbm_bytes = 0;     // misses + dirty write-backs + bypass reads
  uint64_t bypass_bytes = 0;  // read around the L2 (L2-bypass allocations)
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // GM ranges read by one transfer (e.g. MTE2) at cycle `now`, through `port` (miss_rate: the HBM path,
  // hit_rate: the L2 hit path).
  virtual TransferCost read(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) = 0;
  // GM ranges written (MTE3, FixPipe); port.miss_rate is the write rate.
  virtual TransferCost write(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) = 0;
  // [begin, end) is resident (clean) in the L2 before the launch starts: hw.launch.inputs_in_l2.
  virtual void warm(uint64_t begin, uint64_t end) = 0;
  // The GM ranges [begin, end) (sorted, disjoint) read around the L2 this launch: L2-bypass allocations.
  virtual void set_bypass(std::vector<std::pair<uint64_t, uint64_t>> ranges) = 0;
  virtual const MemStats& stats() const = 0;
  virtual double l2_hit_rate() const = 0;
  virtual void reset_stats() = 0;
};

// The implementation named by hw.memory.impl (ConfigError listing the valid names otherwise).
std::unique_ptr<MemoryModel> make_memory_model(const HwConfig& hw);

}  // namespace npusim::sim
