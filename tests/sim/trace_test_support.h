#pragma once
// Shared by the trace tests: temporary paths, file reading, a tiny CSV reader and the fixed small trace
// that the golden files record.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/trace_writer.h"
#include "tests/sim/json_schema_check.h"
#include "tests/support/scratch.h"

namespace npusim::test {

// A path unique to this process and test (in its scratch directory), removed when the object goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    static int serial = 0;
    path_ = (scratch_dir() / ("file" + std::to_string(serial++) + suffix)).string();
    std::filesystem::remove(path_);
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text of a gzip file (a failed open fails the test and gives "").
inline std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr);
  std::string out;
  char buf[4096];
  for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  if (f) gzclose(f);
  return out;
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

inline std::vector<nlohmann::json> events_with_phase(const nlohmann::json& trace, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

// RFC 4180 reader: quoted fields may hold commas, doubled quotes and newlines.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field), field.clear();
    } else if (c == '\n') {
      row.push_back(field), field.clear();
      rows.push_back(row), row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

// The instruction texts carry quotes, commas and backslashes on purpose: escaping must survive them.
inline const char* kTrickyText = R"(vadd.f16 dst=ub:0x0 note="a,b" path=C:\tmp\x)";

// Two cores (an AIC and an AIV), several lanes, one flow inside core 0 (its tail recorded with the set,
// flow_out) and one from core 0 to core 1 (tail and head both written by flow()).
inline void write_small_trace(sim::TraceWriter& w) {
  using isa::Pipe;
  w.name_core(0, "aic0");
  w.name_core(1, "aiv0");
  w.slice({0, "aic0", Pipe::S, 0, 3, 1, "smov rd=3 imm=-5", 0, 0});
  w.slice({0, "aic0", Pipe::MTE2, 3, 103, 2, "copy dst=l1:0x0 src=gm:0x1000 nburst=4 burst_bytes=64", 256, 0});
  w.slice({0, "aic0", Pipe::MTE2, 103, 104, 3, "set_flag src=mte2 dst=mte1 event=0", 0, 0, /*flow_out=*/1});
  w.slice({0, "aic0", Pipe::MTE1, 104, 105, 4, "wait_flag src=mte2 dst=mte1 event=0", 0, 0});
  w.flow(1, 0, Pipe::MTE2, 104, 0, Pipe::MTE1, 104);
  w.slice(
      {0, "aic0", Pipe::MTE1, 105, 141, 5, "load2d.f16 dst=l0b:0x200 src=l1:0x4000 start_index=2 repeat=8", 4096, 0});
  w.slice({0, "aic0", Pipe::M, 141, 205, 6, "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=32 init=0", 0, 32768});
  w.slice({0, "aic0", Pipe::FIX, 205, 241, 7, "fixpipe.f16.f32 dst=gm:0x2000 src=l0c:0x0 quant=scalar", 1024, 0});
  w.slice({0, "aic0", Pipe::FIX, 241, 242, 8, "set_cross_core flag=1", 0, 0});
  w.slice({1, "aiv0", Pipe::S, 242, 243, 9, "wait_cross_core flag=1", 0, 0});
  w.flow(2, 0, Pipe::FIX, 242, 1, Pipe::S, 242);
  w.slice({1, "aiv0", Pipe::MTE2, 243, 301, 10, "copy dst=ub:0x0 src=gm:0x2000 burst_bytes=1024", 1024, 0});
  w.slice({1, "aiv0", Pipe::V, 301, 311, 11, kTrickyText, 512, 256});
  w.slice({1, "aiv0", Pipe::MTE3, 311, 340, 12, "copy dst=gm:0x40 src=ub:0x20 burst_bytes=1024", 1024, 0});
}

using nlohmann::json;

inline const nlohmann::json& schema() {
  static const json s = read_json(std::string(NPUSIM_TRACES_DIR) + "/trace_schema.json");
  return s;
}

inline std::string violations_of(const json& doc) {
  std::string all;
  for (const auto& v : schema_violations(schema(), doc)) all += v + "\n";
  return all;
}

// Writes the small trace at 1000 MHz (one cycle = 0.001 us) with the given filter and returns the parsed JSON.
inline json small_trace(const TempFile& file, sim::TraceFilter filter = {}, const std::string& csv = "") {
  {
    sim::TraceWriter w(file.path(), csv, 1000.0, filter);
    write_small_trace(w);
  }
  return read_json(file.path());
}

inline const json* slice_with_id(const std::vector<json>& slices, uint64_t id) {
  for (const auto& s : slices)
    if (s["args"]["id"] == id) return &s;
  return nullptr;
}

inline int64_t picoseconds(const json& us) { return std::llround(us.get<double>() * 1e6); }

inline bool inside(const json& point, const json& slice) {
  int64_t t = picoseconds(point["ts"]), start = picoseconds(slice["ts"]);
  return point["pid"] == slice["pid"] && point["tid"] == slice["tid"] && t > start &&
         t < start + picoseconds(slice["dur"]);
}

inline std::set<int64_t> pids_in(const json& trace) {
  std::set<int64_t> pids;
  for (const auto& e : trace["traceEvents"]) pids.insert(e["pid"].get<int64_t>());
  return pids;
}

}  // namespace npusim::test
