// npusim compare-profile DEVICE.csv RUN_DIR: one row of a device profile (msprof op_summary_*.csv or the torch_npu
// profiler's kernel_details.csv) beside a simulated run's op_summary.csv, metric by metric with sim / device.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/cli/op_summary.h"
#include "tools/cli/options.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
using Row = std::map<std::string, std::string>;

// kernel_details.csv renames some op_summary columns; msprof 2026 renamed Block Dim to Block Num.
const std::map<std::string, std::string> kAliases = {{"Name", "Op Name"},
                                                     {"Type", "OP Type"},
                                                     {"Accelerator Core", "Task Type"},
                                                     {"Start Time(us)", "Task Start Time(us)"},
                                                     {"Duration(us)", "Task Duration(us)"},
                                                     {"Wait Time(us)", "Task Wait Time(us)"},
                                                     {"Block Num", "Block Dim"},
                                                     {"Mix Block Num", "Mix Block Dim"}};

// The metrics compared (numbers), in op_summary order.
const std::vector<std::string> kMetrics = {
    "Task Duration(us)",  "Block Dim",         "Mix Block Dim",       "aicore_time(us)",      "aic_total_cycles",
    "aic_mac_time(us)",   "aic_mac_ratio",     "aic_scalar_time(us)", "aic_scalar_ratio",     "aic_mte1_time(us)",
    "aic_mte1_ratio",     "aic_mte2_time(us)", "aic_mte2_ratio",      "aic_fixpipe_time(us)", "aic_fixpipe_ratio",
    "aiv_time(us)",       "aiv_total_cycles",  "aiv_vec_time(us)",    "aiv_vec_ratio",        "aiv_scalar_time(us)",
    "aiv_scalar_ratio",   "aiv_mte2_time(us)", "aiv_mte2_ratio",      "aiv_mte3_time(us)",    "aiv_mte3_ratio",
    "cube_utilization(%)"};

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(what + " '" + path + "' cannot be read");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The CSV's data rows keyed by op_summary's column names.
std::vector<Row> read_profile(const std::string& path, const std::string& what) {
  const auto recs = parse_csv(read_file(path, what));
  if (recs.empty()) throw InputError(what + " '" + path + "' is empty");
  std::vector<std::string> head = recs[0];
  if (!head.empty() && head[0].rfind("\xEF\xBB\xBF", 0) == 0) head[0] = head[0].substr(3);  // a UTF-8 BOM (Excel)
  for (auto& h : head)
    if (const auto it = kAliases.find(h); it != kAliases.end()) h = it->second;
  if (std::find(head.begin(), head.end(), "OP Type") == head.end() ||
      std::find(head.begin(), head.end(), "Task Duration(us)") == head.end())
    throw InputError(what + " '" + path +
                     "' has no 'OP Type' / 'Type' and 'Task Duration(us)' / 'Duration(us)' columns: expected msprof's "
                     "op_summary_*.csv or the torch_npu profiler's kernel_details.csv");
  std::vector<Row> rows;
  for (size_t r = 1; r < recs.size(); ++r) {
    Row row;
    for (size_t c = 0; c < head.size() && c < recs[r].size(); ++c) row[head[c]] = recs[r][c];
    rows.push_back(row);
  }
  return rows;
}

bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  const char* rest = end;  // msprof's start time ends in a tab
  return rest != s.c_str() &&
         std::all_of(rest, s.c_str() + s.size(), [](char c) { return std::isspace(uint8_t(c)) != 0; });
}

std::string strip_quotes(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  return s;
}

// The device row to compare: --row N (1 = the first data row), else the rows whose name or type contains --name
// (default: whose OP Type is the run's); of several, the one with the median Task Duration (a profile of repeated
// iterations lists the op once per iteration).
size_t pick_row(const std::vector<Row>& rows, int64_t row_no, const std::string& name, const Row& sim,
                std::string& why) {
  if (row_no > 0) {
    if (size_t(row_no) > rows.size())
      throw InputError("--row " + std::to_string(row_no) + ": the profile has " + std::to_string(rows.size()) +
                       " data rows");
    why = "row " + std::to_string(row_no);
    return size_t(row_no - 1);
  }
  const std::string want = name.empty() ? sim.at("OP Type") : name;
  std::vector<size_t> hits;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto get = [&](const char* k) { return rows[i].count(k) ? rows[i].at(k) : std::string(); };
    if (name.empty()
            ? get("OP Type") == want
            : (get("Op Name").find(want) != std::string::npos || get("OP Type").find(want) != std::string::npos))
      hits.push_back(i);
  }
  if (hits.empty())
    throw InputError(std::string(name.empty() ? "no row of OP Type '" : "no row whose Op Name or OP Type contains '") +
                     want + "' in the profile (" + std::to_string(rows.size()) + " rows): give --row N or --name TEXT");
  std::sort(hits.begin(), hits.end(), [&](size_t a, size_t b) {
    double da = 0, db = 0;
    number(rows[a].at("Task Duration(us)"), da), number(rows[b].at("Task Duration(us)"), db);
    return da < db;
  });
  const size_t chosen = hits[(hits.size() - 1) / 2];
  why = hits.size() == 1 ? "row " + std::to_string(chosen + 1) + " ('" + want + "')"
                         : "row " + std::to_string(chosen + 1) + ": the median Task Duration of " +
                               std::to_string(hits.size()) + " rows matching '" + want + "'";
  return chosen;
}
}  // namespace

int cmd_compare_profile(const Args& args) {
  po::options_description desc("compare-profile options");
  std::string device_csv, run_dir, name;
  int64_t row_no = 0;
  bool json = false;
  auto option = desc.add_options();
  option("profile", po::value(&device_csv)->required(), "device profile: op_summary_*.csv or kernel_details.csv");
  option("run", po::value(&run_dir)->required(), "a run folder of npusim run (its op_summary.csv)");
  option("row", po::value(&row_no), "the profile's data row to compare (1 = first)");
  option("name", po::value(&name),
         "compare the row whose Op Name / OP Type contains this (median duration of several)");
  option("json", po::bool_switch(&json), "print the comparison as JSON");
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim compare-profile DEVICE.csv RUN_DIR [--row N | --name TEXT] [--json]", desc,
                     {{"profile", 1}, {"run", 1}}, vm))
    return kExitOk;
  if (row_no < 0) throw InputError("--row " + std::to_string(row_no) + " must be 1 or more (the first data row is 1)");
  const fs::path sim_csv = fs::path(run_dir) / "op_summary.csv";
  std::error_code ec;
  if (!fs::exists(sim_csv, ec))
    throw InputError(sim_csv.string() + " does not exist (npusim run writes it into its output folder)");
  const auto sim_rows = read_profile(sim_csv.string(), "run profile");
  if (sim_rows.size() != 1) throw InputError(sim_csv.string() + ": expected one data row");
  const Row& sim = sim_rows[0];
  const auto dev_rows = read_profile(device_csv, "device profile");
  std::string why;
  const Row& dev = dev_rows[pick_row(dev_rows, row_no, name, sim, why)];
  nlohmann::json out = {
      {"profile", device_csv}, {"run", run_dir}, {"device_row", why}, {"metrics", nlohmann::json::array()}};
  const auto val = [](const Row& r, const std::string& k) { return r.count(k) ? r.at(k) : std::string("-"); };
  out["op_type"] = {{"device", val(dev, "OP Type")}, {"simulated", val(sim, "OP Type")}};
  out["input_shapes"] = {{"device", strip_quotes(val(dev, "Input Shapes"))},
                         {"simulated", strip_quotes(val(sim, "Input Shapes"))},
                         {"same", strip_quotes(val(dev, "Input Shapes")) == strip_quotes(val(sim, "Input Shapes"))}};
  if (!json) {
    std::printf("device: %s, %s (%s)\nsimulated: %s\n", device_csv.c_str(), why.c_str(), val(dev, "OP Type").c_str(),
                run_dir.c_str());
    std::printf("input shapes %s: device %s, simulated %s\n\n",
                out["input_shapes"]["same"].get<bool>() ? "match" : "DIFFER",
                out["input_shapes"]["device"].get<std::string>().c_str(),
                out["input_shapes"]["simulated"].get<std::string>().c_str());
    std::printf("%-24s %14s %14s %10s\n", "metric", "device", "simulated", "sim/dev");
  }
  for (const auto& k : kMetrics) {
    double d = 0, s = 0;
    const bool dn = number(val(dev, k), d), sn = number(val(sim, k), s);
    nlohmann::json m = {{"metric", k}, {"device", val(dev, k)}, {"simulated", val(sim, k)}};
    std::string r = "-";
    if (dn && sn && d != 0) {
      m["sim_over_device"] = s / d;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3f", s / d);
      r = buf;
    }
    out["metrics"].push_back(m);
    if (!json) std::printf("%-24s %14s %14s %10s\n", k.c_str(), val(dev, k).c_str(), val(sim, k).c_str(), r.c_str());
  }
  if (json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

}  // namespace npusim::cli
