#pragma once
// `npusim pto build`: compiles a PTO kernel source into a kernel library with the system C++ compiler against
// npusim's PTO headers (kernels/pto/include).
#include <string>
#include <vector>

namespace npusim::pto {

struct BuildOptions {
  std::string source, out;
  std::vector<std::string> include_dirs, defines;  // defines: NAME or NAME=VALUE
  std::string core = "any";                        // cube | vector | any: defines __DAV_C220_CUBE__ / __DAV_C220_VEC__
  std::string compiler = "g++";
  bool verbose = false;
  std::vector<std::string> extra;  // more compiler arguments (the cache's dependency file)
};

// The compiler's argument list (argv[0] is the compiler).
std::vector<std::string> build_command(const BuildOptions& o);
// Runs it; returns the compiler's exit status (0 on success; its messages go to stderr). Throws op::CaseError for
// options that cannot work (no source, unknown core).
int build_library(const BuildOptions& o);
// A library built from `o.source` (o.out ignored) in npusim's cache (kernels/host/input_cache.h cache_subdir("pto")),
// keyed by the compiler command; rebuilt when the source or any header it includes (the compiler's dependency
// list) is newer than the library. Returns its path. Throws op::CaseError naming `what` when the compiler fails
// (its messages go to stderr) or no cache folder is available.
std::string cached_library(BuildOptions o, const std::string& what);
// The directory holding pto/pto-inst.hpp.
std::string pto_include_dir();

}  // namespace npusim::pto
