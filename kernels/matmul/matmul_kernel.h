#pragma once
#include "kernels/matmul/matmul_plan.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op {

// One AIC's share of C = A * B (+ bias): output tiles dealt round-robin; each tile accumulates over K in
// L0C from double-buffered L1 chunks (MTE2) and double-buffered L0A / L0B slices (MTE1); FixPipe writes
// the tile to GM. The next chunk is fetched while the current one is multiplied, across tile boundaries.
void matmul_cube(sim::CoreCtx& c, const MatmulPlan& p);

}  // namespace npusim::op
