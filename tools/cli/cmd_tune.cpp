// npusim tune CASE.yaml: searches the op's declared tiling space for the best tiling within a budget of runs
// (tools/cli/tuner.h: plan-checked candidates, keys in dependency order, pattern search per key, pair moves).
// Writes best.yaml (the case with the best tiling filled in), results.jsonl / results.csv and summary.md (top
// points, the default's rank, the search's figures and the keys it changed).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "kernels/host/case_file.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tools/cli/options.h"
#include "tools/cli/sweep_results.h"
#include "tools/cli/sweep_spec.h"
#include "tools/cli/tuner.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
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

// summary.md's account of the search: what it ran, why it stopped, and the keys the best point changed.
std::string search_text(const TuneOutcome& o, const SweepSpec& spec, int64_t budget) {
  std::ostringstream t;
  t << "\n## The search\n\n"
    << o.runs.size() + 1 << " runs of a budget of " << budget << " (the default's included), " << o.rounds
    << " coordinate rounds, " << o.pair_rounds << " rounds of pair moves; "
    << (o.converged ? "stopped: no single key and no pair of keys improved" : "stopped: the budget was spent") << ". "
    << o.plans << " candidate tilings planned without a run, " << o.refused << " refused by the op's plan check.\n";
  if (o.best.contains("tiling") && o.def.contains("tiling")) {
    t << "\n| key | default | best |\n|---|---|---|\n";
    for (const auto& [k, v] : o.best["tiling"].items())
      if (o.def["tiling"].value(k, nlohmann::json()) != v)
        t << "| " << k << " | " << o.def["tiling"].value(k, nlohmann::json()).dump() << " | " << v.dump() << " |\n";
    t << "\nbest " << spec.objective << " " << o.best[spec.objective].dump() << " vs default "
      << o.def[spec.objective].dump() << "\n";
  }
  if (!o.refusals.empty()) {
    t << "\nFirst refusals of the plan check:\n\n";
    for (const auto& r : o.refusals) t << "- " << r << "\n";
  }
  return t.str();
}
}  // namespace

int cmd_tune(const Args& args) {
  po::options_description desc("tune options");
  TuneSetup t;
  std::string case_path;
  auto option = desc.add_options();
  option("case", po::value(&case_path)->required(), "case file (YAML)");
  option("hw", po::value(&t.spec.hw), "hardware config: bundled NAME or a YAML file (default ascend910b2)");
  option("set", po::value(&t.fixed),
         "override, repeatable: hw.KEY=V, attrs.KEY=V, tiling.KEY=V (a tiling key set here is not tuned)");
  option("budget", po::value(&t.budget),
         "runs at most, the default's included (default 48); planning a candidate is not a run");
  option("objective", po::value(&t.spec.objective), "cycles (default) | time_us | achieved_tflops | roofline_ratio");
  option("jobs", po::value(&t.jobs), "runs at a time (default 1)");
  option("out", po::value(&t.out), "output folder (default ./npusim-tune/<case>)");
  option("checks", po::value(&t.spec.checks), "checks of each run (default off: cycles do not depend on them)");
  t.spec.checks = "off";
  po::variables_map vm;
  if (!parse_options(
          args,
          "usage: npusim tune CASE.yaml [--hw H] [--set K=V]... [--budget N] [--objective O] [--jobs N] [--out DIR]",
          desc, {{"case", 1}}, vm))
    return kExitOk;
  if (t.budget < 2)
    throw InputError("--budget " + std::to_string(t.budget) + " must be >= 2 (the default and one more run)");
  if (t.jobs < 1) throw InputError("--jobs " + std::to_string(t.jobs) + " must be >= 1");
  if (!valid_objective(t.spec.objective))
    throw InputError("--objective '" + t.spec.objective +
                     "' (valid: achieved_tflops, cycles, roofline_ratio, time_us)");
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
  for (const auto& s : t.fixed)
    if (s.rfind("hw.", 0) == 0) hw_sets.push_back(s);
  const sim::HwConfig hw = sim::load_hw(t.spec.hw.empty() ? sim::default_hw_name() : t.spec.hw, hw_sets);
  if (t.out.empty()) t.out = (fs::path("npusim-tune") / fs::path(case_path).stem()).string();
  t.out = fs::absolute(t.out).lexically_normal().string();
  fs::create_directories(t.out);
  fs::remove(fs::path(t.out) / "results.jsonl");
  const TuneOutcome o = tune(t, the_op, hw);
  SweepSpec summary_spec = t.spec;
  summary_spec.path = "npusim tune " + case_path;
  write_summary((fs::path(t.out) / "summary.md").string(), summary_spec, o.runs, o.def);
  std::ofstream(fs::path(t.out) / "summary.md", std::ios::app) << search_text(o, t.spec, t.budget);
  write_csv((fs::path(t.out) / "results.csv").string(), o.runs);
  write_best(t.spec.case_path, o.best.contains("tiling") ? o.best : o.def, (fs::path(t.out) / "best.yaml").string());
  std::cout << "tune: " << o.runs.size() + 1 << " runs (" << o.plans << " tilings planned, " << o.refused
            << " refused without a run), " << o.rounds << " rounds" << (o.converged ? ", converged" : ", budget spent")
            << "; best " << t.spec.objective << " " << o.best[t.spec.objective].dump() << " vs default "
            << o.def[t.spec.objective].dump() << " (" << o.best.value("point", nlohmann::json::object()).dump() << ")\n"
            << "best.yaml, results.jsonl, results.csv, summary.md: " << t.out << "\n";
  return kExitOk;
}

}  // namespace npusim::cli
