// npusim: the command line. Thin: dispatches to one function per subcommand and maps errors to the exit
// statuses of design.md.
#include <iostream>
#include <string>

#include "sim/config/hw_config.h"
#include "sim/machine/machine.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/commands.h"

namespace {
using npusim::cli::Args;

// Every subcommand, once: its name, its function and its usage lines (the dispatch, `npusim --help` and the
// unknown-command message all read this table).
struct Command {
  const char* name;
  int (*run)(const Args&);
  const char* usage;
};
const Command kCommands[] = {
    {"run", npusim::cli::cmd_run,
     "  run CASE.yaml [--hw NAME|FILE] [--out DIR] [--set KEY=VALUE]... [--mode full|functional|timing] [--trace]\n"
     "                run an operator case: outputs as .npy, report.json, resolved.yaml\n"
     "  run ... --save-inputs   also write every input (OUT/inputs/NAME.npy) and OUT/replay.yaml\n"},
    {"check", npusim::cli::cmd_check,
     "  check CASE.yaml [...] [--expect DIR] [--json]   run + compare every output with the op's fp64 reference and,\n"
     "                with --expect, bit for bit with DIR/OUTPUT.npy (exit 4 on failure)\n"},
    {"diff", npusim::cli::cmd_diff,
     "  diff DIR_A DIR_B [--json]   two run folders: outputs bit for bit, report.json side by side (exit 4 on a "
     "mismatch)\n"},
    {"sweep", npusim::cli::cmd_sweep,
     "  sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--emit-tasks FILE] | sweep --collect DIR\n"
     "                run points of a case over tiling / attrs / hw axes: results.jsonl, results.csv, summary.md\n"},
    {"tune", npusim::cli::cmd_tune,
     "  tune CASE.yaml [--budget N] [--objective O] [--jobs N] [--out DIR] [--set K=V]...\n"
     "                search the op's declared tiling space from its default: best.yaml, summary.md\n"},
    {"report", npusim::cli::cmd_report,
     "  report DIR [--out FILE] [--x KEY] [--y KEY] [--objective O] [--objective2 O]\n"
     "                a run folder (report.json, trace.json) or a sweep folder (results.jsonl) as one HTML page\n"},
    {"compare-profile", npusim::cli::cmd_compare_profile,
     "  compare-profile DEVICE.csv RUN_DIR [--row N | --name TEXT] [--json]   a device profile row (msprof\n"
     "                op_summary_*.csv or torch_npu kernel_details.csv) beside a run's op_summary.csv, sim / device\n"},
    {"pto", npusim::cli::cmd_pto,
     "  pto build KERNEL.cpp --out KERNEL.so [-I DIR]... [-D NAME=VALUE]... [--core cube|vector]\n"
     "                compile a PTO tile-language kernel against npusim's PTO headers; op pto runs its entries\n"},
    {"ops", npusim::cli::cmd_ops,
     "  ops [OP] [--tiling] [--json]   registered ops: parameters and declared tiling keys (--json: "
     "machine-readable)\n"},
    {"asm", npusim::cli::cmd_asm,
     "  asm PROGRAM.s [--hw NAME|FILE] [--set KEY=VALUE]... [--core aiv|aic] [--mode full|functional|timing]\n"
     "                [--out DIR] [--trace] [--trace-cores LIST] [--trace-window FROM:TO]\n"
     "                run an assembly program on one core of the simulated chip\n"},
    {"micro", npusim::cli::cmd_micro,
     "  micro [NAME...] [--hw NAME|FILE] [--set KEY=VALUE]...   microbenchmarks vs the configured rates\n"},
    {"hw", npusim::cli::cmd_hw,
     "  hw list | hw show NAME [--set KEY=VALUE]...            bundled hardware configs, resolved\n"},
};

std::string usage() {
  std::string u = "usage: npusim <command> [options]\ncommands:\n";
  for (const Command& c : kCommands) u += c.usage;
  return u + "run 'npusim <command> --help' for the options of a command\n";
}

std::string command_names() {
  std::string n;
  for (const Command& c : kCommands) n += (n.empty() ? "" : ", ") + std::string(c.name);
  return n;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace npusim::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << usage();
    return argc < 2 ? kExitInput : kExitOk;
  }
  const std::string name = argv[1];
  const Command* it = nullptr;
  for (const Command& c : kCommands)
    if (name == c.name) it = &c;
  if (!it) {
    std::cerr << "npusim: unknown command '" << name << "' (valid: " << command_names() << ")\n" << usage();
    return kExitInput;
  }
  try {
    return it->run(Args(argv + 2, argv + argc));
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
