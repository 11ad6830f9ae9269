// The topology seam (sim/machine/topology.h): both implementations are registered by name, and each places a
// launch's blocks on the cores the README's table names (sim/README.md "How a launch runs").
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"
#include "sim/machine/machine.h"
#include "sim/machine/topology.h"
#include "sim/registry.h"

namespace npusim::sim::testing {
namespace {

struct Placed {
  int core;
  bool cube;
  int block, sub;
  bool operator==(const Placed&) const = default;
};

std::vector<Placed> placed(const TopologyModel& t, MixMode mix, int block_dim) {
  LaunchSpec s;
  s.name = "k", s.block_dim = block_dim, s.mix = mix;
  s.cube = [](CoreCtx&) {};
  s.vector = [](CoreCtx&) {};
  std::vector<Placed> v;
  for (const auto& p : t.place(s)) v.push_back({p.core, p.runs_cube, p.block_idx, p.sub_block});
  return v;
}

TEST(Topology, BothImplementationsAreRegisteredByTheKeysValues) {
  EXPECT_EQ(ImplRegistry<TopologyModel>::instance().names(), "coupled, split");
  EXPECT_EQ(topology_name(Topology::Split), "split");
  EXPECT_EQ(topology_name(Topology::Coupled), "coupled");
}

TEST(Topology, SplitCoresAreTheAicsThenTheirAivs) {
  const auto t = make_topology(load_hw("ascend910b2"));
  const auto cores = t->cores();
  ASSERT_EQ(cores.size(), 72u);
  EXPECT_EQ(cores[0].name, "aic0");
  EXPECT_EQ(cores[23].kind, isa::CoreKind::Cube);
  EXPECT_EQ(cores[24].name, "aiv0");
  EXPECT_EQ(cores[27].ai_core, 1);
  EXPECT_EQ(cores[27].sub, 1);
  EXPECT_EQ(cores[71].kind, isa::CoreKind::Vector);
  EXPECT_EQ(t->vector_cores_of(5), (std::vector<int>{34, 35}));
  EXPECT_FALSE(t->coupled_datapaths());
}

TEST(Topology, SplitPlacesEachMixMode) {
  const auto t = make_topology(load_hw("ascend910b2"));
  EXPECT_EQ(placed(*t, MixMode::Mix1_2, 2), (std::vector<Placed>{{0, true, 0, 0},
                                                                 {24, false, 0, 0},
                                                                 {25, false, 0, 1},
                                                                 {1, true, 1, 0},
                                                                 {26, false, 1, 0},
                                                                 {27, false, 1, 1}}));
  EXPECT_EQ(placed(*t, MixMode::CubeOnly, 2), (std::vector<Placed>{{0, true, 0, 0}, {1, true, 1, 0}}));
  EXPECT_EQ(placed(*t, MixMode::VectorOnly, 3),
            (std::vector<Placed>{{24, false, 0, 0}, {25, false, 1, 0}, {26, false, 2, 0}}));
  EXPECT_EQ(placed(*t, MixMode::VectorOnly, 48).size(), 48u);
}

TEST(Topology, CoupledRunsTheCubeProgramOnEveryBlock) {
  const auto t = make_topology(load_hw("ascend310p3"));
  const auto cores = t->cores();
  ASSERT_EQ(cores.size(), 8u);
  EXPECT_EQ(cores[7].name, "core7");
  EXPECT_EQ(cores[7].kind, isa::CoreKind::Coupled);
  EXPECT_TRUE(t->vector_cores_of(0).empty());  // cross_set modes 1 / 2 have no partners
  EXPECT_TRUE(t->coupled_datapaths());
  for (MixMode mix : {MixMode::Mix1_2, MixMode::CubeOnly, MixMode::VectorOnly})
    EXPECT_EQ(placed(*t, mix, 2), (std::vector<Placed>{{0, true, 0, 0}, {1, true, 1, 0}}));
}

TEST(Topology, ABadLaunchNamesTheRule) {
  const auto split = make_topology(load_hw("ascend910b2"));
  const auto coupled = make_topology(load_hw("ascend310p3"));
  auto message = [](const TopologyModel& t, MixMode mix, int block_dim, bool with_vector) {
    LaunchSpec s;
    s.name = "k", s.block_dim = block_dim, s.mix = mix;
    s.cube = [](CoreCtx&) {};
    if (with_vector) s.vector = [](CoreCtx&) {};
    try {
      t.place(s);
    } catch (const KernelInputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(*split, MixMode::Mix1_2, 25, true), "no error");  // more blocks than cores: waves
  EXPECT_EQ(message(*split, MixMode::Mix1_2, 0, true),
            "launch 'k': block_dim = 0 must be in [1, 65535] (ascend910b2 runs 24 at a time)");
  EXPECT_EQ(message(*split, MixMode::VectorOnly, 65536, true),
            "launch 'k': block_dim = 65536 must be in [1, 65535] (ascend910b2 runs 48 at a time)");
  EXPECT_EQ(message(*split, MixMode::Mix1_2, 1, false), "launch 'k': the mix mode needs a vector program");
  EXPECT_EQ(message(*coupled, MixMode::Mix1_2, 0, true),
            "launch 'k': block_dim = 0 must be in [1, 65535] (ascend310p3 runs 8 at a time)");
}

// More blocks than cores run in waves: each placed core takes block_idx, + stride, ...; an AIC and its AIVs move
// through the same blocks; every block gets a fresh buffer layout.
TEST(Topology, MoreBlocksThanCoresRunInWaves) {
  const auto split = make_topology(load_hw("ascend910b2"));
  LaunchSpec s;
  s.name = "k", s.block_dim = 50, s.mix = MixMode::Mix1_2;
  s.cube = s.vector = [](CoreCtx&) {};
  const auto placed = split->place(s);
  ASSERT_EQ(placed.size(), 24u * 3);
  for (const auto& p : placed) EXPECT_EQ(p.block_stride, 24);
  s.block_dim = 24;
  for (const auto& p : split->place(s)) EXPECT_EQ(p.block_stride, 0);

  Machine m(load_hw("ascend910b2"), SimMode::Timing);
  std::vector<int> seen;
  LaunchSpec w;
  w.name = "waves", w.block_dim = 30, w.mix = MixMode::CubeOnly;
  w.cube = [&seen](CoreCtx& c) {
    seen.push_back(c.block_idx());
    EXPECT_EQ(c.block_num(), 30);
    const isa::Addr l1 = c.alloc(isa::Buf::L1, 400 * 1024, "most of L1");  // a second block would overflow it
    c.issue(isa::DataCopy{.dst = l1, .src = c.gm("x"), .burst_bytes = 32 * 1024});
  };
  m.gm().allocate("x", 64 * 1024);
  const auto r = m.launch(w);
  ASSERT_TRUE(r.ok()) << r.faults[0].message;
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 30u);
  for (int b = 0; b < 30; ++b) EXPECT_EQ(seen[size_t(b)], b);
  int used = 0;
  for (const auto& c : r.cores) used += c.used;
  EXPECT_EQ(used, 24);
}

}  // namespace
}  // namespace npusim::sim::testing
