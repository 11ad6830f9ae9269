// The chip-level event queue (sim/engine/event_queue.h) against a plain reference: events come out by cycle,
// then in scheduling order, whether they were scheduled into the wheel or far ahead into the heap.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

#include "sim/engine/event_queue.h"

namespace npusim::sim {
namespace {

TEST(EventQueue, PopsByCycleThenSchedulingOrderAcrossWheelAndHeap) {
  std::mt19937_64 rng(3);
  EventQueue q;
  std::multimap<std::pair<uint64_t, uint64_t>, uint32_t> ref;  // (cycle, sequence) -> core
  uint64_t now = 0, seq = 0;
  for (int step = 0; step < 200000; ++step) {
    if (ref.empty() || rng() % 8 < 5) {  // schedule: mostly near, sometimes beyond the wheel
      const uint64_t ahead = rng() % 16 == 0 ? rng() % (5 * EventQueue::kWheel) : rng() % 600;
      const uint64_t cycle = now + ahead;
      const auto core = uint32_t(rng() % 100000);
      q.push(cycle, core, rng() % 2 ? EventKind::Pipe : EventKind::Scalar, uint8_t(core % 8));
      ref.emplace(std::pair{cycle, seq++}, core);
    } else {
      ASSERT_FALSE(q.empty());
      const Event e = q.pop();
      const auto want = ref.begin();
      ASSERT_EQ(e.cycle, want->first.first) << "step " << step;
      ASSERT_EQ(e.core, want->second) << "step " << step;
      ASSERT_EQ(e.pipe, uint8_t(want->second % 8));
      now = e.cycle;
      ref.erase(want);
    }
    ASSERT_EQ(q.size(), ref.size());
  }
}

TEST(EventQueue, ReversedTiesRunAQueuedCycleBackwardsAndLaterArrivalsAfter) {
  EventQueue q;
  q.set_reverse_ties(true);
  for (uint32_t c = 0; c < 4; ++c) q.push(10, c, EventKind::Pipe, 0);
  q.push(20, 9, EventKind::Pipe, 0);
  EXPECT_EQ(q.pop().core, 3u);
  q.push(10, 7, EventKind::Scalar, 0);  // scheduled for the current cycle while it runs: after the rest
  EXPECT_EQ(q.pop().core, 2u);
  EXPECT_EQ(q.pop().core, 1u);
  EXPECT_EQ(q.pop().core, 0u);
  const Event late = q.pop();
  EXPECT_EQ(late.core, 7u);
  EXPECT_EQ(late.kind, EventKind::Scalar);
  EXPECT_EQ(q.pop().cycle, 20u);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace npusim::sim
