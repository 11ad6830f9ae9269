#pragma once
// A map from 64-bit keys to 32-bit values for the simulator's hot lookups (the L2 model's line regions, the GM
// race shadow's pages): open addressing with linear probing over a power-of-two table, a multiplicative hash
// whose top bits pick the home slot, at most half full (it doubles on insert), backward-shift erase (no
// tombstones, so probe chains never lengthen). One flat array: a lookup is one or two cache lines, where a
// node-based map costs a bucket, a node and a division.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace npusim::sim {

class FlatIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Room for `expected` keys without growing.
  explicit FlatIndex(uint64_t expected = 8) { reset_table(std::bit_ceil(std::max<uint64_t>(2 * expected, 16))); }

  uint32_t find(uint64_t key) const {
    for (size_t i = home(key);; i = next(i)) {
      if (slots_[i].value == kNone) return kNone;
      if (slots_[i].key == key) return slots_[i].value;
    }
  }
  // `key` must be absent.
  void insert(uint64_t key, uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(key, value);
    ++size_;
  }
  // `key` must be present. Later entries of its probe chain move back into the hole.
  void erase(uint64_t key) {
    size_t i = home(key);
    while (slots_[i].key != key || slots_[i].value == kNone) i = next(i);
    for (size_t j = next(i); slots_[j].value != kNone; j = next(j)) {
      const size_t h = home(slots_[j].key);
      if (((j - h) & mask()) >= ((j - i) & mask())) slots_[i] = slots_[j], i = j;  // j's entry may move to i
    }
    slots_[i] = Slot{0, kNone};
    --size_;
  }
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{0, kNone});
    size_ = 0;
  }

 private:
  struct Slot {
    uint64_t key;
    uint32_t value;  // kNone: empty
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t next(size_t i) const { return (i + 1) & mask(); }
  size_t home(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void reset_table(uint64_t buckets) {
    slots_.assign(size_t(buckets), Slot{0, kNone});
    shift_ = 64 - std::countr_zero(buckets);
  }
  void place(uint64_t key, uint32_t value) {
    size_t i = home(key);
    while (slots_[i].value != kNone) i = next(i);
    slots_[i] = Slot{key, value};
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    reset_table(old.size() * 2);
    for (const Slot& s : old)
      if (s.value != kNone) place(s.key, s.value);
  }

  std::vector<Slot> slots_;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace npusim::sim
