#pragma once
// The mainloops of the attention kernel: the programs an AIC and its two AIVs run over the core's step list
// (schedule.h), pipelined so that cube and vector overlap:
//   AIC: C1(0 .. preload-1), then C1(s + preload), C2(s) for s = 0, 1, ...  (QK ahead of the softmax)
//   AIV: V1(0), then V1(s + 1), V2(s)                                      (softmax of s + 1 during P V of s)
//   (MSD: a unit's query limbs go out `preload` steps ahead of its first V1, Plan::q_slots)
// With flash-decoding splits every core meets at SyncAll, then the AIVs combine the partials.
#include <string>

#include "kernels/attention/plan.h"
#include "kernels/op/op.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op::attn {

void cube_mainloop(sim::CoreCtx& c, const Plan& pl);
void vector_mainloop(sim::CoreCtx& c, const Plan& pl);

// The mainloops need the split topology with 2 AIVs per AI core (1 AIC : 2 AIV); CaseError naming the config.
void check_split_topology(const sim::HwConfig& hw, const std::string& op);
// The plan's share of an op's Prepared: flops (plan_flops), cores, the cube rate, and the 1:2 mix launch that runs
// the mainloops on the plan (which it takes over).
void launch_plan(const std::string& op, Plan pl, const sim::HwConfig& hw, Prepared& r);

}  // namespace npusim::op::attn
