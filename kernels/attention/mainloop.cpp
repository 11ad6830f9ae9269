#include "kernels/attention/mainloop.h"

#include <algorithm>

#include "kernels/attention/cube_blocks.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/vec_blocks.h"

namespace npusim::op::attn {

namespace {
void cube_steps(sim::CoreCtx& c, const Plan& pl) {
  if (size_t(c.block_idx()) + 1 >= pl.core_first.size()) return;
  const std::vector<Step> steps = core_steps(pl, c.block_idx());
  if (steps.empty()) return;
  CubeBlocks k(c, pl);
  k.start();
  const int64_t n = int64_t(steps.size()), pre = pl.t.preload;
  // The trace's stage spans (CoreCtx::stage): C1 = S = Q K^T of one score block, C2 = its P V.
  auto qk = [&](int64_t s) {
    c.stage("C1", steps[size_t(s)].unit, steps[size_t(s)].blk);
    k.qk(steps[size_t(s)], s);
  };
  for (int64_t s = 0; s < std::min(pre, n); ++s) qk(s);
  for (int64_t s = 0; s < n; ++s) {
    if (s + pre < n) qk(s + pre);
    c.stage("C2", steps[size_t(s)].unit, steps[size_t(s)].blk);
    k.pv(steps[size_t(s)], s);
  }
  c.stage("finish");
  k.finish();
}
}  // namespace

void cube_mainloop(sim::CoreCtx& c, const Plan& pl) {
  if (pl.prologue.vector) c.sync_all();  // the AIVs' prologue (Plan::prologue) is done
  cube_steps(c, pl);
  if (pl.has_splits()) c.sync_all();  // every core of the launch takes part before the AIVs combine
}

void vector_mainloop(sim::CoreCtx& c, const Plan& pl) {
  if (pl.prologue.vector) {  // every AIV does its share; every core meets before the mainloops
    c.stage(pl.prologue.stage);
    pl.prologue.vector(c, pl);
    c.pipe_barrier(isa::Pipe::ALL);
    c.free_all(isa::Buf::UB);
    c.sync_all();
  }
  VecBlocks v(c, pl);
  const std::vector<Step> steps = core_steps(pl, c.block_idx());
  v.start();
  const int64_t n = int64_t(steps.size()), pre = pl.t.preload;
  // Stage spans: V1 = the softmax of one score block (max, exp, sum -> P), V2 = folding its P V into O.
  auto v1 = [&](int64_t s) {
    c.stage("V1", steps[size_t(s)].unit, steps[size_t(s)].blk);
    v.v1(steps[size_t(s)], s);
  };
  // A unit's inputs from the AIVs (MSD: the query limbs) go out `pre` steps ahead: the cube's C1(t) comes after its
  // C2(t - pre - 1), so the AIVs hand them over before V2(t - pre), the first step that waits for a later C2.
  // The softmax runs pl.v_lead() blocks ahead of the O update (plan.h vec_lead): V1(s + lead) before V2(s).
  for (int64_t t = 0; t < std::min(pre, n); ++t) v.unit_inputs(steps[size_t(t)]);
  const int64_t lead = pl.v_lead();
  for (int64_t s = 0; s < std::min(lead, n); ++s) v1(s);
  for (int64_t s = 0; s < n; ++s) {
    if (s + pre < n) v.unit_inputs(steps[size_t(s + pre)]);
    if (s + lead < n) v1(s + lead);
    c.stage("V2", steps[size_t(s)].unit, steps[size_t(s)].blk);
    v.v2(steps[size_t(s)], s);
  }
  c.stage("finish");
  const size_t core = size_t(c.block_idx());
  if (core + 1 < pl.core_first.size()) v.zero_through(pl.core_first[core + 1]);
  if (pl.has_splits()) {
    c.pipe_barrier(isa::Pipe::ALL);  // partials written before the cores meet
    c.sync_all();
    c.stage("combine");
    v.combine();
  }
  v.finish();
}

void check_split_topology(const sim::HwConfig& hw, const std::string& op) {
  if (hw.topology != sim::Topology::Split || hw.chip.aiv_per_core != 2)
    throw CaseError("hw " + hw.name + ": the " + op +
                    " kernel needs the split topology with 2 AIVs per AI core (1 AIC : 2 AIV); this config is " +
                    std::string(hw.topology == sim::Topology::Split ? "split" : "coupled") +
                    " with aiv_per_core = " + std::to_string(hw.chip.aiv_per_core));
}

void launch_plan(const std::string& op, Plan pl, const sim::HwConfig& hw, Prepared& r) {
  const PlanFlops f = plan_flops(pl);
  r.flops = f.algorithmic, r.executed_flops_bound = f.executed;
  r.cores = int(pl.t.block_dim);
  r.macs_per_cycle_per_core = pl.cube == isa::DType::I8   ? 16.0 * 16 * 32 / double(hw.cube.fractal_cycles_s8)
                              : pl.cube == isa::DType::I4 ? 16.0 * 16 * 64 / double(hw.cube.fractal_cycles_s4)
                                                          : 16.0 * 16 * 16 / double(hw.cube.fractal_cycles_b16);
  r.launch = sim::LaunchSpec{.name = op, .block_dim = int(pl.t.block_dim), .mix = sim::MixMode::Mix1_2};
  auto shared = std::make_shared<const Plan>(std::move(pl));
  r.launch.cube = [shared](sim::CoreCtx& ctx) { cube_mainloop(ctx, *shared); };
  r.launch.vector = [shared](sim::CoreCtx& ctx) { vector_mainloop(ctx, *shared); };
}

}  // namespace npusim::op::attn
