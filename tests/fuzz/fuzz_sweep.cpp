// Fuzz target: the sweep-file loader (axes, sampling, objectives, inline cases).
#include "tests/fuzz/fuzz_input.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/sweep_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = npusim::fuzz::scratch_file(".yaml", data, size);
  npusim::fuzz::input_error_or_success([&] { npusim::cli::load_sweep(path); });
  return 0;
}
