#pragma once
// The scalar unit's data cache: which GM lines are resident (LRU over dcache_bytes / dcache_line_bytes lines).
// Scalar loads that hit cost scalar.dcache_hit_cycles instead of the GM latency, so a kernel walking a block table
// pays one GM round trip per line, as on the hardware (hardware.md §2: DCache 32 KiB, 64-byte lines).
//
// Data always comes from GM (the model keeps no copies), but the cache is not coherent with DMA writes on the
// device: a line cached before an MTE3 / FixPipe store to it keeps the old bytes until `dcci` drops it (Ascend C
// 缓存一致性: DSB and flags do not change cached copies, only DataCacheCleanAndInvalid does). So with checks on,
// a DMA store marks the resident lines it covers stale -- only lines outside the op's read-only inputs are
// tracked, so kernels that read just their inputs pay nothing -- and a load that hits a stale line is a
// `stale-dcache` fault naming the store (sim/README.md "Checks").
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npusim::sim {

class DCache {
 public:
  void reset(int64_t lines) {
    tag_.assign(size_t(lines > 0 ? lines : 0), ~0ull);
    used_.assign(tag_.size(), 0);
    tracked_.assign(tag_.size(), 0);
    stale_.assign(tag_.size(), 0);
    stale_by_.clear();
    clock_ = 0;
    tracked_lines_ = 0;
  }
  // True when `line` is resident; otherwise it is brought in (evicting the least recently used line). `track`: the
  // line may be written by a DMA (not an input), so mark_stale() must look at it.
  bool access(uint64_t line, bool track = false) {
    if (tag_.empty()) return false;
    size_t victim = 0;
    for (size_t i = 0; i < tag_.size(); ++i) {
      if (tag_[i] == line) return used_[i] = ++clock_, true;
      if (used_[i] < used_[victim]) victim = i;
    }
    drop(victim);
    tag_[victim] = line, used_[victim] = ++clock_;
    tracked_[victim] = track;
    tracked_lines_ += track;
    return false;
  }
  // Resident tracked lines in [first, end) become stale; `who` names the store (built only when one does).
  template <class Who>
  void mark_stale(uint64_t first, uint64_t end, Who&& who) {
    if (tracked_lines_ == 0) return;
    for (size_t i = 0; i < tag_.size(); ++i)
      if (tracked_[i] && !stale_[i] && tag_[i] >= first && tag_[i] < end)
        stale_[i] = 1, stale_by_.emplace_back(tag_[i], who());
  }
  // The store that made resident `line` stale ("" when it is fresh or not resident); cleared once asked.
  std::string take_stale(uint64_t line) {
    for (size_t i = 0; i < tag_.size(); ++i)
      if (tag_[i] == line && stale_[i]) {
        stale_[i] = 0;
        return forget(line);
      }
    return {};
  }
  void invalidate(uint64_t line) {
    for (size_t i = 0; i < tag_.size(); ++i)
      if (tag_[i] == line) drop(i);
  }
  void invalidate_all() {
    for (size_t i = 0; i < tag_.size(); ++i) drop(i);
  }
  int64_t tracked_lines() const { return tracked_lines_; }

 private:
  void drop(size_t i) {
    tracked_lines_ -= tracked_[i];
    if (stale_[i]) forget(tag_[i]);
    tag_[i] = ~0ull, used_[i] = 0, tracked_[i] = 0, stale_[i] = 0;
  }
  std::string forget(uint64_t line) {  // removes and returns the line's entry in stale_by_
    for (auto it = stale_by_.begin(); it != stale_by_.end(); ++it)
      if (it->first == line) {
        std::string by = std::move(it->second);
        stale_by_.erase(it);
        return by;
      }
    return {};
  }
  std::vector<uint64_t> tag_, used_;
  std::vector<uint8_t> tracked_, stale_;
  std::vector<std::pair<uint64_t, std::string>> stale_by_;  // the stale lines and the store that made each stale
  uint64_t clock_ = 0;
  int64_t tracked_lines_ = 0;
};

}  // namespace npusim::sim
