// npusim tune CASE.yaml: searches the op's declared tiling space (legal values only) by coordinate descent from
// the op's own default tiling -- each round tries the candidate values of one key at a time with the others fixed
// and moves to the best -- until a round improves nothing or the budget of runs is spent. Deterministic: the
// keys go in declaration order and the candidates follow from the declaration and the current point. Writes best.yaml (the case with
// the best tiling filled in), results.jsonl and summary.md (top points, the default's rank).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "kernels/host/case_file.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tools/cli/options.h"
#include "tools/cli/sweep_results.h"
#include "tools/cli/sweep_runner.h"
#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
constexpr size_t kMaxCandidates = 12;  // a key with at most this many legal values has all of them tried

using Assignment = std::map<std::string, int64_t>;  // tiling key -> value

struct Tuner {
  SweepSpec spec;
  std::vector<std::string> fixed;  // the user's --set flags (hw., attrs., and tiling keys held fixed)
  std::string out;
  int jobs = 1;
  int64_t budget = 48, used = 0;
  std::map<std::string, nlohmann::json> seen;  // point JSON -> result
  std::vector<nlohmann::json> all;

  static nlohmann::json point_of(const Assignment& a) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : a) j["tiling." + k] = v;
    return j;
  }
  double score(const nlohmann::json& r) const {
    if (r.value("status", "") != "ok") return maximised(spec.objective) ? -1e300 : 1e300;
    return r.value(spec.objective, 0.0);
  }
  bool better(const nlohmann::json& a, const nlohmann::json& b) const {
    return maximised(spec.objective) ? score(a) > score(b) : score(a) < score(b);
  }
  // Runs the assignments not seen yet (within the budget); returns every one's result.
  std::vector<nlohmann::json> evaluate(const std::vector<Assignment>& as) {
    std::vector<Task> tasks;
    for (const auto& a : as) {
      const nlohmann::json p = point_of(a);
      if (seen.count(p.dump()) || used + int64_t(tasks.size()) >= budget) continue;
      SweepPoint sp;
      for (const auto& [k, v] : a) sp.emplace_back("tiling." + k, std::to_string(v));
      const std::string dir = (fs::path(out) / "points" / std::to_string(used + int64_t(tasks.size()))).string();
      tasks.push_back({p, dir, run_args(spec, sp, dir, fixed)});
    }
    used += int64_t(tasks.size());
    for (const auto& r : run_local(tasks, jobs, out)) seen[r["point"].dump()] = r, all.push_back(r);
    std::vector<nlohmann::json> rs;
    for (const auto& a : as)
      if (const auto it = seen.find(point_of(a).dump()); it != seen.end()) rs.push_back(it->second);
    return rs;
  }
};

// The values of one key tried in a round: every legal value when there are at most kMaxCandidates; else the
// current value's neighbourhood -- one to three legal steps either side and the legal values nearest to it scaled
// by 1/4 .. 4 (block sizes matter by ratio) -- plus the two ends of the legal range.
std::vector<int64_t> candidates(const op::TilingKey& k, const sim::HwConfig& hw, int64_t current) {
  const std::vector<int64_t> all = k.enumerate(hw, 1 << 20);
  if (all.size() <= kMaxCandidates) return all;
  const auto nearest = [&](double v) {
    const auto at = std::lower_bound(all.begin(), all.end(), int64_t(v));
    if (at == all.end()) return all.back();
    if (at == all.begin()) return *at;
    return (double(*at) - v < v - double(*(at - 1))) ? *at : *(at - 1);
  };
  const auto pos = size_t(std::lower_bound(all.begin(), all.end(), current) - all.begin());
  std::vector<int64_t> c = {all.front(), all.back()};
  for (int d = 1; d <= 3; ++d) {
    if (pos >= size_t(d)) c.push_back(all[pos - size_t(d)]);
    if (pos + size_t(d) < all.size()) c.push_back(all[pos + size_t(d)]);
  }
  for (double f : {0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 4.0 / 3, 1.5, 2.0, 3.0, 4.0}) c.push_back(nearest(double(current) * f));
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

void write_best(const std::string& case_path, const nlohmann::json& best, const std::string& file) {
  YAML::Node c = YAML::LoadFile(case_path);
  const fs::path base = fs::path(case_path).parent_path();
  absolute_input_files(c, base.string());  // best.yaml lives elsewhere
  YAML::Node tiling;
  for (const auto& [k, v] : best["tiling"].items()) tiling[k] = v.get<int64_t>();
  c["tiling"] = tiling;
  YAML::Emitter e;
  e << c;
  std::ofstream(file) << "# npusim tune: " << case_path << " with the best tiling found\n" << e.c_str() << "\n";
}
}  // namespace

int cmd_tune(const Args& args) {
  po::options_description desc("tune options");
  Tuner t;
  std::string case_path;
  desc.add_options()("case", po::value(&case_path)->required(), "case file (YAML)")(
      "hw", po::value(&t.spec.hw), "hardware config: bundled NAME or a YAML file (default ascend910b2)")(
      "set", po::value(&t.fixed), "override, repeatable: hw.KEY=V, attrs.KEY=V, tiling.KEY=V (a tiling key set here is not tuned)")(
      "budget", po::value(&t.budget), "runs at most, the default's included (default 48)")(
      "objective", po::value(&t.spec.objective), "cycles (default) | time_us | achieved_tflops | roofline_ratio")(
      "jobs", po::value(&t.jobs), "runs at a time (default 1)")("out", po::value(&t.out), "output folder (default ./npusim-tune/<case>)")(
      "checks", po::value(&t.spec.checks), "checks of each run (default off: cycles do not depend on them)");
  t.spec.checks = "off";
  po::positional_options_description pos;
  pos.add("case", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim tune CASE.yaml [--hw H] [--set K=V]... [--budget N] [--objective O] [--jobs N] [--out DIR]",
                     desc, pos, vm))
    return kExitOk;
  if (t.budget < 2) throw InputError("--budget " + std::to_string(t.budget) + " must be >= 2 (the default and one more run)");
  if (t.jobs < 1) throw InputError("--jobs " + std::to_string(t.jobs) + " must be >= 1");
  if (!valid_objective(t.spec.objective))
    throw InputError("--objective '" + t.spec.objective + "' (valid: achieved_tflops, cycles, roofline_ratio, time_us)");
  t.spec.path = case_path;
  t.spec.case_path = fs::absolute(case_path).lexically_normal().string();
  const op::CaseFile c = [&] {
    try {
      return op::load_case(case_path, {}, false);
    } catch (const op::CaseError& e) {
      throw InputError(e.what());
    }
  }();
  const op::Op& the_op = [&]() -> const op::Op& {
    try {
      return op::find_op(c.op);
    } catch (const op::CaseError& e) {
      throw InputError(e.what());
    }
  }();
  std::vector<std::string> hw_sets;
  std::set<std::string> held;
  for (const auto& s : t.fixed) {
    if (s.rfind("hw.", 0) == 0) hw_sets.push_back(s);
    if (s.rfind("tiling.", 0) == 0) held.insert(s.substr(7, s.find('=') - 7));
  }
  const sim::HwConfig hw = sim::load_hw(t.spec.hw.empty() ? sim::default_hw_name() : t.spec.hw, hw_sets);
  if (t.out.empty()) t.out = (fs::path("npusim-tune") / fs::path(case_path).stem()).string();
  t.out = fs::absolute(t.out).lexically_normal().string();
  fs::create_directories(t.out);
  fs::remove(fs::path(t.out) / "results.jsonl");
  // The op's default tiling: the starting point and the reference of the ranking.
  const std::string def_dir = (fs::path(t.out) / "default").string();
  const nlohmann::json def = run_local({{nlohmann::json::object(), def_dir, run_args(t.spec, {}, def_dir, t.fixed), true}}, 1, t.out)[0];
  ++t.used;
  if (def["status"] != "ok")
    throw InputError("the case does not run with its default tiling (" + def["status"].get<std::string>() + "): " +
                     def.value("message", ""));
  Assignment cur;
  for (const auto& k : the_op.tiling_space().keys())
    if (def["tiling"].contains(k.name) && !held.count(k.name)) cur[k.name] = def["tiling"][k.name].get<int64_t>();
  nlohmann::json best = def;
  best["point"] = Tuner::point_of(cur);
  t.seen[best["point"].dump()] = best;
  int rounds = 0;
  for (bool improved = true; improved && t.used < t.budget; ++rounds) {
    improved = false;
    for (const auto& k : the_op.tiling_space().keys()) {
      if (!cur.count(k.name) || t.used >= t.budget) continue;
      std::vector<Assignment> as;
      for (int64_t v : candidates(k, hw, cur[k.name])) {
        Assignment a = cur;
        a[k.name] = v;
        as.push_back(a);
      }
      for (const auto& r : t.evaluate(as))
        if (t.better(r, best)) {
          best = r, improved = true;
          for (const auto& [key, v] : r["point"].items()) cur[key.substr(7)] = v.get<int64_t>();
        }
    }
  }
  SweepSpec summary_spec = t.spec;
  summary_spec.path = "npusim tune " + case_path + " (coordinate descent, " + std::to_string(rounds) + " rounds, " +
                      std::to_string(t.used) + " runs of a budget of " + std::to_string(t.budget) + ")";
  write_summary((fs::path(t.out) / "summary.md").string(), summary_spec, t.all, def);
  write_csv((fs::path(t.out) / "results.csv").string(), t.all);
  write_best(t.spec.case_path, best.contains("tiling") ? best : def, (fs::path(t.out) / "best.yaml").string());
  std::cout << "tune: " << t.used << " runs, " << rounds << " rounds; best " << t.spec.objective << " " << best[t.spec.objective].dump()
            << " vs default " << def[t.spec.objective].dump() << " (" << Tuner::point_of(cur).dump() << ")\n"
            << "best.yaml, results.jsonl, results.csv, summary.md: " << t.out << "\n";
  return kExitOk;
}

}  // namespace npusim::cli
