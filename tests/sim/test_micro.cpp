// Microbenchmarks: each simulated rate equals the configured rate within 2% for large transfers.
// Timing mode: the rates do not depend on data, and the all-core stream exceeds the L2 (288 MiB).
#include <gtest/gtest.h>

#include "kernels/micro/micro.h"
#include "sim/config/hw_config.h"

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
TEST(Micro, CrossFlagRoundTripIsTwoLatencies) { expect_within_2pct(run_on("ascend910b2", "pingpong")); }

}  // namespace
}  // namespace npusim::kernels::micro
