// Point processes of sweep and tune (sweep_runner.h).
#include "tools/cli/sweep_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "tools/cli/sweep_results.h"

namespace npusim::cli {

namespace fs = std::filesystem;

std::vector<std::string> run_args(const SweepSpec& s, const SweepPoint& p, const std::string& dir,
                                  const std::vector<std::string>& extra_sets) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> a = {exe, "run", s.case_path, "--mode", s.mode, "--checks", s.checks, "--out", dir};
  if (!s.hw.empty()) a.insert(a.end(), {"--hw", s.hw});
  for (const auto& x : extra_sets) a.insert(a.end(), {"--set", x});
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

namespace {
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

}  // namespace

std::vector<nlohmann::json> run_local(const std::vector<Task>& tasks, int jobs, const std::string& out) {
  std::vector<nlohmann::json> results(tasks.size());
  std::map<pid_t, size_t> running;
  size_t next = 0, done = 0, failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && int(running.size()) < jobs) {
      const pid_t pid = spawn(tasks[next]);
      if (pid < 0) throw std::runtime_error("fork failed");
      running[pid] = next++;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t ti = it->second;
    const Task& t = tasks[ti];
    running.erase(it);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    std::ofstream(fs::path(t.dir) / "exit_code") << code << "\n";
    const nlohmann::json r = point_result(t.point, t.dir, code);
    if (t.baseline) std::ofstream(fs::path(out) / "default.json") << r.dump(2) << "\n";
    else append_result((fs::path(out) / "results.jsonl").string(), r);
    failed += r["status"] != "ok";
    progress(++done, tasks.size(), failed, t0);
    results[ti] = r;
  }
  return results;
}

}  // namespace npusim::cli
