#pragma once
// Per-test scratch directories: unique to the running test and process (ctest runs tests in parallel, and two
// build trees may run the same test at once), created on first use and removed when the process exits (set
// NPUSIM_KEEP_SCRATCH=1 to keep them for a look).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace npusim::test {

class ScratchDirs {
 public:
  static std::filesystem::path for_current_test() {
    static ScratchDirs dirs;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : std::string("no_test");
    for (char& ch : name)
      if (ch == '/') ch = '_';  // parameterised tests: Suite/Instance
    auto it = dirs.made_.find(name);
    if (it != dirs.made_.end()) return it->second;
    const auto dir = std::filesystem::temp_directory_path() / ("npusim_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dirs.made_[name] = dir;
  }
  ~ScratchDirs() {
    if (std::getenv("NPUSIM_KEEP_SCRATCH")) return;
    std::error_code ec;
    for (const auto& [name, dir] : made_) std::filesystem::remove_all(dir, ec);
  }

 private:
  std::map<std::string, std::filesystem::path> made_;
};

// The running test's scratch directory.
inline std::filesystem::path scratch_dir() { return ScratchDirs::for_current_test(); }

}  // namespace npusim::test
