#include "tools/cli/options.h"

#include <iostream>

namespace npusim::cli {

bool parse_options(const Args& args, const std::string& usage, const po::options_description& desc,
                   Positionals positional, po::variables_map& vm) {
  po::positional_options_description pos;
  for (const auto& [name, count] : positional) pos.add(name, count);
  po::options_description all = desc;
  all.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << all;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

}  // namespace npusim::cli
