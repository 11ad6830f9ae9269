#include "tools/cli/case_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "kernels/host/npy.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tools/cli/op_summary.h"
#include "tools/cli/report.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {

// Compute- and memory-bound lower limits of this case on this config (design.md report.json "roofline").
nlohmann::json roofline(const sim::HwConfig& hw, const op::Prepared& p, uint64_t cycles) {
  const double compute =
      static_cast<double>(p.executed_flops_bound) / (2.0 * p.macs_per_cycle_per_core * hw.chip.ai_cores);
  const double gm_rate = std::min<double>(static_cast<double>(hw.hbm.bytes_per_cycle),
                                          static_cast<double>(hw.chip.ai_cores * hw.mte2.port_bytes_per_cycle));
  const double memory = static_cast<double>(p.min_gm_bytes) / gm_rate;
  const double best = std::max(compute, memory);
  return {{"compute_bound_cycles", compute},
          {"memory_bound_cycles", memory},
          // The roofs behind them (npusim report draws the roofline from these).
          {"peak_flops_per_cycle", 2.0 * p.macs_per_cycle_per_core * hw.chip.ai_cores},
          {"gm_bytes_per_cycle", gm_rate},
          {"executed_flops_bound", p.executed_flops_bound},
          {"min_gm_bytes", p.min_gm_bytes},
          {"limit", compute >= memory ? "compute" : "memory"},
          {"ratio", best > 0 ? static_cast<double>(cycles) / best : 0.0},
          {"cube_peak_fraction", cycles > 0 ? compute / static_cast<double>(cycles) : 0.0}};
}

// One tensor entry as the case file wrote it (file, or shape + init), so resolved.yaml reproduces the run.
void emit_tensor(YAML::Emitter& y, const op::TensorEntry& t) {
  y << YAML::Flow << YAML::BeginMap << YAML::Key << "dtype" << YAML::Value << op::elem_type_name(t.dtype);
  if (!t.file.empty()) {
    y << YAML::Key << "file" << YAML::Value << t.file;
  } else {
    y << YAML::Key << "shape" << YAML::Value << YAML::Flow << t.shape << YAML::Key << "init" << YAML::Value
      << YAML::Flow << YAML::BeginMap << YAML::Key << "dist" << YAML::Value << t.init.dist << YAML::Key << "mean"
      << YAML::Value << t.init.mean << YAML::Key << "std" << YAML::Value << t.init.std << YAML::Key << "low"
      << YAML::Value << t.init.low << YAML::Key << "high" << YAML::Value << t.init.high << YAML::Key << "seed"
      << YAML::Value << t.init.seed;
    if (t.init.dist == "bernoulli") y << YAML::Key << "p" << YAML::Value << t.init.p;  // its only parameter
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
}

std::string case_yaml(const op::CaseFile& c, const op::Prepared& p) {
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "case" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "op" << YAML::Value << c.op << YAML::Key << "attrs" << YAML::Value << c.attrs;
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, list] : c.inputs) {
    y << YAML::Key << name << YAML::Value;
    if (!c.tensor_is_list(name)) {
      emit_tensor(y, list[0]);
      continue;
    }
    y << YAML::BeginSeq;
    for (const auto& t : list) emit_tensor(y, t);
    y << YAML::EndSeq;
  }
  y << YAML::EndMap << YAML::Key << "tiling" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : p.tiling) y << YAML::Key << k << YAML::Value << v;
  y << YAML::EndMap << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

// The op's tensors as msprof lists them: every declared tensor parameter in order (a list's tensors each, an
// absent optional one before the last given as an empty item), then the outputs.
ProfiledOp profiled_op(const op::Op& the_op, const op::CaseFile& c, const op::Prepared& prep) {
  ProfiledOp p{c.name, device_op_type(c.op), {}, {}};
  for (const auto& param : the_op.params()) {
    if (!param.is_tensor()) continue;
    const auto it = c.inputs.find(param.name);
    if (it == c.inputs.end()) p.inputs.push_back({});
    else
      for (const auto& t : it->second) p.inputs.push_back({t.shape, op::elem_type_name(t.dtype)});
  }
  // Trailing absent ones are not listed (msprof-analyze's 910B MatMulV2 row: "81920,4096;8192,512", bias absent).
  while (!p.inputs.empty() && p.inputs.back().dtype.empty()) p.inputs.pop_back();
  for (const auto& o : prep.outputs) p.outputs.push_back({o.shape, op::elem_type_name(o.type)});
  return p;
}

void write_op_summary(const std::string& dir, const nlohmann::json& report, const sim::HwConfig& hw,
                      const ProfiledOp& p) {
  std::ofstream(fs::path(dir) / "op_summary.csv")
      << op_summary_csv(op_summary_row(report, hw.chip.clock_mhz, hw.chip.ai_cores, p));
}
}  // namespace

// Generating the inputs holds each one on the host and again in GM: refuse up front what would not fit, before
// a bad_alloc or the kernel's OOM killer (the shapes come from a load without data).
void refuse_over_budget(const op::CaseFile& shapes, uint64_t budget, const std::string& mode) {
  uint64_t bytes = 0;
  std::vector<std::pair<uint64_t, std::string>> sizes;  // per input, for naming the largest
  for (const auto& [name, list] : shapes.inputs)
    for (size_t i = 0; i < list.size(); ++i) {
      uint64_t n = uint64_t(op::elem_bytes(list[i].dtype));
      for (int64_t d : list[i].shape) n = d > 0 && n > UINT64_MAX / uint64_t(d) ? UINT64_MAX / 4 : n * uint64_t(d);
      bytes = std::min(UINT64_MAX / 4, bytes + n);
      sizes.emplace_back(n, list.size() > 1 ? name + "[" + std::to_string(i) + "]" : name);
    }
  if (2 * bytes <= budget) return;
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  std::string largest;
  for (size_t i = 0; i < sizes.size() && i < 3; ++i)
    largest += (i ? ", " : "") + sizes[i].second + " " + std::to_string(sizes[i].first);
  throw InputError("case " + shapes.path + ": its inputs hold " + std::to_string(bytes) +
                   " bytes (largest: " + largest + "); --mode " + mode + " keeps them on the host and in GM, about " +
                   std::to_string(2 * bytes) + " bytes, over the host-memory budget of " + std::to_string(budget) +
                   " (--host-memory / NPUSIM_HOST_MEMORY; --mode timing keeps no tensor data)");
}

SimOptions split_sets(const SimOptions& so, std::vector<std::string>& case_sets) {
  SimOptions hw_opts = so;
  hw_opts.sets.clear();
  for (const auto& s : so.sets) (s.rfind("hw.", 0) == 0 ? hw_opts.sets : case_sets).push_back(s);
  return hw_opts;
}

int fault_status(const std::vector<sim::Fault>& faults) {
  bool input = false, internal = false;
  for (const auto& f : faults) input |= f.kind == "input", internal |= f.kind == "internal";
  if (faults.empty()) return kExitOk;
  return internal ? kExitInternal : input ? kExitInput : kExitFault;
}

CaseRun run_loaded_case(op::CaseFile c, const SimOptions& so, const CaseRunHooks& hooks) {
  const auto t0 = std::chrono::steady_clock::now();
  CaseRun rr;
  rr.c = std::move(c);
  const op::Op& the_op = op::find_op(rr.c.op);
  SimSession session(so, rr.c.name, hooks.write_files);
  sim::Machine& m = session.machine();
  if (hooks.configure) hooks.configure(m);
  const op::Prepared prep = the_op.prepare(rr.c, m);
  rr.tiling = prep.tiling;
  for (const auto& [k, v] : prep.tiling) rr.report["tiling"][k] = v;
  for (const auto& [k, v] : prep.clamped) rr.report["tiling_clamped"][k] = v;
  if (hooks.plan_only) {
    rr.report["plan_only"] = true;
    return rr;
  }
  const auto t_setup = std::chrono::steady_clock::now();
  const auto result = m.launch(prep.launch);
  rr.report.update(launch_report(m, result, rr.c.op, rr.c.name));
  rr.report["sim"]["setup_s"] = std::chrono::duration<double>(t_setup - t0).count();  // case, inputs, GM
  rr.report["flops"] = prep.flops;
  const double secs = sim::cycles_to_us(m.hw(), result.cycles) * 1e-6;
  rr.report["achieved_tflops"] = secs > 0 ? static_cast<double>(prep.flops) / secs * 1e-12 : 0.0;
  rr.report["roofline"] = roofline(m.hw(), prep, result.cycles);
  rr.report["hw_overrides"] = so.sets;  // the effective hw is `hw` with these --set overrides (resolved.yaml: all keys)
  rr.faults = result.faults, rr.notes = result.notes;
  rr.status = hooks.print_faults ? report_faults(result) : fault_status(result.faults);
  if (rr.status == kExitOk && m.mode() != sim::SimMode::Timing)
    for (const auto& o : prep.outputs) {
      rr.outputs.emplace_back(o.name, op::read_output(m, o));
      if (hooks.write_files)
        op::write_npy((fs::path(session.out_dir()) / (o.name + ".npy")).string(),
                      op::output_encoding(rr.outputs.back().second));
    }
  rr.report["outputs"] = nlohmann::json::array();  // the .npy files actually written
  if (hooks.write_files)
    for (const auto& o : rr.outputs) rr.report["outputs"].push_back(o.first);
  for (const auto& o : prep.outputs) rr.report["output_types"][o.name] = op::elem_type_name(o.type);  // diff reads them
  rr.report["out_dir"] = hooks.write_files ? nlohmann::json(session.out_dir()) : nlohmann::json(nullptr);
  rr.report["sim"]["total_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (hooks.write_files) {
    session.write_outputs(rr.report, case_yaml(rr.c, prep));
    write_op_summary(session.out_dir(), rr.report, m.hw(), profiled_op(the_op, rr.c, prep));
  }
  return rr;
}

}  // namespace npusim::cli
