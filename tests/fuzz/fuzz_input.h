#pragma once
// Shared by the fuzz targets: the loaders under test read files, so each input is written to a per-process
// scratch file first; an input error (the exit-2 path) is a pass, anything else escaping is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "kernels/host/case_file.h"
#include "sim/config/hw_config.h"
#include "tools/cli/cli_error.h"

namespace npusim::fuzz {

// Runs f; the three input-error types the CLI maps to exit 2 are a pass. Anything else propagates, and
// libFuzzer reports the uncaught exception (or the sanitizer its crash) as a finding.
template <class F>
void input_error_or_success(F&& f) {
  try {
    f();
  } catch (const op::CaseError&) {
  } catch (const sim::ConfigError&) {
  } catch (const cli::InputError&) {}
}

inline std::string scratch_file(const char* suffix, const uint8_t* data, size_t size) {
  const std::string path = "/tmp/npusim-fuzz-" + std::to_string(::getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path;
}

}  // namespace npusim::fuzz
