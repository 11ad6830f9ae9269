#include "kernels/pto/library.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <filesystem>

#include "kernels/host/case_file.h"

namespace npusim::pto {

using op::CaseError;

namespace {
// dlopen of a fresh copy of `path` (the copy is unlinked once mapped): a new instance of its static data.
void* open_copy(const std::string& path) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "npusim-pto-XXXXXX").string();
  if (!mkdtemp(dir.data())) return nullptr;
  const fs::path copy = fs::path(dir) / fs::path(path).filename();
  std::error_code ec;
  fs::copy_file(path, copy, ec);
  void* h = ec ? nullptr : dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  fs::remove_all(dir, ec);
  return h;
}
}  // namespace

Library::Library(const std::string& path, bool private_copy) : path_(path) {
  handle_ = private_copy ? open_copy(path) : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    throw CaseError("attrs.library = '" + path +
                    "' cannot be loaded: " + (why ? why : "no private copy could be made"));
  }
  using TableFn = const npusim_pto::EntryTable* (*)();
  auto table = reinterpret_cast<TableFn>(dlsym(handle_, "npusim_pto_entries"));
  bind_ = reinterpret_cast<void (*)(npusim_pto::Runtime*)>(dlsym(handle_, "npusim_pto_bind"));
  if (!table || !bind_) {
    dlclose(handle_);
    throw CaseError("attrs.library = '" + path + "' is not a PTO kernel library (build it with `npusim pto build`)");
  }
  table_ = table();
  if (table_->abi_version != npusim_pto::kAbiVersion) {
    const int v = table_->abi_version;
    dlclose(handle_);
    throw CaseError("attrs.library = '" + path + "' was built against PTO interface version " + std::to_string(v) +
                    ", this npusim has version " + std::to_string(npusim_pto::kAbiVersion) +
                    ": rebuild it with `npusim pto build`");
  }
}

Library::~Library() {
  if (handle_) dlclose(handle_);
}

std::vector<std::string> Library::entry_names() const {
  std::vector<std::string> n;
  for (int i = 0; i < table_->count; ++i) n.push_back(table_->entries[i].name);
  return n;
}

const npusim_pto::EntryInfo& Library::entry(const std::string& name) const {
  for (int i = 0; i < table_->count; ++i)
    if (name == table_->entries[i].name) return table_->entries[i];
  std::string have;
  for (const auto& n : entry_names()) have += (have.empty() ? "" : ", ") + n;
  throw CaseError("attrs.entry = '" + name + "' is not an entry of " + path_ +
                  " (entries: " + (have.empty() ? "none; name one with NPUSIM_PTO_ENTRY(name, function)" : have) + ")");
}

}  // namespace npusim::pto
