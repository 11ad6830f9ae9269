#pragma once
// The chip-level event queue: what happens next, in simulated cycles. Events at the same cycle run in the
// order they were scheduled, so a run is deterministic whatever the host.
//
// A timing wheel: almost every event is scheduled less than a few thousand cycles ahead (a pipe's next start,
// a flag's visibility, a transfer's end), so events within kWheel cycles of the current one go to the bucket
// of their cycle (appended: FIFO) and a bitmap finds the next non-empty bucket; later ones wait in a min-heap on
// (cycle, sequence) and move into the wheel, in order, as time advances, always before any event is scheduled
// directly for their cycle. Push and pop are O(1) amortised instead of a heap's O(log n) of cache misses.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace npusim::sim {

enum class EventKind : uint8_t { Pipe, Scalar };

struct Event {
  uint64_t cycle = 0, seq = 0;
  uint32_t core = 0;
  EventKind kind = EventKind::Pipe;
  uint8_t pipe = 0;  // isa::Pipe of a pipe event
};

class EventQueue {
 public:
  static constexpr uint64_t kWheel = 4096;  // cycles the wheel covers ahead of the current one

  // `cycle` must not be before the cycle of the last event popped.
  void push(uint64_t cycle, uint32_t core, EventKind kind, uint8_t pipe) {
    const Event e{cycle, seq_++, core, kind, pipe};
    if (cycle < base_ + kWheel) return put(e);
    far_.push_back(e);
    std::push_heap(far_.begin(), far_.end(), later);
  }
  bool empty() const { return count_ == 0 && far_.empty(); }
  size_t size() const { return count_ + far_.size(); }
  // Robustness probe (--tie-order reversed): the events already queued for a cycle when it is reached run
  // in the reverse of their scheduling order, as if simultaneous requests were arbitrated the other way.
  void set_reverse_ties(bool on) { reverse_ties_ = on; }
  // The earliest event (lowest cycle, then lowest sequence; see set_reverse_ties). Not empty().
  Event pop() {
    for (;;) {
      Bucket& b = buckets_[base_ & (kWheel - 1)];
      if (reverse_ties_ && reversed_at_ != base_ && b.next < b.events.size()) {
        std::reverse(b.events.begin() + ptrdiff_t(b.next), b.events.end());
        reversed_at_ = base_;
      }
      if (b.next < b.events.size()) {
        --count_;
        const Event e = b.events[b.next++];
        if (b.next == b.events.size()) b.events.clear(), b.next = 0, mark(base_, false);
        return e;
      }
      advance();
    }
  }
  void clear() {
    for (auto& b : buckets_) b.events.clear(), b.next = 0;
    bits_.fill(0);
    far_.clear();
    count_ = 0;
    reversed_at_ = UINT64_MAX;
  }

 private:
  struct Bucket {
    std::vector<Event> events;
    size_t next = 0;  // events before it were popped
  };
  static bool later(const Event& a, const Event& b) { return a.cycle != b.cycle ? a.cycle > b.cycle : a.seq > b.seq; }
  void put(const Event& e) {
    buckets_[e.cycle & (kWheel - 1)].events.push_back(e);
    mark(e.cycle, true);
    ++count_;
  }
  void mark(uint64_t cycle, bool on) {
    const uint64_t i = cycle & (kWheel - 1);
    if (on) bits_[i >> 6] |= uint64_t{1} << (i & 63);
    else bits_[i >> 6] &= ~(uint64_t{1} << (i & 63));
  }
  // Moves base_ to the next cycle holding an event: the next marked bucket, or the heap's first event.
  void advance() {
    uint64_t next = UINT64_MAX;
    if (count_) {
      const uint64_t start = (base_ + 1) & (kWheel - 1);  // scan the wheel circularly from base_ + 1
      for (uint64_t k = 0; k <= kWheel / 64; ++k) {
        const uint64_t w = ((start >> 6) + k) & (kWheel / 64 - 1);
        uint64_t m = bits_[w];
        if (k == 0) m &= ~uint64_t{0} << (start & 63);
        if (m) {
          const uint64_t i = (w << 6) + uint64_t(std::countr_zero(m));
          next = base_ + ((i - base_) & (kWheel - 1));
          if (next == base_) next += kWheel;
          break;
        }
      }
    }
    if (!far_.empty()) next = std::min(next, far_.front().cycle);
    base_ = next;
    while (!far_.empty() && far_.front().cycle < base_ + kWheel) {  // in (cycle, sequence) order
      std::pop_heap(far_.begin(), far_.end(), later);
      put(far_.back());
      far_.pop_back();
    }
  }

  std::array<Bucket, kWheel> buckets_;
  std::array<uint64_t, kWheel / 64> bits_{};
  std::vector<Event> far_;  // min-heap on (cycle, seq) via `later`
  uint64_t base_ = 0;       // the current cycle: buckets hold [base_, base_ + kWheel)
  uint64_t seq_ = 0;
  size_t count_ = 0;        // events in the wheel
  bool reverse_ties_ = false;
  uint64_t reversed_at_ = UINT64_MAX;  // the cycle whose bucket was reversed
};

}  // namespace npusim::sim
