// The charts of npusim report (report_charts.h).
#include "tools/cli/report_charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tools/cli/svg.h"
#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

namespace {
constexpr int kLabelW = 120, kPlotW = 1000;  // timeline / bar label column and plot width, px
constexpr int kBins = kPlotW;                // the timeline draws one pixel column per bin
constexpr int kLaneH = 9, kCoreGap = 6;
constexpr size_t kMaxArrows = 400;   // set -> wait arrows drawn (the earliest)
constexpr size_t kMaxStages = 4000;  // stage spans drawn (the earliest recorded)

const char* pipe_colour(const std::string& lane) {
  static const std::map<std::string, const char*> c = {{"CUBE", "#d9534f"},  {"VECTOR", "#428bca"}, {"MTE1", "#5cb85c"},
                                                       {"MTE2", "#f0ad4e"},  {"MTE3", "#9b59b6"},   {"FIXP", "#e67e22"},
                                                       {"SCALAR", "#7f8c8d"}};
  const auto it = c.find(lane);
  return it == c.end() ? "#34495e" : it->second;
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return fmt_num(v.get<double>());
  return v.dump();
}
}  // namespace

std::string point_label(const nlohmann::json& point) {
  std::string s;
  for (const auto& [k, v] : point.items()) {
    const size_t dot = k.rfind('.');
    s += (s.empty() ? "" : ", ") + (dot == std::string::npos ? k : k.substr(dot + 1)) + "=" + value_text(v);
  }
  return s.empty() ? "(default)" : s;
}

// ---- run ----

std::string utilisation_chart(const nlohmann::json& report) {
  std::vector<std::pair<std::string, double>> bars;
  if (report.contains("utilisation"))
    for (const auto& [kind, pipes] : report["utilisation"].items())
      for (const auto& [pipe, u] : pipes.items()) bars.emplace_back(kind + "." + pipe, u.get<double>());
  Svg s(kLabelW + 420, int(20 * bars.size()) + 30, "utilisation");
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = 10 + 20 * double(i), w = 400 * std::clamp(bars[i].second, 0.0, 1.0);
    s.text(kLabelW - 6, y + 12, bars[i].first, "end");
    s.rect(kLabelW, y, 400, 14, "#eeeeee");
    s.rect(kLabelW, y, w, 14, "#428bca", bars[i].first + ": " + fmt_num(100 * bars[i].second) + "% busy");
    s.text(kLabelW + w + 4, y + 12, fmt_num(100 * bars[i].second) + "%");
  }
  return s.str();
}

namespace {
// The powers of ten in [lo, hi] of a log axis, each labelled once from its integer exponent (a product of floating
// steps could round two ticks to the same text).
std::vector<std::pair<double, std::string>> decade_ticks(double lo, double hi) {
  std::vector<std::pair<double, std::string>> t;
  for (int e = int(std::ceil(std::log10(lo) - 1e-9)); e <= int(std::floor(std::log10(hi) + 1e-9)); ++e)
    t.emplace_back(std::pow(10.0, e),
                   e >= 0 && e <= 3 ? std::to_string(int(std::lround(std::pow(10.0, e)))) : "1e" + std::to_string(e));
  return t;
}
}  // namespace

std::string roofline_chart(const nlohmann::json& report) {
  const nlohmann::json& r = report.value("roofline", nlohmann::json::object());
  const double peak = r.value("peak_flops_per_cycle", 0.0), bw = r.value("gm_bytes_per_cycle", 0.0);
  const double flops = r.value("executed_flops_bound", 0.0), bytes = r.value("min_gm_bytes", 0.0);
  const double cycles = report.value("cycles", 0.0);
  if (peak <= 0 || bw <= 0 || flops <= 0 || bytes <= 0 || cycles <= 0) return "";
  const double ai = flops / bytes, ridge = peak / bw, achieved = flops / cycles;
  const double x_lo = std::min(ai, ridge) / 20, x_hi = std::max(ai, ridge) * 20;
  const double y_lo = std::min(achieved, bw * x_lo) / 2, y_hi = peak * 2;
  const int W = 640, H = 380, L = 70, B = 40, T = 15, R = 20;
  auto X = [&](double v) {
    return L + (std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * (W - L - R);
  };
  auto Y = [&](double v) {
    return H - B - (std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo)) * (H - B - T);
  };
  Svg s(W, H, "roofline");
  s.line(L, H - B, W - R, H - B, "#333"), s.line(L, T, L, H - B, "#333");
  for (const auto& [d, label] : decade_ticks(x_lo, x_hi))
    s.line(X(d), H - B, X(d), H - B + 4, "#333"), s.text(X(d), H - B + 16, label, "middle", 10);
  for (const auto& [d, label] : decade_ticks(y_lo, y_hi))
    s.line(L - 4, Y(d), L, Y(d), "#333"), s.text(L - 6, Y(d) + 4, label, "end", 10);
  s.text((L + W - R) / 2.0, H - 6, "arithmetic intensity (executed flops / minimum GM bytes)", "middle");
  s.text(14, T + 10, "flops / cycle", "start");
  s.polyline(fmt_num(X(x_lo)) + "," + fmt_num(Y(bw * x_lo)) + " " + fmt_num(X(ridge)) + "," + fmt_num(Y(peak)) + " " +
                 fmt_num(X(x_hi)) + "," + fmt_num(Y(peak)),
             "#d9534f", 2);
  s.text(X(x_hi) - 4, Y(peak) - 6, "compute roof " + fmt_num(peak) + " flops/cycle", "end", 10);
  s.circle(X(ai), Y(achieved), 6, "#428bca",
           "this run: " + fmt_num(achieved) + " flops/cycle at " + fmt_num(ai) + " flops/byte (" +
               fmt_num(100 * achieved / std::min(peak, bw * ai)) + "% of the roof)");
  s.text(X(ai) + 9, Y(achieved) + 4, fmt_num(100 * achieved / std::min(peak, bw * ai)) + "% of the roof", "start", 10);
  return s.str();
}

namespace {
struct Lane {
  std::string name;
  std::vector<double> work, wait;  // cycles covered per bin
};
struct StageBar {
  double c0, c1;
  std::string label;
};
struct Core {
  int pid = 0;
  std::string name;
  std::map<int, Lane> lanes;     // tid -> lane
  std::vector<StageBar> stages;  // the kernel's stage spans (CoreCtx::stage), in trace order
};

// A stage's colour by its name (the label's first word): the cube stages reds, the vector stages blues.
const char* stage_colour(const std::string& label) {
  static const std::map<std::string, const char*> c = {{"C1", "#e8847f"},   {"C2", "#b52b27"},   {"V1", "#7fb2e0"},
                                                       {"V2", "#25639b"},   {"Q", "#b8d8f0"},    {"load", "#f0ad4e"},
                                                       {"mmad", "#d9534f"}, {"store", "#9b59b6"}};
  const auto it = c.find(label.substr(0, label.find(' ')));
  return it == c.end() ? "#95a5a6" : it->second;
}

// Sort key of a core: its AI core index, AIC before its AIVs (aic k; aiv 2k, 2k + 1).
std::pair<int, int> core_order(const std::string& name) {
  const bool aiv = name.rfind("aiv", 0) == 0;
  int idx = 0;
  try {
    idx = std::stoi(name.substr(3));
  } catch (...) {
    return {1 << 20, 0};
  }
  return aiv ? std::pair{idx / 2, 1 + idx % 2} : std::pair{idx, 0};
}

void cover(std::vector<double>& bins, double c0, double c1, double per_bin) {
  for (int b = int(c0 / per_bin); b < kBins && b * per_bin < c1; ++b) {
    const double lo = std::max(c0, b * per_bin), hi = std::min(c1, (b + 1) * per_bin);
    if (hi > lo) bins[size_t(b)] += hi - lo;
  }
}
}  // namespace

std::string timeline_chart(const nlohmann::json& trace, TimelineStats& st) {
  const nlohmann::json& ev = trace.value("traceEvents", nlohmann::json::array());
  std::map<int, Core> cores;
  std::map<std::pair<int, int>, std::string> lane_names;
  double end = 1;
  for (const auto& e : ev) {
    const std::string ph = e.value("ph", "");
    if (ph == "M" && e.value("name", "") == "process_name")
      cores[e["pid"]].name = e["args"].value("name", ""), cores[e["pid"]].pid = e["pid"];
    if (ph == "M" && e.value("name", "") == "thread_name")
      lane_names[{e["pid"], e["tid"]}] = e["args"].value("name", "");
    if (ph == "X") end = std::max(end, e["args"].value("end_cycle", 0.0));
    if (ph == "b" && e.value("cat", "") == "stage" && e.contains("args") &&
        cores[e["pid"]].stages.size() < kMaxStages) {
      const auto& a = e["args"];
      cores[e["pid"]].stages.push_back({a.value("start_cycle", 0.0), a.value("end_cycle", 0.0), e.value("name", "")});
      end = std::max(end, a.value("end_cycle", 0.0));
    }
  }
  // A trace recorded with --trace-window spans that window (its slices overlap it), not the whole run.
  const auto& filter = trace.value("otherData", nlohmann::json::object()).value("filter", nlohmann::json::object());
  const double begin = filter.value("from_cycle", 0.0);
  if (filter.contains("to_cycle") && filter["to_cycle"].is_number())
    end = std::min(end, filter["to_cycle"].get<double>());
  end = std::max(end, begin + 1);
  const double per_bin = (end - begin) / kBins;
  const auto clip = [&](double c) { return std::clamp(c, begin, end) - begin; };  // cycle -> offset in the window
  std::vector<std::pair<double, std::pair<int, int>>> sets,
      waits;  // flow start / finish: cycle, (pid, tid)  // flow start / finish: cycle, (pid, tid)
  std::map<long, size_t> set_of;
  std::vector<std::pair<size_t, size_t>> flows;
  for (const auto& e : ev) {
    const std::string ph = e.value("ph", "");
    if (ph == "X") {
      const auto& a = e["args"];
      const double c0 = a.value("start_cycle", 0.0), c1 = a.value("end_cycle", 0.0);
      if (c1 <= c0) continue;
      Lane& l = cores[e["pid"]].lanes[e["tid"]];
      if (l.work.empty()) l.work.assign(kBins, 0), l.wait.assign(kBins, 0), l.name = lane_names[{e["pid"], e["tid"]}];
      const bool wait = e.value("cat", "") == "wait" ||
                        e.value("name", "").find("wait") != std::string::npos;  // older traces: by name
      if (clip(c1) <= clip(c0)) continue;
      cover(wait ? l.wait : l.work, clip(c0), clip(c1), per_bin);
      ++st.slices;
    } else if ((ph == "s" || ph == "f") && flows.size() < kMaxArrows) {
      const double c = e["args"].value("cycle", 0.0);
      const std::pair<int, int> at{e["pid"], e["tid"]};
      const long id = e.value("id", 0L);
      if (ph == "s") set_of[id] = sets.size(), sets.push_back({c, at});
      else if (const auto it = set_of.find(id); it != set_of.end())
        flows.push_back({it->second, waits.size()}), waits.push_back({c, at}), set_of.erase(it);
    }
  }
  std::vector<const Core*> order;
  for (auto& [pid, c] : cores)
    if (!c.lanes.empty() || !c.stages.empty()) order.push_back(&c);
  std::sort(order.begin(), order.end(),
            [](const Core* a, const Core* b) { return core_order(a->name) < core_order(b->name); });
  std::map<std::pair<int, int>, double> lane_y;
  double y = 20;
  for (const Core* c : order) {
    if (!c->stages.empty()) y += kLaneH + 3;
    for (const auto& [tid, l] : c->lanes) lane_y[{c->pid, tid}] = y, y += kLaneH + 3;
    y += kCoreGap;
  }
  Svg s(kLabelW + kPlotW + 10, int(y) + 30, "timeline");
  for (int t = 0; t <= 10; ++t) {
    const double x = kLabelW + kPlotW * t / 10.0;
    s.line(x, 14, x, y, "#dddddd"), s.text(x, 11, fmt_num(begin + (end - begin) * t / 10) + " cyc", "middle", 9);
  }
  double cy = 20;
  for (const Core* c : order) {
    if (!c->stages.empty()) {  // stages overlap (the next block's loads run under this one's drain): two half rows
      s.text(kLabelW - 6, cy + kLaneH - 1, c->name + " stages", "end", 9);
      for (size_t i = 0; i < c->stages.size(); ++i) {
        const StageBar& b = c->stages[i];
        if (clip(b.c1) <= clip(b.c0)) continue;
        s.rect(kLabelW + clip(b.c0) / per_bin, cy + (i % 2) * (kLaneH / 2.0),
               std::max(1.0, (clip(b.c1) - clip(b.c0)) / per_bin), kLaneH / 2.0, stage_colour(b.label),
               b.label + ": cycles " + fmt_num(b.c0) + " to " + fmt_num(b.c1));
        ++st.stages;
      }
      cy += kLaneH + 3;
    }
    for (const auto& [tid, l] : c->lanes) {
      s.text(kLabelW - 6, cy + kLaneH - 1, c->name + " " + l.name, "end", 9);
      ++st.lanes;
      for (int b = 0; b < kBins;) {  // runs of bins at the same quantised coverage (4 levels)
        const int level = int(std::ceil(4 * std::min(1.0, l.work[size_t(b)] / per_bin)));
        int e = b + 1;
        while (e < kBins && int(std::ceil(4 * std::min(1.0, l.work[size_t(e)] / per_bin))) == level) ++e;
        if (level > 0) s.rect(kLabelW + b, cy, e - b, kLaneH, pipe_colour(l.name), "", level / 4.0), ++st.rects;
        b = e;
      }
      for (int b = 0; b < kBins;) {  // waits: a thin strip under the lane
        int e = b;
        while (e < kBins && l.wait[size_t(e)] > 0) ++e;
        if (e > b) s.rect(kLabelW + b, cy + kLaneH, e - b, 2, "#999999", "waiting on a flag"), ++st.rects, b = e;
        else ++b;
      }
      cy += kLaneH + 3;
    }
    cy += kCoreGap;
    ++st.cores;
  }
  for (const auto& [si, wi] : flows) {
    const auto ys = lane_y.find(sets[si].second), yw = lane_y.find(waits[wi].second);
    if (ys == lane_y.end() || yw == lane_y.end()) continue;  // a flag between lanes without slices
    s.line(kLabelW + clip(sets[si].first) / per_bin, ys->second + kLaneH / 2.0,
           kLabelW + clip(waits[wi].first) / per_bin, yw->second + kLaneH / 2.0, "#3355ff", 0.6, "flow");
    ++st.arrows;
  }
  return s.str();
}

namespace {
std::string pct(double part, double whole) { return whole > 0 ? fmt_num(100 * part / whole) + "%" : "-"; }
std::string cell(const std::string& v) { return "<td>" + xml_escape(v) + "</td>"; }
std::string count(double v) { return std::to_string(std::llround(v)); }
}  // namespace

std::string pipe_summary_table(const nlohmann::json& report) {
  const nlohmann::json& ps = report.value("pipe_summary", nlohmann::json::object());
  const double cycles = report.value("cycles", 0.0);
  if (!ps.contains("per_kind") || cycles <= 0) return "";
  std::string h =
      "<table id=pipe-summary><tr><th>cores</th><th>pipe</th><th>instructions / core</th><th>busy</th><th>waiting on a "
      "flag</th><th>scalar blocked on its full queue</th><th>bank-conflict beats (of busy)</th></tr>";
  for (const auto& [kind, k] : ps["per_kind"].items()) {
    const double n = k.value("cores", 1.0), all = cycles * std::max(1.0, n);
    const nlohmann::json pipes = k.value("pipes", nlohmann::json::object());
    for (const auto& [pipe, v] : pipes.items())
      h += "<tr>" + cell(kind + " x " + fmt_num(n)) + cell(pipe) + cell(count(v.value("instructions", 0.0) / n)) +
           cell(pct(v.value("busy_cycles", 0.0), all)) + cell(pct(v.value("flag_wait_cycles", 0.0), all)) +
           cell(pct(v.value("queue_full_cycles", 0.0), all)) +
           cell(pct(v.value("conflict_beats", 0.0), v.value("busy_cycles", 0.0))) + "</tr>";
    const auto& w = k.value("scalar_waits", nlohmann::json::object());
    h += "<tr>" + cell(kind + " x " + fmt_num(n)) + cell("scalar waits") + "<td colspan=5>" +
         xml_escape("cross-core flags " + pct(w.value("cross_wait_cycles", 0.0), all) + ", sync_all " +
                    pct(w.value("sync_all_cycles", 0.0), all) + ", draining its pipes " +
                    pct(w.value("drain_cycles", 0.0), all) + ", GM scalar loads " +
                    pct(w.value("gm_load_cycles", 0.0), all)) +
         "</td></tr>";
  }
  h += "</table><details><summary>per core</summary><table "
       "id=pipe-summary-cores><tr><th>core</th><th>pipe</th><th>instructions</th><th>busy</th><th>waiting on a "
       "flag</th><th>scalar blocked on its full queue</th><th>bank-conflict beats</th></tr>";
  const nlohmann::json cores = ps.value("per_core", nlohmann::json::object());
  for (const auto& [core, c] : cores.items())
    for (const auto& [pipe, v] : c.items()) {
      if (pipe == "scalar_waits" || !v.is_object()) continue;
      h += "<tr>" + cell(core) + cell(pipe) + cell(count(v.value("instructions", 0.0))) +
           cell(pct(v.value("busy_cycles", 0.0), cycles)) + cell(pct(v.value("flag_wait_cycles", 0.0), cycles)) +
           cell(pct(v.value("queue_full_cycles", 0.0), cycles)) + cell(count(v.value("conflict_beats", 0.0))) + "</tr>";
    }
  return h + "</table></details>";
}

std::string stage_table(const nlohmann::json& trace) {
  struct Kind {
    uint64_t spans = 0, total = 0, max = 0;
    std::set<int> cores;
  };
  std::map<std::string, Kind> kinds;
  for (const auto& e : trace.value("traceEvents", nlohmann::json::array())) {
    if (e.value("ph", "") != "b" || e.value("cat", "") != "stage" || !e.contains("args")) continue;
    const std::string name = e.value("name", "");
    Kind& k = kinds[name.substr(0, name.find(' '))];
    const uint64_t cycles = e["args"].value("cycles", uint64_t{0});
    ++k.spans, k.total += cycles, k.max = std::max(k.max, cycles), k.cores.insert(e.value("pid", 0));
  }
  if (kinds.empty()) return "";
  std::string h =
      "<table id=stages><tr><th>stage</th><th>spans</th><th>cores</th><th>mean cycles</th><th>max cycles</th><th>total "
      "span cycles</th></tr>";
  for (const auto& [name, k] : kinds)
    h += "<tr>" + cell(name) + cell(std::to_string(k.spans)) + cell(std::to_string(k.cores.size())) +
         cell(count(double(k.total) / double(k.spans))) + cell(std::to_string(k.max)) + cell(std::to_string(k.total)) +
         "</tr>";
  return h + "</table>";
}

// ---- sweep ----

namespace {
std::vector<nlohmann::json> values_of(const std::vector<nlohmann::json>& rs, const std::string& key) {
  std::vector<nlohmann::json> v;
  for (const auto& r : rs)
    if (r["point"].contains(key) && std::find(v.begin(), v.end(), r["point"][key]) == v.end())
      v.push_back(r["point"][key]);
  std::sort(v.begin(), v.end());
  return v;
}
bool ok(const nlohmann::json& r) { return r.value("status", "") == "ok"; }
}  // namespace

std::string heatmap_chart(const std::vector<nlohmann::json>& rs, const std::string& x, const std::string& y,
                          const std::string& objective, int& cells) {
  const auto xs = values_of(rs, x), ys = values_of(rs, y);
  const bool maxi = maximised(objective);
  std::map<std::pair<size_t, size_t>, double> best;
  std::map<std::pair<size_t, size_t>, std::string> best_point;
  double lo = 1e300, hi = -1e300;
  for (const auto& r : rs) {
    if (!ok(r) || !r.contains(objective)) continue;
    const size_t i = size_t(std::find(xs.begin(), xs.end(), r["point"][x]) - xs.begin());
    const size_t j = size_t(std::find(ys.begin(), ys.end(), r["point"][y]) - ys.begin());
    const double v = r[objective].get<double>();
    const auto it = best.find({i, j});
    if (it == best.end() || (maxi ? v > it->second : v < it->second))
      best[{i, j}] = v, best_point[{i, j}] = point_label(r["point"]);
  }
  for (const auto& [ij, v] : best) lo = std::min(lo, v), hi = std::max(hi, v);  // the colours span the cells shown
  const int cw = 84, ch = 30, L = 110, T = 40;
  Svg s(std::max(L + cw * int(xs.size()) + 20, 640), T + ch * int(ys.size()) + 20, "heatmap");
  s.text(10, 14,
         x + " (columns) x " + y + " (rows): " + objective + ", the best over the other axes; grey: no valid point");
  for (size_t i = 0; i < xs.size(); ++i) s.text(L + cw * (i + 0.5), T - 6, value_text(xs[i]), "middle");
  for (size_t j = 0; j < ys.size(); ++j) {
    s.text(L - 6, T + ch * (j + 0.6), value_text(ys[j]), "end");
    for (size_t i = 0; i < xs.size(); ++i) {
      const auto it = best.find({i, j});
      ++cells;
      if (it == best.end()) {
        s.rect(L + cw * i, T + ch * j, cw - 2, ch - 2, "#cccccc", "no valid point (invalid tiling or failed run)");
        s.text(L + cw * (i + 0.5), T + ch * (j + 0.65), "x", "middle");
        continue;
      }
      const double t = hi > lo ? (std::log(it->second) - std::log(lo)) / (std::log(hi) - std::log(lo)) : 0;
      s.rect(L + cw * i, T + ch * j, cw - 2, ch - 2, heat_colour(maxi ? 1 - t : t),
             best_point[{i, j}] + ": " + objective + " " + fmt_num(it->second));
      s.text(L + cw * (i + 0.5), T + ch * (j + 0.65), fmt_compact(it->second), "middle", 10);
    }
  }
  return s.str();
}

std::string ranked_chart(const std::vector<nlohmann::json>& rs, const std::string& objective) {
  std::vector<const nlohmann::json*> v;
  for (const auto& r : rs)
    if (ok(r) && r.contains(objective)) v.push_back(&r);
  const bool maxi = maximised(objective);
  std::stable_sort(v.begin(), v.end(), [&](const nlohmann::json* a, const nlohmann::json* b) {
    const double va = (*a)[objective].get<double>(), vb = (*b)[objective].get<double>();
    return maxi ? va > vb : va < vb;
  });
  if (v.size() > 40) v.resize(40);
  double top = 0;
  for (const auto* r : v) top = std::max(top, (*r)[objective].get<double>());
  const int L = 330;
  Svg s(L + 460, int(18 * v.size()) + 20, "ranked");
  for (size_t i = 0; i < v.size(); ++i) {
    const double val = (*v[i])[objective].get<double>(), w = top > 0 ? 380 * val / top : 0, yy = 6 + 18 * double(i);
    s.text(L - 6, yy + 11, std::to_string(i + 1) + ". " + point_label((*v[i])["point"]), "end", 10);
    s.rect(L, yy, w, 13, i == 0 ? "#5cb85c" : "#428bca", objective + " " + fmt_num(val));
    s.text(L + w + 4, yy + 11, fmt_compact(val), "start", 10);
  }
  return s.str();
}

std::string pareto_chart(const std::vector<nlohmann::json>& rs, const std::string& o1, const std::string& o2) {
  std::vector<const nlohmann::json*> v;
  for (const auto& r : rs)
    if (ok(r) && r.contains(o1) && r.contains(o2)) v.push_back(&r);
  if (v.empty()) return "";
  auto val = [](const nlohmann::json* r, const std::string& o) { return (*r)[o].get<double>(); };
  auto better = [&](double a, double b, const std::string& o) { return maximised(o) ? a > b : a < b; };
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const auto* r : v)
    x0 = std::min(x0, val(r, o1)), x1 = std::max(x1, val(r, o1)), y0 = std::min(y0, val(r, o2)),
    y1 = std::max(y1, val(r, o2));
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  const int W = 640, H = 400, L = 80, B = 40, T = 15, R = 20;
  auto X = [&](double a) { return L + (a - x0) / (x1 - x0) * (W - L - R); };
  auto Y = [&](double a) { return H - B - (a - y0) / (y1 - y0) * (H - B - T); };
  Svg s(W, H, "pareto");
  s.line(L, H - B, W - R, H - B, "#333"), s.line(L, T, L, H - B, "#333");
  s.text((L + W - R) / 2.0, H - 8, o1 + (maximised(o1) ? " (higher is better)" : " (lower is better)"), "middle");
  s.text(L + 8, T + 8, o2 + (maximised(o2) ? " (higher is better)" : " (lower is better)"), "start");
  s.text(L, H - B + 14, fmt_num(x0), "middle", 10), s.text(W - R, H - B + 14, fmt_num(x1), "middle", 10);
  s.text(L - 4, H - B, fmt_num(y0), "end", 10), s.text(L - 4, T + 8, fmt_num(y1), "end", 10);
  std::vector<const nlohmann::json*> front;
  for (const auto* a : v) {
    const bool dominated = std::any_of(v.begin(), v.end(), [&](const nlohmann::json* b) {
      const bool ge = !better(val(a, o1), val(b, o1), o1) && !better(val(a, o2), val(b, o2), o2);
      return ge && (better(val(b, o1), val(a, o1), o1) || better(val(b, o2), val(a, o2), o2));
    });
    if (!dominated) front.push_back(a);
    s.circle(
        X(val(a, o1)), Y(val(a, o2)), dominated ? 3 : 5, dominated ? "#999999" : "#d9534f",
        point_label((*a)["point"]) + ": " + o1 + " " + fmt_num(val(a, o1)) + ", " + o2 + " " + fmt_num(val(a, o2)));
  }
  std::sort(front.begin(), front.end(),
            [&](const nlohmann::json* a, const nlohmann::json* b) { return val(a, o1) < val(b, o1); });
  std::string pts;
  for (const auto* f : front) pts += fmt_num(X(val(f, o1))) + "," + fmt_num(Y(val(f, o2))) + " ";
  s.polyline(pts, "#d9534f", 1.2);
  return s.str();
}

}  // namespace npusim::cli
