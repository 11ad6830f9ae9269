#pragma once
// The scalar unit's data cache, for timing only: which GM lines are resident (LRU over dcache_bytes /
// dcache_line_bytes lines). Scalar loads that hit cost scalar.dcache_hit_cycles instead of the GM latency,
// so a kernel walking a block table pays one GM round trip per line, as on the hardware (hardware.md §2:
// DCache 32 KiB, 64-byte lines). Data always comes from GM: the model keeps no stale copies (the hardware's
// incoherence with DMA writes is not modelled).
#include <cstdint>
#include <vector>

namespace npusim::sim {

class DCache {
 public:
  void reset(int64_t lines) {
    tag_.assign(size_t(lines > 0 ? lines : 0), ~0ull);
    used_.assign(tag_.size(), 0);
    clock_ = 0;
  }
  // True when `line` is resident; otherwise it is brought in (evicting the least recently used line).
  bool access(uint64_t line) {
    if (tag_.empty()) return false;
    size_t victim = 0;
    for (size_t i = 0; i < tag_.size(); ++i) {
      if (tag_[i] == line) return used_[i] = ++clock_, true;
      if (used_[i] < used_[victim]) victim = i;
    }
    tag_[victim] = line, used_[victim] = ++clock_;
    return false;
  }

 private:
  std::vector<uint64_t> tag_, used_;
  uint64_t clock_ = 0;
};

}  // namespace npusim::sim
