// The shared prepare sequence of the attention ops (prepare.h).
#include "kernels/attention/prepare.h"

#include <utility>

#include "kernels/attention/mainloop.h"

namespace npusim::op::attn {

AttentionPrepare::AttentionPrepare(std::string op, const TilingSpace& space, const CaseFile& c, sim::Machine& m)
    : op_(std::move(op)), m_(m), tiling_(space, c, m.hw()) {
  check_split_topology(m.hw(), op_);
}

Plan& AttentionPrepare::set_plan(Plan pl) { return plan_ = std::move(pl); }

void AttentionPrepare::output(const std::string& name, ElemType type, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  const uint64_t bytes = uint64_t(n) * uint64_t(elem_bytes(type));
  m_.gm().allocate(name, bytes);
  output_bytes_ += bytes;
  r_.outputs.push_back({name, type, std::move(shape), name});
}

void AttentionPrepare::allocate_workspace() {
  m_.gm().allocate(plan_.gm.workspace, plan_.ws_core_bytes * uint64_t(plan_.t.block_dim));
}

Prepared AttentionPrepare::finish(uint64_t input_bytes) {
  r_.tiling = tiling_.used();
  r_.min_gm_bytes = input_bytes + output_bytes_;
  launch_plan(op_, std::move(plan_), m_.hw(), r_);
  return std::move(r_);
}

}  // namespace npusim::op::attn
