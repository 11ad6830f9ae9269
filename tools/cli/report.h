#pragma once
// report.json: the fields of design.md that other tools read, built from one launch.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/machine/machine.h"

namespace npusim::cli {

nlohmann::json launch_report(const sim::Machine& m, const sim::LaunchResult& r, const std::string& op,
                             const std::string& case_name);
// Peak resident set size of this process (Linux getrusage), bytes.
uint64_t peak_rss_bytes();
// The summary printed after a run: cycles, time, instructions, the busiest pipes, faults.
std::string summary_text(const nlohmann::json& report);
// The one-line summary of a run a fault stopped: cycles and instructions so far, no rate, no outputs.
std::string fault_summary_text(const nlohmann::json& report);

}  // namespace npusim::cli
