#pragma once
// Sweep files (`npusim sweep`, tools/cli/README.md "Choosing a tiling"): a case, the hardware and mode, the axes
// (dotted attrs. / tiling. / hw. keys, each a list or a range) and how they are sampled; expanded into points.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace npusim::cli {

struct SweepSpec {
  std::string path;         // the sweep file
  std::string case_path;    // absolute; an inline case is written to OUT/case.yaml by the sweep
  std::string inline_case;  // YAML text of an inline `case:` mapping (file paths made absolute), else empty
  std::string hw, mode = "timing", checks = "all";
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;  // key -> values (YAML scalars / flow text)
  std::string sampling = "grid";                                       // grid | zip | random
  int64_t random_count = 0;
  uint64_t random_seed = 0;
  std::string objective = "cycles", objective2;  // cycles | time_us | achieved_tflops | roofline_ratio
  bool tiling_only() const;                      // every axis is a tiling. key (the default tiling can be ranked)
};

// One point: the axis values in axis order.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

// Reads and validates the sweep file; every error names the file, the key and the rule (InputError, exit 2).
SweepSpec load_sweep(const std::string& path);
std::vector<SweepPoint> expand(const SweepSpec& s);
// Makes the relative `file:` paths under a case mapping's inputs absolute against `base` (the folder the case was
// read from), for a case written somewhere else (an inline sweep case, tune's best.yaml).
void absolute_input_files(YAML::Node case_map, const std::string& base);
// cycles, time_us, achieved_tflops or roofline_ratio (report.json figures a sweep or tune can rank by).
bool valid_objective(const std::string& objective);
// Whether an objective is maximised (achieved_tflops) rather than minimised.
bool maximised(const std::string& objective);

}  // namespace npusim::cli
