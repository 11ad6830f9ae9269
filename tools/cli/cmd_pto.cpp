// npusim pto build KERNEL.cpp --out KERNEL.so: a PTO tile-language kernel compiled against npusim's PTO headers
// (kernels/pto/README.md); op `pto` runs its entries from a case file.
#include <iostream>

#include "kernels/host/case_file.h"
#include "kernels/pto/build.h"
#include "tools/cli/options.h"

namespace npusim::cli {

int cmd_pto(const Args& args) {
  po::options_description desc("pto build options");
  npusim::pto::BuildOptions o;
  std::vector<std::string> words;
  auto option = desc.add_options();
  option("out,o", po::value(&o.out), "the kernel library to write (FILE.so)");
  option("include,I", po::value(&o.include_dirs), "an include directory (repeatable)");
  option("define,D", po::value(&o.defines), "a preprocessor definition NAME or NAME=VALUE (repeatable)");
  option("core", po::value(&o.core)->default_value("any"),
         "cube | vector | any: build the cube or vector part (defines __DAV_C220_CUBE__ / __DAV_C220_VEC__)");
  option("cxx", po::value(&o.compiler)->default_value("g++"), "the C++ compiler");
  option("verbose,v", po::bool_switch(&o.verbose), "print the compiler command");
  option("words", po::value(&words), "build KERNEL.cpp");
  po::variables_map vm;
  if (!parse_options(
          args,
          "usage: npusim pto build KERNEL.cpp --out KERNEL.so [-I DIR]... [-D NAME=VALUE]... [--core cube|vector|any]",
          desc, {{"words", -1}}, vm))
    return kExitOk;
  if (words.size() != 2 || words[0] != "build")
    throw InputError("expected 'pto build KERNEL.cpp --out KERNEL.so' (got '" +
                     (words.empty() ? std::string() : words[0]) + "')");
  o.source = words[1];
  try {
    const int status = npusim::pto::build_library(o);
    if (status != 0) {
      std::cerr << "npusim pto build: " << o.compiler << " failed (status " << status << ") on " << o.source
                << "; its messages are above\n";
      return kExitInput;
    }
  } catch (const npusim::op::CaseError& e) {
    throw InputError(e.what());
  }
  std::cout << o.out << "\n";
  return kExitOk;
}

}  // namespace npusim::cli
