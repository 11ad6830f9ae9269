#pragma once
// Helpers for the case-file tests: raw file writing, hand-built .npy bytes, error capture.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "kernels/host/case_file.h"
#include "tests/support/scratch.h"

namespace npusim::op::casetest {

using test::scratch_dir;  // tests/support/scratch.h

inline std::string write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

inline std::string write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return p.string();
}

// A .npy file built by hand: magic, version, header length of 2 (v1) or 4 (v2 / v3) bytes, dict, data.
inline std::vector<uint8_t> npy_bytes(int major, const std::string& dict, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t len = dict.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) b.push_back(static_cast<uint8_t>(len >> (8 * i)));
  for (char ch : dict) b.push_back(static_cast<uint8_t>(ch));  // (vector::insert of chars trips a g++ 12 false warning)
  for (uint8_t v : data) b.push_back(v);
  return b;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CaseError& e) {
    return e.what();
  }
  return "(no CaseError)";
}

}  // namespace npusim::op::casetest
