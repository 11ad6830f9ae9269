// Stage spans (CoreCtx::stage via TraceWriter::open_stage), the counter tracks (queue depths per core, GM
// traffic of the chip) and the gzip output.
#include <zlib.h>

#include "tests/sim/trace_test_support.h"

namespace npusim::test {
namespace {

using isa::Pipe;

// A stage whose first instruction is a wait: the span starts when the work does, and the instructions of the next
// stage (issued later, partly overlapping in time) are not in it.
void write_two_stages(sim::TraceWriter& w) {
  const uint32_t a = w.open_stage(0, "C1 u0 b0");
  w.slice({0, "aic0", Pipe::MTE2, 0, 40, 1, "wait_flag src=mte1 dst=mte2 event=0", 0, 0, std::nullopt, a});
  w.slice({0, "aic0", Pipe::MTE2, 40, 140, 2, "copy dst=l1:0x0 src=gm:0x1000 burst_bytes=64", 64, 0, std::nullopt, a});
  w.slice({0, "aic0", Pipe::M, 140, 200, 3, "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=16", 0, 8192, std::nullopt, a});
  const uint32_t b = w.open_stage(0, "C2 u0 b0");
  w.slice(
      {0, "aic0", Pipe::MTE2, 140, 240, 4, "copy dst=l1:0x800 src=gm:0x2000 burst_bytes=64", 64, 0, std::nullopt, b});
  w.slice({0, "aic0", Pipe::M, 240, 300, 5, "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=16", 0, 8192, std::nullopt, b});
  w.open_stage(0, "empty");  // no instruction: no span
}

std::vector<json> stage_events(const json& t, const std::string& ph) {
  std::vector<json> out;
  for (const auto& e : events_with_phase(t, ph))
    if (e.value("cat", "") == "stage") out.push_back(e);
  return out;
}

TEST(TraceStages, SpanRunsFromTheFirstWorkToTheLastEndAndSkipsWaits) {
  TempFile f(".json");
  {
    sim::TraceWriter w(f.path(), "", 1000.0);
    write_two_stages(w);
  }
  const json t = read_json(f.path());
  EXPECT_EQ(violations_of(t), "");
  const auto begins = stage_events(t, "b"), ends = stage_events(t, "e");
  ASSERT_EQ(begins.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(begins[0]["name"], "C1 u0 b0");
  EXPECT_EQ(begins[0]["args"]["start_cycle"], 40);  // the wait [0, 40) is not work of the stage
  EXPECT_EQ(begins[0]["args"]["end_cycle"], 200);
  EXPECT_EQ(begins[0]["args"]["instructions"], 2);
  EXPECT_EQ(begins[1]["args"]["start_cycle"], 140);  // overlaps C1: async slices may
  EXPECT_EQ(begins[1]["args"]["end_cycle"], 300);
  EXPECT_EQ(picoseconds(ends[0]["ts"]), 200000);
  EXPECT_EQ(begins[0]["id2"], ends[0]["id2"]);
  EXPECT_NE(begins[0]["id2"], begins[1]["id2"]);
  EXPECT_EQ(begins[0]["pid"], 1);
}

TEST(TraceStages, FiltersDropStagesOfOtherCoresAndOutsideTheWindow) {
  TempFile f(".json");
  {
    sim::TraceWriter w(f.path(), "", 1000.0, {std::set<int>{0}, 250, UINT64_MAX});
    write_two_stages(w);
    const uint32_t other = w.open_stage(1, "V1 u0 b0");
    w.slice({1, "aiv0", Pipe::V, 260, 280, 6, "vadd.f16 dst=ub:0x0", 0, 0, std::nullopt, other});
  }
  const auto begins = stage_events(read_json(f.path()), "b");
  ASSERT_EQ(begins.size(), 1u);  // C1 ends before the window, V1 is on a dropped core
  EXPECT_EQ(begins[0]["name"], "C2 u0 b0");
}

TEST(TraceStages, CsvRowsNameTheirStage) {
  TempFile f(".json"), csv(".csv");
  {
    sim::TraceWriter w(f.path(), csv.path(), 1000.0);
    write_two_stages(w);
    w.slice({0, "aic0", Pipe::S, 300, 301, 7, "smov rd=1 imm=0", 0, 0});
  }
  const auto rows = parse_csv(read_text(csv.path()));
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].back(), "stage");
  EXPECT_EQ(rows[1].back(), "C1 u0 b0");  // waits belong to their stage in the CSV
  EXPECT_EQ(rows[4].back(), "C2 u0 b0");
  EXPECT_EQ(rows[6].back(), "");
}

TEST(TraceCounters, QueueDepthKeepsEachWindowsMaximumAndWritesOnlyChanges) {
  TempFile f(".json");
  {
    sim::TraceWriter w(f.path(), "", 1000.0, {}, {false, 100});
    w.slice({0, "aic0", Pipe::S, 0, 1, 1, "smov rd=1 imm=0", 0, 0});
    w.queue_depth(0, Pipe::MTE2, 10, 1);
    w.queue_depth(0, Pipe::MTE2, 20, 3);
    w.queue_depth(0, Pipe::MTE2, 90, 2);   // window 0: max 3
    w.queue_depth(0, Pipe::M, 150, 1);     // window 1: MTE2 0, CUBE 1
    w.queue_depth(0, Pipe::M, 250, 1);     // window 2: the same as window 1 -> no event
    w.queue_depth(0, Pipe::MTE2, 320, 2);  // window 3
  }
  const json t = read_json(f.path());
  EXPECT_EQ(violations_of(t), "");
  std::vector<json> q;
  for (const auto& e : events_with_phase(t, "C"))
    if (e["name"] == "queue depth") q.push_back(e);
  ASSERT_EQ(q.size(), 4u);  // windows 0, 1, 3 and the closing zero at window 4
  EXPECT_EQ(q[0]["args"], (json{{"CUBE", 0}, {"MTE2", 3}}));
  EXPECT_EQ(q[1]["args"], (json{{"CUBE", 1}, {"MTE2", 0}}));
  EXPECT_EQ(picoseconds(q[2]["ts"]), 300000);
  EXPECT_EQ(q[2]["args"], (json{{"CUBE", 0}, {"MTE2", 2}}));
  EXPECT_EQ(q[3]["args"], (json{{"CUBE", 0}, {"MTE2", 0}}));
  EXPECT_EQ(t["otherData"]["counter_window_cycles"], 100);
}

TEST(TraceCounters, TrafficIsSpreadOverTheWindowsATransferSpans) {
  TempFile f(".json");
  {
    sim::TraceWriter w(f.path(), "", 1000.0, {}, {false, 1000});
    w.traffic(500, 1500, {1000, 0, 250, 750});  // half in window 0, half in window 1
    w.traffic(1500, 1500, {0, 64, 0, 0});       // an instant: its cycle's window
  }
  const json t = read_json(f.path());
  EXPECT_EQ(violations_of(t), "");
  std::vector<json> g;
  for (const auto& e : events_with_phase(t, "C"))
    if (e["name"] == "GM traffic (B/cycle)") g.push_back(e);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_DOUBLE_EQ(g[0]["args"]["read"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(g[0]["args"]["hbm"].get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(g[1]["args"]["read"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(g[1]["args"]["write"].get<double>(), 0.064);
  EXPECT_DOUBLE_EQ(g[2]["args"]["read"].get<double>(), 0.0);  // back to zero after the last window
  EXPECT_EQ(g[0]["pid"], 1000000);
}

TEST(TraceCounters, WindowZeroWritesNoCounters) {
  TempFile f(".json");
  {
    sim::TraceWriter w(f.path(), "", 1000.0, {}, {false, 0});
    EXPECT_FALSE(w.counters_on());
    w.queue_depth(0, Pipe::MTE2, 10, 4);
    w.traffic(0, 100, {64, 0, 0, 64});
  }
  EXPECT_TRUE(events_with_phase(read_json(f.path()), "C").empty());
}

TEST(TraceGzip, CompressedFilesHoldExactlyThePlainBytes) {
  TempFile plain(".json"), plain_csv(".csv"), gz(".json.gz"), gz_csv(".csv.gz");
  for (const bool zip : {false, true}) {
    sim::TraceWriter w(zip ? gz.path() : plain.path(), zip ? gz_csv.path() : plain_csv.path(), 1850.0, {}, {zip, 1000});
    write_small_trace(w);
    write_two_stages(w);
    w.close();
  }
  const std::string text = read_text(plain.path());
  EXPECT_EQ(gunzip(gz.path()), text);
  EXPECT_EQ(gunzip(gz_csv.path()), read_text(plain_csv.path()));
  EXPECT_NE(read_text(gz.path()), text);  // really compressed
  EXPECT_LT(read_text(gz.path()).size(), text.size());
}

TEST(TraceGzip, CloseTwiceAndDestroyAfterCloseAreHarmless) {
  TempFile f(".json.gz");
  sim::TraceWriter w(f.path(), "", 1000.0, {}, {true, 1000});
  write_small_trace(w);
  w.close();
  w.close();
  EXPECT_EQ(violations_of(json::parse(gunzip(f.path()))), "");
}

}  // namespace
}  // namespace npusim::test
