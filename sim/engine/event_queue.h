#pragma once
// The chip-level event queue: what happens next, in simulated cycles. Events at the same cycle run in the
// order they were scheduled, so a run is deterministic whatever the host.
//
// A timing wheel: almost every event is scheduled less than a few thousand cycles ahead (a pipe's next start,
// a flag's visibility, a transfer's end), so events within kWheel cycles of the current one go to the bucket
// of their cycle (appended: FIFO) and a bitmap finds the next non-empty bucket; later ones wait in a min-heap on
// (cycle, sequence) and move into the wheel, in order, as time advances, always before any event is scheduled
// directly for their cycle. Push and pop are O(1) amortised instead of a heap's O(log n) of cache misses.
//
// Why the buckets are linked lists of 8-byte nodes from one pool (not a vector per bucket): an event is
// pushed into a bucket nobody touched for hundreds of cycles, so a vector per bucket cost a cache miss on
// its header and another on its storage per push. The bucket table (head, tail: 32 KiB) stays in cache, and
// nodes are recycled last-freed-first, so the node a push writes is one the last pop just read.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace npusim::sim {

enum class EventKind : uint8_t { Pipe, Scalar };

struct Event {
  uint64_t cycle = 0;
  uint32_t core = 0;
  EventKind kind = EventKind::Pipe;
  uint8_t pipe = 0;  // isa::Pipe of a pipe event
};

class EventQueue {
 public:
  static constexpr uint64_t kWheel = 4096;  // cycles the wheel covers ahead of the current one

  // `cycle` must not be before the cycle of the last event popped.
  void push(uint64_t cycle, uint32_t core, EventKind kind, uint8_t pipe) {
    if (core >= (1u << 23)) throw std::length_error("event queue: core index beyond 2^23");
    const uint32_t payload = core << 9 | uint32_t(kind) << 8 | pipe;
    if (cycle < base_ + kWheel) return put(cycle, payload);
    far_.push_back(Far{cycle, seq_++, payload});
    std::push_heap(far_.begin(), far_.end(), later);
  }
  bool empty() const { return count_ == 0 && far_.empty(); }
  size_t size() const { return count_ + far_.size(); }
  // Robustness probe (--tie-order reversed): the events already queued for a cycle when it is reached run
  // in the reverse of their scheduling order, as if simultaneous requests were arbitrated the other way.
  void set_reverse_ties(bool on) { reverse_ties_ = on; }
  // The earliest event (lowest cycle, then scheduling order; see set_reverse_ties). Not empty().
  Event pop() {
    for (;;) {
      Bucket& b = buckets_[base_ & (kWheel - 1)];
      if (b.head != kNil) {
        if (reverse_ties_ && reversed_at_ != base_) reverse(b), reversed_at_ = base_;
        const uint32_t n = b.head;
        const Node node = nodes_[n];
        b.head = node.next;
        if (b.head == kNil) b.tail = kNil, mark(base_, false);
        nodes_[n].next = free_;
        free_ = n;
        --count_;
        return Event{base_, node.payload >> 9, EventKind((node.payload >> 8) & 1), uint8_t(node.payload & 0xff)};
      }
      advance();
    }
  }
  void clear() {
    buckets_.fill(Bucket{});
    bits_.fill(0);
    nodes_.clear();
    free_ = kNil;
    far_.clear();
    count_ = 0;
    reversed_at_ = UINT64_MAX;
  }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    uint32_t next, payload;  // payload: core << 9 | kind << 8 | pipe
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;
  };
  struct Far {
    uint64_t cycle, seq;
    uint32_t payload;
  };
  static bool later(const Far& a, const Far& b) { return a.cycle != b.cycle ? a.cycle > b.cycle : a.seq > b.seq; }
  void put(uint64_t cycle, uint32_t payload) {
    uint32_t n = free_;
    if (n != kNil) {
      free_ = nodes_[n].next;
      nodes_[n] = Node{kNil, payload};
    } else {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{kNil, payload});
    }
    Bucket& b = buckets_[cycle & (kWheel - 1)];
    if (b.tail == kNil) b.head = n, mark(cycle, true);
    else nodes_[b.tail].next = n;
    b.tail = n;
    ++count_;
  }
  void reverse(Bucket& b) {
    uint32_t prev = kNil;
    for (uint32_t n = b.head; n != kNil;) {
      const uint32_t next = nodes_[n].next;
      nodes_[n].next = prev;
      prev = n, n = next;
    }
    std::swap(b.head, b.tail);
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
      put(far_.back().cycle, far_.back().payload);
      far_.pop_back();
    }
  }

  std::array<Bucket, kWheel> buckets_;
  std::array<uint64_t, kWheel / 64> bits_{};
  std::vector<Node> nodes_;  // bucket lists and the free list
  uint32_t free_ = kNil;
  std::vector<Far> far_;  // min-heap on (cycle, seq) via `later`
  uint64_t base_ = 0;     // the current cycle: buckets hold [base_, base_ + kWheel)
  uint64_t seq_ = 0;
  size_t count_ = 0;  // events in the wheel
  bool reverse_ties_ = false;
  uint64_t reversed_at_ = UINT64_MAX;  // the cycle whose bucket was reversed
};

}  // namespace npusim::sim
