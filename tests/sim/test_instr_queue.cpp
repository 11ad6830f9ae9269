// The pipe's instruction queue executes the popped instruction in place (sim/machine/core_state.h): the slot
// of the instruction popped last must survive the queue filling up to its depth again.
#include <gtest/gtest.h>

#include "sim/machine/core_state.h"

namespace npusim::sim {
namespace {

void push_numbered(InstrQueue& q, uint64_t id) {
  q.emplace_back(isa::SetFlag{isa::Pipe::MTE2, isa::Pipe::V, uint8_t(id % 8)}, {}, id, 0, 0);
}

TEST(InstrQueue, PoppedInstructionSurvivesRefillingToDepth) {
  for (size_t depth : {1u, 2u, 5u, 32u}) {
    InstrQueue q;
    q.reset(depth);
    uint64_t next = 0, expect = 0;
    for (size_t i = 0; i < depth; ++i) push_numbered(q, next++);
    for (int round = 0; round < 100; ++round) {
      const QueuedInstr& head = q.pop_front();
      ASSERT_EQ(head.id, expect) << "depth " << depth;
      while (q.size() < depth) push_numbered(q, next++);  // the scalar unit refills at once
      EXPECT_EQ(head.id, expect) << "depth " << depth << ": a push overwrote the popped slot";
      EXPECT_EQ(q.popped(), &head);
      EXPECT_EQ(std::get<isa::SetFlag>(head.instr()).event, int(expect % 8));
      ++expect;
    }
  }
}

}  // namespace
}  // namespace npusim::sim
