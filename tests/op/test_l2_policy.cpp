// The L2 policy of an allocation (issue 35): decode reads K / V around the L2 as the vendor's kernel does once they
// reach 1.2x its size, the tiling key kv_l2_bypass overrides that, and a bypass read takes no L2 line.
// Each configuration runs in a forked child (isolation: a fault or crash ends only that child).
#include <gtest/gtest.h>

#include <filesystem>

#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tests/sim/machine_kernels.h"

namespace npusim::op {
namespace {

namespace fs = std::filesystem;
using sim::testing::in_child;

struct Outcome {
  int64_t bypass = -1;  // the tiling value used
  uint64_t cycles = 0, bypass_bytes = 0, l2_bytes = 0;
};

Outcome run(const std::string& name, const std::vector<std::string>& hw_sets,
            const std::vector<std::string>& tiling_sets) {
  const auto v = in_child([&] {
    const CaseFile c =
        load_case((fs::path(NPUSIM_CONFIG_DIR) / "cases" / (name + ".yaml")).string(), tiling_sets, false);
    sim::Machine m(sim::load_hw("ascend910b2", hw_sets), sim::SimMode::Timing);
    const Prepared p = find_op(c.op).prepare(c, m);
    const auto r = m.launch(p.launch);
    int64_t bypass = -1;
    for (const auto& [k, val] : p.tiling)
      if (k == "kv_l2_bypass") bypass = val;
    return std::vector<uint64_t>{uint64_t(bypass), r.cycles, r.mem.bypass_bytes,
                                 r.mem.l2_hit_bytes + r.mem.l2_miss_bytes};
  });
  if (v.size() < 4) return {};
  return {int64_t(v[0]), v[1], v[2], v[3]};
}

constexpr const char* kDecode = "fia_decode_bw_b16_kv4096";  // 256 MiB of K / V: 1.33 x the 192 MiB L2

TEST(L2Policy, DecodeKeepsKvCachedBelowTheVendorThreshold) {
  const Outcome r = run(kDecode, {"l2.bytes=234881024"}, {});  // 224 MiB: 256 MiB of K / V is 1.14x
  EXPECT_EQ(r.bypass, 0);
  EXPECT_EQ(r.bypass_bytes, 0u);
}

TEST(L2Policy, DecodeBypassesTheL2OnceKvReachesOnePointTwoTimesIt) {
  const Outcome r = run(kDecode, {}, {});
  EXPECT_EQ(r.bypass, 1);
  EXPECT_GT(r.bypass_bytes, 100u << 20);  // K and V came around the L2
}

TEST(L2Policy, TheTilingKeyOverridesTheVendorRule) {
  const Outcome cached = run(kDecode, {}, {"tiling.kv_l2_bypass=0"});
  EXPECT_EQ(cached.bypass, 0);
  EXPECT_EQ(cached.bypass_bytes, 0u);
  const Outcome bypass = run(kDecode, {"l2.bytes=234881024"}, {"tiling.kv_l2_bypass=1"});
  EXPECT_EQ(bypass.bypass, 1);
  EXPECT_GT(bypass.bypass_bytes, 100u << 20);
  // A streamed K / V goes faster around the L2 than through its allocate ceiling (calibration.md §6).
  EXPECT_LT(bypass.cycles, run(kDecode, {"l2.bytes=234881024"}, {}).cycles);
}

TEST(L2Policy, ThePromptKeepsKvCached) {
  const Outcome r = run("fia_perf_s2048_mode0", {"l2.bytes=1048576"}, {});
  EXPECT_EQ(r.bypass, 0);
}

}  // namespace
}  // namespace npusim::op
