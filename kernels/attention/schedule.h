#pragma once
// The work scheduler of the attention kernels: work units, their split across cores, and the score-block steps
// each core walks. The cube and vector programs walk the same step list, so their cross-core flags pair up one
// to one.
#include <vector>

#include "kernels/attention/plan.h"

namespace npusim::op::attn {

// Prompt (query S > 1): one unit per (b, n, s1_block rows), with its computed rows and visited score blocks.
// Decode (query S = 1): one unit per (b, KV head, KV split) with flash-decoding partials where splits > 1.
// Reads pl.p and pl.t (s1_block, s2_block, kv_splits); fills pl.units (and the fd_* members).
void make_units(Plan& pl);

// Contiguous ranges of units (in unit order, which keeps the heads sharing K / V on neighbouring cores) that
// minimise the most loaded of pl.t.block_dim cores; then the element types and the workspace layout.
void finish_plan(Plan& pl);

// Algorithmic flops of the plan's problem, 2 (D + Dr + Dv) per visible cell of the band (the mask tensor is not
// counted: its data is not loaded in timing mode), and the flops the cube executes over the visited blocks
// (fractal-padded rows, columns and head dims).
struct PlanFlops {
  uint64_t algorithmic = 0, executed = 0;
};
PlanFlops plan_flops(const Plan& pl);

struct Step {
  int64_t unit = 0, blk = 0;
  int64_t seq = 0;                   // its unit's ordinal among the core's computed units (picks the unit's buffers)
  bool first = false, last = false;  // first / last visited block of its unit
};
std::vector<Step> core_steps(const Plan& pl, int core);

}  // namespace npusim::op::attn
