// npusim run / check / ops: operator cases end to end (design.md "Command line").
#include <filesystem>
#include <fstream>
#include <iostream>

#include "kernels/accuracy/accuracy.h"
#include "kernels/host/npy.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tools/cli/case_run.h"
#include "tools/cli/options.h"
#include "tools/cli/report.h"
#include "tools/cli/signoff.h"
#include "tools/cli/sim_options.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {

CaseRun run_case(const SimOptions& so, const std::string& path, bool force_full, bool save) {
  std::vector<std::string> case_sets;
  const SimOptions hw_opts = split_sets(so, case_sets);
  if (force_full && so.mode != "full")
    throw InputError("--mode '" + so.mode + "': check runs in full mode (it compares the computed outputs)");
  // Timing mode needs shapes, not data: generated inputs stay empty so huge shapes fit in memory.
  const bool fill = save || parse_mode(hw_opts.mode) != sim::SimMode::Timing;
  if (fill) refuse_over_budget(op::load_case(path, case_sets, false), host_memory_budget(so), so.mode);
  CaseRun rr = run_loaded_case(op::load_case(path, case_sets, fill), hw_opts);
  if (save) save_inputs(rr.c, rr.tiling, rr.report["out_dir"].get<std::string>());
  return rr;
}

// run --plan-only: the op's checks and tiling without a launch (the tuner's legality test, tools/cli/cmd_tune.cpp).
int print_plan(const SimOptions& so, const std::string& path) {
  std::vector<std::string> case_sets;
  SimOptions hw_opts = split_sets(so, case_sets);
  hw_opts.mode = "timing";  // the tiling does not depend on the mode; timing mode generates no tensor data
  const CaseRun rr =
      run_loaded_case(op::load_case(path, case_sets, false), hw_opts, {.write_files = false, .plan_only = true});
  std::string line;
  for (const auto& [k, v] : rr.tiling) line += (line.empty() ? "" : ", ") + k + " " + std::to_string(v);
  std::cout << rr.c.name << ": plan OK (nothing simulated); tiling " << line << "\n";
  if (rr.report.contains("tiling_clamped"))
    for (const auto& [k, v] : rr.report["tiling_clamped"].items())
      std::cout << "  " << k << ": " << v.get<std::string>() << "\n";
  return kExitOk;
}

// check --expect DIR: every output bit for bit against DIR/OUTPUT.npy.
bool compare_expected(const CaseRun& rr, const std::string& dir, const op::BitTolerance& tol, bool json,
                      nlohmann::json& out) {
  bool match = true;
  out = nlohmann::json::array();
  for (const auto& [name, t] : rr.outputs) {
    const auto view = output_view(rr.c, name, t.shape);
    const op::BitCompare b = op::compare_bits(
        name, t, load_expected((fs::path(dir) / (name + ".npy")).string(), t.type), 8, tol, view ? &*view : nullptr);
    if (!json) std::cout << op::format_bit_compare(b);
    out.push_back(bits_json(b));
    match &= b.match();
  }
  return match;
}

int run_like(const Args& args, bool check) {
  po::options_description desc(check ? "check options" : "run options");
  SimOptions so;
  std::string case_path, expect;
  bool save = false, json = false;
  op::BitTolerance tol;
  desc.add_options()("case", po::value(&case_path)->required(), "case file (YAML)");
  add_sim_options(desc, so);
  desc.add_options()(
      "save-inputs", po::bool_switch(&save),
      "also write every input as OUT/inputs/NAME.npy (bf16: uint16 bits + NAME.f32.npy) and OUT/replay.yaml");
  if (check) {
    auto option = desc.add_options();
    option("expect", po::value(&expect),
           "folder of OUTPUT.npy per output (a board dump, torch_npu, an earlier run): compare bit for "
           "bit, exit 4 on a mismatch");
    option("json", po::bool_switch(&json), "print the accuracy (and --expect) report as JSON on stdout");
  }
  if (check) add_tolerance_options(desc, tol);
  bool plan_only = false;
  if (!check)
    desc.add_options()("plan-only", po::bool_switch(&plan_only),
                       "check the case and choose its tiling, simulate nothing: prints the tiling (exit 0) or the rule "
                       "it breaks (exit 2); writes no files");
  po::variables_map vm;
  const std::string usage = std::string("usage: npusim ") + (check ? "check" : "run") + " CASE.yaml [options]";
  if (!parse_options(args, usage, desc, {{"case", 1}}, vm)) return kExitOk;
  check_tolerance(vm, tol, !expect.empty(), "--expect DIR");
  try {
    if (plan_only) return print_plan(so, case_path);
    CaseRun rr = run_case(so, case_path, check, save);
    if (!json && rr.status != kExitOk)  // no rate and no outputs for a run a fault stopped
      std::cout << fault_summary_text(rr.report) << "report.json, resolved.yaml"
                << (so.trace ? ", " + trace_json_name(so) : std::string()) << ": "
                << rr.report["out_dir"].get<std::string>() << "\n";
    else if (!json)
      std::cout << summary_text(rr.report) << "outputs, report.json, resolved.yaml"
                << (so.trace ? ", " + trace_json_name(so) : std::string()) << (save ? ", inputs/, replay.yaml" : "")
                << ": " << rr.report["out_dir"].get<std::string>() << "\n";
    if (!check || rr.status != kExitOk) return rr.status;
    bool pass = true;
    nlohmann::json acc = nlohmann::json::array();
    const auto refs = op::find_op(rr.c.op).reference(rr.c);
    if (refs.empty() && expect.empty())  // an op pto case without attrs.reference: nothing to judge against
      throw InputError("check: the case gives no reference for its outputs (op " + rr.c.op +
                       ": attrs.reference, OUTPUT: FILE.npy or {op: OP, ...}); or compare with --expect DIR");
    for (const auto& [name, t] : rr.outputs) {
      bool judged = false;
      for (const auto& ref : refs) judged |= ref.output == name;
      if (!judged && !json) std::cout << "output " << name << ": no fp64 reference, not judged\n";
    }
    for (const auto& ref : refs)
      for (const auto& [name, t] : rr.outputs) {
        if (name != ref.output) continue;
        const auto r = op::compare_accuracy(name, t, ref.ref64, ref.naive, ref.working, ref.reduction_len,
                                            ref.gate_fa_rule, ref.unspecified, ref.tolerance);
        if (!json) std::cout << op::format_report(r);
        pass &= r.pass();
        acc.push_back(accuracy_json(r));
      }
    rr.report["accuracy"] = acc;
    bool match = true;
    if (!expect.empty()) match = compare_expected(rr, expect, tol, json, rr.report["expect"]);
    std::ofstream(fs::path(rr.report["out_dir"].get<std::string>()) / "report.json") << rr.report.dump(2) << "\n";
    if (json) {
      nlohmann::json j = {{"accuracy", acc}, {"pass", pass}};
      if (!expect.empty()) j["expect"] = rr.report["expect"], j["match"] = match;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << (pass ? "accuracy: PASS\n" : "accuracy: FAIL\n");
      if (!expect.empty())
        std::cout << (match ? (tol.any() ? "expected outputs: MATCH within " + tol.text() + "\n"
                                         : "expected outputs: MATCH\n")
                            : "expected outputs: MISMATCH\n");
    }
    return pass && match ? kExitOk : kExitMismatch;
  } catch (const op::CaseError& e) {
    throw InputError(e.what());
  }
}
}  // namespace

int cmd_run(const Args& args) { return run_like(args, false); }
int cmd_check(const Args& args) { return run_like(args, true); }

int cmd_ops(const Args& args) {
  po::options_description desc("ops options");
  std::string name, hw_name = sim::default_hw_name();
  bool tiling = false, json = false;
  auto option = desc.add_options();
  option("op", po::value(&name), "one op (default: all)");
  option("tiling", po::bool_switch(&tiling), "only the declared tiling keys and their legal values");
  option("json", po::bool_switch(&json),
         "machine-readable output (with --tiling: the legal space a sweep or tuner reads)");
  option("hw", po::value(&hw_name), "hardware config that resolves core-count bounds (default ascend910b2)");
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim ops [OP] [--tiling] [--json] [--hw NAME]", desc, {{"op", 1}}, vm))
    return kExitOk;
  std::vector<const op::Op*> ops;
  try {
    if (name.empty())
      for (const auto& o : op::all_ops()) ops.push_back(o.get());
    else ops.push_back(&op::find_op(name));
  } catch (const op::CaseError& e) {
    throw InputError(e.what());
  }
  const sim::HwConfig hw = sim::load_hw(hw_name);  // ConfigError: exit 2 naming the config
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const op::Op* o : ops) {
      nlohmann::json j = o->tiling_space().to_json(hw);
      if (!tiling) {
        j["summary"] = o->summary();
        j["params"] = nlohmann::json::array();
        for (const auto& p : o->params())
          j["params"].push_back({{"name", p.name},
                                 {"kind", p.kind},
                                 {"required", p.required},
                                 {"default", p.default_text},
                                 {"doc", p.doc}});
      }
      out.push_back(j);
    }
    std::cout << (name.empty() ? out : out[0]).dump(2) << "\n";
    return kExitOk;
  }
  for (const op::Op* o : ops) {
    std::cout << o->name() << ": " << o->summary() << "\n";
    if (!tiling)
      for (const auto& p : o->params())
        std::cout << "  " << p.name << " (" << p.kind << (p.required ? ", required" : ", default " + p.default_text)
                  << "): " << p.doc << "\n";
    std::cout << "  tiling keys (case `tiling:` / --set tiling.KEY=V):\n";
    for (const auto& k : o->tiling_space().keys()) {
      std::string follows;
      for (const auto& f : k.follows) follows += (follows.empty() ? "" : ", ") + f;
      std::cout << "    " << k.name << " (" << k.rule_text(hw) << "): " << k.doc << "; default: " << k.default_rule
                << (follows.empty() ? "" : " (adapts to " + follows + " as the case sets them)") << "\n";
    }
  }
  return kExitOk;
}

}  // namespace npusim::cli
