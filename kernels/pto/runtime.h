#pragma once
// The simulator's side of the PTO binary interface (include/pto/npusim/abi.hpp): each tile instruction a kernel
// library calls arrives here and is lowered to npusim instructions on the calling core (lower_cube.cpp,
// lower_vec.cpp), so timing, traces and the race and same-pipe checks apply to PTO kernels unchanged.
//
// Every core of a launch runs the same kernel library on its own fiber. A fiber switch can happen only inside a
// CoreCtx call; each Runtime entry point reads the calling core once at its start and makes it current again
// before it returns, so the core that resumes after a switch always finds itself current.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels/pto/include/pto/npusim/abi.hpp"
#include "sim/machine/core_ctx.h"
#include "sim/machine/machine.h"

namespace npusim::pto {

// A PTO instruction used in a way npusim does not support or the PTO rules forbid; exit 2 with the instruction
// and its source line.
class PtoError : public sim::KernelInputError {
 public:
  using sim::KernelInputError::KernelInputError;
};

class PtoRuntime final : public npusim_pto::Runtime {
 public:
  // subblocks: AIVs per AI Core in this launch (2 in a 1:2 mix, else 1).
  explicit PtoRuntime(int subblocks) : subblocks_(subblocks) {}
  // The core about to run the kernel entry (called first on its fiber).
  void enter(sim::CoreCtx& c) { cur_ = &c; }
  int block_idx() override { return cur_->block_idx(); }
  int block_num() override { return cur_->block_num(); }
  int subblock_idx() override { return cur_->sub_block_idx(); }
  int subblock_num() override;
  void sync(npusim_pto::Sync kind, int src_pipe, int dst_pipe, int event, const char* file, int line) override;
  void call(const npusim_pto::Call& k) override;

 private:
  // Unit flags (TMATMUL<AccPhase> / TSTORE<STPhase>): the L0C byte ranges a Final mmad wrote that no store has
  // waited for yet, and the ranges a phased store read that no mmad has waited for yet, per core.
  struct UnitFlags {
    std::vector<std::pair<uint64_t, uint64_t>> final_written, stored;
  };
  void order_unit_flags(sim::CoreCtx& c, const npusim_pto::Call& k);
  void note_unit_flags(const npusim_pto::Call& k);

  int subblocks_;
  sim::CoreCtx* cur_ = nullptr;
  std::map<const sim::CoreCtx*, UnitFlags> unit_flags_;
};

// "TLOAD at gemm.cpp:57" for messages and trace stages.
std::string where(const npusim_pto::Call& k);

}  // namespace npusim::pto
