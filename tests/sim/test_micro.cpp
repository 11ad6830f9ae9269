// Microbenchmarks: each simulated rate equals the configured rate within 2% for large transfers.
// Timing mode: the rates do not depend on data, and the all-core stream exceeds the L2 (288 MiB).
#include <gtest/gtest.h>

#include "kernels/micro/micro.h"
#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"

namespace npusim::kernels::micro {
namespace {

MicroResult run_on(const std::string& hw, const std::string& name) {
  sim::Machine m(sim::load_hw(hw), sim::SimMode::Timing);
  return run_micro(m, name);
}

void expect_within_2pct(const MicroResult& r) {
  EXPECT_NEAR(r.ratio(), 1.0, 0.02) << r.name << ": measured " << r.measured << " expected " << r.expected << " "
                                    << r.unit;
}

TEST(Micro, Mte2OneCoreStreamsAtThePortRate) { expect_within_2pct(run_on("ascend910b2", "mte2_1core")); }
// 24 x 32 B/cycle = 768 < HBM 888: port-bound.
TEST(Micro, Mte2AllCoresIsMinOfPortsAndHbmOn910b2) { expect_within_2pct(run_on("ascend910b2", "mte2_allcores")); }
// 20 x 32 = 640 > HBM 533 on the 910B4: HBM-bound.
TEST(Micro, Mte2AllCoresIsHbmBoundOn910b4) {
  const auto r = run_on("ascend910b4", "mte2_allcores");
  EXPECT_EQ(r.expected, 533);
  expect_within_2pct(r);
}
TEST(Micro, Mte3StreamsAtThePortRate) { expect_within_2pct(run_on("ascend910b2", "mte3")); }
TEST(Micro, Mte1ToL0aStreamsAtItsRate) { expect_within_2pct(run_on("ascend910b2", "mte1_l0a")); }
TEST(Micro, Mte1ToL0bStreamsAtItsRate) { expect_within_2pct(run_on("ascend910b2", "mte1_l0b")); }
TEST(Micro, MmadReachesCubePeak) { expect_within_2pct(run_on("ascend910b2", "mmad")); }
TEST(Micro, FixpipeReachesItsElementRate) { expect_within_2pct(run_on("ascend910b2", "fixpipe")); }
TEST(Micro, VaddIssuesOneRepeatPerBeat) { expect_within_2pct(run_on("ascend910b2", "vadd")); }
TEST(Micro, VexpIssuesAtItsClassRate) { expect_within_2pct(run_on("ascend910b2", "vexp")); }
TEST(Micro, WholeReductionIssuesAtItsClassRate) { expect_within_2pct(run_on("ascend910b2", "vcmax")); }
TEST(Micro, BlockReductionIssuesAtItsClassRate) { expect_within_2pct(run_on("ascend910b2", "vcgmax")); }
// pipe_barrier(V) between dependent vadds: each waits for the one before's latency (8 repeats x 2 beats + 24).
TEST(Micro, BarrierMakesADependentVaddWaitForTheLatency) {
  const auto r = run_on("ascend910b2", "vadd_dependent");
  EXPECT_EQ(r.expected, 40);
  expect_within_2pct(r);
}
// Without a barrier the same chain is a same-pipe hazard: the launch reports it (and the rate is not measured).
TEST(Micro, DependentVaddsWithoutABarrierAreAHazard) {
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Timing);
  sim::LaunchSpec s{.name = "chain", .block_dim = 1, .mix = sim::MixMode::VectorOnly};
  s.vector = [](sim::CoreCtx& c) {
    const isa::Addr x = c.alloc(isa::Buf::UB, 256, "x"), z = c.alloc(isa::Buf::UB, 256, "z");
    c.issue(isa::VBinary{.op = isa::VBinOp::Add, .dtype = isa::DType::F32, .dst = z, .src0 = x, .src1 = x});
    c.issue(isa::VBinary{.op = isa::VBinOp::Add, .dtype = isa::DType::F32, .dst = x, .src0 = z, .src1 = z});
  };
  const auto r = m.launch(s);
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].kind, "hazard");
}
TEST(Micro, CrossFlagRoundTripIsTwoLatencies) { expect_within_2pct(run_on("ascend910b2", "pingpong")); }

}  // namespace
}  // namespace npusim::kernels::micro
