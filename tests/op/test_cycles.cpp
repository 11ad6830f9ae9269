// Timing regression: every case under configs/cases/ must take exactly the cycle count recorded in
// traces/reference/cycles.yaml (timing mode). A case missing there fails too. All checks are on: a fault or a
// redundant-barrier note fails the case as well.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"

namespace npusim::op {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> case_names() {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(fs::path(NPUSIM_CONFIG_DIR) / "cases"))
    if (e.path().extension() == ".yaml") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

class RecordedCycles : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedCycles, CaseTakesTheRecordedCycleCount) {
  const std::string name = GetParam();
  const YAML::Node ref = YAML::LoadFile((fs::path(NPUSIM_TRACES_DIR) / "reference" / "cycles.yaml").string());
  ASSERT_TRUE(ref[name]) << "configs/cases/" << name << ".yaml has no entry in traces/reference/cycles.yaml";
  if (ref[name]["long"] && ref[name]["long"].as<bool>() && !NPUSIM_LONG_TESTS) GTEST_SKIP() << "long case";
  const CaseFile c = load_case((fs::path(NPUSIM_CONFIG_DIR) / "cases" / (name + ".yaml")).string(), {}, false);
  sim::Machine m(sim::load_hw(ref[name]["hw"].as<std::string>()), sim::SimMode::Timing);
  const Prepared p = find_op(c.op).prepare(c, m);
  const auto r = m.launch(p.launch);
  ASSERT_TRUE(r.ok()) << r.faults[0].message;
  // (all checks: no race, no same-pipe hazard, and no barrier that orders nothing -- isa/README.md "Same-pipe
  // ordering")
  EXPECT_TRUE(r.notes.empty()) << name << ": " << r.notes[0].message;
  EXPECT_EQ(r.cycles, ref[name]["cycles"].as<uint64_t>())
      << name << ": the cycle count changed; if intended, record it in traces/reference/cycles.yaml with a reason";
}

INSTANTIATE_TEST_SUITE_P(Cases, RecordedCycles, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace npusim::op
