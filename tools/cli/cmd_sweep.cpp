// npusim sweep SWEEP.yaml: many `npusim run` points, each in its own process (one SystemC elaboration per
// process), --jobs at a time; results.jsonl / results.csv / summary.md; --resume; --emit-tasks / --collect for
// GNU parallel or a cluster (README "Choosing a tiling").
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "tools/cli/options.h"
#include "tools/cli/sweep_results.h"
#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
struct Task {
  nlohmann::json point;
  std::string dir;                // absolute
  std::vector<std::string> args;  // argv of `npusim run ...`
  bool baseline = false;          // the case's own tiling (not a swept point)
};

std::vector<std::string> run_args(const SweepSpec& s, const std::string& exe, const SweepPoint& p, const std::string& dir) {
  std::vector<std::string> a = {exe, "run", s.case_path, "--mode", s.mode, "--checks", s.checks, "--out", dir};
  if (!s.hw.empty()) a.insert(a.end(), {"--hw", s.hw});
  for (const auto& [k, v] : p) a.insert(a.end(), {"--set", k + "=" + v});
  return a;
}

void write_point_files(const Task& t) {
  fs::create_directories(t.dir);
  std::ofstream(fs::path(t.dir) / "point.json") << t.point.dump() << "\n";
}

int read_exit_code(const std::string& dir) {
  std::ifstream f(fs::path(dir) / "exit_code");
  int c = -1;
  return f >> c ? c : -1;
}

pid_t spawn(const Task& t) {
  write_point_files(t);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = ::open((fs::path(t.dir) / "log.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) dup2(fd, 1), dup2(fd, 2), close(fd);
  std::vector<char*> argv;
  for (const auto& s : t.args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

void progress(size_t done, size_t total, size_t failed, std::chrono::steady_clock::time_point t0) {
  if (!isatty(STDERR_FILENO)) return;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double eta = done ? el / double(done) * double(total - done) : 0;
  std::fprintf(stderr, "\rsweep: %zu / %zu points, %zu not ok, ETA %.0f s   ", done, total, failed, eta);
  if (done == total) std::fprintf(stderr, "\n");
}

// Runs the tasks `jobs` at a time; each finished point is appended to results.jsonl at once.
void run_local(const std::vector<Task>& tasks, int jobs, const std::string& out) {
  std::map<pid_t, const Task*> running;
  size_t next = 0, done = 0, failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && int(running.size()) < jobs) {
      const pid_t pid = spawn(tasks[next]);
      if (pid < 0) throw std::runtime_error("fork failed");
      running[pid] = &tasks[next++];
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Task& t = *it->second;
    running.erase(it);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    std::ofstream(fs::path(t.dir) / "exit_code") << code << "\n";
    const nlohmann::json r = point_result(t.point, t.dir, code);
    if (t.baseline) std::ofstream(fs::path(out) / "default.json") << r.dump(2) << "\n";
    else append_result((fs::path(out) / "results.jsonl").string(), r);
    failed += r["status"] != "ok";
    progress(++done, tasks.size(), failed, t0);
  }
}

std::string quoted(const std::string& s) {
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
    for (const auto& a : t.args) cmd += quoted(a) + " ";
    f << cmd << "> " << quoted(t.dir + "/log.txt") << " 2>&1; echo $? > " << quoted(t.dir + "/exit_code") << "\n";
  }
}

nlohmann::json spec_json(const SweepSpec& s) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : s.axes) axes.push_back(a.first);
  return {{"path", s.path}, {"case", s.case_path}, {"mode", s.mode}, {"objective", s.objective},
          {"objective2", s.objective2}, {"axes", axes}};
}

SweepSpec spec_from_json(const nlohmann::json& j) {
  SweepSpec s;
  s.path = j.value("path", ""), s.case_path = j.value("case", ""), s.mode = j.value("mode", "timing");
  s.objective = j.value("objective", "cycles"), s.objective2 = j.value("objective2", "");
  for (const auto& a : j.value("axes", nlohmann::json::array())) s.axes.emplace_back(a.get<std::string>(), std::vector<std::string>{});
  return s;
}

void finish(const SweepSpec& s, const std::string& out) {
  const auto rs = read_results((fs::path(out) / "results.jsonl").string());
  write_csv((fs::path(out) / "results.csv").string(), rs);
  nlohmann::json base;
  if (std::ifstream f(fs::path(out) / "default.json"); f) base = nlohmann::json::parse(f, nullptr, false);
  if (base.is_discarded()) base = nullptr;
  write_summary((fs::path(out) / "summary.md").string(), s, rs, base);
  size_t ok = 0;
  for (const auto& r : rs) ok += r["status"] == "ok";
  std::cout << "sweep: " << rs.size() << " points, " << ok << " ok; results.jsonl, results.csv, summary.md: " << out << "\n";
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
    std::ofstream(fs::path(out) / "default.json") << point_result(nlohmann::json::object(), fs::absolute(def).string(),
                                                                  read_exit_code(def.string())).dump(2) << "\n";
  finish(s, out);
  return kExitOk;
}
}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description desc("sweep options");
  std::string file, out, emit, collect_dir;
  int jobs = 1;
  bool resume = false;
  desc.add_options()("sweep", po::value(&file), "sweep file (YAML)")("jobs", po::value(&jobs), "points run at a time (default 1)")(
      "out", po::value(&out), "output folder (default ./npusim-sweep/<sweep>)")(
      "resume", po::bool_switch(&resume), "skip the points already in OUT/results.jsonl")(
      "emit-tasks", po::value(&emit), "write one shell command per point to FILE instead of running them")(
      "collect", po::value(&collect_dir), "merge the point folders of DIR (after --emit-tasks ran) into its results");
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--emit-tasks FILE] | npusim sweep --collect DIR",
                     desc, pos, vm))
    return kExitOk;
  if (!collect_dir.empty()) return collect(collect_dir);
  if (file.empty()) throw InputError("sweep: a sweep file is required (npusim sweep SWEEP.yaml)");
  if (jobs < 1) throw InputError("--jobs " + std::to_string(jobs) + " must be >= 1");
  SweepSpec s = load_sweep(file);
  if (out.empty()) out = (fs::path("npusim-sweep") / fs::path(file).stem()).string();
  out = fs::absolute(out).lexically_normal().string();
  const std::string jsonl = (fs::path(out) / "results.jsonl").string();
  if (fs::exists(jsonl) && !resume && emit.empty())
    throw InputError("--out " + out + " already holds results.jsonl: pass --resume to continue it, or another --out");
  fs::create_directories(out);
  if (!s.inline_case.empty()) {
    s.case_path = (fs::path(out) / "case.yaml").string();
    std::ofstream(s.case_path) << s.inline_case;
  }
  std::ofstream(fs::path(out) / "spec.json") << spec_json(s).dump(2) << "\n";
  std::set<std::string> done;
  for (const auto& r : read_results(jsonl)) done.insert(r["point"].dump());
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<Task> tasks;
  const auto points = expand(s);
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json pj = point_json(points[i]);
    if (done.count(pj.dump())) continue;
    char name[24];
    std::snprintf(name, sizeof name, "%05zu", i);
    const std::string dir = (fs::path(out) / "points" / name).string();
    tasks.push_back({pj, dir, run_args(s, exe, points[i], dir)});
  }
  const size_t todo = tasks.size();
  if (s.tiling_only() && !fs::exists(fs::path(out) / "default.json")) {  // the case's own tiling, to rank it
    const std::string dir = (fs::path(out) / "default").string();
    tasks.push_back({nlohmann::json::object(), dir, run_args(s, exe, {}, dir), true});
  }
  std::cout << "sweep: " << points.size() << " points (" << points.size() - todo << " already done), case " << s.case_path
            << ", mode " << s.mode << "\n";
  if (!emit.empty()) {
    emit_tasks(tasks, emit);
    std::cout << "sweep: " << tasks.size() << " commands in " << emit << "; run them (e.g. parallel --jobs N < " << emit
              << "), then npusim sweep --collect " << out << "\n";
    return kExitOk;
  }
  run_local(tasks, jobs, out);
  finish(s, out);
  return kExitOk;
}

}  // namespace npusim::cli
