// The trace writer: Chrome trace-event JSON (schema: traces/trace_schema.json) and instructions.csv.
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include "tests/sim/trace_test_support.h"

namespace npusim::test {
namespace {

using isa::Pipe;
using nlohmann::json;
using sim::TraceFilter;
using sim::TraceSlice;
using sim::TraceWriter;

// ---- the JSON file ------------------------------------------------------------------------------

TEST(TraceJson, SmallTraceMatchesTheSchema) {
  TempFile file(".json");
  json trace = small_trace(file);
  EXPECT_EQ(violations_of(trace), "");
  EXPECT_EQ(events_with_phase(trace, "X").size(), 12u);
  EXPECT_EQ(events_with_phase(trace, "s").size(), 2u);
  EXPECT_EQ(events_with_phase(trace, "f").size(), 2u);
}

TEST(TraceJson, SchemaCheckerRejectsMalformedEvents) {
  TempFile file(".json");
  json trace = small_trace(file);
  json broken = trace;
  for (auto& e : broken["traceEvents"])
    if (e["ph"] == "X") e.erase("dur");
  EXPECT_NE(violations_of(broken), "");
  broken = trace;
  broken["traceEvents"].push_back({{"ph", "B"}, {"pid", 1}, {"tid", 10}, {"ts", 0}, {"name", "x"}});
  EXPECT_NE(violations_of(broken), "");
  broken = trace;
  broken["traceEvents"][0]["pid"] = "1";
  EXPECT_NE(violations_of(broken), "");
  broken = trace;
  broken.erase("otherData");
  EXPECT_NE(violations_of(broken), "");
}

TEST(TraceJson, SliceTimesAreMicrosecondsOfTheClockAndArgsCarryCycles) {
  TempFile file(".json");
  json trace = small_trace(file);  // 1000 MHz: one cycle is 0.001 us
  auto slices = events_with_phase(trace, "X");
  const json* mmad = slice_with_id(slices, 6);
  ASSERT_NE(mmad, nullptr);
  EXPECT_EQ((*mmad)["name"], "mmad.f16");
  EXPECT_EQ((*mmad)["cat"], "instr");
  EXPECT_DOUBLE_EQ((*mmad)["ts"].get<double>(), 0.141);
  EXPECT_DOUBLE_EQ((*mmad)["dur"].get<double>(), 0.064);
  const json& args = (*mmad)["args"];
  EXPECT_EQ(args["instr"], "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=32 init=0");
  EXPECT_EQ(args["cycles"], 64);
  EXPECT_EQ(args["start_cycle"], 141);
  EXPECT_EQ(args["end_cycle"], 205);
  EXPECT_EQ(args["flops"], 32768);
  EXPECT_EQ(args["bytes"], 0);
}

TEST(TraceJson, PidIsCorePlusOneAndTidNumbersTheLane) {
  TempFile file(".json");
  json trace = small_trace(file);
  auto slices = events_with_phase(trace, "X");
  EXPECT_EQ((*slice_with_id(slices, 6))["pid"], 1);    // core 0
  EXPECT_EQ((*slice_with_id(slices, 6))["tid"], 12);   // CUBE is lane 2
  EXPECT_EQ((*slice_with_id(slices, 11))["pid"], 2);   // core 1
  EXPECT_EQ((*slice_with_id(slices, 11))["tid"], 21);  // VECTOR is lane 1
  EXPECT_EQ((*slice_with_id(slices, 9))["tid"], 20);   // SCALAR is lane 0
}

TEST(TraceJson, TimestampsKeepCycleResolutionAndBackToBackSlicesTouch) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1850.0);  // 0.54 ns per cycle
    for (uint64_t c = 0; c < 2000; ++c) w.slice({0, "aic0", Pipe::V, c * 3, c * 3 + 3, c, "vadd.f16", 0, 0});
  }
  auto slices = events_with_phase(read_json(file.path()), "X");
  ASSERT_EQ(slices.size(), 2000u);
  for (size_t i = 0; i + 1 < slices.size(); ++i) {
    int64_t end = picoseconds(slices[i]["ts"]) + picoseconds(slices[i]["dur"]);
    ASSERT_EQ(end, picoseconds(slices[i + 1]["ts"])) << "slice " << i;
    ASSERT_LT(picoseconds(slices[i]["ts"]), end);
  }
  double last_end_us = 6000 / 1850.0;
  EXPECT_NEAR(slices.back()["ts"].get<double>() + slices.back()["dur"].get<double>(), last_end_us, 1e-6);
}

TEST(TraceJson, TextWithQuotesCommasAndBackslashesSurvivesEscaping) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    w.name_core(0, "core \"0\", \\ main");
    w.slice({0, "", Pipe::V, 0, 1, 1, kTrickyText, 0, 0});
    w.slice({0, "", Pipe::V, 1, 2, 2, std::string("tab\there newline\nend \x01"), 0, 0});
  }
  std::string raw = read_text(file.path());
  json trace = json::parse(raw);
  auto slices = events_with_phase(trace, "X");
  EXPECT_EQ(slices[0]["args"]["instr"], kTrickyText);
  EXPECT_EQ(slices[1]["args"]["instr"], "tab\there newline\nend \x01");
  EXPECT_EQ(events_with_phase(trace, "M")[0]["args"]["name"], "core \"0\", \\ main");
  EXPECT_EQ(raw.find("\t"), std::string::npos) << "control characters must be escaped";
}

TEST(TraceJson, InvalidUtf8IsReplacedNotFatal) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    w.slice({0, "c", Pipe::S, 0, 1, 1, std::string("bad \xff byte"), 0, 0});
  }
  EXPECT_EQ(events_with_phase(read_json(file.path()), "X")[0]["args"]["instr"], "bad \xef\xbf\xbd byte");
}

TEST(TraceJson, EveryCoreGetsItsNameAndOnlyTheLanesItUsesInFixedOrder) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    w.name_core(2, "aic2");
    w.name_core(2, "ignored second name");
    w.slice({2, "aic2", Pipe::MTE2, 0, 4, 1, "copy", 64, 0});
    w.slice({2, "aic2", Pipe::M, 4, 8, 2, "mmad", 0, 8192});
    w.slice({2, "aic2", Pipe::MTE2, 8, 9, 3, "copy", 64, 0});
  }
  auto meta = events_with_phase(read_json(file.path()), "M");
  ASSERT_EQ(meta.size(), 2u + 2 * 2);  // the process, then MTE2 and CUBE as they first appear
  EXPECT_EQ(meta[0]["name"], "process_name");
  EXPECT_EQ(meta[0]["pid"], 3);
  EXPECT_EQ(meta[0]["args"]["name"], "aic2");
  EXPECT_EQ(meta[1]["name"], "process_sort_index");
  EXPECT_EQ(meta[1]["args"]["sort_index"], 6);  // aic k sorts at 3k, before its AIVs 2k and 2k + 1
  const std::pair<const char*, int> lanes[] = {{"MTE2", 4}, {"CUBE", 2}};
  for (int i = 0; i < 2; ++i) {
    const json& name = meta[2 + 2 * size_t(i)];
    const json& sort = meta[3 + 2 * size_t(i)];
    EXPECT_EQ(name["name"], "thread_name");
    EXPECT_EQ(name["args"]["name"], lanes[i].first);
    EXPECT_EQ(name["tid"], 30 + lanes[i].second);
    EXPECT_EQ(sort["name"], "thread_sort_index");
    EXPECT_EQ(sort["args"]["sort_index"], lanes[i].second);
  }
}

TEST(TraceJson, EachAicIsFollowedByItsTwoAivsAndWaitsAreGrey) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    for (const auto& [core, name] : std::vector<std::pair<int, const char*>>{
             {1, "aic1"}, {24, "aiv0"}, {26, "aiv2"}, {27, "aiv3"}, {0, "aic0"}, {30, "core30"}})
      w.slice(
          {core, name, Pipe::S, 0, 2, uint64_t(core), core == 1 ? "wait_flag src=mte2 dst=m event=0" : "add", 0, 0});
  }
  const json trace = read_json(file.path());
  std::map<std::string, int> order;
  std::map<int, std::string> name_of;
  for (const auto& e : events_with_phase(trace, "M")) {
    if (e["name"] == "process_name") name_of[e["pid"]] = e["args"]["name"];
    if (e["name"] == "process_sort_index") order[name_of[e["pid"]]] = e["args"]["sort_index"];
  }
  EXPECT_EQ(order, (std::map<std::string, int>{
                       {"aic0", 0}, {"aiv0", 1}, {"aic1", 3}, {"aiv2", 4}, {"aiv3", 5}, {"core30", 30}}));
  for (const auto& e : events_with_phase(trace, "X")) {
    const bool wait = e["name"] == "wait_flag";
    EXPECT_EQ(e["cat"], wait ? "wait" : "instr") << e.dump();
    EXPECT_EQ(e.contains("cname"), wait) << e.dump();
  }
  EXPECT_EQ(violations_of(trace), "");
}

TEST(TraceJson, FirstSliceOfAnUnnamedCoreNamesItOnce) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    w.slice({5, "aiv3", Pipe::V, 0, 1, 1, "vadd.f16", 0, 0});
    w.slice({5, "aiv3", Pipe::V, 1, 2, 2, "vadd.f16", 0, 0});
    w.name_core(5, "too late");
  }
  json trace = read_json(file.path());
  int process_names = 0;
  for (const auto& e : events_with_phase(trace, "M")) {
    if (e["name"] != "process_name") continue;
    ++process_names;
    EXPECT_EQ(e["args"]["name"], "aiv3");
  }
  EXPECT_EQ(process_names, 1);
  EXPECT_EQ(violations_of(trace), "");
}

TEST(TraceJson, OtherDataRecordsClockLanesAndFilter) {
  TempFile file(".json");
  {
    TraceFilter filter;
    filter.cores = std::set<int>{0, 3};
    filter.from_cycle = 10;
    filter.to_cycle = 20;
    TraceWriter w(file.path(), "", 1850.0, filter);
  }
  json other = read_json(file.path())["otherData"];
  EXPECT_EQ(other["clock_mhz"], 1850.0);
  EXPECT_EQ(other["lanes"].size(), 7u);
  EXPECT_EQ(other["filter"]["cores"], json::array({0, 3}));
  EXPECT_EQ(other["filter"]["from_cycle"], 10);
  EXPECT_EQ(other["filter"]["to_cycle"], 20);
  TempFile unfiltered(".json");
  { TraceWriter w(unfiltered.path(), "", 1000.0); }
  json none = read_json(unfiltered.path())["otherData"]["filter"];
  EXPECT_TRUE(none["cores"].is_null());
  EXPECT_TRUE(none["to_cycle"].is_null());
}

// ---- flows --------------------------------------------------------------------------------------

// The slice a flow head binds to: the first one starting at or after it on its lane.
const json* next_slice_on_lane(const std::vector<json>& slices, const json& head) {
  const json* best = nullptr;
  for (const auto& s : slices) {
    if (s["pid"] != head["pid"] || s["tid"] != head["tid"] || picoseconds(s["ts"]) < picoseconds(head["ts"])) continue;
    if (best == nullptr || picoseconds(s["ts"]) < picoseconds((*best)["ts"])) best = &s;
  }
  return best;
}

TEST(TraceFlow, TailSitsInsideTheSetAndHeadBindsToTheNextSliceOnItsLane) {
  TempFile file(".json");
  json trace = small_trace(file);
  auto slices = events_with_phase(trace, "X");
  auto tails = events_with_phase(trace, "s");
  auto heads = events_with_phase(trace, "f");
  ASSERT_EQ(tails.size(), 2u);
  ASSERT_EQ(heads.size(), 2u);
  // flow 1: set_flag (id 3) on core 0 MTE2 -> wait_flag (id 4) on core 0 MTE1
  // flow 2: set_cross_core (id 8) on core 0 FIXP -> wait_cross_core (id 9) on core 1 SCALAR
  const uint64_t set_ids[] = {3, 8}, wait_ids[] = {4, 9};
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(tails[i]["id"], i + 1);
    EXPECT_EQ(heads[i]["id"], i + 1);
    EXPECT_FALSE(heads[i].contains("bp")) << "the head binds to the next slice, not an enclosing one";
    EXPECT_EQ(tails[i]["cat"], "sync");
    EXPECT_EQ(heads[i]["cat"], tails[i]["cat"]);
    EXPECT_EQ(heads[i]["name"], tails[i]["name"]);
    EXPECT_TRUE(inside(tails[i], *slice_with_id(slices, set_ids[i]))) << tails[i].dump();
    const json* target = next_slice_on_lane(slices, heads[i]);
    ASSERT_NE(target, nullptr);
    EXPECT_EQ((*target)["args"]["id"], wait_ids[i]);
    EXPECT_LT(picoseconds(heads[i]["ts"]), picoseconds((*target)["ts"])) << "strictly before: no tie to break";
  }
  EXPECT_EQ(tails[1]["args"]["cycle"], 242);
  EXPECT_EQ(heads[1]["args"]["cycle"], 242);
}

TEST(TraceFlow, TailRecordedWithTheSetFollowsItInTheFile) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1800.0);
    // A zero-cycle set and a back-to-back instruction on the same lane and cycle: only the file order
    // can tell Perfetto which of the two the tail belongs to.
    w.slice({0, "aiv0", Pipe::V, 10, 10, 7, "set_flag src=v dst=mte3 event=1", 0, 0, /*flow_out=*/7});
    w.slice({0, "aiv0", Pipe::V, 10, 20, 8, "vadd.f16", 0, 0});
    w.slice({0, "aiv0", Pipe::MTE3, 11, 30, 9, "copy dst=gm:0x0 src=ub:0x0", 512, 0});
    w.flow(7, 0, Pipe::V, 10, 0, Pipe::MTE3, 11);
  }
  const json trace = read_json(file.path());
  const json& events = trace["traceEvents"];
  size_t set_at = 0;
  while (set_at < events.size() && !(events[set_at]["ph"] == "X" && events[set_at]["args"]["id"] == 7)) ++set_at;
  ASSERT_LT(set_at + 1, events.size());
  const json& tail = events[set_at + 1];
  EXPECT_EQ(tail["ph"], "s");
  EXPECT_EQ(tail["id"], 7);
  EXPECT_EQ(tail["ts"], events[set_at]["ts"]) << "a zero-cycle set: the tail sits on its instant";
  int tails = 0, heads = 0;
  for (const auto& e : events) tails += e["ph"] == "s", heads += e["ph"] == "f";
  EXPECT_EQ(tails, 1) << "flow() must not write a second tail";
  EXPECT_EQ(heads, 1);
}

TEST(TraceFlow, SetReleasingSeveralWaitsGetsAnArrowToEach) {
  TempFile file(".json");
  {
    TraceWriter w(file.path(), "", 1000.0);
    w.slice({0, "aic0", Pipe::S, 0, 1, 3, "cross_set mode=0 flag=2", 0, 0, /*flow_out=*/3});
    w.slice({1, "aiv0", Pipe::S, 5, 6, 4, "cross_wait flag=2", 0, 0});
    w.slice({2, "aiv1", Pipe::S, 5, 6, 5, "cross_wait flag=2", 0, 0});
    w.flow(3, 0, Pipe::S, 1, 1, Pipe::S, 5);
    w.flow(3, 0, Pipe::S, 1, 2, Pipe::S, 5);
  }
  json trace = read_json(file.path());
  auto heads = events_with_phase(trace, "f");
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0]["pid"], 2);
  EXPECT_EQ(heads[1]["pid"], 3);
  for (const auto& tail : events_with_phase(trace, "s")) EXPECT_EQ(tail["tid"], 10);
  EXPECT_EQ(violations_of(trace), "");
}

TEST(TraceJson, PipeAllIsDrawnOnTheScalarLane) {
  TempFile file(".json"), csv(".csv");
  {
    TraceWriter w(file.path(), csv.path(), 1000.0);
    w.slice({0, "c", Pipe::ALL, 0, 1, 1, "pipe_barrier pipe=all", 0, 0});
    w.slice({0, "c", Pipe::ALL, 1, 2, 2, "sync_all", 0, 0});
    w.flow(1, 0, Pipe::ALL, 1, 0, Pipe::V, 1);
  }
  json trace = read_json(file.path());
  for (const auto& e : events_with_phase(trace, "X")) EXPECT_EQ(e["tid"], 10);
  EXPECT_EQ(events_with_phase(trace, "s").at(0)["tid"], 10);
  auto rows = parse_csv(read_text(csv.path()));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][2], "SCALAR");
  EXPECT_EQ(rows[2][2], "SCALAR");
}

}  // namespace
}  // namespace npusim::test
