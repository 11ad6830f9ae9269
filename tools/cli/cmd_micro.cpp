// npusim micro [NAME...]: runs microbenchmarks, each in its own forked process (one SystemC machine per
// process), and prints measured vs configured rates.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "kernels/micro/micro.h"
#include "sim/config/hw_config.h"
#include "tools/cli/sim_options.h"

namespace npusim::cli {

namespace {
// Runs `name` in a child; the child writes one tab-separated line to the pipe.
std::string run_child(const std::string& name, const sim::HwConfig& hw) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string line;
    try {
      sim::Machine m(hw, sim::SimMode::Timing);
      const auto r = kernels::micro::run_micro(m, name);
      std::ostringstream os;
      os << r.name << "\t" << r.cycles << "\t" << r.measured << "\t" << r.expected << "\t" << r.unit << "\n";
      line = os.str();
    } catch (const std::exception& e) {
      line = name + "\tERROR\t" + e.what() + "\n";
    }
    if (write(fds[1], line.data(), line.size()) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}
}  // namespace

int cmd_micro(const Args& args) {
  po::options_description desc("micro options");
  std::vector<std::string> names, sets;
  std::string hw_name;
  auto option = desc.add_options();
  option("names", po::value(&names), "microbenchmarks (default: all)");
  option("hw", po::value(&hw_name), "hardware config (default ascend910b2)");
  option("set", po::value(&sets), "hw.KEY=VALUE");
  po::variables_map vm;
  std::string usage = "usage: npusim micro [NAME...] [--hw NAME] [--set hw.KEY=VALUE]...\nnames:";
  for (const auto& n : kernels::micro::micro_names()) usage += " " + n;
  if (!parse_options(args, usage, desc, {{"names", -1}}, vm)) return kExitOk;
  if (names.empty()) names = kernels::micro::micro_names();
  const auto valid = kernels::micro::micro_names();
  for (const auto& n : names)
    if (std::find(valid.begin(), valid.end(), n) == valid.end())
      throw InputError("unknown microbenchmark '" + n + "'\n" + usage);
  const auto hw = sim::load_hw(hw_name.empty() ? sim::default_hw_name() : hw_name, sets);
  std::cout << "microbenchmarks on " << hw.name << " (timing mode)\n"
            << std::left << std::setw(28) << "name" << std::setw(12) << "cycles" << std::setw(14) << "measured"
            << std::setw(14) << "expected" << std::setw(8) << "ratio"
            << "unit\n";
  int status = kExitOk;
  for (const auto& n : names) {
    std::stringstream line(run_child(n, hw));
    std::string name, cycles, measured, expected, unit;
    std::getline(line, name, '\t');
    std::getline(line, cycles, '\t');
    std::getline(line, measured, '\t');
    if (cycles == "ERROR") {
      std::cout << n << ": " << measured << "\n";
      status = kExitFault;
      continue;
    }
    std::getline(line, expected, '\t');
    std::getline(line, unit);
    const double ratio = std::stod(measured) / std::stod(expected);
    std::cout << std::setw(28) << name << std::setw(12) << cycles << std::setw(14) << measured << std::setw(14)
              << expected << std::setw(8) << std::setprecision(4) << ratio << unit << "\n";
  }
  return status;
}

}  // namespace npusim::cli
