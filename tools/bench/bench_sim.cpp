// Simulator speed on the five reference workloads of issue 11: FIA prompt 2048 and 8k, GEMM 4096^3, decode
// B16 and B64 x KV 32768. Each point is `npusim run CASE` in a child process (one SystemC machine per
// process), repeated; the median is printed. Timing mode with checks all and off; full mode (FIA 2048, GEMM)
// beside the host time of its own arithmetic in the same run (report.json sim.arith_s: the time inside the ISA
// semantics of the mmad and vector instructions; FixPipe and DMA move data and count as overhead). With
// --baseline, every point also runs
// on another npusim binary (e.g. a build of an older commit) in the same session, interleaved, and the
// ratio is printed: these machines are noisy, so only same-run ratios mean anything.
//
// Usage: bench_sim [--npusim PATH] [--baseline PATH] [--repeat N] [--only CASE[,CASE]] [--quick] [--full-8k]
//   --quick: FIA 2048, GEMM and decode B16 only, one repetition.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Workload {
  const char* name;  // configs/cases/<case>.yaml
  const char* label;
  bool full;   // also measured in full mode
  bool quick;  // part of --quick
};
constexpr Workload kWorkloads[] = {
    {"fia_perf_s2048_mode0", "FIA prompt 32x2048x128", true, true},
    {"fia_perf_s8192_mode0", "FIA prompt 32x8192x128", false, false},
    {"matmul_f16_4096", "GEMM 4096^3 fp16", true, true},
    {"fia_decode_bw_b16_kv32768", "decode B16 x KV32768", false, true},
    {"fia_decode_bw_b64_kv32768", "decode B64 x KV32768", false, false},
};

struct Sample {
  bool ok = false;
  double wall = 0, launch = 0, exec = 0;  // process wall; launch wall (report sim.wall_s); arithmetic
  uint64_t instructions = 0, cycles = 0, rss = 0;
};

// One `npusim run` in a child; peak RSS from wait4 (the child's own, not ours).
Sample run_once(const std::string& npusim, const std::string& case_path, const std::vector<std::string>& extra,
                const std::string& out) {
  std::vector<std::string> args = {npusim, "run", case_path, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, (out + ".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Sample s;
  fs::remove_all(out);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, npusim.c_str(), &fa, nullptr, argv.data(), environ) != 0) return s;
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  posix_spawn_file_actions_destroy(&fa);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return s;
  std::ifstream f(fs::path(out) / "report.json");
  if (!f) return s;
  const auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) return s;
  s.ok = true;
  s.rss = uint64_t(ru.ru_maxrss) * 1024;
  s.cycles = j.value("cycles", uint64_t{0});
  const auto& sim = j["sim"];
  s.instructions = sim.value("instructions", uint64_t{0});
  s.launch = sim.value("wall_s", 0.0);
  s.exec = sim.value("arith_s", 0.0);  // M + V: the arithmetic (FixPipe and DMA are data movement)
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Point {
  bool ok = false;
  double wall = 0, launch = 0, exec = 0;
  uint64_t instructions = 0, cycles = 0, rss = 0;
};

Point summarise(const std::vector<Sample>& ss) {
  Point p;
  std::vector<double> wall, launch, exec;
  for (const auto& s : ss) {
    if (!s.ok) return p;
    wall.push_back(s.wall), launch.push_back(s.launch), exec.push_back(s.exec);
    p.rss = std::max(p.rss, s.rss);
    p.instructions = s.instructions, p.cycles = s.cycles;
  }
  p.ok = !ss.empty();
  p.wall = median(wall), p.launch = median(launch), p.exec = median(exec);
  return p;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path self = fs::canonical("/proc/self/exe");
  std::string npusim = (self.parent_path().parent_path() / "npusim").string(), baseline;
  int repeat = 3;
  bool quick = false, full_8k = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_sim: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--npusim") npusim = value();
    else if (a == "--baseline") baseline = value();
    else if (a == "--repeat") repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "--only") only.append(",").append(value()).append(",");
    else if (a == "--quick") quick = true, repeat = 1;
    else if (a == "--full-8k") full_8k = true;
    else {
      std::fprintf(
          stderr,
          "usage: bench_sim [--npusim PATH] [--baseline PATH] [--repeat N] [--only CASE,...] [--quick] [--full-8k]\n");
      return 2;
    }
  }
  const fs::path root = self.parent_path().parent_path().parent_path().parent_path();  // build/tools/bench -> repo
  const fs::path cases =
      fs::exists(root / "configs" / "cases") ? root / "configs" / "cases" : fs::path("configs/cases");
  const fs::path scratch = fs::temp_directory_path() / ("npusim_bench_" + std::to_string(getpid()));
  fs::create_directories(scratch);
  std::printf("npusim %s%s%s, median of %d, %ld host CPUs\n\n", npusim.c_str(), baseline.empty() ? "" : " vs baseline ",
              baseline.c_str(), repeat, sysconf(_SC_NPROCESSORS_ONLN));
  std::printf(
      "| workload | mode | checks | instructions | cycles | wall s | launch s | M instr/s | M cycles/s | peak RSS MB | "
      "arithmetic s | wall / arithmetic |%s\n|---|---|---|---|---|---|---|---|---|---|---|---|%s\n",
      baseline.empty()
          ? ""
          : " baseline wall s | baseline M instr/s | baseline RSS MB | speed-up (wall) | speed-up (instr/s) |",
      baseline.empty() ? "" : "---|---|---|---|---|");
  for (const Workload& w : kWorkloads) {
    if (quick && !w.quick) continue;
    if (!only.empty() && only.find(std::string(",").append(w.name).append(",")) == std::string::npos) continue;
    const std::string case_path = (cases / (std::string(w.name) + ".yaml")).string();
    struct Config {
      const char* mode;
      const char* checks;
    };
    std::vector<Config> configs = {{"timing", "all"}, {"timing", "off"}};
    if (w.full || (full_8k && std::strcmp(w.name, "fia_perf_s8192_mode0") == 0)) configs.push_back({"full", "all"});
    Point base_timing_all;  // the baseline's timing run: the reference of the checks-off row too
    for (const Config& c : configs) {
      std::vector<Sample> mine, base;
      const std::vector<std::string> args = {"--mode", c.mode, "--checks", c.checks};
      // The baseline may predate --checks: "all" is its only behaviour, "off" has no counterpart.
      const bool base_runs = !baseline.empty() && std::strcmp(c.checks, "all") == 0;
      for (int r = 0; r < repeat; ++r) {  // interleaved, so both see the same machine
        mine.push_back(run_once(npusim, case_path, args, (scratch / "a").string()));
        if (base_runs) base.push_back(run_once(baseline, case_path, {"--mode", c.mode}, (scratch / "b").string()));
      }
      const Point p = summarise(mine);
      const bool off = std::strcmp(c.checks, "off") == 0;
      const Point b = off ? base_timing_all : summarise(base);
      if (std::strcmp(c.mode, "timing") == 0 && !off) base_timing_all = b;
      if (!p.ok) {
        std::printf("| %s | %s | %s | run failed: see %s.stderr |\n", w.label, c.mode, c.checks,
                    (scratch / "a").c_str());
        continue;
      }
      const bool full = std::strcmp(c.mode, "full") == 0;
      std::printf("| %s | %s | %s | %llu | %llu | %s | %s | %s | %s | %s | %s | %s |", w.label, c.mode, c.checks,
                  (unsigned long long)p.instructions, (unsigned long long)p.cycles, fmt("%.2f", p.wall).c_str(),
                  fmt("%.2f", p.launch).c_str(), fmt("%.2f", p.instructions / p.launch / 1e6).c_str(),
                  fmt("%.2f", p.cycles / p.launch / 1e6).c_str(), fmt("%.0f", p.rss / 1e6).c_str(),
                  full ? fmt("%.2f", p.exec).c_str() : "-",
                  full && p.exec > 0 ? fmt("%.2f", p.wall / p.exec).c_str() : "-");
      if (!baseline.empty()) {
        const double rate = p.instructions / p.launch, b_rate = b.launch > 0 ? b.instructions / b.launch : 0;
        const std::string ratio = b_rate > 0 ? fmt("%.2fx", rate / b_rate) : "-";
        if (b.ok && off)  // against the baseline's checks-all run just above (see the note under the table)
          std::printf(" - | (%s) | - | - | %s |", fmt("%.2f", b_rate / 1e6).c_str(), ratio.c_str());
        else if (b.ok)
          std::printf(" %s | %s | %s | %s | %s |", fmt("%.2f", b.wall).c_str(), fmt("%.2f", b_rate / 1e6).c_str(),
                      fmt("%.0f", b.rss / 1e6).c_str(), fmt("%.2fx", b.wall / p.wall).c_str(), ratio.c_str());
        else std::printf(" - | - | - | - | - |");
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  fs::remove_all(scratch);
  std::printf(
      "\nwall: the whole `npusim run` (case, inputs, launch, outputs); launch: the simulation alone (report.json "
      "sim.wall_s), the base of the per-second rates; arithmetic: sim.arith_s of the same run (host time in the mmad "
      "and vector semantics).\n"
      "speed-up (wall): baseline wall / wall, the time to run the case; speed-up (instr/s): the ratio of the simulated "
      "instruction rates of the launches (the kernels may differ: an older commit's may issue more instructions). A "
      "checks-off row is compared with the baseline's timing run with its default checks (in parentheses: the baseline "
      "may predate --checks), the reference of the issue's checks-off target.\n");
}
