#pragma once
// The one case-file writer of the tests: an op name, attrs, tensors (generated, or written as .npy beside the
// case) and tiling overrides, written as a case file (design.md "Case file") that the op then loads through
// the whole path (case loading, parameter checks, tiling, kernel).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/host/npy.h"

namespace npusim::test {

class CaseWriter {
 public:
  CaseWriter(std::filesystem::path dir, std::string op) : dir_(std::move(dir)), op_(std::move(op)) {}
  // attrs.KEY: VALUE (VALUE is YAML text: 8, true, BNSD, [1, 2]).
  CaseWriter& attr(const std::string& key, const std::string& yaml_value) {
    attrs_ << "  " << key << ": " << yaml_value << "\n";
    return *this;
  }
  template <class T>
  CaseWriter& attr(const std::string& key, const T& v) {
    std::ostringstream os;
    os << v;
    return attr(key, os.str());
  }
  // A generated tensor: {shape: SHAPE, dtype: DTYPE, init: INIT} (INIT is a YAML map body, "dist: normal, seed: 1").
  CaseWriter& generated(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype,
                        const std::string& init) {
    inputs_ << "  " << name << ": {shape: " << list(shape) << ", dtype: " << dtype << ", init: {" << init << "}}\n";
    return *this;
  }
  // A tensor written as DIR/FILE.npy (bf16 as its uint16 bit patterns, design.md "Case file"), declared as `dtype`.
  CaseWriter& file(const std::string& name, const op::HostTensor& t, const std::string& dtype,
                   const std::string& stem = "") {
    inputs_ << "  " << name << ": " << entry(stem.empty() ? name : stem, t, dtype) << "\n";
    return *this;
  }
  // A tensor-list parameter: one .npy per element.
  CaseWriter& file_list(const std::string& name, const std::vector<op::HostTensor>& ts, const std::string& dtype) {
    inputs_ << "  " << name << ":\n";
    for (size_t i = 0; i < ts.size(); ++i) inputs_ << "    - " << entry(name + std::to_string(i), ts[i], dtype) << "\n";
    return *this;
  }
  CaseWriter& tiling(const std::string& yaml_body) {
    tiling_ = yaml_body;
    return *this;
  }
  // Writes DIR/FILE and returns its path.
  std::string write(const std::string& file = "case.yaml") const {
    std::filesystem::create_directories(dir_);
    std::ostringstream y;
    const std::string attrs = attrs_.str();
    y << "op: " << op_ << "\nattrs:";
    if (attrs.empty()) y << " {}\n";  // (streams, not string +: GCC 12 warns falsely with -Wrestrict on the latter)
    else y << "\n" << attrs;
    y << "inputs:\n" << inputs_.str();
    if (!tiling_.empty()) y << "tiling: {" << tiling_ << "}\n";
    const auto path = dir_ / file;
    std::ofstream(path) << y.str();
    return path.string();
  }

  static std::string list(const std::vector<int64_t>& v) {
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
    return os.str();
  }

 private:
  std::string entry(const std::string& stem, const op::HostTensor& t, const std::string& dtype) const {
    op::HostTensor e = t;
    if (e.type == op::ElemType::BF16) e.type = op::ElemType::U16;
    std::filesystem::create_directories(dir_);
    op::write_npy((dir_ / (stem + ".npy")).string(), e);
    return "{file: " + stem + ".npy, dtype: " + dtype + "}";
  }

  std::filesystem::path dir_;
  std::string op_;
  std::ostringstream attrs_, inputs_;
  std::string tiling_;
};

}  // namespace npusim::test
