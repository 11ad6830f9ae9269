#pragma once
// The FIA kernel's tiling: its declared keys and the choice of their values for a validated problem
// (kernels/fia/README.md "Tiling"); the rest of the plan (units, core split, workspace) is the attention
// scheduler's (kernels/attention/schedule.h).
#include "kernels/attention/plan.h"
#include "kernels/attention/tiling_keys.h"
#include "kernels/op/tiling.h"
#include "sim/config/hw_config.h"

namespace npusim::op::fia {

// The FIA tiling's key handles: the shared attention keys and FIA's own two.
namespace keys {
using namespace attn::keys;
inline constexpr KeyName kv_splits{"kv_splits"};
inline constexpr KeyName kv_l2_bypass{"kv_l2_bypass"};
}  // namespace keys

const TilingSpace& fia_tiling_space();

// The attention plan of a validated FIA problem; `t` applies the case's overrides. Throws CaseError naming the
// tiling key when a value cannot fit its buffer.
attn::Plan make_fia_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& t);

}  // namespace npusim::op::fia
