#pragma once
// One function per subcommand; each parses its own options and returns the process exit status.
#include <string>
#include <vector>

namespace npusim::cli {

using Args = std::vector<std::string>;  // the arguments after the subcommand name

int cmd_hw(const Args& args);      // npusim hw list | hw show NAME [--set K=V]...
int cmd_asm(const Args& args);     // npusim asm PROGRAM.s [...]: an assembly program on one core
int cmd_micro(const Args& args);   // npusim micro [NAME...]: microbenchmarks vs configured rates
int cmd_run(const Args& args);     // npusim run CASE.yaml: an operator case, outputs + report
int cmd_check(const Args& args);   // npusim check CASE.yaml: run + accuracy against the fp64 reference
int cmd_ops(const Args& args);     // npusim ops: registered ops and their parameters
int cmd_sweep(const Args& args);   // npusim sweep SWEEP.yaml: many run points in parallel processes
int cmd_tune(const Args& args);    // npusim tune CASE.yaml: coordinate descent over the declared tiling space
int cmd_diff(const Args& args);    // npusim diff DIR_A DIR_B: two run folders, outputs bit for bit and report.json
int cmd_report(const Args& args);  // npusim report DIR: a run or sweep folder as one HTML page with SVG charts
// npusim compare-profile DEVICE.csv RUN_DIR: a device profile row vs a run
int cmd_compare_profile(const Args& args);
int cmd_pto(const Args& args);  // npusim pto build KERNEL.cpp --out KERNEL.so: a PTO kernel library

}  // namespace npusim::cli
