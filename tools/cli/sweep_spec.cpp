// Sweep files: loading, validation and expansion into points (sweep_spec.h).
#include "tools/cli/sweep_spec.h"

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include <yaml-cpp/yaml.h>

#include "sim/config/yaml_keys.h"
#include "tools/cli/cli_error.h"

namespace npusim::cli {

namespace {
constexpr uint64_t kMaxPoints = 1000000;  // a sweep of more points is a mistake (and would not fit in memory)
}  // namespace

namespace fs = std::filesystem;

namespace {
const std::set<std::string> kTop = {"case", "hw", "mode", "checks", "axes", "sampling", "objective", "objective2"};
const std::set<std::string> kObjectives = {"cycles", "time_us", "achieved_tflops", "roofline_ratio"};

[[noreturn]] void bad(const SweepSpec& s, const YAML::Node& n, const std::string& msg) {
  throw InputError(s.path + ":" + std::to_string(n.Mark().line + 1) + ": " + msg);
}

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

// `{range: [start, stop, step]}` (stop inclusive) or a list.
std::vector<std::string> axis_values(const SweepSpec& s, const std::string& key, const YAML::Node& n) {
  std::vector<std::string> v;
  if (n.IsSequence()) {
    for (const auto& x : n) v.push_back(scalar_text(x));
  } else if (n.IsMap() && n["range"] && n.size() == 1) {
    const YAML::Node r = n["range"];
    if (!r.IsSequence() || r.size() < 2 || r.size() > 3)
      bad(s, n, "axes." + key + ".range must be [start, stop] or [start, stop, step]");
    int64_t a = 0, b = 0, step = 1;
    try {
      a = r[0].as<int64_t>(), b = r[1].as<int64_t>(), step = r.size() == 3 ? r[2].as<int64_t>() : 1;
    } catch (const YAML::Exception&) {
      bad(s, n, "axes." + key + ".range must hold integers");
    }
    if (step <= 0 || b < a)
      bad(s, n,
          "axes." + key + ".range = [" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(step) +
              "] needs start <= stop and step > 0");
    if ((uint64_t(b) - uint64_t(a)) / uint64_t(step) >= kMaxPoints)
      bad(s, n,
          "axes." + key + ".range = [" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(step) +
              "] has more than " + std::to_string(kMaxPoints) + " values");
    for (int64_t x = a; x <= b; x += step) v.push_back(std::to_string(x));
  } else {
    bad(s, n, "axes." + key + " must be a list of values or {range: [start, stop, step]}");
  }
  if (v.empty()) bad(s, n, "axes." + key + " has no values");
  return v;
}

void read_case(SweepSpec& s, const YAML::Node& c, const fs::path& base) {
  if (c.IsScalar()) {
    const fs::path p = fs::path(c.Scalar()).is_absolute() ? fs::path(c.Scalar()) : base / c.Scalar();
    std::error_code ec;
    if (!fs::exists(p, ec)) bad(s, c, "case: " + p.string() + " does not exist (a path relative to the sweep file)");
    s.case_path = fs::absolute(p).lexically_normal().string();
    return;
  }
  if (!c.IsMap()) bad(s, c, "case must be a case file path or an inline case mapping");
  YAML::Node copy = YAML::Clone(c);
  absolute_input_files(copy, base.string());
  YAML::Emitter e;
  e << copy;
  s.inline_case = std::string(e.c_str()) + "\n";
}

void read_sampling(SweepSpec& s, const YAML::Node& n) {
  if (!n) return;
  if (n.IsScalar() && (n.Scalar() == "grid" || n.Scalar() == "zip")) {
    s.sampling = n.Scalar();
    return;
  }
  if (n.IsMap() && n["random"] && n["random"]["count"]) {
    s.sampling = "random";
    try {  // a non-integer count used to escape as a yaml-cpp conversion error (exit 1)
      s.random_count = n["random"]["count"].as<int64_t>();
      s.random_seed = n["random"]["seed"] ? n["random"]["seed"].as<uint64_t>() : 0;
    } catch (const YAML::Exception&) {
      bad(s, n, "sampling.random.count must be an integer and seed an integer in [0, 2^64)");
    }
    if (s.random_count < 1) bad(s, n, "sampling.random.count must be >= 1");
    return;
  }
  bad(s, n, "sampling must be grid, zip or {random: {count: N, seed: S}}");
}
}  // namespace

void absolute_input_files(YAML::Node case_map, const std::string& base) {
  if (!case_map["inputs"] || !case_map["inputs"].IsMap()) return;
  auto fix = [&](YAML::Node t) {
    if (t.IsMap() && t["file"] && fs::path(t["file"].Scalar()).is_relative())
      t["file"] = (fs::path(base) / t["file"].Scalar()).string();
  };
  for (auto it : case_map["inputs"]) {
    if (!it.second.IsSequence()) {
      fix(it.second);
      continue;
    }
    for (auto t : it.second) fix(t);
  }
}

bool SweepSpec::tiling_only() const {
  return std::all_of(axes.begin(), axes.end(), [](const auto& a) { return a.first.rfind("tiling.", 0) == 0; });
}

bool valid_objective(const std::string& objective) { return kObjectives.count(objective) != 0; }

bool maximised(const std::string& objective) { return objective == "achieved_tflops"; }

SweepSpec load_sweep(const std::string& path) {
  SweepSpec s;
  s.path = path;
  YAML::Node root;
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))  // a directory, a device, a FIFO: never read
    throw InputError("sweep file " + path + " is " +
                     (fs::is_directory(path, ec) ? "a directory" : "not a regular file"));
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError("sweep file " + path + " cannot be read");
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (const auto d = sim::find_duplicate_key(root)) throw InputError(sim::duplicate_key_message(path, *d));
  if (!root.IsMap()) throw InputError(path + ": a sweep file is a mapping with case: and axes:");
  for (auto it : root)
    if (!kTop.count(it.first.Scalar()))
      bad(s, it.first,
          "unknown key '" + it.first.Scalar() +
              "' (valid: axes, case, checks, hw, mode, objective, objective2, sampling)");
  if (!root["case"]) throw InputError(path + ": case: is required (a case file path or an inline case)");
  if (!root["axes"] || !root["axes"].IsMap() || root["axes"].size() == 0)
    throw InputError(path + ": axes: is required (a mapping of dotted keys to values)");
  read_case(s, root["case"], fs::absolute(path).parent_path());
  if (root["hw"]) s.hw = root["hw"].Scalar();
  if (root["mode"]) s.mode = root["mode"].Scalar();
  if (root["checks"]) s.checks = root["checks"].Scalar();
  if (s.mode != "timing" && s.mode != "full" && s.mode != "functional")
    bad(s, root["mode"], "mode must be timing, full or functional");
  for (auto it : root["axes"]) {
    const std::string key = it.first.Scalar();
    const bool shape = key.rfind("inputs.", 0) == 0 && key.size() > 13 && key.substr(key.size() - 6) == ".shape";
    if (key.rfind("tiling.", 0) != 0 && key.rfind("attrs.", 0) != 0 && key.rfind("hw.", 0) != 0 && !shape)
      bad(s, it.first, "axes." + key + ": an axis key starts with tiling., attrs. or hw., or is inputs.NAME.shape");
    s.axes.emplace_back(key, axis_values(s, key, it.second));
  }
  read_sampling(s, root["sampling"]);
  uint64_t points = 1;  // the grid is expanded in memory: refuse one too big to run anyway
  for (const auto& a : s.axes) {
    points = a.second.empty() ? 0 : std::min<uint64_t>(kMaxPoints + 1, points * a.second.size());
    if (points > kMaxPoints)
      bad(s, root["axes"],
          "the axes make a grid of more than " + std::to_string(kMaxPoints) + " points (up to axis " + a.first + ")");
  }
  if (s.sampling == "zip")
    for (const auto& a : s.axes)
      if (a.second.size() != s.axes[0].second.size())
        bad(s, root["axes"],
            "sampling zip needs axes of equal length (" + s.axes[0].first + " has " +
                std::to_string(s.axes[0].second.size()) + ", " + a.first + " " + std::to_string(a.second.size()) + ")");
  for (const char* k : {"objective", "objective2"})
    if (root[k]) {
      const std::string o = root[k].Scalar();
      if (!valid_objective(o))
        bad(s, root[k], std::string(k) + " = '" + o + "' (valid: achieved_tflops, cycles, roofline_ratio, time_us)");
      (std::string(k) == "objective" ? s.objective : s.objective2) = o;
    }
  return s;
}

std::vector<SweepPoint> expand(const SweepSpec& s) {  // load_sweep capped it at kMaxPoints
  std::vector<SweepPoint> grid;
  if (s.sampling == "zip") {
    for (size_t i = 0; i < s.axes[0].second.size(); ++i) {
      SweepPoint p;
      for (const auto& [k, v] : s.axes) p.emplace_back(k, v[i]);
      grid.push_back(p);
    }
    return grid;
  }
  grid.push_back({});
  for (const auto& [k, vals] : s.axes) {  // the first axis varies slowest
    std::vector<SweepPoint> next;
    for (const auto& p : grid)
      for (const auto& v : vals) {
        SweepPoint q = p;
        q.emplace_back(k, v);
        next.push_back(q);
      }
    grid = std::move(next);
  }
  if (s.sampling != "random" || s.random_count >= int64_t(grid.size())) return grid;
  std::mt19937_64 rng(s.random_seed);  // a seeded sample without repeats, kept in grid order
  std::vector<size_t> idx(grid.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::shuffle(idx.begin(), idx.end(), rng);
  idx.resize(size_t(s.random_count));
  std::sort(idx.begin(), idx.end());
  std::vector<SweepPoint> pick;
  for (size_t i : idx) pick.push_back(grid[i]);
  return pick;
}

}  // namespace npusim::cli
