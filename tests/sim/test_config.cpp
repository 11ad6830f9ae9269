// Hardware config loading: bundled configs resolve, errors name the key / file / line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/config/hw_config.h"
#include "tests/support/scratch.h"

namespace npusim::sim {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = test::scratch_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(HwConfig, EveryBundledConfigLoadsAndValidates) {
  const auto names = bundled_hw_names();
  for (const char* n : {"ascend910b1", "ascend910b2", "ascend910b3", "ascend910b4", "ascend310p3"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names) {
    const HwConfig c = load_hw(n);
    EXPECT_EQ(c.name, n);
  }
}

TEST(HwConfig, BaseInheritanceOverridesOnlyWhatDiffers) {
  const HwConfig b2 = load_hw("ascend910b2"), b4 = load_hw("ascend910b4"), p3 = load_hw("ascend310p3");
  EXPECT_EQ(b2.chip.ai_cores, 24);
  EXPECT_EQ(b4.chip.ai_cores, 20);
  EXPECT_EQ(b4.chip.clock_mhz, 1500);
  EXPECT_EQ(b4.core.ub_bytes, b2.core.ub_bytes);
  EXPECT_EQ(p3.topology, Topology::Coupled);
  EXPECT_EQ(p3.core.l0c_bytes, 262144);
}

TEST(HwConfig, SetOverridesWithOrWithoutHwPrefix) {
  const HwConfig c = load_hw("ascend910b2", {"hw.core.ub_bytes=131072", "hbm.bytes_per_cycle=444"});
  EXPECT_EQ(c.core.ub_bytes, 131072);
  EXPECT_EQ(c.hbm.bytes_per_cycle, 444);
}

TEST(HwConfig, UnknownKeyNamesItAndListsValidKeysOfItsSection) {
  const std::string e = error_of([] { load_hw("ascend910b2", {"core.ub_byte=1"}); });
  EXPECT_NE(e.find("unknown hardware key 'core.ub_byte'"), std::string::npos) << e;
  EXPECT_NE(e.find("core.ub_bytes"), std::string::npos) << e;
}

TEST(HwConfig, WrongTypeNamesKeyValueAndLine) {
  const auto f = write_temp("npusim_badtype.yaml", "base: ascend910b2\nchip:\n  ai_cores: many\n");
  const std::string e = error_of([&] { load_hw(f); });
  EXPECT_NE(e.find(":3: key 'chip.ai_cores' = 'many' is not an integer"), std::string::npos) << e;
}

TEST(HwConfig, MissingKeyIsNamed) {
  const auto f = write_temp("npusim_missing.yaml", "name: x\ntopology: split\nchip:\n  ai_cores: 2\n");
  const std::string e = error_of([&] { load_hw(f); });
  EXPECT_NE(e.find("missing required hardware key"), std::string::npos) << e;
}

TEST(HwConfig, YamlSyntaxErrorNamesFileAndLine) {
  const auto f = write_temp("npusim_syntax.yaml", "name: x\nchip: [unclosed\n");
  const std::string e = error_of([&] { load_hw(f); });
  EXPECT_NE(e.find("npusim_syntax.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
}

TEST(HwConfig, UnknownNameListsBundledConfigs) {
  const std::string e = error_of([] { load_hw("ascend999"); });
  EXPECT_NE(e.find("ascend910b2"), std::string::npos) << e;
}

TEST(HwConfig, NonPositiveRatesAndBadTopologyAreRejected) {
  EXPECT_NE(error_of([] { load_hw("ascend910b2", {"hbm.bytes_per_cycle=0"}); }).find("must be > 0"), std::string::npos);
  EXPECT_NE(error_of([] { load_hw("ascend910b2", {"topology=mesh"}); }).find("split, coupled"), std::string::npos);
  EXPECT_NE(error_of([] { load_hw("ascend910b2", {"chip.aiv_per_core=0"}); }).find("aiv_per_core"), std::string::npos);
  EXPECT_NE(error_of([] { load_hw("ascend910b2", {"novalue"}); }).find("KEY=VALUE"), std::string::npos);
  EXPECT_NE(error_of([] {
              load_hw("ascend910b2", {"l2.replacement=fifo"});
            }).find("'l2.replacement' = 'fifo' is not one of lru, random"),
            std::string::npos);
  EXPECT_NE(error_of([] { load_hw("ascend910b2", {"l2.fill_bytes_per_cycle=0"}); }).find("must be > 0"),
            std::string::npos);
}

TEST(HwConfig, ResolvedYamlReloadsToTheSameConfig) {
  const HwConfig a = load_hw("ascend910b3", {"core.l1_bytes=262144"});
  const auto f = write_temp("npusim_resolved.yaml", hw_to_yaml(a));
  const HwConfig b = load_hw(f);
  EXPECT_EQ(hw_to_yaml(a), hw_to_yaml(b));
  EXPECT_EQ(b.core.l1_bytes, 262144);
}

TEST(HwConfig, CyclesConvertAtTheConfiguredClock) { EXPECT_DOUBLE_EQ(cycles_to_us(load_hw("ascend910b2"), 1800), 1.0); }

}  // namespace
}  // namespace npusim::sim
