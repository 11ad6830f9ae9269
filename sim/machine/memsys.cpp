#include "sim/machine/memsys.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "sim/registry.h"

namespace npusim::sim {

NPUSIM_REGISTER_IMPL(MemoryModel, "write_back_l2", MemorySystem);
// The older name: configs that name it still load (l2.replacement chooses the policy either way).
static const bool npusim_impl_registered_old_name = ImplRegistry<MemoryModel>::instance().add(
    "lru_write_back",
    [](const HwConfig& hw) -> std::unique_ptr<MemoryModel> { return std::make_unique<MemorySystem>(hw); });
extern "C" const int npusim_impl_anchor_lru_write_back = 0;  // linked in by sim/CMakeLists.txt (-u)

std::unique_ptr<MemoryModel> make_memory_model(const HwConfig& hw) {
  return ImplRegistry<MemoryModel>::instance().create("memory.impl", hw.memory.impl, hw);
}

// Regions hold at least one line each, so up to `capacity` may exist, but typically capacity / 64 do: the index
// is sized for those and grows when half full. (Sized for the worst case, 12 MB for the 910B2's L2, every probe
// of a decode launch's streaming was a cache miss, a tenth of its run time.)
LruLines::LruLines(uint64_t capacity) : LineRegions(capacity), capacity_(capacity) { slots_.resize(size_t(capacity)); }

uint32_t LineRegions::region(uint64_t tag, bool create, uint32_t& cache) {
  if (cache != kNone && regions_[cache].tag == tag && regions_[cache].used) return cache;
  uint32_t r = index_.find(tag);
  if (r == kNone && create) return add_region(tag, cache);
  if (r != kNone) cache = r;
  return r;
}

uint32_t LineRegions::add_region(uint64_t tag, uint32_t& cache) {
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

void LineRegions::drop_region(uint32_t r) {
  index_.erase(regions_[r].tag);
  free_regions_.push_back(r);
  if (touch_cache_ == r) touch_cache_ = kNone;
  if (evict_cache_ == r) evict_cache_ = kNone;
}

void LineRegions::forget(uint64_t line) {
  const uint32_t r = region(line >> kRegionShift, false, evict_cache_);
  regions_[r].slot[line & kLow] = kNone;
  if (--regions_[r].used == 0) drop_region(r);
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
    forget(slots_[slot].tag);
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

RandomLines::RandomLines(uint64_t capacity) : LineRegions(capacity), capacity_(capacity) {
  slots_.assign(size_t(capacity), Slot{kEmpty, 0});
}

uint64_t RandomLines::draw() {  // xorshift64*, then a multiply-shift onto [0, capacity) (no modulo bias to speak of)
  rng_ ^= rng_ >> 12, rng_ ^= rng_ << 25, rng_ ^= rng_ >> 27;
  const uint64_t r = rng_ * 0x2545F4914F6CDD1Dull;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * capacity_) >> 64);
}

bool RandomLines::touch(uint64_t line, bool write, bool* evicted_dirty) {
  *evicted_dirty = false;
  if (capacity_ == 0) return false;
  const uint32_t r = region(line >> kRegionShift, false, touch_cache_);
  if (r != kNone && regions_[r].slot[line & kLow] != kNone) {
    Slot& s = slots_[regions_[r].slot[line & kLow]];
    s.dirty = s.dirty | write;
    return true;
  }
  const uint64_t slot = draw();
  Slot& s = slots_[slot];
  if (s.tag != kEmpty) {
    *evicted_dirty = s.dirty;
    forget(s.tag);
  }
  s.tag = line, s.dirty = write;
  // (forget drops regions but never adds one, so a region found missing is still missing.)
  const uint32_t g = r == kNone || !regions_[r].used ? region(line >> kRegionShift, true, touch_cache_) : r;
  regions_[g].slot[line & kLow] = static_cast<uint32_t>(slot);
  ++regions_[g].used;
  return false;
}

namespace {
std::unique_ptr<L2Lines> make_lines(const HwConfig& hw) {
  const auto capacity = uint64_t(hw.l2.bytes / hw.l2.line_bytes);
  if (hw.l2.replacement == "random") return std::make_unique<RandomLines>(capacity);
  return std::make_unique<LruLines>(capacity);  // (the loader accepts lru and random only)
}
}  // namespace

MemorySystem::MemorySystem(const HwConfig& hw)
    : hw_(hw),
      line_bytes_(uint64_t(hw.l2.line_bytes)),
      line_(line_bytes_),
      burst_(uint64_t(hw.gm.burst_bytes)),
      lines_(make_lines(hw)) {}

double MemorySystem::l2_hit_rate() const {
  const uint64_t total = stats_.l2_hit_bytes + stats_.l2_miss_bytes;
  return total ? static_cast<double>(stats_.l2_hit_bytes) / total : 0.0;
}

bool MemorySystem::touch(uint64_t line, bool write, uint64_t now) {
  bool evicted_dirty = false;
  const bool hit = lines_->touch(line, write, &evicted_dirty);
  if (evicted_dirty) {  // the write-back takes HBM and L2-controller time now
    evicted_ = true;
    stats_.hbm_bytes += line_bytes_;
    reserve_hbm(double(line_bytes_), now);
    reserve_l2(double(line_bytes_) / double(hw_.l2.writeback_bytes_per_cycle), now);
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

double MemorySystem::reserve_hbm(double bytes, uint64_t now) {
  const double start = std::max<double>(static_cast<double>(now), hbm_free_at_);
  hbm_free_at_ = start + bytes / static_cast<double>(hw_.hbm.bytes_per_cycle);
  return hbm_free_at_;
}

double MemorySystem::reserve_l2_write(double bytes, uint64_t now) {
  l2_write_free_at_ =
      std::max<double>(static_cast<double>(now), l2_write_free_at_) + bytes / double(hw_.l2.write_bytes_per_cycle);
  return l2_write_free_at_;
}

double MemorySystem::reserve_l2(double cycles, uint64_t now) {
  l2_free_at_ = std::max<double>(static_cast<double>(now), l2_free_at_) + cycles;
  return l2_free_at_;
}

void MemorySystem::warm(uint64_t begin, uint64_t end) {
  bool evicted_dirty = false;
  for (uint64_t l = line_.div(begin); l * line_bytes_ < end; ++l) lines_->touch(l, false, &evicted_dirty);
}

bool MemorySystem::bypasses(const std::vector<isa::Access>& gm) const {
  if (bypass_.empty() || gm.empty()) return false;
  // A transfer reads one tensor: its first byte says which allocation (an allocation is bypass or not as a whole).
  uint64_t first = UINT64_MAX;
  for (const auto& a : gm) a.for_each_segment([&](uint64_t lo, uint64_t) { first = std::min(first, lo); });
  const auto it = std::upper_bound(bypass_.begin(), bypass_.end(), first,
                                   [](uint64_t x, const std::pair<uint64_t, uint64_t>& r) { return x < r.first; });
  return it != bypass_.begin() && first < std::prev(it)->second;
}

// Around the L2: HBM time only, each request at least hbm.min_request_bytes (short bursts waste the DRAM's).
TransferCost MemorySystem::read_bypass(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) {
  uint64_t raw = 0;
  double hbm = 0;
  const Bursts bu = bursts(gm);
  const auto min_request = double(hw_.hbm.min_request_bytes);
  for (const auto& a : gm) {
    raw += a.bytes();
    a.for_each_segment([&](uint64_t lo, uint64_t hi) {
      const double moved = double(burst_.round_up(hi) - burst_.div(lo) * burst_.d);
      hbm += std::max(moved, min_request * std::ceil(moved / double(hw_.l2.line_bytes)));
    });
  }
  stats_.bytes_read += raw;
  stats_.bypass_bytes += raw;
  stats_.hbm_bytes += raw;
  double data = std::max(double(bu.bytes) / port.miss_rate, double(bu.segments * port.segment_cycles));
  if (raw > 0) data = std::max(data, reserve_hbm(hbm, now) - static_cast<double>(now));
  return {static_cast<uint64_t>(std::ceil(data)), port.startup + (gm.empty() ? 0 : uint64_t(hw_.hbm.latency_cycles))};
}

TransferCost MemorySystem::read(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) {
  if (bypasses(gm)) return read_bypass(gm, now, port);
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
  if (miss_b > 0) data = std::max(data, reserve_hbm(miss_b, now) - static_cast<double>(now));
  const double l2 = hit_b / double(hw_.l2.bytes_per_cycle) + miss_b / double(hw_.l2.fill_bytes_per_cycle);
  if (moved > 0) data = std::max(data, reserve_l2(l2, now) - static_cast<double>(now));
  const uint64_t latency = miss ? hw_.hbm.latency_cycles : hw_.l2.hit_latency_cycles;
  return {static_cast<uint64_t>(std::ceil(data)), port.startup + (gm.empty() ? 0 : latency)};
}

TransferCost MemorySystem::write(const std::vector<isa::Access>& gm, uint64_t now, const DmaPort& port) {
  uint64_t raw = 0;
  evicted_ = false;
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
  if (moved > 0) data = std::max(data, reserve_l2_write(double(moved), now) - static_cast<double>(now));
  // Making room wrote dirty lines back: the transfer completes when the controller and HBM have taken them.
  if (evicted_)
    data = std::max({data, l2_free_at_ - static_cast<double>(now), hbm_free_at_ - static_cast<double>(now)});
  return {static_cast<uint64_t>(std::ceil(data)),
          port.startup + (gm.empty() ? 0 : static_cast<uint64_t>(hw_.l2.hit_latency_cycles))};
}

}  // namespace npusim::sim
