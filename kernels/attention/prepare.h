#pragma once
// The prepare sequence both attention ops share (FIA: kernels/fia/fia_launch.cpp, FA V3: kernels/fa_varlen/fa_op.cpp):
// the case's tiling and the topology check, the op's plan, GM for the outputs the op names and for the plan's
// workspace, then the launch of the mainloops with the roofline's GM floor. Between the steps the op loads its
// inputs and allocates what is its own (FIA: the dequantised K / V, the flash-decoding workspace), in the order the
// steps are called (GM addresses follow the allocation order).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention/plan.h"
#include "kernels/op/op.h"
#include "sim/machine/machine.h"

namespace npusim::op::attn {

class AttentionPrepare {
 public:
  AttentionPrepare(std::string op, const TilingSpace& space, const CaseFile& c, sim::Machine& m);
  Tiling& tiling() { return tiling_; }
  // Takes the op's plan (made with tiling()); the plan stays here until finish() launches it.
  Plan& set_plan(Plan pl);
  Plan& plan() { return plan_; }
  Prepared& result() { return r_; }
  // An output the kernel writes: GM of its size under its name, listed in the result.
  void output(const std::string& name, ElemType type, std::vector<int64_t> shape);
  void allocate_workspace();  // the plan's per-core S / P / O workspace
  // The tiling used, the GM floor (inputs read once + outputs written once) and the launch.
  Prepared finish(uint64_t input_bytes);

 private:
  std::string op_;
  sim::Machine& m_;
  Tiling tiling_;
  Plan plan_;
  Prepared r_;
  uint64_t output_bytes_ = 0;
};

}  // namespace npusim::op::attn
