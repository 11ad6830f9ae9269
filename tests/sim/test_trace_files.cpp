// The trace writer's filters, files and instructions.csv (the JSON itself: test_trace.cpp).
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "tests/sim/trace_test_support.h"

namespace npusim::test {
namespace {

using isa::Pipe;
using nlohmann::json;
using sim::TraceFilter;
using sim::TraceSlice;
using sim::TraceWriter;

// ---- filters ------------------------------------------------------------------------------------

TEST(TraceFilters, CoreFilterDropsOtherCoresEverywhere) {
  TempFile file(".json"), csv(".csv");
  TraceFilter filter;
  filter.cores = std::set<int>{1};
  json trace = small_trace(file, filter, csv.path());
  EXPECT_EQ(pids_in(trace), std::set<int64_t>{2});
  EXPECT_EQ(events_with_phase(trace, "X").size(), 4u);
  EXPECT_TRUE(events_with_phase(trace, "s").empty()) << "flow 2 starts on the dropped core";
  auto rows = parse_csv(read_text(csv.path()));
  ASSERT_EQ(rows.size(), 1u + 4);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][0], "1");
  EXPECT_EQ(violations_of(trace), "");
}

TEST(TraceFilters, WindowKeepsOnlySlicesOverlappingIt) {
  TempFile file(".json"), csv(".csv");
  TraceFilter filter;
  filter.from_cycle = 100;
  filter.to_cycle = 200;
  size_t written = 0;
  {
    TraceWriter w(file.path(), csv.path(), 1000.0, filter);
    w.slice({0, "c", Pipe::V, 0, 100, 1, "ends at from: dropped", 0, 0});
    w.slice({0, "c", Pipe::V, 50, 101, 2, "straddles from: kept", 0, 0});
    w.slice({0, "c", Pipe::V, 120, 130, 3, "inside: kept", 0, 0});
    w.slice({0, "c", Pipe::V, 199, 300, 4, "straddles to: kept", 0, 0});
    w.slice({0, "c", Pipe::V, 200, 210, 5, "starts at to: dropped", 0, 0});
    w.slice({0, "c", Pipe::S, 100, 100, 6, "instant at from: kept", 0, 0});
    w.slice({0, "c", Pipe::S, 200, 200, 7, "instant at to: dropped", 0, 0});
    w.slice({0, "c", Pipe::S, 0, 1000, 8, "covers the window: kept", 0, 0});
    written = w.slices_written();
  }
  std::set<uint64_t> ids;
  for (const auto& s : events_with_phase(read_json(file.path()), "X")) ids.insert(s["args"]["id"].get<uint64_t>());
  EXPECT_EQ(ids, (std::set<uint64_t>{2, 3, 4, 6, 8}));
  EXPECT_EQ(written, 5u);
  EXPECT_EQ(parse_csv(read_text(csv.path())).size(), 1u + 5);
}

TEST(TraceFilters, FlowWithAnEndOutsideTheWindowIsDropped) {
  TempFile file(".json");
  TraceFilter filter;
  filter.from_cycle = 100;
  filter.to_cycle = 200;
  {
    TraceWriter w(file.path(), "", 1000.0, filter);
    w.flow(1, 0, Pipe::MTE2, 100, 0, Pipe::V, 150);  // set's last cycle is 99: outside
    w.flow(2, 0, Pipe::MTE2, 101, 0, Pipe::V, 150);  // set's last cycle 100, wait's first 150: kept
    w.flow(3, 0, Pipe::MTE2, 150, 0, Pipe::V, 200);  // wait's first cycle is 200: outside
    w.flow(4, 0, Pipe::MTE2, 200, 0, Pipe::V, 199);  // last cycle 199 and first cycle 199: kept
  }
  json trace = read_json(file.path());
  std::set<uint64_t> starts, ends;
  for (const auto& e : events_with_phase(trace, "s")) starts.insert(e["id"].get<uint64_t>());
  for (const auto& e : events_with_phase(trace, "f")) ends.insert(e["id"].get<uint64_t>());
  EXPECT_EQ(starts, (std::set<uint64_t>{2, 4}));
  EXPECT_EQ(ends, starts);
}

TEST(TraceFilters, FlowToADroppedCoreIsDropped) {
  TempFile file(".json");
  TraceFilter filter;
  filter.cores = std::set<int>{0};
  json trace = small_trace(file, filter);
  auto starts = events_with_phase(trace, "s");
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0]["id"], 1);  // the flow inside core 0 stays; the one to core 1 goes
  EXPECT_EQ(events_with_phase(trace, "f").size(), 1u);
}

TEST(TraceFilters, EmptyWindowIsRejected) {
  TempFile file(".json");
  TraceFilter filter;
  filter.from_cycle = 50;
  filter.to_cycle = 50;
  EXPECT_THROW(TraceWriter(file.path(), "", 1000.0, filter), std::invalid_argument);
}

// ---- files --------------------------------------------------------------------------------------

TEST(TraceFile, ZeroSlicesStillMakeValidJson) {
  TempFile file(".json"), csv(".csv");
  { TraceWriter w(file.path(), csv.path(), 1000.0); }
  json trace = read_json(file.path());
  EXPECT_TRUE(trace["traceEvents"].is_array());
  EXPECT_TRUE(trace["traceEvents"].empty());
  EXPECT_EQ(violations_of(trace), "");
  EXPECT_EQ(read_text(csv.path()), "core,core_name,pipe,start,end,cycles,id,bytes,flops,instruction,stage\n");
}

TEST(TraceFile, FilterThatDropsEverythingStillMakesValidJson) {
  TempFile file(".json");
  TraceFilter filter;
  filter.cores = std::set<int>{};
  json trace = small_trace(file, filter);
  EXPECT_TRUE(trace["traceEvents"].empty());
  EXPECT_EQ(violations_of(trace), "");
}

TEST(TraceFile, DestructorClosesTheJson) {
  TempFile file(".json");
  auto w = std::make_unique<TraceWriter>(file.path(), "", 1000.0);
  write_small_trace(*w);
  EXPECT_THROW(json::parse(read_text(file.path())).size(), json::parse_error) << "the array is still open";
  w.reset();
  std::string raw = read_text(file.path());
  ASSERT_GE(raw.size(), 4u);
  EXPECT_EQ(raw.substr(raw.size() - 4), "\n]}\n");
  EXPECT_NO_THROW(json::parse(raw).size());
}

TEST(TraceFile, LongTraceReachesDiskWhileRunning) {
  TempFile file(".json");
  TraceWriter w(file.path(), "", 1000.0);
  constexpr uint64_t kSlices = 60000;
  for (uint64_t i = 0; i < kSlices; ++i) w.slice({0, "aic0", Pipe::M, i, i + 1, i, "mmad.f16 c=l0c:0x0", 0, 8192});
  // The events are on disk before the writer closes: nothing holds the whole trace in memory, only the chunk being
  // filled and the chunks the file's thread may be behind (and the stream's own small buffer).
  const uint64_t held = (sim::TraceFile::kLagChunks + 1) * sim::TraceFile::kChunkBytes + 65536;
  EXPECT_GT(std::filesystem::file_size(file.path()), kSlices * 150 - held);
}

TEST(TraceFile, EmptyPathSkipsThatFile) {
  TempFile json_file(".json"), csv(".csv");
  {
    TraceWriter w("", csv.path(), 1000.0);
    write_small_trace(w);
    EXPECT_EQ(w.slices_written(), 12u);
  }
  EXPECT_FALSE(std::filesystem::exists(json_file.path()));
  EXPECT_EQ(parse_csv(read_text(csv.path())).size(), 1u + 12);
  {
    TraceWriter w(json_file.path(), "", 1000.0);
    write_small_trace(w);
  }
  EXPECT_EQ(events_with_phase(read_json(json_file.path()), "X").size(), 12u);
}

TEST(TraceFile, UnwritablePathIsAnError) {
  EXPECT_THROW(TraceWriter("/nonexistent-npusim-dir/trace.json", "", 1000.0), std::runtime_error);
  EXPECT_THROW(TraceWriter("", "/nonexistent-npusim-dir/instructions.csv", 1000.0), std::runtime_error);
}

TEST(TraceFile, BadInputsAreRejected) {
  TempFile file(".json");
  EXPECT_THROW(TraceWriter(file.path(), "", 0.0), std::invalid_argument);
  EXPECT_THROW(TraceWriter(file.path(), "", std::nan("")), std::invalid_argument);
  TraceWriter w(file.path(), "", 1000.0);
  EXPECT_THROW(w.slice({0, "c", Pipe::V, 10, 9, 1, "vadd.f16", 0, 0}), std::invalid_argument);
  EXPECT_THROW(w.slice({-1, "c", Pipe::V, 0, 1, 1, "vadd.f16", 0, 0}), std::invalid_argument);
  EXPECT_EQ(w.slices_written(), 0u);
}

// ---- instructions.csv ---------------------------------------------------------------------------

TEST(TraceCsv, HeaderThenOneRowPerSlice) {
  TempFile file(".json"), csv(".csv");
  small_trace(file, {}, csv.path());
  std::string text = read_text(csv.path());
  EXPECT_EQ(text.substr(0, text.find('\n')), "core,core_name,pipe,start,end,cycles,id,bytes,flops,instruction,stage");
  auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 1u + 12);
  for (const auto& row : rows) EXPECT_EQ(row.size(), 11u);
  // mmad: core 0, CUBE, cycles 141..205, no stage
  EXPECT_EQ(rows[6], (std::vector<std::string>{"0", "aic0", "CUBE", "141", "205", "64", "6", "0", "32768",
                                               "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=32 init=0", ""}));
}

TEST(TraceCsv, InstructionIsQuotedAndRoundTrips) {
  TempFile csv(".csv");
  {
    TraceWriter w("", csv.path(), 1000.0);
    w.slice({0, "odd,name", Pipe::V, 0, 1, 1, kTrickyText, 0, 0});
    w.slice({0, "odd,name", Pipe::V, 1, 2, 2, "line\nbreak", 0, 0});
  }
  std::string text = read_text(csv.path());
  EXPECT_NE(text.find(R"("vadd.f16 dst=ub:0x0 note=""a,b"" path=C:\tmp\x")"), std::string::npos) << text;
  auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "odd,name");
  EXPECT_EQ(rows[1][9], kTrickyText);
  EXPECT_EQ(rows[2][9], "line\nbreak");
}

}  // namespace
}  // namespace npusim::test
