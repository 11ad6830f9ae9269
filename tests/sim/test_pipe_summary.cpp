// Where the time went (report.json pipe_summary): a pipe waiting on a flag, the scalar unit blocked on a full queue,
// UB bank-conflict beats and the scalar unit's other waits are counted per core and pipe, and add up with the
// instructions that cause them.
#include <gtest/gtest.h>

#include "sim/config/hw_config.h"
#include "sim/machine/cost.h"
#include "tests/sim/machine_kernels.h"

namespace npusim::sim::testing {
namespace {

// 24 repeats of eight blocks in one bank group each (block stride 16): conflict beats on every instruction.
VDup conflicting_dup() { return VDup{.dtype = isa::DType::F32, .dst = {Buf::UB, 0}, .repeat = 24, .dst_s = {16, 128}}; }

TEST(PipeSummary, FlagWaitFullQueueAndConflictBeatsAreCounted) {
  HwConfig hw = load_hw("ascend910b2");
  hw.queue.v_entries = 2;  // the vector queue fills behind the first instruction's wait
  Machine m(hw, SimMode::Timing);
  m.set_checks(Checks::Off);  // the dups overwrite one tile on purpose (same-pipe WAW hazards, not the subject)
  m.gm().allocate("x", 64 * 1024, true);
  constexpr int kDups = 10;
  LaunchSpec s{.name = "stats", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    const Addr ub = c.alloc(Buf::UB, 96 * 1024, "buffer");
    c.issue(DataCopy{.dst = ub, .src = c.gm("x"), .burst_bytes = 64 * 1024});
    c.set_flag(Pipe::MTE2, Pipe::V, 0);
    c.wait_flag(Pipe::MTE2, Pipe::V, 0);  // on the vector pipe: it waits for the whole copy
    for (int i = 0; i < kDups; ++i) c.issue(conflicting_dup());
  };
  const LaunchResult r = m.launch(s);
  ASSERT_TRUE(r.ok()) << faults_of(r);
  const CoreStats* aiv = nullptr;
  for (const auto& c : r.cores)
    if (c.used) aiv = &c;
  ASSERT_NE(aiv, nullptr);
  const auto& v = aiv->pipes[size_t(Pipe::V)];
  const auto& mte2 = aiv->pipes[size_t(Pipe::MTE2)];
  EXPECT_GE(v.flag_wait_cycles, mte2.busy_cycles - 1);  // the copy's whole data phase (the wait pops after its issue)
  EXPECT_LE(v.flag_wait_cycles, r.cycles);
  EXPECT_GT(v.queue_full_cycles, 0u);  // two slots: the scalar unit stalls behind the waiting pipe
  EXPECT_EQ(aiv->pipes[size_t(Pipe::MTE2)].queue_full_cycles, 0u);
  const PipeCost one = local_cost(conflicting_dup(), hw);
  ASSERT_GT(one.conflict_beats, 0u);
  EXPECT_EQ(v.conflict_beats, kDups * one.conflict_beats);
  EXPECT_GT(aiv->scalar_waits.drain, 0u);  // the kernel's end drains the pipes
  EXPECT_EQ(aiv->scalar_waits.cross_wait, 0u);
}

TEST(PipeSummary, CrossCoreWaitsAreTheScalarUnits) {
  Machine m(load_hw("ascend910b2"), SimMode::Timing);
  MixedData d(1);
  d.load(m);
  const LaunchResult r = m.launch(mixed_split(1));
  ASSERT_TRUE(r.ok()) << faults_of(r);
  uint64_t cross = 0;
  for (const auto& c : r.cores)
    if (c.used && c.name.rfind("aiv", 0) == 0) cross += c.scalar_waits.cross_wait;
  EXPECT_GT(cross, 0u);  // the AIVs wait for the cube's result
}

}  // namespace
}  // namespace npusim::sim::testing
