#pragma once
// A PTO kernel library (a shared object built by `npusim pto build`) opened for op `pto`: its ABI version is
// checked, its entries listed and looked up by name.
#include <memory>
#include <string>
#include <vector>

#include "kernels/pto/include/pto/npusim/abi.hpp"

namespace npusim::pto {

class Library {
 public:
  // Throws op::CaseError naming the file and dlopen's reason, or a stale ABI version. With `private_copy` the
  // library is loaded from a temporary copy, so this instance has its own static data (a core's own copy of the
  // kernel's function-local statics, as each device core has its own).
  explicit Library(const std::string& path, bool private_copy = false);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  // Throws op::CaseError listing the entries the library has.
  const npusim_pto::EntryInfo& entry(const std::string& name) const;
  std::vector<std::string> entry_names() const;
  // Makes `rt` the runtime the library's tile instructions call.
  void bind(npusim_pto::Runtime* rt) const { bind_(rt); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
  const npusim_pto::EntryTable* table_ = nullptr;
  void (*bind_)(npusim_pto::Runtime*) = nullptr;
};

}  // namespace npusim::pto
