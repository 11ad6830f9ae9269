#pragma once
// The charts of npusim report (tools/cli/README.md "Choosing a tiling"), each one inline SVG element with a stable id:
//   run:   utilisation (busy fraction per core type and pipe), roofline (the case's roofs and the run's point),
//          timeline (trace.json: one lane per core and pipe, an AIC followed by its AIVs, waits as thin grey
//          strips under the lane, set -> wait arrows, a stage row per core), pipe summary and stages (HTML tables);
//   sweep: heatmap (the objective over two axes, the best over the other axes per cell), ranked (the points
//          sorted by the objective), pareto (two objectives, the front joined).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npusim::cli {

std::string utilisation_chart(const nlohmann::json& report);
std::string roofline_chart(const nlohmann::json& report);  // empty when report.json lacks the roofs

struct TimelineStats {
  int cores = 0, lanes = 0, rects = 0, arrows = 0, stages = 0;
  long slices = 0;
};
std::string timeline_chart(const nlohmann::json& trace, TimelineStats& st);
// report.json pipe_summary as an HTML table (per core kind: mean fractions of the launch's cycles) with the per-core
// rows folded under <details>; empty when report.json has none.
std::string pipe_summary_table(const nlohmann::json& report);
// The trace's stage spans by kind (the label's first word: C1, V1, ..., load, mmad): spans, cores, mean / max / total
// span cycles; empty when the trace has none.
std::string stage_table(const nlohmann::json& trace);

// results: results.jsonl objects; x / y: point keys; objective: a results field (cycles, time_us, ...).
std::string heatmap_chart(const std::vector<nlohmann::json>& results, const std::string& x, const std::string& y,
                          const std::string& objective, int& cells);
std::string ranked_chart(const std::vector<nlohmann::json>& results, const std::string& objective);
std::string pareto_chart(const std::vector<nlohmann::json>& results, const std::string& o1, const std::string& o2);

// A point's axis values as "key=value, ..." (the short key: the part after the last dot).
std::string point_label(const nlohmann::json& point);

}  // namespace npusim::cli
