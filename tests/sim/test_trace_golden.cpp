// Golden files: the small fixed trace must stay byte-for-byte identical to traces/golden/. A deliberate
// format change regenerates them with NPUSIM_UPDATE_GOLDEN=1 (then review the diff and bump
// trace_format_version if readers could notice).
#include <cstdlib>
#include <filesystem>

#include "tests/sim/trace_test_support.h"

namespace npusim::test {
namespace {

const std::string kGoldenDir = std::string(NPUSIM_TRACES_DIR) + "/golden";

bool updating_golden() {
  const char* flag = std::getenv("NPUSIM_UPDATE_GOLDEN");
  return flag != nullptr && std::string(flag) == "1";
}

// Compares a freshly written file with its golden copy, or replaces the copy when updating.
void expect_matches_golden(const std::string& fresh_path, const std::string& golden_name) {
  std::string golden_path = kGoldenDir + "/" + golden_name;
  if (updating_golden()) {
    std::filesystem::create_directories(kGoldenDir);
    std::filesystem::copy_file(fresh_path, golden_path, std::filesystem::copy_options::overwrite_existing);
    std::cout << "updated " << golden_path << "\n";
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden_path)) << golden_path << " is missing; run with NPUSIM_UPDATE_GOLDEN=1";
  EXPECT_EQ(read_text(fresh_path), read_text(golden_path))
      << "the trace format changed; if on purpose, regenerate with NPUSIM_UPDATE_GOLDEN=1 and review the diff";
}

// 1850 MHz makes every timestamp a fraction of a microsecond, so rounding changes show up here.
// Plus a stage span over two of core 1's instructions and one sample of each counter track.
void write_golden_pair(const TempFile& json_file, const TempFile& csv_file) {
  sim::TraceWriter w(json_file.path(), csv_file.path(), 1850.0);
  write_small_trace(w);
  const uint32_t stage = w.open_stage(1, "V1 u0 b1");
  w.slice({1, "aiv0", isa::Pipe::V, 340, 352, 13, "vexp.f32 dst=ub:0x0 src=ub:0x100", 0, 0, std::nullopt, stage});
  w.slice({1, "aiv0", isa::Pipe::MTE3, 352, 380, 14, "copy dst=gm:0x80 src=ub:0x0 burst_bytes=256", 256, 0,
           std::nullopt, stage});
  w.queue_depth(1, isa::Pipe::V, 340, 2);
  w.traffic(352, 380, {0, 256, 0, 256});
}

TEST(TraceGolden, SmallTraceMatchesGoldenFilesByteForByte) {
  TempFile json_file(".json"), csv_file(".csv");
  write_golden_pair(json_file, csv_file);
  expect_matches_golden(json_file.path(), "small_trace.json");
  expect_matches_golden(csv_file.path(), "small_instructions.csv");
}

TEST(TraceGolden, GoldenTraceMatchesTheSchema) {
  EXPECT_EQ(violations_of(read_json(kGoldenDir + "/small_trace.json")), "");
}

}  // namespace
}  // namespace npusim::test
