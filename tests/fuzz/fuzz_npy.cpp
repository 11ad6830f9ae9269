// Fuzz target: the .npy reader; every input must end in a CaseError or a tensor (no huge allocation: the
// header's shape must match the file's size before anything is allocated).
#include "kernels/host/case_file.h"
#include "kernels/host/npy.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = npusim::fuzz::scratch_file(".npy", data, size);
  npusim::fuzz::input_error_or_success([&] { npusim::op::read_npy(path); });
  return 0;
}
