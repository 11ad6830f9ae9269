// Fuzz target: the assembly-file loader of `npusim asm` (host directives and instructions).
#include "tests/fuzz/fuzz_input.h"
#include "tools/cli/asm_file.h"
#include "tools/cli/cli_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = npusim::fuzz::scratch_file(".s", data, size);
  npusim::fuzz::input_error_or_success([&] { npusim::cli::load_asm_file(path); });
  return 0;
}
