#pragma once
// Options shared by every command that simulates (--hw, --set, --mode, --out, --trace...) and the session
// that owns the machine, the trace writer and the output folder.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/machine/machine.h"
#include "sim/trace/trace_writer.h"
#include "tools/cli/options.h"

namespace npusim::cli {

struct SimOptions {
  std::string hw, mode = "full", out, trace_cores, trace_window, checks = "all", tie_order = "fifo",
                  check_thread = "auto";
  std::string host_memory;  // --host-memory: budget in bytes (suffix K / M / G allowed); empty = the default
  std::string trace_max_bytes = "512M";  // --trace-max-bytes: the trace files' limit on disk (K / M / G), 0 = none
  std::vector<std::string> sets;
  bool trace = false, trace_gzip = false;
  int64_t trace_counters = 1000;  // --trace-counters: counter-track window in cycles, 0 = none
};

// The trace file names of a run: trace.json / instructions.csv, with .gz appended under --trace-gzip.
std::string trace_json_name(const SimOptions& o);
std::string trace_csv_name(const SimOptions& o);

void add_sim_options(po::options_description& desc, SimOptions& o);

class SimSession {
 public:
  // Loads the hardware (hw.-prefixed or bare --set keys), builds the machine and, with --trace, the trace.
  // With `files` false nothing is written (no output folder; a trace is refused): the Python module's runs.
  SimSession(const SimOptions& o, const std::string& case_name, bool files = true);
  sim::Machine& machine() { return *machine_; }
  const std::string& out_dir() const { return out_; }
  // Writes report.json and resolved.yaml (plus `extra_yaml`, e.g. the case and tiling) into the output folder.
  void write_outputs(const nlohmann::json& report, const std::string& extra_yaml = "");

 private:
  SimOptions options_;
  std::unique_ptr<sim::Machine> machine_;
  std::unique_ptr<sim::TraceWriter> trace_;
  std::string out_;
};

// Prints every fault to stderr; returns 0, 2 (an input fault such as a tiling that does not fit) or 3.
int report_faults(const sim::LaunchResult& r);
sim::SimMode parse_mode(const std::string& s);
sim::Checks parse_checks(const std::string& s);
sim::TraceFilter parse_trace_filter(const std::string& cores, const std::string& window);
// The host-memory budget of full / functional mode: --host-memory, else NPUSIM_HOST_MEMORY, else 80% of the
// machine's physical memory. InputError on a malformed value.
uint64_t host_memory_budget(const SimOptions& o);

}  // namespace npusim::cli
