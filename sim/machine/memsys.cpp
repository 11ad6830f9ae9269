#include "sim/machine/memsys.h"

#include <algorithm>
#include <cmath>

namespace npusim::sim {

MemorySystem::MemorySystem(const HwConfig& hw)
    : hw_(hw), line_bytes_(hw.l2.line_bytes), capacity_lines_(hw.l2.bytes / hw.l2.line_bytes) {}

double MemorySystem::l2_hit_rate() const {
  const uint64_t total = stats_.l2_hit_bytes + stats_.l2_miss_bytes;
  return total ? static_cast<double>(stats_.l2_hit_bytes) / total : 0.0;
}

bool MemorySystem::touch(uint64_t line, bool write, uint64_t now) {
  auto it = map_.find(line);
  if (it != map_.end()) {
    it->second->dirty |= write;
    lru_.splice(lru_.begin(), lru_, it->second);
    return true;
  }
  if (map_.size() >= capacity_lines_) {
    const Line victim = lru_.back();
    if (victim.dirty) {  // write-back consumes HBM bandwidth now
      stats_.hbm_bytes += line_bytes_;
      reserve_hbm(line_bytes_, now);
    }
    map_.erase(victim.tag);
    lru_.pop_back();
  }
  lru_.push_front({line, write});
  map_[line] = lru_.begin();
  return false;
}

// GM is accessed in bursts: each contiguous range costs whole bursts.
uint64_t MemorySystem::burst_bytes(const std::vector<isa::Access>& gm) const {
  const uint64_t b = hw_.gm.burst_bytes;
  uint64_t total = 0;
  for (const auto& a : gm) total += (a.end / b + (a.end % b ? 1 : 0) - a.begin / b) * b;
  return total;
}

double MemorySystem::reserve_hbm(uint64_t bytes, uint64_t now) {
  const double start = std::max<double>(static_cast<double>(now), hbm_free_at_);
  hbm_free_at_ = start + static_cast<double>(bytes) / static_cast<double>(hw_.hbm.bytes_per_cycle);
  return hbm_free_at_;
}

TransferCost MemorySystem::read(const std::vector<isa::Access>& gm, uint64_t now, double port_rate, double hit_rate,
                                uint64_t startup) {
  uint64_t hit = 0, miss = 0, raw = 0;
  for (const auto& a : gm) {
    raw += a.end - a.begin;
    for (uint64_t l = a.begin / line_bytes_; l * line_bytes_ < a.end; ++l) {
      const uint64_t lo = std::max(a.begin, l * line_bytes_), hi = std::min(a.end, (l + 1) * line_bytes_);
      (touch(l, false, now) ? hit : miss) += hi - lo;
    }
  }
  // Burst rounding inflates the transferred bytes; split it between hit and miss in proportion.
  const uint64_t moved = burst_bytes(gm);
  const double scale = raw ? static_cast<double>(moved) / static_cast<double>(raw) : 1.0;
  const double hit_b = hit * scale, miss_b = miss * scale;
  stats_.bytes_read += raw;
  stats_.l2_hit_bytes += hit;
  stats_.l2_miss_bytes += miss;
  stats_.hbm_bytes += miss;
  double data = hit_b / hit_rate + miss_b / port_rate;
  if (miss_b > 0) data = std::max(data, reserve_hbm(static_cast<uint64_t>(miss_b), now) - static_cast<double>(now));
  const uint64_t latency = miss ? hw_.hbm.latency_cycles : hw_.l2.hit_latency_cycles;
  return {static_cast<uint64_t>(std::ceil(data)), startup + (gm.empty() ? 0 : latency)};
}

TransferCost MemorySystem::write(const std::vector<isa::Access>& gm, uint64_t now, double port_rate,
                                 uint64_t startup) {
  uint64_t raw = 0;
  for (const auto& a : gm) {
    raw += a.end - a.begin;
    for (uint64_t l = a.begin / line_bytes_; l * line_bytes_ < a.end; ++l) touch(l, true, now);
  }
  stats_.bytes_written += raw;
  const double data = static_cast<double>(burst_bytes(gm)) / port_rate;
  return {static_cast<uint64_t>(std::ceil(data)), startup + (gm.empty() ? 0 : static_cast<uint64_t>(hw_.l2.hit_latency_cycles))};
}

}  // namespace npusim::sim
