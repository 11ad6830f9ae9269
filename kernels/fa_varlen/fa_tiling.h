#pragma once
// The FA V3 kernel's tiling: its declared keys and the choice of their values for a validated problem
// (kernels/fa_varlen/README.md "Tiling"); units, the core split and the workspace are the attention scheduler's.
#include "kernels/attention/plan.h"
#include "kernels/op/tiling.h"
#include "sim/config/hw_config.h"

namespace npusim::op::fa {

const TilingSpace& fa_tiling_space();

// The attention plan of a validated FA V3 problem; `t` applies the case's overrides. Throws CaseError naming the
// tiling key when a value cannot fit its buffer.
attn::Plan make_fa_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& t);

}  // namespace npusim::op::fa
