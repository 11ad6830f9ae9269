#pragma once
// Running `npusim run` points as child processes (sweep and tune): one process per point (a crash, a
// fault or the OOM killer ends only its point), `jobs` at a time; each finished point is written beside its folder
// (point.json, exit_code, log.txt, the run's own outputs) and appended to results.jsonl.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

struct Task {
  nlohmann::json point;
  std::string dir;                // absolute
  std::vector<std::string> args;  // argv of `npusim run ...`
  bool baseline = false;          // the case's own tiling: written to OUT/default.json, not results.jsonl
};

// argv of `npusim run` for a point: the case, mode, checks, out folder, hw and one --set per axis value.
std::vector<std::string> run_args(const SweepSpec& s, const SweepPoint& p, const std::string& dir,
                                  const std::vector<std::string>& extra_sets = {});
void write_point_files(const Task& t);
int read_exit_code(const std::string& dir);  // -1 when the point never ran
// Runs the tasks and returns their results in task order.
std::vector<nlohmann::json> run_local(const std::vector<Task>& tasks, int jobs, const std::string& out);

}  // namespace npusim::cli
