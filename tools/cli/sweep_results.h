#pragma once
// Results of a sweep: one JSON object per point (results.jsonl, appended per point), its CSV twin and a summary
// (best point, the default tiling's rank, the Pareto front of two objectives).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

// The point as JSON (numbers where the value reads as one).
nlohmann::json point_json(const SweepPoint& p);
// A point's result from its folder: `exit_code` (0 ok, 2 invalid, 3 fault, else error), the exit-2 / exit-3
// message from log.txt, the figures from report.json.
nlohmann::json point_result(const nlohmann::json& point, const std::string& dir, int exit_code);
// Appends one line with a single write (the file is opened in append mode each time).
void append_result(const std::string& jsonl, const nlohmann::json& r);
std::vector<nlohmann::json> read_results(const std::string& jsonl);  // missing file: none
void write_csv(const std::string& path, const std::vector<nlohmann::json>& results);
// The default tiling's place among a sweep's successful results: rank 1 is best, `of` counts the default too, `best`
// is the best swept result's objective over the default's. nullopt when the default or every point failed.
struct DefaultRank {
  size_t rank = 0, of = 0;
  double best_over_default = 1;
};
std::optional<DefaultRank> default_rank(const std::vector<nlohmann::json>& results, const nlohmann::json& baseline,
                                        const std::string& objective);
// `baseline`: the default tiling's result (null when not run).
void write_summary(const std::string& path, const SweepSpec& s, const std::vector<nlohmann::json>& results,
                   const nlohmann::json& baseline);

}  // namespace npusim::cli
