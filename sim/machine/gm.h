#pragma once
// Global memory: one byte address space with named allocations (inputs, outputs, workspace).
// In full / functional mode every allocation is backed by host memory. In timing mode only allocations
// marked `materialize` (data the scalar unit reads, e.g. block tables) are backed, so huge shapes fit.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace npusim::sim {

struct GmAllocation {
  std::string name;
  uint64_t offset = 0, bytes = 0;
  bool materialized = false;
  bool read_only = false;
  bool l2_bypass = false;  // read around the L2 (Ascend C SetL2CacheHint(CACHE_MODE_DISABLE)): set_l2_bypass
};

class GlobalMemory {
 public:
  GlobalMemory(uint64_t capacity_bytes, bool back_everything);
  // Allocates `bytes` at a 512-byte aligned offset; throws ConfigError-like std::runtime_error when the
  // configured capacity (gm.bytes) is exceeded, naming the allocation.
  uint64_t allocate(const std::string& name, uint64_t bytes, bool materialize = false);
  const std::vector<GmAllocation>& allocations() const { return allocs_; }
  const GmAllocation& find(const std::string& name) const;  // std::out_of_range naming it when absent
  // An allocation the kernels only read (an op input): the race checker keeps no shadow of its reads, and a
  // write into it is an `input-write` fault.
  void mark_read_only(const std::string& name);
  // [begin, end) of every read-only allocation, sorted.
  std::vector<std::pair<uint64_t, uint64_t>> read_only_ranges() const;
  // The L2 policy of an allocation: reads of a bypass allocation go around the L2 (no allocation in it, no hit
  // either), as the device's L2-bypass address alias / Ascend C's SetL2CacheHint(CACHE_MODE_DISABLE) on a
  // GlobalTensor. Timing only: the data is the same.
  void set_l2_bypass(const std::string& name, bool bypass = true);
  std::vector<std::pair<uint64_t, uint64_t>> l2_bypass_ranges() const;  // sorted
  // The span instructions execute on (empty in timing mode).
  std::span<uint8_t> span() { return std::span<uint8_t>(data_); }
  bool backed(uint64_t off, uint64_t len) const;
  uint8_t* ptr(uint64_t off, uint64_t len);  // throws when [off, off+len) is not backed
  uint64_t used_bytes() const { return top_; }
  // Full / functional mode back every allocation with host memory: refuse (ConfigError, exit 2) to grow past
  // `bytes` instead of letting the host run out (the CLI's --host-memory).
  void set_host_budget(uint64_t bytes) { host_budget_ = bytes; }
  bool backs_everything() const { return all_; }

 private:
  uint64_t capacity_, top_ = 0, host_budget_ = UINT64_MAX;
  bool all_;
  std::vector<uint8_t> data_;                 // full / functional mode
  std::vector<std::vector<uint8_t>> sparse_;  // timing mode: per materialised allocation
  std::vector<GmAllocation> allocs_;
  std::unordered_map<std::string, size_t> by_name_;  // kernels look names up for every DMA they issue
};

}  // namespace npusim::sim
