// npusim sweep SWEEP.yaml: many `npusim run` points, each in its own process (one SystemC elaboration per
// process), --jobs at a time; results.jsonl / results.csv / summary.md; --resume; --emit-tasks / --collect for
// GNU parallel or a cluster (tools/cli/README.md "Choosing a tiling").
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

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
std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// One self-contained shell line per task: run, then record the exit status beside the point.
void emit_tasks(const std::vector<Task>& tasks, const std::string& file) {
  std::ofstream f(file);
  if (!f) throw InputError("--emit-tasks " + file + " cannot be written");
  for (const auto& t : tasks) {
    write_point_files(t);
    std::string cmd;
    for (const auto& a : t.args) cmd += shell_quoted(a) + " ";
    f << cmd << "> " << shell_quoted(t.dir + "/log.txt") << " 2>&1; echo $? > " << shell_quoted(t.dir + "/exit_code")
      << "\n";
  }
}

// --slurm SCRIPT: the tasks file plus an sbatch array script, one array task per chunk of `chunk` lines, a log
// per task; the last task to finish merges the point folders (npusim sweep --collect) into OUT/results.jsonl.
void emit_slurm(const std::vector<Task>& tasks, const std::string& script, int chunk, const std::string& out,
                const std::string& npusim) {
  const std::string tasks_file = (fs::path(out) / "tasks.txt").string(), logs = (fs::path(out) / "slurm").string();
  emit_tasks(tasks, tasks_file);
  fs::create_directories(logs);
  const size_t chunks = (tasks.size() + size_t(chunk) - 1) / size_t(chunk);
  std::ofstream f(script);
  if (!f) throw InputError("--slurm " + script + " cannot be written");
  f << "#!/bin/bash\n"
    << "# npusim sweep as a Slurm array job: " << tasks.size() << " points in " << chunks << " tasks of up to " << chunk
    << " (each line of " << tasks_file << " is one self-contained point). Submit: sbatch " << script << "\n"
    << "#SBATCH --job-name=npusim-sweep\n"
    << "#SBATCH --array=0-" << (chunks ? chunks - 1 : 0) << "\n"
    << "#SBATCH --output=" << logs << "/task-%A_%a.log\n"
    << "#SBATCH --cpus-per-task=1\n"
    << "set -uo pipefail\n"
    << "first=$((SLURM_ARRAY_TASK_ID * " << chunk << " + 1)); last=$((first + " << chunk << " - 1))\n"
    << "sed -n \"${first},${last}p\" " << shell_quoted(tasks_file)
    << " | while IFS= read -r cmd; do bash -c \"$cmd\"; done\n"
    << "# The last task to finish merges the results (under a lock, so exactly one of them does).\n"
    << "exec 9>>" << shell_quoted(logs + "/done.lock") << "\n"
    << "flock 9\n"
    << "echo \"$SLURM_ARRAY_TASK_ID\" >> " << shell_quoted(logs + "/done.txt") << "\n"
    << "if [[ $(wc -l < " << shell_quoted(logs + "/done.txt") << ") -eq " << chunks << " ]]; then\n"
    << "  " << shell_quoted(npusim) << " sweep --collect " << shell_quoted(out) << " > "
    << shell_quoted(logs + "/collect.log") << " 2>&1\n"
    << "fi\n";
}

nlohmann::json spec_json(const SweepSpec& s) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : s.axes) axes.push_back(a.first);
  return {{"path", s.path},           {"case", s.case_path},        {"mode", s.mode},
          {"objective", s.objective}, {"objective2", s.objective2}, {"axes", axes}};
}

SweepSpec spec_from_json(const nlohmann::json& j) {
  SweepSpec s;
  s.path = j.value("path", ""), s.case_path = j.value("case", ""), s.mode = j.value("mode", "timing");
  s.objective = j.value("objective", "cycles"), s.objective2 = j.value("objective2", "");
  for (const auto& a : j.value("axes", nlohmann::json::array()))
    s.axes.emplace_back(a.get<std::string>(), std::vector<std::string>{});
  return s;
}

// Every axis key names something the case's op or the hardware has, before any point runs (a typo would make
// every point invalid): exit 2 naming the key and the valid ones.
void check_axis_keys(const SweepSpec& s) {
  const op::CaseFile c = op::load_case(s.case_path, {}, false);
  const op::Op& o = op::find_op(c.op);
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  for (const auto& [key, values] : s.axes) {
    const auto dot = key.find('.');
    const std::string kind = key.substr(0, dot), name = key.substr(dot + 1);
    std::vector<std::string> valid;
    if (kind == "tiling") {
      for (const auto& k : o.tiling_space().keys()) valid.push_back(k.name);
    } else if (kind == "attrs") {
      for (const auto& p : o.params())
        if (!p.is_tensor()) valid.push_back(p.name);
    } else if (kind == "hw") {
      for (const auto& k : sim::hw_keys()) valid.push_back(k.path);
    } else {  // inputs.NAME.shape
      const std::string input = name.substr(0, name.rfind('.'));
      for (const auto& [n, t] : c.inputs) valid.push_back(n);
      if (std::find(valid.begin(), valid.end(), input) == valid.end())
        throw InputError("axes." + key + ": the case has no input '" + input + "' (inputs: " + join(valid) + ")");
      continue;
    }
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      throw InputError("axes." + key + ": '" + name + "' is not a " + (kind == "hw" ? "hardware" : kind) + " key of " +
                       (kind == "hw" ? std::string("the config") : "op " + c.op) + " (valid: " + join(valid) + ")");
  }
}

// Writes the results files; a sweep none of whose points succeeded fails with the first point's error and status.
int finish(const SweepSpec& s, const std::string& out) {
  const auto rs = read_results((fs::path(out) / "results.jsonl").string());
  write_csv((fs::path(out) / "results.csv").string(), rs);
  nlohmann::json base;
  if (std::ifstream f(fs::path(out) / "default.json"); f) base = nlohmann::json::parse(f, nullptr, false);
  if (base.is_discarded()) base = nullptr;
  write_summary((fs::path(out) / "summary.md").string(), s, rs, base);
  size_t ok = 0;
  for (const auto& r : rs) ok += r["status"] == "ok";
  std::cout << "sweep: " << rs.size() << " points, " << ok << " ok; results.jsonl, results.csv, summary.md: " << out
            << "\n";
  if (rs.empty() || ok > 0) return kExitOk;
  const auto& first = rs.front();
  std::cerr << "sweep: no point succeeded; the first (" << first["point"].dump()
            << "): " << first.value("message", std::string()) << "\n";
  const int code = first.value("exit_code", kExitInput);
  return code == 0 ? kExitInternal : code;
}

// --collect DIR: rebuild results.jsonl from the point folders (after --emit-tasks ran anywhere).
int collect(const std::string& out) {
  std::ifstream sf(fs::path(out) / "spec.json");
  if (!sf) throw InputError("--collect " + out + ": spec.json missing (the folder --emit-tasks wrote)");
  const SweepSpec s = spec_from_json(nlohmann::json::parse(sf));
  const std::string jsonl = (fs::path(out) / "results.jsonl").string();
  fs::remove(jsonl);
  std::vector<fs::path> dirs;
  if (fs::exists(fs::path(out) / "points"))
    for (const auto& e : fs::directory_iterator(fs::path(out) / "points")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    std::ifstream pf(d / "point.json");
    if (!pf) continue;
    append_result(jsonl, point_result(nlohmann::json::parse(pf), fs::absolute(d).string(), read_exit_code(d.string())));
  }
  const fs::path def = fs::path(out) / "default";
  if (fs::exists(def / "point.json"))
    std::ofstream(fs::path(out) / "default.json")
        << point_result(nlohmann::json::object(), fs::absolute(def).string(), read_exit_code(def.string())).dump(2)
        << "\n";
  return finish(s, out);
}
}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description desc("sweep options");
  std::string file, out, emit, collect_dir, slurm;
  int jobs = 1, chunk = 1;
  bool resume = false;
  auto option = desc.add_options();
  option("sweep", po::value(&file), "sweep file (YAML)");
  option("jobs", po::value(&jobs), "points run at a time (default 1)");
  option("out", po::value(&out), "output folder (default ./npusim-sweep/<sweep>)");
  option("resume", po::bool_switch(&resume), "skip the points already in OUT/results.jsonl");
  option("emit-tasks", po::value(&emit), "write one shell command per point to FILE instead of running them");
  option("collect", po::value(&collect_dir),
         "merge the point folders of DIR (after --emit-tasks ran) into its results");
  option("slurm", po::value(&slurm),
         "write a Slurm sbatch array script to FILE (and OUT/tasks.txt) instead of running");
  option("chunk", po::value(&chunk), "--slurm: points per array task (default 1)");
  po::variables_map vm;
  if (!parse_options(args,
                     "usage: npusim sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--emit-tasks FILE | --slurm "
                     "FILE [--chunk N]] | npusim sweep --collect DIR",
                     desc, {{"sweep", 1}}, vm))
    return kExitOk;
  if (!collect_dir.empty()) return collect(collect_dir);
  if (file.empty()) throw InputError("sweep: a sweep file is required (npusim sweep SWEEP.yaml)");
  if (jobs < 1) throw InputError("--jobs " + std::to_string(jobs) + " must be >= 1");
  if (chunk < 1) throw InputError("--chunk " + std::to_string(chunk) + " must be >= 1");
  if (!slurm.empty() && !emit.empty()) throw InputError("--slurm and --emit-tasks: give one of them");
  SweepSpec s = load_sweep(file);
  if (out.empty()) out = (fs::path("npusim-sweep") / fs::path(file).stem()).string();
  out = fs::absolute(out).lexically_normal().string();
  const std::string jsonl = (fs::path(out) / "results.jsonl").string();
  if (fs::exists(jsonl) && !resume && emit.empty() && slurm.empty())
    throw InputError("--out " + out + " already holds results.jsonl: pass --resume to continue it, or another --out");
  fs::create_directories(out);
  if (!s.inline_case.empty()) {
    s.case_path = (fs::path(out) / "case.yaml").string();
    std::ofstream(s.case_path) << s.inline_case;
  }
  check_axis_keys(s);
  std::ofstream(fs::path(out) / "spec.json") << spec_json(s).dump(2) << "\n";
  std::set<std::string> done;
  for (const auto& r : read_results(jsonl)) done.insert(r["point"].dump());
  std::vector<Task> tasks;
  const auto points = expand(s);
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json pj = point_json(points[i]);
    if (done.count(pj.dump())) continue;
    char name[24];
    std::snprintf(name, sizeof name, "%05zu", i);
    const std::string dir = (fs::path(out) / "points" / name).string();
    tasks.push_back({pj, dir, run_args(s, points[i], dir)});
  }
  const size_t todo = tasks.size();
  if (s.tiling_only() && !fs::exists(fs::path(out) / "default.json")) {  // the case's own tiling, to rank it
    const std::string dir = (fs::path(out) / "default").string();
    tasks.push_back({nlohmann::json::object(), dir, run_args(s, {}, dir), true});
  }
  std::cout << "sweep: " << points.size() << " points (" << points.size() - todo << " already done), case "
            << s.case_path << ", mode " << s.mode << "\n";
  if (!slurm.empty()) {
    emit_slurm(tasks, slurm, chunk, out, fs::canonical("/proc/self/exe").string());
    std::cout << "sweep: " << tasks.size() << " points in " << (tasks.size() + size_t(chunk) - 1) / size_t(chunk)
              << " array tasks: sbatch " << slurm << "; results are collected into " << out << "/results.jsonl\n";
    return kExitOk;
  }
  if (!emit.empty()) {
    emit_tasks(tasks, emit);
    std::cout << "sweep: " << tasks.size() << " commands in " << emit << "; run them (e.g. parallel --jobs N < " << emit
              << "), then npusim sweep --collect " << out << "\n";
    return kExitOk;
  }
  run_local(tasks, jobs, out);
  return finish(s, out);
}

}  // namespace npusim::cli
