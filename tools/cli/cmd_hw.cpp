// npusim hw list | hw show NAME: the bundled hardware descriptions, resolved (base + --set applied).
#include <iostream>
#include <map>
#include <sstream>

#include "sim/config/hw_config.h"
#include "tools/cli/options.h"

namespace npusim::cli {

namespace {
// The resolved YAML with each key's source as a trailing comment (its tag, the config's comment, file:line, or
// the --set), so `hw show` keeps the [DOC] / [DER] / [EST] provenance of every number.
std::string annotated(const std::string& yaml, const std::map<std::string, std::string>& sources) {
  std::istringstream in(yaml);
  std::string out, section;
  for (std::string line; std::getline(in, line);) {
    const bool nested = line.rfind("  ", 0) == 0;
    const auto colon = line.find(':');
    const std::string key = colon == std::string::npos ? "" : line.substr(nested ? 2 : 0, colon - (nested ? 2 : 0));
    if (!nested && colon + 1 == line.size()) section = key;  // "core:" opens a section
    const auto it = sources.find(nested ? section + "." + key : key);
    out += line;
    if (colon != std::string::npos && colon + 1 < line.size() && it != sources.end())
      out += std::string(line.size() < 34 ? 34 - line.size() : 1, ' ') + "# " + it->second;
    out += "\n";
  }
  return out;
}
}  // namespace

int cmd_hw(const Args& args) {
  po::options_description desc("hw options");
  std::vector<std::string> sets, words;
  auto option = desc.add_options();
  option("set", po::value(&sets), "override a key: KEY=VALUE (e.g. core.ub_bytes=131072)");
  option("words", po::value(&words), "list | show NAME");
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim hw list | npusim hw show NAME|FILE [--set KEY=VALUE]...", desc,
                     {{"words", -1}}, vm))
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
    std::cout << annotated(sim::hw_to_yaml(sim::load_hw(words[1], sets)), sim::hw_key_sources(words[1], sets));
    return kExitOk;
  }
  throw InputError("expected 'hw list' or 'hw show NAME' (got '" + (words.empty() ? std::string() : words[0]) + "')");
}

}  // namespace npusim::cli
