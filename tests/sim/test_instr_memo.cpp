// The instruction memo (sim/machine/instr_memo.h): a lookup returns only the instruction it was asked for, and
// an entry a queued instruction refers to (pinned) keeps its instruction and cost whatever is stored after it.
#include <gtest/gtest.h>

#include "sim/machine/instr_memo.h"

namespace npusim::sim {
namespace {

using isa::Addr;
using isa::Buf;

// In-place vector instructions on one tile that differ only in operation and scalar: a kernel's softmax.
std::vector<isa::Instr> family(int n) {
  std::vector<isa::Instr> out;
  for (int i = 0; i < n; ++i) {
    isa::VScalar v;
    v.op = i % 2 ? isa::VScalarOp::Muls : isa::VScalarOp::Adds;
    v.dst = v.src = Addr(Buf::UB, 0x100);
    v.scalar = 0.5 * i;
    out.push_back(v);
  }
  return out;
}

PipeCost cost_of(size_t i) { return {10 + i, 20 + i, i}; }

TEST(InstrMemo, FindsOnlyTheInstructionStored) {
  InstrMemo memo;
  const auto ins = family(64);
  for (size_t i = 0; i < ins.size(); ++i) memo.store(ins[i], isa::CoreKind::Vector, {}, cost_of(i));
  size_t found = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    EXPECT_EQ(memo.find(ins[i], isa::CoreKind::Cube), nullptr) << "another core kind";
    const InstrMemo::Entry* e = memo.find(ins[i], isa::CoreKind::Vector);
    if (!e) continue;  // replaced by a later one of its set
    ++found;
    EXPECT_EQ(e->in, ins[i]);
    EXPECT_EQ(e->cost().occupancy, cost_of(i).occupancy);
  }
  // Sixty-four instructions in 2048 two-way sets: with operation and scalar in the hash they keep apart.
  EXPECT_EQ(found, ins.size());
}

TEST(InstrMemo, PinnedEntryIsNeverReplaced) {
  InstrMemo memo;
  const auto ins = family(65536);  // sixteen times the entries: every set is stored to many times
  memo.store(ins[0], isa::CoreKind::Vector, {}, cost_of(0));
  const InstrMemo::Entry* pinned = memo.find(ins[0], isa::CoreKind::Vector);
  ASSERT_NE(pinned, nullptr);
  memo.pin(*pinned);
  for (size_t i = 1; i < ins.size(); ++i) memo.store(ins[i], isa::CoreKind::Vector, {}, cost_of(i));
  EXPECT_EQ(pinned->in, ins[0]);
  EXPECT_EQ(pinned->cost().latency, cost_of(0).latency);
  EXPECT_EQ(memo.find(ins[0], isa::CoreKind::Vector), pinned);
}

TEST(InstrMemo, CostsBeyond32BitsAreNotStored) {
  InstrMemo memo;
  const auto ins = family(1);
  memo.store(ins[0], isa::CoreKind::Vector, {}, {uint64_t{1} << 32, 1, 0});
  EXPECT_EQ(memo.find(ins[0], isa::CoreKind::Vector), nullptr);
}

TEST(InstrMemo, SharedFlagInstructionsAreTheInstructionAskedFor) {
  InstrMemo memo;
  const isa::Instr set = isa::SetFlag{isa::Pipe::MTE3, isa::Pipe::V, 5};
  const isa::Instr wait = isa::WaitFlag{isa::Pipe::MTE3, isa::Pipe::V, 5};
  ASSERT_NE(memo.shared_flag(set), nullptr);
  EXPECT_EQ(*memo.shared_flag(set), set);
  EXPECT_EQ(*memo.shared_flag(wait), wait);
  EXPECT_EQ(memo.shared_flag(isa::WaitFlag{isa::Pipe::MTE3, isa::Pipe::V, 9}), nullptr) << "event id out of range";
  EXPECT_EQ(memo.shared_flag(isa::PipeBarrier{}), nullptr);
}

}  // namespace
}  // namespace npusim::sim
