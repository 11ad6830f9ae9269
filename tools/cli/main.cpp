// npusim: the command line. Thin: dispatches to one function per subcommand and maps errors to the exit
// statuses of design.md.
#include <iostream>
#include <map>

#include "sim/config/hw_config.h"
#include "sim/machine/machine.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/commands.h"

namespace {
const char* kUsage =
    "usage: npusim <command> [options]\n"
    "commands:\n"
    "  run CASE.yaml [--hw NAME|FILE] [--out DIR] [--set KEY=VALUE]... [--mode full|functional|timing] [--trace]\n"
    "                run an operator case: outputs as .npy, report.json, resolved.yaml\n"
    "  run ... --save-inputs   also write every input (OUT/inputs/NAME.npy) and OUT/replay.yaml\n"
    "  check CASE.yaml [...] [--expect DIR] [--json]   run + compare every output with the op's fp64 reference and,\n"
    "                with --expect, bit for bit with DIR/OUTPUT.npy (exit 4 on failure)\n"
    "  diff DIR_A DIR_B [--json]   two run folders: outputs bit for bit, report.json side by side (exit 4 on a mismatch)\n"
    "  sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--emit-tasks FILE] | sweep --collect DIR\n"
    "                run points of a case over tiling / attrs / hw axes: results.jsonl, results.csv, summary.md\n"
    "  tune CASE.yaml [--budget N] [--objective O] [--jobs N] [--out DIR] [--set K=V]...\n"
    "                search the op's declared tiling space from its default: best.yaml, summary.md\n"
    "  report DIR [--out FILE] [--x KEY] [--y KEY] [--objective O] [--objective2 O]\n"
    "                a run folder (report.json, trace.json) or a sweep folder (results.jsonl) as one HTML page\n"
    "  compare-profile DEVICE.csv RUN_DIR [--row N | --name TEXT] [--json]   a device profile row (msprof\n"
    "                op_summary_*.csv or torch_npu kernel_details.csv) beside a run's op_summary.csv, sim / device\n"
    "  pto build KERNEL.cpp --out KERNEL.so [-I DIR]... [-D NAME=VALUE]... [--core cube|vector]\n"
    "                compile a PTO tile-language kernel against npusim's PTO headers; op pto runs its entries\n"
    "  ops [OP] [--tiling] [--json]   registered ops: parameters and declared tiling keys (--json: machine-readable)\n"
    "  asm PROGRAM.s [--hw NAME|FILE] [--set KEY=VALUE]... [--core aiv|aic] [--mode full|functional|timing]\n"
    "                [--out DIR] [--trace] [--trace-cores LIST] [--trace-window FROM:TO]\n"
    "                run an assembly program on one core of the simulated chip\n"
    "  micro [NAME...] [--hw NAME|FILE] [--set KEY=VALUE]...   microbenchmarks vs the configured rates\n"
    "  hw list | hw show NAME [--set KEY=VALUE]...            bundled hardware configs, resolved\n"
    "run 'npusim <command> --help' for the options of a command\n";
}

int main(int argc, char** argv) {
  using namespace npusim::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? kExitInput : kExitOk;
  }
  const std::map<std::string, int (*)(const Args&)> commands = {{"hw", cmd_hw}, {"asm", cmd_asm}, {"micro", cmd_micro}, {"run", cmd_run}, {"check", cmd_check}, {"ops", cmd_ops}, {"diff", cmd_diff}, {"sweep", cmd_sweep}, {"tune", cmd_tune}, {"report", cmd_report}, {"compare-profile", cmd_compare_profile}, {"pto", cmd_pto}};
  const std::string name = argv[1];
  const auto it = commands.find(name);
  if (it == commands.end()) {
    std::cerr << "npusim: unknown command '" << name << "' (valid: run, check, diff, sweep, tune, report, compare-profile, ops, pto, asm, hw, micro)\n" << kUsage;
    return kExitInput;
  }
  try {
    return it->second(Args(argv + 2, argv + argc));
  } catch (const InputError& e) {
    std::cerr << "npusim " << name << ": " << e.what() << "\n";
    return kExitInput;
  } catch (const npusim::sim::KernelInputError& e) {
    std::cerr << "npusim " << name << ": " << e.what() << "\n";
    return kExitInput;
  } catch (const npusim::sim::ConfigError& e) {
    std::cerr << "npusim " << name << ": " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "npusim " << name << ": internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
