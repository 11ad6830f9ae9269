// npusim asm PROGRAM.s: runs an assembly program on one core of the simulated chip. The scalar unit issues
// the program's instructions one by one at simulated time, exactly as it runs a C++ kernel.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"
#include "sim/trace/trace_writer.h"
#include "tools/cli/asm_file.h"
#include "tools/cli/options.h"
#include "tools/cli/report.h"
#include "tools/cli/sim_options.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
sim::LaunchSpec program_launch(const AsmFile& f, const std::string& core, const sim::HwConfig& hw) {
  sim::LaunchSpec s{.name = "asm", .block_dim = 1};
  auto body = [prog = f.program](sim::CoreCtx& c) {
    for (const auto& in : prog) c.issue(in);
  };
  if (hw.topology == sim::Topology::Coupled || core == "aic") {
    s.mix = sim::MixMode::CubeOnly;
    s.cube = body;
  } else if (core == "aiv") {
    s.mix = sim::MixMode::VectorOnly;
    s.vector = body;
  } else {
    throw InputError("--core '" + core + "' must be aiv or aic");
  }
  return s;
}

void load_gm(sim::Machine& m, const AsmFile& f, const std::string& path) {
  const uint64_t base = m.gm().allocate("gm", f.gm_bytes);
  for (const auto& w : f.writes) {
    const auto bytes = encode_values(w, path);
    if (w.offset > f.gm_bytes || bytes.size() > f.gm_bytes - w.offset)  // no wrap-around for huge offsets
      throw InputError(path + ": .data/.fill at gm:" + std::to_string(w.offset) + " runs past .gm_bytes " +
                       std::to_string(f.gm_bytes));
    if (m.gm().backs_everything()) std::copy(bytes.begin(), bytes.end(), m.gm().ptr(base + w.offset, bytes.size()));
  }
}
}  // namespace

int cmd_asm(const Args& args) {
  po::options_description desc("asm options");
  SimOptions so;
  std::string program, core = "aiv";
  auto option = desc.add_options();
  option("program", po::value(&program)->required(), "assembly file");
  option("core", po::value(&core), "core kind that runs it on split chips: aiv (default) or aic");
  add_sim_options(desc, so);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim asm PROGRAM.s [options]", desc, {{"program", 1}}, vm)) return kExitOk;
  const AsmFile f = load_asm_file(program);
  SimSession session(so, fs::path(program).stem().string());
  sim::Machine& m = session.machine();
  load_gm(m, f, program);
  const auto result = m.launch(program_launch(f, core, m.hw()));
  auto report = launch_report(m, result, "asm", fs::path(program).stem().string());
  session.write_outputs(report);
  std::cout << summary_text(report);
  if (m.mode() != sim::SimMode::Timing)
    for (const auto& p : f.prints) {
      const uint64_t bytes = p.count * isa::bytes_of(p.dtype);
      if (p.count > f.gm_bytes || p.offset > f.gm_bytes || bytes > f.gm_bytes - p.offset)
        throw InputError(program + ":" + std::to_string(p.line) + ": .print past .gm_bytes");
      std::cout << "gm:0x" << std::hex << p.offset << std::dec << " " << isa::dtype_name(p.dtype) << " x" << p.count
                << ":\n  " << format_values(m.gm().ptr(m.gm().find("gm").offset + p.offset, bytes), p.dtype, p.count)
                << "\n";
    }
  return report_faults(result);
}

}  // namespace npusim::cli
