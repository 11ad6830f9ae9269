// npusim report DIR: one self-contained HTML file (inline SVG, no scripts, no network) for a run folder (written by
// npusim run / check: report.json, and trace.json with --trace) or a sweep folder (results.jsonl of npusim sweep /
// tune). Charts: report_charts.h.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "tools/cli/options.h"
#include "tools/cli/report_charts.h"
#include "tools/cli/svg.h"
#include "tools/cli/sweep_results.h"
#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
constexpr uintmax_t kMaxTraceBytes = uintmax_t(512) << 20;  // parsing needs several times this in memory
const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{"
    "border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px "
    "8px;text-align:left}.note{color:#666;font-size:12px}";

nlohmann::json read_json(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw InputError(p.string() + " cannot be read");
  const auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) throw InputError(p.string() + " is not valid JSON");
  return j;
}

// The run's trace: trace.json or trace.json.gz (zlib reads both). nullopt when there is none; `too_large` when its
// JSON text passes kMaxTraceBytes (a gzip file is read until it does).
std::optional<std::string> read_trace(const fs::path& dir, std::string& name, bool& too_large) {
  too_large = false;
  for (const char* n : {"trace.json", "trace.json.gz"}) {
    if (!fs::exists(dir / n)) continue;
    name = n;
    gzFile f = gzopen((dir / n).c_str(), "rb");
    if (!f) throw InputError((dir / n).string() + " cannot be read");
    std::string text;
    char buf[1 << 16];
    for (int got; (got = gzread(f, buf, sizeof buf)) > 0;) {
      text.append(buf, size_t(got));
      if (text.size() > kMaxTraceBytes) {
        too_large = true;
        break;
      }
    }
    gzclose(f);
    return text;
  }
  return std::nullopt;
}

std::string row(const std::string& k, const std::string& v) {
  return "<tr><th>" + xml_escape(k) + "</th><td>" + xml_escape(v) + "</td></tr>";
}
std::string field(const nlohmann::json& r, const char* k) {
  if (!r.contains(k)) return "-";
  if (r[k].is_number_integer()) return r[k].dump();  // cycle counts in full
  return r[k].is_string() ? r[k].get<std::string>() : r[k].is_number() ? fmt_num(r[k].get<double>()) : r[k].dump();
}

std::string run_page(const fs::path& dir, std::string& summary) {
  const nlohmann::json rep = read_json(dir / "report.json");
  std::string h =
      "<h1>npusim run: " + xml_escape(field(rep, "case")) + " (" + xml_escape(field(rep, "op")) + ")</h1><table>";
  for (const char* k : {"hw", "mode", "cycles", "time_us", "achieved_tflops", "bound", "cores_used", "l2_hit_rate"})
    h += row(k, field(rep, k));
  if (rep.contains("finish_balance") && rep["finish_balance"].contains("ratio"))
    h += row("finish balance (max / mean AI core finish)", fmt_num(rep["finish_balance"]["ratio"].get<double>()));
  h += row("tiling", rep.value("tiling", nlohmann::json::object()).dump()) + "</table>";
  h += "<h2>Pipe utilisation (busy fraction, mean over the cores of a kind)</h2>" + utilisation_chart(rep);
  const std::string roof = roofline_chart(rep);
  h += "<h2>Roofline</h2>" +
       (roof.empty() ? "<p class=note>report.json has no roof values (written by an older npusim)</p>" : roof);
  const std::string table = pipe_summary_table(rep);
  if (!table.empty())
    h += "<h2>Where the time went (per core kind: mean share of the launch's cycles)</h2><p class=note>busy: the pipe "
         "executing; waiting on a flag: a wait_flag at the head of its queue; scalar blocked: the scalar unit could "
         "not issue because this pipe's queue was full; bank-conflict beats: the part of the busy cycles UB bank "
         "conflicts added.</p>" +
         table;
  summary = "run report";
  std::string trace_name;
  bool too_large = false;
  const std::optional<std::string> trace = read_trace(dir, trace_name, too_large);
  if (trace && too_large) {
    h += "<h2>Timeline</h2><p class=note>" + trace_name + " holds more than the " +
         std::to_string(kMaxTraceBytes >> 20) +
         " MiB of JSON this page reads: record fewer cores (--trace-cores) or a cycle window (--trace-window)</p>";
    summary += ", timeline skipped (" + trace_name + " too large)";
  } else if (trace && !trace->empty()) {
    const auto tj = nlohmann::json::parse(*trace, nullptr, false);
    if (tj.is_discarded())
      throw InputError((dir / trace_name).string() + " is not valid JSON (a run killed before it closed the trace?)");
    TimelineStats st;
    h += "<h2>Timeline (" + trace_name +
         ")</h2><p class=note>One lane per core and pipe (an AIC followed by its AIVs), shade = the share of a pixel's "
         "cycles the pipe was busy; grey strips under a lane: waiting on a flag; blue lines: set_flag to the wait it "
         "releases (the first " +
         std::to_string(400) +
         "); the stage row above a core's lanes: the kernel's stages (C1 = Q K^T, V1 = softmax, C2 = P V, V2 = the O "
         "update; GEMM: load, mmad, store), overlapping stages on alternate half rows.</p>" +
         timeline_chart(tj, st);
    if (const std::string stages = stage_table(tj); !stages.empty())
      h += "<h2>Stages (trace)</h2><p class=note>Per stage kind: its spans (first start to last end of the "
           "instructions issued under it, waits left out; spans of one core overlap), the cores that ran it, and their "
           "lengths in cycles.</p>" +
           stages;
    summary += ", timeline " + std::to_string(st.cores) + " cores, " + std::to_string(st.lanes) + " lanes, " +
               std::to_string(st.slices) + " slices, " + std::to_string(st.arrows) + " arrows, " +
               std::to_string(st.stages) + " stages";
  } else {
    h += "<h2>Timeline</h2><p class=note>no trace.json: run with --trace (and --trace-cores) for the pipe timeline</p>";
  }
  return h;
}

// The sweep's axes: the point keys with at least two values, the most values first (ties by name), so the
// default heatmap spreads the two widest axes.
std::vector<std::string> axes_of(const std::vector<nlohmann::json>& rs) {
  std::map<std::string, std::set<std::string>> vals;
  for (const auto& r : rs)
    for (const auto& [k, v] : r["point"].items()) vals[k].insert(v.dump());
  std::vector<std::string> axes;
  for (const auto& [k, v] : vals)
    if (v.size() > 1) axes.push_back(k);
  std::stable_sort(axes.begin(), axes.end(),
                   [&](const auto& a, const auto& b) { return vals[a].size() > vals[b].size(); });
  return axes;
}

// How much an axis moves the objective: the best objective at each of its values (the other axes free), best of
// those against worst of those (>= 1). The default heatmap shows the two axes that move it most.
double influence(const std::vector<nlohmann::json>& rs, const std::string& axis, const std::string& objective) {
  const bool maxi = maximised(objective);
  std::map<std::string, double> best;
  for (const auto& r : rs) {
    if (r.value("status", "") != "ok" || !r["point"].contains(axis) || !r.contains(objective)) continue;
    const double v = r[objective].get<double>();
    const std::string key = r["point"][axis].dump();
    const auto it = best.find(key);
    if (it == best.end()) best[key] = v;
    else it->second = maxi ? std::max(it->second, v) : std::min(it->second, v);
  }
  if (best.size() < 2) return 1.0;
  double lo = 1e300, hi = -1e300;
  for (const auto& [k, v] : best) lo = std::min(lo, v), hi = std::max(hi, v);
  return lo > 0 ? hi / lo : 1.0;
}

// The default tiling's line of a tiling-only sweep (OUT/default.json): its objective and its rank among the points.
std::string default_rank_text(const fs::path& dir, const std::vector<nlohmann::json>& rs,
                              const std::string& objective) {
  std::ifstream f(dir / "default.json");
  const auto def = nlohmann::json::parse(f, nullptr, false);
  const auto d = def.is_discarded() ? std::nullopt : default_rank(rs, def, objective);
  if (!d) return "";
  return "rank " + std::to_string(d->rank) + " of " + std::to_string(d->of) + " (" + objective + " " +
         def.value(objective, nlohmann::json()).dump() + ", best / default " + fmt_num(d->best_over_default) +
         "; tiling " + def.value("tiling", nlohmann::json::object()).dump() + ")";
}

std::string sweep_page(const fs::path& dir, std::string x, std::string y, const std::string& objective,
                       const std::string& objective2, std::string& summary) {
  const std::vector<nlohmann::json> rs = read_results((dir / "results.jsonl").string());
  if (rs.empty()) throw InputError((dir / "results.jsonl").string() + " holds no result lines");
  const auto axes = axes_of(rs);
  std::string valid;
  for (const auto& a : axes) valid += (valid.empty() ? "" : ", ") + a;
  for (const std::string* k : {&x, &y})
    if (!k->empty() && std::find(axes.begin(), axes.end(), *k) == axes.end())
      throw InputError(
          "--" + std::string(k == &x ? "x" : "y") + " " + *k +
          " is not an axis of this sweep with two or more values (axes: " + (valid.empty() ? "none" : valid) + ")");
  std::vector<std::string> moving = axes;  // the axes that move the objective most first
  std::stable_sort(moving.begin(), moving.end(), [&](const auto& a, const auto& b) {
    return influence(rs, a, objective) > influence(rs, b, objective);
  });
  if (x.empty() && !moving.empty()) x = moving[0] == y ? (moving.size() > 1 ? moving[1] : "") : moving[0];
  if (y.empty())
    for (const auto& a : moving)
      if (a != x) {
        y = a;
        break;
      }
  int ok = 0;
  for (const auto& r : rs) ok += r.value("status", "") == "ok";
  std::string h = "<h1>npusim sweep: " + xml_escape(dir.string()) + "</h1><table>" +
                  row("points", std::to_string(rs.size())) + row("ran", std::to_string(ok)) +
                  row("objective", objective) + row("axes", valid);
  if (const std::string d = default_rank_text(dir, rs, objective); !d.empty()) h += row("default tiling", d);
  h += "</table>";
  int cells = 0;
  if (!x.empty() && !y.empty()) h += "<h2>Heatmap</h2>" + heatmap_chart(rs, x, y, objective, cells);
  else h += "<h2>Heatmap</h2><p class=note>the sweep has fewer than two axes with two or more values</p>";
  h += "<h2>Points ranked by " + xml_escape(objective) + "</h2>" + ranked_chart(rs, objective);
  if (!objective2.empty()) h += "<h2>Pareto front</h2>" + pareto_chart(rs, objective, objective2);
  summary = "sweep report, " + std::to_string(rs.size()) + " points, heatmap " + std::to_string(cells) + " cells";
  return h;
}
}  // namespace

int cmd_report(const Args& args) {
  po::options_description desc("report options");
  std::string dir, out, x, y, objective = "cycles", objective2;
  auto option = desc.add_options();
  option("dir", po::value(&dir)->required(), "a run folder (report.json) or a sweep folder (results.jsonl)");
  option("out", po::value(&out), "the HTML file (default DIR/report.html)");
  option("x", po::value(&x), "sweep: the heatmap's column axis (default: the axis that moves the objective most)");
  option("y", po::value(&y), "sweep: the heatmap's row axis (default: the next one by that measure)");
  option("objective", po::value(&objective), "sweep: cycles (default) | time_us | achieved_tflops | roofline_ratio");
  option("objective2", po::value(&objective2), "sweep: a second objective: a Pareto plot against the first");
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim report DIR [--out FILE] [--x KEY] [--y KEY] [--objective O] [--objective2 O]",
                     desc, {{"dir", 1}}, vm))
    return kExitOk;
  for (const std::string* o : {&objective, &objective2})
    if (!o->empty() && !valid_objective(*o))
      throw InputError("--" + std::string(o == &objective ? "objective" : "objective2") + " " + *o +
                       " is not one of cycles, time_us, achieved_tflops, roofline_ratio");
  const fs::path d(dir);
  const bool run = fs::exists(d / "report.json"), sweep = fs::exists(d / "results.jsonl");
  if (!run && !sweep)
    throw InputError(dir +
                     " holds neither report.json (a run folder of npusim run / check) nor results.jsonl (a sweep "
                     "folder of npusim sweep / tune)");
  std::string summary;
  const std::string body = sweep ? sweep_page(d, x, y, objective, objective2, summary) : run_page(d, summary);
  if (out.empty()) out = (d / "report.html").string();
  std::ofstream f(out);
  if (!f) throw InputError("--out " + out + " cannot be written");
  f << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim report</title><style>" << kStyle
    << "</style></head><body>\n"
    << body << "\n</body></html>\n";
  std::cout << out << ": " << summary << "\n";
  return kExitOk;
}

}  // namespace npusim::cli
