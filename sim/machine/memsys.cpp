#include "sim/machine/memsys.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "sim/registry.h"

namespace npusim::sim {

NPUSIM_REGISTER_IMPL(MemoryModel, "lru_write_back", MemorySystem);
extern "C" const int npusim_impl_anchor_lru_write_back = 0;  // linked in by sim/CMakeLists.txt (-u)

std::unique_ptr<MemoryModel> make_memory_model(const HwConfig& hw) {
  return ImplRegistry<MemoryModel>::instance().create("memory.impl", hw.memory.impl, hw);
}

// Regions hold at least one line each, so up to `capacity` may exist, but typically capacity / 64 do: the index
// is sized for those and grows when half full. (Sized for the worst case, 12 MB for the 910B2's L2, every probe
// of a decode launch's streaming was a cache miss, a tenth of its run time.)
LruLines::LruLines(uint64_t capacity) : capacity_(capacity), index_(capacity >> kRegionShift) {
  slots_.resize(size_t(capacity));
}

uint32_t LruLines::region(uint64_t tag, bool create, uint32_t& cache) {
  if (cache != kNone && regions_[cache].tag == tag && regions_[cache].used) return cache;
  uint32_t r = index_.find(tag);
  if (r == kNone && create) return add_region(tag, cache);
  if (r != kNone) cache = r;
  return r;
}

uint32_t LruLines::add_region(uint64_t tag, uint32_t& cache) {
  uint32_t r;
  if (free_regions_.empty()) {
    r = static_cast<uint32_t>(regions_.size());
    regions_.emplace_back();
  } else {
    r = free_regions_.back();
    free_regions_.pop_back();
  }
  Region& g = regions_[r];
  g.tag = tag;
  g.used = 0;
  std::fill(std::begin(g.slot), std::end(g.slot), kNone);
  index_.insert(tag, r);
  cache = r;
  return r;
}

void LruLines::drop_region(uint32_t r) {
  index_.erase(regions_[r].tag);
  free_regions_.push_back(r);
  if (touch_cache_ == r) touch_cache_ = kNone;
  if (evict_cache_ == r) evict_cache_ = kNone;
}

void LruLines::unlink(uint32_t s) {
  Slot& x = slots_[s];
  (x.prev == kNone ? head_ : slots_[x.prev].next) = x.next;
  (x.next == kNone ? tail_ : slots_[x.next].prev) = x.prev;
}

void LruLines::push_front(uint32_t s) {
  Slot& x = slots_[s];
  x.prev = kNone, x.next = head_;
  (head_ == kNone ? tail_ : slots_[head_].prev) = s;
  head_ = s;
}

void LruLines::stamp(uint32_t s) {
  ++touches_;
  slots_[s].prev = static_cast<uint32_t>(touches_ >> 32), slots_[s].next = static_cast<uint32_t>(touches_);
}

void LruLines::order_by_stamps() {
  std::vector<uint32_t> order(used_);
  std::iota(order.begin(), order.end(), 0u);
  auto stamp_of = [&](uint32_t s) { return uint64_t{slots_[s].prev} << 32 | slots_[s].next; };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return stamp_of(a) > stamp_of(b); });
  for (size_t i = 0; i < order.size(); ++i) {
    slots_[order[i]].prev = i ? order[i - 1] : kNone;
    slots_[order[i]].next = i + 1 < order.size() ? order[i + 1] : kNone;
  }
  head_ = order.empty() ? kNone : order.front();
  tail_ = order.empty() ? kNone : order.back();
  ordered_ = true;
}

bool LruLines::touch(uint64_t line, bool write, bool* evicted_dirty) {
  *evicted_dirty = false;
  if (capacity_ == 0) return false;
  constexpr uint64_t kLow = (uint64_t{1} << kRegionShift) - 1;
  // Transfers walk consecutive lines, which were usually inserted consecutively: try the slot after the last
  // one touched before looking the line up.
  uint32_t s = kNone;
  bool region_absent = false;  // looked up and missing: the insertion below need not look again
  if (last_slot_ + 1 < used_ && slots_[last_slot_ + 1].tag == line) {
    s = last_slot_ + 1;
  } else {
    const uint32_t r = region(line >> kRegionShift, false, touch_cache_);
    if (r != kNone) s = regions_[r].slot[line & kLow];
    region_absent = r == kNone;
  }
  if (s != kNone) {
    last_slot_ = s;
    slots_[s].dirty = slots_[s].dirty | write;
    if (!ordered_) stamp(s);
    else if (head_ != s) unlink(s), push_front(s);
    return true;
  }
  uint32_t slot = used_;
  if (used_ == capacity_) {  // evict the least recent line
    if (!ordered_) order_by_stamps();
    slot = tail_;
    *evicted_dirty = slots_[slot].dirty;
    const uint64_t old = slots_[slot].tag;
    const uint32_t r = region(old >> kRegionShift, false, evict_cache_);
    regions_[r].slot[old & kLow] = kNone;
    if (--regions_[r].used == 0) drop_region(r);
    unlink(slot);
  } else {
    ++used_;
  }
  slots_[slot].tag = line, slots_[slot].dirty = write;
  // (An eviction drops regions but never adds one, so a region found missing is still missing.)
  const uint64_t tag = line >> kRegionShift;
  const uint32_t r = region_absent ? add_region(tag, touch_cache_) : region(tag, true, touch_cache_);
  regions_[r].slot[line & kLow] = slot;
  ++regions_[r].used;
  if (ordered_) push_front(slot);
  else stamp(slot);
  last_slot_ = slot;
  return false;
}

MemorySystem::MemorySystem(const HwConfig& hw)
    : hw_(hw),
      line_bytes_(uint64_t(hw.l2.line_bytes)),
      line_(line_bytes_),
      burst_(uint64_t(hw.gm.burst_bytes)),
      lines_(uint64_t(hw.l2.bytes / hw.l2.line_bytes)) {}

double MemorySystem::l2_hit_rate() const {
  const uint64_t total = stats_.l2_hit_bytes + stats_.l2_miss_bytes;
  return total ? static_cast<double>(stats_.l2_hit_bytes) / total : 0.0;
}

bool MemorySystem::touch(uint64_t line, bool write, uint64_t now) {
  bool evicted_dirty = false;
  const bool hit = lines_.touch(line, write, &evicted_dirty);
  if (evicted_dirty) {  // write-back consumes HBM bandwidth now
    stats_.hbm_bytes += line_bytes_;
    reserve_hbm(line_bytes_, now);
  }
  return hit;
}

// GM is accessed in bursts: each contiguous range costs whole bursts and one request.
MemorySystem::Bursts MemorySystem::bursts(const std::vector<isa::Access>& gm) const {
  Bursts b;
  for (const auto& a : gm)
    a.for_each_segment([&](uint64_t lo, uint64_t hi) {
      b.bytes += burst_.round_up(hi) - burst_.div(lo) * burst_.d;
      ++b.segments;
    });
  return b;
}

double MemorySystem::reserve_hbm(uint64_t bytes, uint64_t now) {
  const double start = std::max<double>(static_cast<double>(now), hbm_free_at_);
  hbm_free_at_ = start + static_cast<double>(bytes) / static_cast<double>(hw_.hbm.bytes_per_cycle);
  return hbm_free_at_;
}

double MemorySystem::reserve_l2(uint64_t bytes, uint64_t now) {
  const double start = std::max<double>(static_cast<double>(now), l2_free_at_);
  l2_free_at_ = start + static_cast<double>(bytes) / static_cast<double>(hw_.l2.bytes_per_cycle);
  return l2_free_at_;
}

void MemorySystem::warm(uint64_t begin, uint64_t end) {
  bool evicted_dirty = false;
  for (uint64_t l = line_.div(begin); l * line_bytes_ < end; ++l) lines_.touch(l, false, &evicted_dirty);
}

TransferCost MemorySystem::read(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) {
  uint64_t hit = 0, miss = 0, raw = 0;
  for (const auto& a : gm) {
    raw += a.bytes();
    a.for_each_segment([&](uint64_t b, uint64_t e) {
      for (uint64_t l = line_.div(b); l * line_bytes_ < e; ++l) {
        const uint64_t lo = std::max(b, l * line_bytes_), hi = std::min(e, (l + 1) * line_bytes_);
        (touch(l, false, now) ? hit : miss) += hi - lo;
      }
    });
  }
  // Burst rounding inflates the transferred bytes; split it between hit and miss in proportion.
  const Bursts bu = bursts(gm);
  const uint64_t moved = bu.bytes;
  const double scale = raw ? static_cast<double>(moved) / static_cast<double>(raw) : 1.0;
  const double hit_b = hit * scale, miss_b = miss * scale;
  stats_.bytes_read += raw;
  stats_.l2_hit_bytes += hit;
  stats_.l2_miss_bytes += miss;
  stats_.hbm_bytes += miss;
  double data = std::max(hit_b / port.hit_rate + miss_b / port.miss_rate, double(bu.segments * port.segment_cycles));
  if (miss_b > 0) data = std::max(data, reserve_hbm(static_cast<uint64_t>(miss_b), now) - static_cast<double>(now));
  if (moved > 0) data = std::max(data, reserve_l2(moved, now) - static_cast<double>(now));
  const uint64_t latency = miss ? hw_.hbm.latency_cycles : hw_.l2.hit_latency_cycles;
  return {static_cast<uint64_t>(std::ceil(data)), port.startup + (gm.empty() ? 0 : latency)};
}

TransferCost MemorySystem::write(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) {
  uint64_t raw = 0;
  for (const auto& a : gm) {
    raw += a.bytes();
    a.for_each_segment([&](uint64_t b, uint64_t e) {
      for (uint64_t l = line_.div(b); l * line_bytes_ < e; ++l) touch(l, true, now);
    });
  }
  stats_.bytes_written += raw;
  const Bursts bu = bursts(gm);
  const uint64_t moved = bu.bytes;
  double data = std::max(static_cast<double>(moved) / port.miss_rate, double(bu.segments * port.segment_cycles));
  if (moved > 0) data = std::max(data, reserve_l2(moved, now) - static_cast<double>(now));
  return {static_cast<uint64_t>(std::ceil(data)), port.startup + (gm.empty() ? 0 : static_cast<uint64_t>(hw_.l2.hit_latency_cycles))};
}

}  // namespace npusim::sim
