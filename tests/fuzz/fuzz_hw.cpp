// Fuzz target: the hardware-config loader with --set overrides. The input's first line(s) up to a line "---"
// are --set texts (one per line), the rest is the config file (with or without `base:`).
#include <sstream>

#include "sim/config/hw_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  std::string file = text;
  if (const auto sep = text.find("\n---\n"); sep != std::string::npos) {
    std::istringstream in(text.substr(0, sep));
    for (std::string line; std::getline(in, line);) sets.push_back(line);
    file = text.substr(sep + 5);
  }
  const std::string path =
      npusim::fuzz::scratch_file(".yaml", reinterpret_cast<const uint8_t*>(file.data()), file.size());
  npusim::fuzz::input_error_or_success([&] { npusim::sim::load_hw(path, sets); });
  return 0;
}
