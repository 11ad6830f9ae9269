#include "tools/cli/sim_options.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "sim/config/hw_config.h"
#include "tools/cli/case_run.h"

namespace npusim::cli {

namespace fs = std::filesystem;

void add_sim_options(po::options_description& desc, SimOptions& o) {
  auto option = desc.add_options();
  option("hw", po::value(&o.hw), "hardware config: bundled NAME or a YAML file (default ascend910b2)");
  option(
      "set", po::value(&o.sets),
      "override, repeatable: hw.KEY=VALUE (run / check also attrs.KEY=VALUE, tiling.KEY=VALUE, inputs.NAME.shape=[...] "
      "for a generated input)");
  option("mode", po::value(&o.mode), "full (default) | functional | timing");
  option("out", po::value(&o.out), "output folder (default ./npusim-out/<case>)");
  option("trace", po::bool_switch(&o.trace), "write trace.json (Perfetto) and instructions.csv");
  option("trace-cores", po::value(&o.trace_cores), "only these cores in the trace, e.g. 0,3,24");
  option("trace-window", po::value(&o.trace_window), "only slices overlapping cycles FROM:TO");
  option("trace-gzip", po::bool_switch(&o.trace_gzip),
         "write trace.json.gz and instructions.csv.gz (about 8x smaller; Perfetto and npusim report read them as they "
         "are)");
  option("trace-max-bytes", po::value(&o.trace_max_bytes),
         "refuse a trace whose files would exceed this on disk (bytes, or with K / M / G; default 512M; 0 = no "
         "limit): nothing past it is written, and the message gives the estimate");
  option("trace-counters", po::value(&o.trace_counters),
         "window of the trace's counter tracks (queue depths, GM / L2 / HBM bytes per cycle) in cycles; 0 = no counter "
         "tracks (default 1000)");
  option("host-memory", po::value(&o.host_memory),
         "full / functional mode: refuse a case whose inputs and GM need more host memory than "
         "this (bytes, or with K / M / G; default NPUSIM_HOST_MEMORY or 80% of physical memory)");
  option("checks", po::value(&o.checks),
         "all (default) | local (no GM race shadow) | off (no race checks; bounds, flags and deadlocks are still "
         "checked)");
  option("tie-order", po::value(&o.tie_order),
         "fifo (default) | reversed: the order simultaneous events run in (a robustness probe: cycles that "
         "move much under it hang on an arbitrary arbitration)");
  option(
      "check-thread", po::value(&o.check_thread),
      "auto (default: on with 2+ host CPUs) | on | off: race checks on a second host thread (same faults, overlapped "
      "with the simulation)");
}

std::string trace_json_name(const SimOptions& o) { return o.trace_gzip ? "trace.json.gz" : "trace.json"; }
std::string trace_csv_name(const SimOptions& o) { return o.trace_gzip ? "instructions.csv.gz" : "instructions.csv"; }

sim::SimMode parse_mode(const std::string& s) {
  if (s == "full") return sim::SimMode::Full;
  if (s == "functional") return sim::SimMode::Functional;
  if (s == "timing") return sim::SimMode::Timing;
  throw InputError("--mode '" + s + "' must be full, functional or timing");
}

sim::Checks parse_checks(const std::string& s) {
  if (s == "all") return sim::Checks::All;
  if (s == "local") return sim::Checks::Local;
  if (s == "off") return sim::Checks::Off;
  throw InputError("--checks '" + s + "' must be all, local or off");
}

sim::TraceFilter parse_trace_filter(const std::string& cores, const std::string& window) {
  sim::TraceFilter f;
  try {
    if (!cores.empty()) {
      f.cores.emplace();
      std::stringstream ss(cores);
      for (std::string t; std::getline(ss, t, ',');) f.cores->insert(std::stoi(t));
    }
    if (!window.empty()) {
      const auto colon = window.find(':');
      if (colon == std::string::npos || window.find_first_not_of("0123456789:") != std::string::npos)
        throw std::invalid_argument("");
      f.from_cycle = std::stoull(window.substr(0, colon));
      f.to_cycle = colon + 1 < window.size() ? std::stoull(window.substr(colon + 1)) : UINT64_MAX;
    }
  } catch (const std::logic_error&) {
    throw InputError("--trace-cores '" + cores + "' must be a comma list of core indices and --trace-window '" +
                     window + "' must be FROM:TO cycles");
  }
  if (f.from_cycle >= f.to_cycle)
    throw InputError("--trace-window '" + window + "' is empty: FROM (" + std::to_string(f.from_cycle) +
                     ") must be below TO (" + std::to_string(f.to_cycle) + ")");
  return f;
}

namespace {
// A byte count with an optional K / M / G suffix; `from` names the option or variable in the error.
uint64_t parse_bytes(const std::string& given, const std::string& from) {
  std::string text = given;
  uint64_t scale = 1;
  const char last = text.empty() ? '\0' : text.back();
  if (last == 'K' || last == 'M' || last == 'G')
    scale = last == 'K' ? 1ull << 10 : last == 'M' ? 1ull << 20 : 1ull << 30, text.pop_back();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 15)
    throw InputError(from + " '" + given + "' must be a byte count, optionally with K, M or G (e.g. 16G)");
  return std::stoull(text) * scale;
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1 << 19)) >> 20) + " MiB"; }

// The message of a trace over --trace-max-bytes: its estimated size and the options that shrink it.
std::string trace_limit_text(const sim::TraceTooLarge& e, const SimOptions& o) {
  return "--trace: the trace would take about " + mib(e.json_bytes + e.csv_bytes) + " (" + trace_json_name(o) + " " +
         mib(e.json_bytes) + ", " + trace_csv_name(o) + " " + mib(e.csv_bytes) + "), over --trace-max-bytes " +
         o.trace_max_bytes + " (" + std::to_string(e.limit) + " bytes), reached at cycle " +
         std::to_string(e.limit_cycle) +
         "; nothing past the limit was written and the partial files are removed (report.json is written). Shrink "
         "it: " +
         (o.trace_gzip ? "" : "--trace-gzip (about 8x smaller), ") +
         "--trace-cores (e.g. 0,1,2: one AIC and its two AIVs), --trace-window FROM:TO (cycles), or raise "
         "--trace-max-bytes (0: no limit)";
}
}  // namespace

uint64_t host_memory_budget(const SimOptions& o) {
  std::string text = o.host_memory, from = "--host-memory";
  if (text.empty())
    if (const char* env = std::getenv("NPUSIM_HOST_MEMORY")) text = env, from = "NPUSIM_HOST_MEMORY";
  if (text.empty()) return uint64_t(double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) * 0.8);
  return parse_bytes(text, from);
}

SimSession::SimSession(const SimOptions& o, const std::string& case_name, bool files) : options_(o) {
  std::vector<std::string> hw_sets;
  for (const auto& s : o.sets) {
    if (s.rfind("hw.", 0) != 0) throw InputError("--set '" + s + "': this command accepts only hw.KEY=VALUE overrides");
    hw_sets.push_back(s);
  }
  const auto mode = parse_mode(o.mode);
  const auto checks = parse_checks(o.checks);
  if (o.tie_order != "fifo" && o.tie_order != "reversed")
    throw InputError("--tie-order '" + o.tie_order + "' must be fifo or reversed");
  if (o.check_thread != "auto" && o.check_thread != "on" && o.check_thread != "off")
    throw InputError("--check-thread '" + o.check_thread + "' must be auto, on or off");
  auto hw = sim::load_hw(o.hw.empty() ? sim::default_hw_name() : o.hw, hw_sets);
  std::error_code ec;
  if (files) {
    out_ = o.out.empty() ? (fs::path("npusim-out") / case_name).string() : o.out;
    fs::create_directories(out_, ec);
    if (ec || !fs::is_directory(out_, ec))
      throw InputError("--out '" + out_ + "' is not a folder that can be created or written");
  } else if (o.trace) {
    throw InputError("a trace needs an output folder (--out / trace_dir)");
  }
  machine_ = std::make_unique<sim::Machine>(std::move(hw), mode);
  machine_->gm().set_host_budget(host_memory_budget(o));
  machine_->set_progress(isatty(STDERR_FILENO) != 0);  // long runs show progress when stderr is a terminal
  machine_->set_checks(checks);
  machine_->set_reverse_ties(o.tie_order == "reversed");
  if (o.check_thread != "auto") machine_->set_check_thread(o.check_thread == "on");
  if (o.trace_counters < 0)
    throw InputError("--trace-counters " + std::to_string(o.trace_counters) +
                     " must be 0 (no counter tracks) or a window of at least 1 cycle");
  if (o.trace) {
    // The other variant of each file (plain / gzip) would be a previous run's: npusim report must not read it.
    SimOptions other = o;
    other.trace_gzip = !o.trace_gzip;
    fs::remove(fs::path(out_) / trace_json_name(other), ec);
    fs::remove(fs::path(out_) / trace_csv_name(other), ec);
    trace_ = std::make_unique<sim::TraceWriter>(
        (fs::path(out_) / trace_json_name(o)).string(), (fs::path(out_) / trace_csv_name(o)).string(),
        machine_->hw().chip.clock_mhz, parse_trace_filter(o.trace_cores, o.trace_window),
        sim::TraceOptions{o.trace_gzip, uint64_t(o.trace_counters),
                          parse_bytes(o.trace_max_bytes, "--trace-max-bytes")});
    machine_->set_trace(trace_.get());
  }
}

void SimSession::write_outputs(const nlohmann::json& report, const std::string& extra_yaml) {
  machine_->set_trace(nullptr);
  std::optional<std::string> too_large;
  try {
    if (trace_) trace_->close();  // stage spans and counters, then the files (errors surface here)
  } catch (const sim::TraceTooLarge& e) {
    too_large = trace_limit_text(e, options_);
  }
  trace_.reset();
  std::ofstream(fs::path(out_) / "report.json") << report.dump(2) << "\n";
  std::ofstream(fs::path(out_) / "resolved.yaml") << "hw:\n"
                                                  <<
      [&] {
        std::string y = sim::hw_to_yaml(machine_->hw()), out;
        std::stringstream ss(y);
        for (std::string l; std::getline(ss, l);) out += "  " + l + "\n";
        return out;
      }() << extra_yaml;
  if (too_large) throw InputError(*too_large);
}

int report_faults(const sim::LaunchResult& r) {
  // Notes are findings, not faults: a kernel with one redundant barrier in its loop has one per iteration and core,
  // so the terminal gets the first few and the count; report.json keeps them all.
  constexpr size_t kNotesShown = 8;
  for (size_t i = 0; i < std::min(r.notes.size(), kNotesShown); ++i)
    std::cerr << "note [" << r.notes[i].kind << "]: " << r.notes[i].message << "\n";
  if (r.notes.size() > kNotesShown)
    std::cerr << "note: " << r.notes.size() - kNotesShown << " more notes (all " << r.notes.size()
              << ": report.json checks.notes)\n";
  for (const auto& f : r.faults) std::cerr << "fault [" << f.kind << "]: " << f.message << "\n";
  return fault_status(r.faults);
}

}  // namespace npusim::cli
