#pragma once
// The op registry. Each op registers itself from its own folder with NPUSIM_REGISTER_OP(Class) in one of its
// .cpp files (as Ramulator 2 registers implementations by name); nothing central lists the ops. The op's CMake
// target is linked whole-archive (kernels/CMakeLists.txt, npusim_add_op) so the registrar survives linking.
#include <memory>
#include <string>
#include <vector>

#include "kernels/op/op.h"

namespace npusim::op {

class OpRegistry {
 public:
  static OpRegistry& instance();
  // Takes ownership; a second op with the same name is a std::logic_error (two folders claim one name).
  void add(std::unique_ptr<Op> op);
  // Every registered op, sorted by name (registration order is the linker's and is not meaningful).
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }
  // Throws CaseError listing the valid names.
  const Op& find(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<Op>> ops_;
};

template <class T>
struct OpRegistrar {
  OpRegistrar() { OpRegistry::instance().add(std::make_unique<T>()); }
};

#define NPUSIM_REGISTER_OP(T) static const ::npusim::op::OpRegistrar<T> npusim_op_registrar_##T

// Shorthands.
inline const std::vector<std::unique_ptr<Op>>& all_ops() { return OpRegistry::instance().ops(); }
inline const Op& find_op(const std::string& name) { return OpRegistry::instance().find(name); }

}  // namespace npusim::op
