#include "sim/machine/gm.h"

#include <stdexcept>

#include "sim/config/hw_config.h"

namespace npusim::sim {

namespace {
constexpr uint64_t kAlign = 512;
}

GlobalMemory::GlobalMemory(uint64_t capacity_bytes, bool back_everything)
    : capacity_(capacity_bytes), all_(back_everything) {}

uint64_t GlobalMemory::allocate(const std::string& name, uint64_t bytes, bool materialize) {
  const uint64_t off = (top_ + kAlign - 1) / kAlign * kAlign;
  if (off + bytes > capacity_)
    throw ConfigError("GM allocation '" + name + "' of " + std::to_string(bytes) + " bytes exceeds gm.bytes = " +
                      std::to_string(capacity_) + " (" + std::to_string(off) + " bytes already allocated)");
  if (all_ && off + bytes > host_budget_)
    throw ConfigError("GM allocation '" + name + "' of " + std::to_string(bytes) +
                      " bytes: this mode backs GM with host memory and would need " + std::to_string(off + bytes) +
                      " bytes, over the host-memory budget of " + std::to_string(host_budget_) +
                      " (--host-memory; timing mode backs only what the scalar unit reads)");
  top_ = off + bytes;
  by_name_.emplace(name, allocs_.size());
  allocs_.push_back({name, off, bytes, all_ || materialize});
  if (all_) data_.resize(top_, 0);
  sparse_.emplace_back(!all_ && materialize ? bytes : 0, 0);
  return off;
}

const GmAllocation& GlobalMemory::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) throw std::out_of_range("no GM allocation named '" + name + "'");
  return allocs_[it->second];
}

void GlobalMemory::mark_read_only(const std::string& name) { allocs_[by_name_.at(name)].read_only = true; }

void GlobalMemory::set_l2_bypass(const std::string& name, bool bypass) {
  allocs_[by_name_.at(name)].l2_bypass = bypass;
}

namespace {
template <class Pred>
std::vector<std::pair<uint64_t, uint64_t>> ranges_where(const std::vector<GmAllocation>& allocs, Pred pred) {
  std::vector<std::pair<uint64_t, uint64_t>> r;
  for (const auto& a : allocs)  // allocations are made in increasing address order
    if (pred(a) && a.bytes) r.emplace_back(a.offset, a.offset + a.bytes);
  return r;
}
}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> GlobalMemory::read_only_ranges() const {
  return ranges_where(allocs_, [](const GmAllocation& a) { return a.read_only; });
}

std::vector<std::pair<uint64_t, uint64_t>> GlobalMemory::l2_bypass_ranges() const {
  return ranges_where(allocs_, [](const GmAllocation& a) { return a.l2_bypass; });
}

bool GlobalMemory::backed(uint64_t off, uint64_t len) const {
  if (all_) return off + len <= data_.size();
  for (size_t i = 0; i < allocs_.size(); ++i)
    if (allocs_[i].materialized && off >= allocs_[i].offset && off + len <= allocs_[i].offset + allocs_[i].bytes)
      return true;
  return false;
}

uint8_t* GlobalMemory::ptr(uint64_t off, uint64_t len) {
  if (all_) {
    if (off + len > data_.size()) throw std::out_of_range("GM access beyond the allocated space");
    return data_.data() + off;
  }
  for (size_t i = 0; i < allocs_.size(); ++i)
    if (allocs_[i].materialized && off >= allocs_[i].offset && off + len <= allocs_[i].offset + allocs_[i].bytes)
      return sparse_[i].data() + (off - allocs_[i].offset);
  throw std::out_of_range("GM range is not materialised in timing mode");
}

}  // namespace npusim::sim
