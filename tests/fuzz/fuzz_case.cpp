// Fuzz target: the case-file loader (shapes and dtypes, attrs, tiling, init specs) without generating data, so
// a hostile shape costs nothing; every input must end in a CaseError or a loaded case.
#include "kernels/host/case_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = npusim::fuzz::scratch_file(".yaml", data, size);
  npusim::fuzz::input_error_or_success([&] { npusim::op::load_case(path, {}, false); });
  return 0;
}
