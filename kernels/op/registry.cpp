#include "kernels/op/registry.h"

#include <algorithm>
#include <stdexcept>

namespace npusim::op {

OpRegistry& OpRegistry::instance() {
  static OpRegistry r;  // constructed on first use, so registrars in any translation unit may run first
  return r;
}

void OpRegistry::add(std::unique_ptr<Op> op) {
  for (const auto& o : ops_)
    if (o->name() == op->name()) throw std::logic_error("op '" + op->name() + "' is registered twice");
  ops_.push_back(std::move(op));
  std::sort(ops_.begin(), ops_.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
}

const Op& OpRegistry::find(const std::string& name) const {
  std::string names;
  for (const auto& o : ops_) {
    if (o->name() == name) return *o;
    names += (names.empty() ? "" : ", ") + o->name();
  }
  throw CaseError("op '" + name + "' is not registered (valid: " + names + ")");
}

}  // namespace npusim::op
