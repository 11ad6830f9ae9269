#pragma once
// One operator case run end to end on a new machine: prepare (checks, tiling, GM), launch, report, outputs.
// Shared by `npusim run` / `check` (tools/cli/cmd_run.cpp) and the Python module (tools/python), so both give the
// same bits and the same report.json for the same case.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/case_file.h"
#include "kernels/host/host_tensor.h"
#include "sim/machine/machine.h"
#include "tools/cli/sim_options.h"

namespace npusim::cli {

struct CaseRun {
  op::CaseFile c;
  std::vector<std::pair<std::string, op::HostTensor>> outputs;  // full / functional mode, when no fault stopped the run
  nlohmann::json report;                                        // report.json's content
  std::vector<sim::Fault> faults, notes;                        // of the launch
  std::vector<std::pair<std::string, int64_t>> tiling;          // every tiling value used
  int status = kExitOk;                                         // fault_status(faults)
};

struct CaseRunHooks {
  bool write_files = true;   // report.json, resolved.yaml, OUTPUT.npy and the trace into the out folder
  bool print_faults = true;  // faults and notes on stderr (the CLI)
  std::function<void(sim::Machine&)> configure;  // called once the machine is built (e.g. an interrupt poll)
  // Stop after the op's checks and tiling (`npusim run --plan-only`, the tuner's legality test): no launch, no
  // files; the CaseRun holds the tiling (report: "tiling", "tiling_clamped", "plan_only": true).
  bool plan_only = false;
};

// The machine's options (their hw.* sets) apart from the case's (attrs.* / tiling.* / inputs.* sets, appended to
// `case_sets`): run_loaded_case takes the case with its sets applied and the machine's options.
SimOptions split_sets(const SimOptions& so, std::vector<std::string>& case_sets);

// Runs the loaded case `c` with `so` (hw, mode, checks, trace, hw.* sets; attrs / tiling sets are already in `c`).
// Throws InputError / op::CaseError / sim::ConfigError on bad input (exit 2).
CaseRun run_loaded_case(op::CaseFile c, const SimOptions& so, const CaseRunHooks& hooks = {});

// Full / functional mode hold every input on the host and again in GM: throws InputError, with the estimate, when
// the inputs of `shapes` (a case loaded without data) need more than `budget` bytes (before a bad_alloc or the
// OOM killer). `mode` names the mode in the message.
void refuse_over_budget(const op::CaseFile& shapes, uint64_t budget, const std::string& mode);

// 0 for a clean launch, 2 when an `input` fault stopped it, 1 for an `internal` one, 3 for any other fault.
int fault_status(const std::vector<sim::Fault>& faults);

}  // namespace npusim::cli
