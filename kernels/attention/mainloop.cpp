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
  for (int64_t s = 0; s < std::min(pre, n); ++s) k.qk(steps[size_t(s)], s);
  for (int64_t s = 0; s < n; ++s) {
    if (s + pre < n) k.qk(steps[size_t(s + pre)], s + pre);
    k.pv(steps[size_t(s)], s);
  }
  k.finish();
}
}  // namespace

void cube_mainloop(sim::CoreCtx& c, const Plan& pl) {
  cube_steps(c, pl);
  if (pl.has_splits()) c.sync_all();  // every core of the launch takes part before the AIVs combine
}

void vector_mainloop(sim::CoreCtx& c, const Plan& pl) {
  VecBlocks v(c, pl);
  const std::vector<Step> steps = core_steps(pl, c.block_idx());
  std::vector<int64_t> parity;  // unit parity of each step (m / l buffers)
  int64_t seq = -1;
  for (const Step& st : steps) parity.push_back((seq += st.first ? 1 : 0) % 2);
  v.start();
  const int64_t n = int64_t(steps.size());
  if (n) v.v1(steps[0], 0, parity[0]);
  for (int64_t s = 0; s < n; ++s) {
    if (s + 1 < n) v.v1(steps[size_t(s + 1)], s + 1, parity[size_t(s + 1)]);
    v.v2(steps[size_t(s)], s, parity[size_t(s)]);
  }
  const size_t core = size_t(c.block_idx());
  if (core + 1 < pl.core_first.size()) v.zero_through(pl.core_first[core + 1]);
  if (pl.has_splits()) {
    c.pipe_barrier(isa::Pipe::ALL);  // partials written before the cores meet
    c.sync_all();
    v.combine();
  }
  v.finish();
}

}  // namespace npusim::op::attn
