#pragma once
// The search behind `npusim tune` (tools/cli/cmd_tune.cpp, tools/cli/README.md "Choosing a tiling"). Every candidate
// tiling is first planned in process (the op's own checks and default rules, as `npusim run --plan-only`): a tiling the
// op refuses costs no run, and two candidates the op resolves to the same full tiling run once. Keys are searched in
// the order their default rules depend on each other (a key before the keys that follow it, TilingKey::follows);
// moving a key lets the keys that follow it re-derive when their held values no longer fit. Each key gets a pattern
// search (one legal step either side, half and double, repeated from wherever it improves); when no single key
// improves, pairs of keys move together (steps and halvings of both), and a pair that improves starts another
// round. Deterministic: the same case, hw and budget give the same runs.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/op/op.h"
#include "sim/config/hw_config.h"
#include "tools/cli/sweep_spec.h"

namespace npusim::cli {

using Assignment = std::map<std::string, int64_t>;  // tiling key -> value

struct TuneSetup {
  SweepSpec spec;                  // case (absolute), hw, mode, checks, objective
  std::vector<std::string> fixed;  // the user's --set flags: hw.*, attrs.*, and tiling keys held (not tuned)
  std::string out;                 // output folder (absolute)
  int jobs = 1;
  int64_t budget = 48;  // runs at most, the default's included
};

struct TuneOutcome {
  nlohmann::json def, best;             // results of the default tiling and of the best run
  std::vector<nlohmann::json> runs;     // every run after the default, in run order (results.jsonl)
  int64_t rounds = 0, pair_rounds = 0;  // coordinate rounds; rounds of pair moves
  int64_t plans = 0, refused = 0;       // candidate tilings planned; refused by the op's plan (never run)
  std::vector<std::string> refusals;    // the first few refusals: "key=value, ...: reason"
  bool converged = false;               // stopped because no single or pair move improved (else: the budget)
};

// Runs the search. Throws InputError when the case does not run with its default tiling.
TuneOutcome tune(const TuneSetup& s, const op::Op& the_op, const sim::HwConfig& hw);

}  // namespace npusim::cli
