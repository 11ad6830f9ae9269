#pragma once
// The FIA prompt kernel's host side (fia_launch.cpp): tiling, GM layout, launch and outputs of a validated problem.
#include "kernels/attention/attn_problem.h"
#include "kernels/op/op.h"

namespace npusim::op {

Prepared fia_prepare(const attn::AttnProblem& p, const CaseFile& c, sim::Machine& m);

}  // namespace npusim::op
