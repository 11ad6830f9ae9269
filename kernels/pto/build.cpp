#include "kernels/pto/build.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <xxhash.h>

#include <fstream>
#include <sstream>

#include "kernels/host/case_file.h"
#include "kernels/host/input_cache.h"

extern char** environ;

namespace npusim::pto {

using op::CaseError;

std::string pto_include_dir() { return NPUSIM_PTO_INCLUDE_DIR; }

std::vector<std::string> build_command(const BuildOptions& o) {
  // -ffp-contract=off: the kernel's own scalar arithmetic rounds as written (as npusim's does).
  // -fvisibility=hidden: only the library's two entry points (pto-inst.hpp) are exported.
  std::vector<std::string> cmd;
  for (const char* a : {"-std=c++20", "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fvisibility=hidden"})
    cmd.emplace_back(a);
  cmd.insert(cmd.begin(), o.compiler);
  std::string inc = "-I";
  inc += pto_include_dir();
  cmd.push_back(inc);
  if (o.core == "cube") cmd.emplace_back("-D__DAV_C220_CUBE__"), cmd.emplace_back("-D__DAV_CUBE__");
  if (o.core == "vector") cmd.emplace_back("-D__DAV_C220_VEC__"), cmd.emplace_back("-D__DAV_VEC__");
  for (const auto& [flag, list] : {std::pair{'I', &o.include_dirs}, std::pair{'D', &o.defines}})
    for (const auto& d : *list) {
      std::string a = {'-', flag};
      a += d;
      cmd.push_back(a);
    }
  cmd.insert(cmd.end(), o.extra.begin(), o.extra.end());
  cmd.push_back(o.source);
  cmd.emplace_back("-o");
  cmd.push_back(o.out);
  return cmd;
}

int build_library(const BuildOptions& o) {
  if (o.source.empty() || !std::filesystem::is_regular_file(o.source))
    throw CaseError("pto build: source file '" + o.source + "' does not exist");
  if (o.out.empty()) throw CaseError("pto build: --out FILE.so is required");
  if (o.core != "cube" && o.core != "vector" && o.core != "any")
    throw CaseError("pto build: --core = '" + o.core + "' must be cube, vector or any");
  const std::vector<std::string> cmd = build_command(o);
  if (o.verbose) {
    for (const auto& a : cmd) std::cerr << a << ' ';
    std::cerr << '\n';
  }
  std::vector<char*> argv;
  for (const auto& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (err != 0) throw CaseError("pto build: cannot run '" + o.compiler + "': " + std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw CaseError(std::string("pto build: waiting for the compiler: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {
namespace fs = std::filesystem;

// Whether `lib` exists and is newer than every file its dependency list (`lib`.d, make syntax) names.
bool up_to_date(const std::string& lib) {
  std::error_code ec;
  const auto built = fs::last_write_time(lib, ec);
  if (ec) return false;
  std::ifstream d(lib + ".d");
  if (!d) return false;
  std::stringstream text;
  text << d.rdbuf();
  std::string all = text.str(), word;
  for (char& ch : all)
    if (ch == '\\' || ch == '\n') ch = ' ';
  std::istringstream words(all);
  words >> word;  // the target
  while (words >> word) {
    const auto t = fs::last_write_time(word, ec);
    if (ec || t > built) return false;
  }
  return true;
}
}  // namespace

std::string cached_library(BuildOptions o, const std::string& what) {
  const std::string dir = op::cache_subdir("pto");
  if (dir.empty()) throw CaseError(what + ": no cache folder for the built library (set NPUSIM_CACHE_DIR or HOME)");
  o.source = fs::absolute(o.source).string();
  for (auto& i : o.include_dirs) i = fs::absolute(i).string();
  o.out.clear();
  std::string key;
  for (const auto& a : build_command(o)) key += a + '\n';
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.so", static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())));
  const std::string lib = (fs::path(dir) / name).string();
  if (up_to_date(lib)) return lib;
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Built under a name of this process, then renamed: concurrent runs (a sweep's workers) see a whole library.
  const std::string tmp = lib + "." + std::to_string(getpid());
  o.out = tmp;
  o.extra = {"-MD", "-MF", tmp + ".d"};
  const int status = build_library(o);
  if (status != 0) {
    fs::remove(tmp, ec), fs::remove(tmp + ".d", ec);
    throw CaseError(what + ": " + o.compiler + " failed (status " + std::to_string(status) +
                    "); its messages are above");
  }
  fs::rename(tmp + ".d", lib + ".d", ec);
  fs::rename(tmp, lib, ec);
  if (ec) throw CaseError(what + ": cannot place the built library in " + dir + ": " + ec.message());
  return lib;
}

}  // namespace npusim::pto
