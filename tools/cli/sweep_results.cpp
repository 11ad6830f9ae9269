// Sweep results: per-point JSON, CSV and summary (sweep_results.h).
#include "tools/cli/sweep_results.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
nlohmann::json value_json(const std::string& v) {
  try {
    size_t used = 0;
    const long long i = std::stoll(v, &used);
    if (used == v.size()) return i;
    const double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception&) {}
  return v;
}

// The message a failed point printed ("npusim run: ..."), without the prefix.
std::string error_line(const std::string& log) {
  std::ifstream f(log);
  std::string line, last;
  while (std::getline(f, line))
    if (line.rfind("npusim run: ", 0) == 0) last = line.substr(12);
    else if (last.empty() && !line.empty()) last = line;
  return last;
}

const char* status_of(int code) { return code == 0 ? "ok" : code == 2 ? "invalid" : code == 3 ? "fault" : "error"; }

std::string csv_cell(const nlohmann::json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<std::string> columns(const std::vector<nlohmann::json>& rs, std::vector<std::string>& axes,
                                 std::vector<std::string>& pipes) {
  std::set<std::string> a, u;
  for (const auto& r : rs) {
    for (const auto& [k, v] : r["point"].items()) a.insert(k);
    if (r.contains("utilisation"))
      for (const auto& [side, m] : r["utilisation"].items())
        for (const auto& [p, v] : m.items()) u.insert(side + "." + p);
  }
  axes.assign(a.begin(), a.end());
  pipes.assign(u.begin(), u.end());
  return {"status", "exit_code",      "cycles",  "time_us", "achieved_tflops",
          "bound",  "roofline_ratio", "out_dir", "message"};
}

double objective_of(const nlohmann::json& r, const std::string& o) { return r.value(o, 0.0); }

bool better(const nlohmann::json& a, const nlohmann::json& b, const std::string& o) {
  return maximised(o) ? objective_of(a, o) > objective_of(b, o) : objective_of(a, o) < objective_of(b, o);
}

std::string point_text(const nlohmann::json& r) {
  std::string s;
  for (const auto& [k, v] : r["point"].items())
    s += (s.empty() ? "" : ", ") + k + " = " + (v.is_string() ? v.get<std::string>() : v.dump());
  return s.empty() ? "(no overrides)" : s;
}
}  // namespace

nlohmann::json point_json(const SweepPoint& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p) j[k] = value_json(v);
  return j;
}

nlohmann::json point_result(const nlohmann::json& point, const std::string& dir, int exit_code) {
  nlohmann::json r = {{"point", point}, {"status", status_of(exit_code)}, {"exit_code", exit_code}, {"out_dir", dir}};
  if (exit_code != 0) {
    r["message"] = error_line((fs::path(dir) / "log.txt").string());
    return r;
  }
  std::ifstream f(fs::path(dir) / "report.json");
  if (!f) {
    r["status"] = "error", r["message"] = "report.json missing";
    return r;
  }
  const nlohmann::json rep = nlohmann::json::parse(f, nullptr, false);
  if (rep.is_discarded()) {
    r["status"] = "error", r["message"] = "report.json is not valid JSON";
    return r;
  }
  for (const char* k : {"cycles", "time_us", "achieved_tflops", "bound", "utilisation", "tiling"})
    if (rep.contains(k)) r[k] = rep[k];
  if (rep.contains("roofline")) r["roofline_ratio"] = rep["roofline"].value("ratio", 0.0);
  return r;
}

void append_result(const std::string& jsonl, const nlohmann::json& r) {
  const std::string line = r.dump() + "\n";
  const int fd = ::open(jsonl.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + jsonl);
  const ssize_t w = ::write(fd, line.data(), line.size());  // one write: a crash leaves whole lines only
  ::close(fd);
  if (w != ssize_t(line.size())) throw std::runtime_error("short write to " + jsonl);
}

std::vector<nlohmann::json> read_results(const std::string& jsonl) {
  std::vector<nlohmann::json> v;
  std::ifstream f(jsonl);
  for (std::string line; std::getline(f, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.contains("point")) v.push_back(j);  // a torn last line is dropped and re-run
  }
  return v;
}

void write_csv(const std::string& path, const std::vector<nlohmann::json>& rs) {
  std::vector<std::string> axes, pipes;
  const auto cols = columns(rs, axes, pipes);
  std::ofstream f(path);
  std::string head;
  for (const auto& a : axes) head += a + ",";
  for (const auto& c : cols) head += c + ",";
  for (const auto& p : pipes) head += "util." + p + ",";
  head.pop_back();
  f << head << "\n";
  for (const auto& r : rs) {
    std::string line;
    for (const auto& a : axes) line += csv_cell(r["point"].value(a, nlohmann::json())) + ",";
    for (const auto& c : cols) line += csv_cell(r.value(c, nlohmann::json())) + ",";
    for (const auto& p : pipes) {
      const auto dot = p.find('.');
      const auto ptr = "/utilisation"_json_pointer / p.substr(0, dot) / p.substr(dot + 1);
      line += csv_cell(r.value(ptr, nlohmann::json())) + ",";
    }
    line.pop_back();
    f << line << "\n";
  }
}

std::optional<DefaultRank> default_rank(const std::vector<nlohmann::json>& rs, const nlohmann::json& baseline,
                                        const std::string& objective) {
  if (baseline.is_null() || baseline.value("status", "") != "ok") return std::nullopt;
  DefaultRank d;
  const nlohmann::json* best = nullptr;
  for (const auto& r : rs) {
    if (r.value("status", "") != "ok") continue;
    ++d.of, d.rank += better(r, baseline, objective);
    if (!best || better(r, *best, objective)) best = &r;
  }
  if (!best) return std::nullopt;
  ++d.rank, ++d.of;  // the default itself
  d.best_over_default = objective_of(*best, objective) / std::max(1e-300, objective_of(baseline, objective));
  return d;
}

void write_summary(const std::string& path, const SweepSpec& s, const std::vector<nlohmann::json>& rs,
                   const nlohmann::json& baseline) {
  std::vector<nlohmann::json> ok;
  std::map<std::string, int> counts;
  for (const auto& r : rs) {
    ++counts[r["status"].get<std::string>()];
    if (r["status"] == "ok") ok.push_back(r);
  }
  std::stable_sort(ok.begin(), ok.end(), [&](const auto& a, const auto& b) { return better(a, b, s.objective); });
  std::ostringstream o;
  o << "# Sweep " << s.path << "\n\ncase " << s.case_path << ", mode " << s.mode << ", objective " << s.objective
    << (maximised(s.objective) ? " (higher is better)" : " (lower is better)") << "\n\n";
  o << "points: " << rs.size();
  for (const auto& [k, v] : counts) o << ", " << k << " " << v;
  o << "\n\n";
  if (ok.empty()) {
    o << "No point ran successfully.\n";
  } else {
    const bool by_cycles = s.objective == "cycles";  // then the cycles column is the objective's
    o << "## Best point\n\n" << point_text(ok[0]) << ": " << s.objective << " " << ok[0][s.objective].dump();
    if (!by_cycles) o << ", cycles " << ok[0].value("cycles", 0);
    o << ", bound " << ok[0].value("bound", "") << " (" << ok[0]["out_dir"].get<std::string>() << ")\n\n";
    o << "## Top points\n\n| rank | point | " << s.objective << (by_cycles ? "" : " | cycles")
      << " | bound |\n|---|---|---|---|" << (by_cycles ? "" : "---|") << "\n";
    for (size_t i = 0; i < ok.size() && i < 10; ++i) {
      o << "| " << i + 1 << " | " << point_text(ok[i]) << " | " << ok[i][s.objective].dump();
      if (!by_cycles) o << " | " << ok[i].value("cycles", 0);
      o << " | " << ok[i].value("bound", "") << " |\n";
    }
  }
  if (const auto d = default_rank(rs, baseline, s.objective)) {
    o << "\n## The default tiling\n\n"
      << s.objective << " " << baseline[s.objective].dump() << " (tiling "
      << baseline.value("tiling", nlohmann::json::object()).dump() << "): rank " << d->rank << " of " << d->of << " ("
      << d->rank - 1 << " swept points are better); best / default = " << d->best_over_default << "\n";
  }
  if (!s.objective2.empty() && !ok.empty()) {
    o << "\n## Pareto front (" << s.objective << ", " << s.objective2 << ")\n\n| point | " << s.objective << " | "
      << s.objective2 << " |\n|---|---|---|\n";
    for (const auto& a : ok) {
      const bool dominated = std::any_of(ok.begin(), ok.end(), [&](const auto& b) {
        const bool ge1 = !better(a, b, s.objective), ge2 = !better(a, b, s.objective2);
        return ge1 && ge2 && (better(b, a, s.objective) || better(b, a, s.objective2));
      });
      if (!dominated)
        o << "| " << point_text(a) << " | " << a[s.objective].dump() << " | " << a[s.objective2].dump() << " |\n";
    }
  }
  std::vector<nlohmann::json> bad;
  for (const auto& r : rs)
    if (r["status"] != "ok") bad.push_back(r);
  if (!bad.empty()) {
    o << "\n## Points that did not run\n\n";
    for (const auto& r : bad)
      o << "- " << point_text(r) << ": " << r["status"].get<std::string>() << ": " << r.value("message", "") << "\n";
  }
  std::ofstream(path) << o.str();
}

}  // namespace npusim::cli
