// npusim hw list | hw show NAME: the bundled hardware descriptions, resolved (base + --set applied).
#include <iostream>

#include "sim/config/hw_config.h"
#include "tools/cli/options.h"

namespace npusim::cli {

int cmd_hw(const Args& args) {
  po::options_description desc("hw options");
  std::vector<std::string> sets, words;
  desc.add_options()("set", po::value(&sets), "override a key: KEY=VALUE (e.g. core.ub_bytes=131072)")(
      "words", po::value(&words), "list | show NAME");
  po::positional_options_description pos;
  pos.add("words", -1);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim hw list | npusim hw show NAME|FILE [--set KEY=VALUE]...", desc, pos, vm))
    return kExitOk;
  if (words.size() == 1 && words[0] == "list") {
    for (const auto& n : sim::bundled_hw_names()) {
      const auto c = sim::load_hw(n);
      std::cout << n << (n == sim::default_hw_name() ? " (default)" : "") << ": "
                << (c.topology == sim::Topology::Split ? "split" : "coupled") << ", " << c.chip.ai_cores
                << " AI cores at " << c.chip.clock_mhz << " MHz\n";
    }
    return kExitOk;
  }
  if (words.size() == 2 && words[0] == "show") {
    std::cout << sim::hw_to_yaml(sim::load_hw(words[1], sets));
    return kExitOk;
  }
  throw InputError("expected 'hw list' or 'hw show NAME' (got '" + (words.empty() ? std::string() : words[0]) + "')");
}

}  // namespace npusim::cli
