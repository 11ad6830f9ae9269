#pragma once
// Internal: the CoreCtx a kernel program receives, bound to one core of the machine.
#include <array>

#include "sim/machine/core_ctx.h"
#include "sim/machine/machine_impl.h"

namespace npusim::sim {

class ScalarCtx final : public CoreCtx {
 public:
  // What a kernel program reaches: the machine's resources (config, GM names, trace) and its core's scalar unit.
  ScalarCtx(const MachineResources& res, ScalarRunner& scalar, CoreState& c);
  int block_idx() const override;
  int block_num() const override;
  int sub_block_idx() const override;
  isa::CoreKind kind() const override;
  const HwConfig& hw() const override;
  std::string name() const override;
  isa::Addr alloc(isa::Buf buf, uint64_t bytes, const std::string& what, uint64_t align = 0) override;
  void free_all(isa::Buf buf) override;
  uint64_t capacity(isa::Buf buf) const override;
  isa::Addr gm(const std::string& name, uint64_t offset = 0) const override;
  void issue(const isa::Instr& in) override;
  bool outstanding(isa::Pipe p) const override { return outstanding_[static_cast<size_t>(p)]; }
  int64_t load_scalar(isa::DType t, isa::Addr gm_addr) override;
  void stage(std::string_view name, int64_t unit, int64_t block) override;

 private:
  void note_outstanding(const isa::Instr& in);
  const MachineResources& res_;
  ScalarRunner& scalar_;
  CoreState& c_;
  std::array<bool, isa::kNumPipes> outstanding_{};
};

}  // namespace npusim::sim
