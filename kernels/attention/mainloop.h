#pragma once
// The mainloops of the attention kernel: the programs an AIC and its two AIVs run over the core's step list
// (schedule.h), pipelined so that cube and vector overlap:
//   AIC: C1(0 .. preload-1), then C1(s + preload), C2(s) for s = 0, 1, ...  (QK ahead of the softmax)
//   AIV: V1(0), then V1(s + 1), V2(s)                                      (softmax of s + 1 during P V of s)
// With flash-decoding splits every core meets at SyncAll, then the AIVs combine the partials.
#include "kernels/attention/plan.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op::attn {

void cube_mainloop(sim::CoreCtx& c, const Plan& pl);
void vector_mainloop(sim::CoreCtx& c, const Plan& pl);

}  // namespace npusim::op::attn
