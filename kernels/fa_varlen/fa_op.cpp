// Op `flash_attention_var_len_score`: registration, the GM image and the launch of the attention blocks
// (1 AIC : 2 AIV mix on the split topology), and the references.
#include "kernels/fa_varlen/fa_op.h"

#include "kernels/attention/attn_reference.h"
#include "kernels/attention/mainloop.h"
#include "kernels/attention/schedule.h"
#include "kernels/fa_varlen/fa_params.h"
#include "kernels/fa_varlen/fa_tiling.h"
#include "kernels/op/case_access.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"

namespace npusim::op {

NPUSIM_REGISTER_OP(FaVarLenOp);

namespace {
const char* const kInputs[] = {"query", "key", "value", "query_rope", "key_rope", "atten_mask"};

void check_topology(const sim::HwConfig& hw) {
  if (hw.topology != sim::Topology::Split || hw.chip.aiv_per_core != 2)
    throw CaseError("hw " + hw.name + ": the flash_attention_var_len_score kernel needs the split topology with 2 AIVs per "
                    "AI core (1 AIC : 2 AIV); this config is " +
                    std::string(hw.topology == sim::Topology::Split ? "split" : "coupled") +
                    " with aiv_per_core = " + std::to_string(hw.chip.aiv_per_core));
}

}  // namespace

attn::AttnTensors fa_varlen_tensors(const CaseFile& c) {
  auto first = [&](const char* name) -> const HostTensor* {
    const auto it = c.inputs.find(name);
    return it == c.inputs.end() || it->second.empty() ? nullptr : &it->second[0].data;
  };
  attn::AttnTensors t;
  t.query = first("query");
  t.key = {first("key")};
  t.value = {first("value")};
  t.atten_mask = first("atten_mask");
  t.query_rope = first("query_rope");
  t.key_rope = first("key_rope");
  return t;
}

std::vector<ParamSpec> FaVarLenOp::params() const { return fa_varlen_param_specs(); }
const TilingSpace& FaVarLenOp::tiling_space() const { return fa::fa_tiling_space(); }

Prepared FaVarLenOp::prepare(const CaseFile& c, sim::Machine& m) const {
  check_param_names(*this, c);
  const attn::AttnProblem p = parse_fa_varlen(c);
  Tiling tiling(fa::fa_tiling_space(), c, m.hw());
  check_topology(m.hw());
  attn::Plan pl = fa::make_fa_plan(p, m.hw(), tiling);
  Prepared r;
  uint64_t in_bytes = 0;
  for (const char* name : kInputs)
    if (c.inputs.count(name)) {
      const TensorEntry& e = c.inputs.at(name)[0];
      load_input(m, name, e);
      in_bytes += uint64_t(numel(shape_of(e))) * elem_bytes(e.dtype);
    }
  const uint64_t out_bytes = uint64_t(p.Sq * p.N * p.Dv) * elem_bytes(p.out);
  const uint64_t stat_bytes = uint64_t(p.Sq * p.N * 8 * 4);
  m.gm().allocate("attention_out", out_bytes);
  m.gm().allocate("softmax_max", stat_bytes);
  m.gm().allocate("softmax_sum", stat_bytes);
  r.outputs.push_back({"attention_out", p.out, {p.Sq, p.N, p.Dv}, "attention_out"});
  r.outputs.push_back({"softmax_max", ElemType::F32, {p.Sq, p.N, 8}, "softmax_max"});
  r.outputs.push_back({"softmax_sum", ElemType::F32, {p.Sq, p.N, 8}, "softmax_sum"});
  m.gm().allocate("workspace", pl.ws_core_bytes * uint64_t(pl.t.block_dim));
  r.tiling = tiling.used();
  r.min_gm_bytes = in_bytes + out_bytes + 2 * stat_bytes;
  const attn::PlanFlops f = attn::plan_flops(pl);
  r.flops = f.algorithmic, r.executed_flops_bound = f.executed;
  r.cores = int(pl.t.block_dim);
  r.macs_per_cycle_per_core = 16.0 * 16 * 16 / double(m.hw().cube.fractal_cycles_b16);
  r.launch = sim::LaunchSpec{.name = "flash_attention_var_len_score", .block_dim = int(pl.t.block_dim), .mix = sim::MixMode::Mix1_2};
  auto shared = std::make_shared<const attn::Plan>(std::move(pl));
  r.launch.cube = [shared](sim::CoreCtx& ctx) { attn::cube_mainloop(ctx, *shared); };
  r.launch.vector = [shared](sim::CoreCtx& ctx) { attn::vector_mainloop(ctx, *shared); };
  return r;
}

std::vector<Reference> FaVarLenOp::reference(const CaseFile& c) const {
  const attn::AttnProblem p = parse_fa_varlen(c);
  return attn::attention_references(p, attn::AttnData(p, fa_varlen_tensors(c)));
}

}  // namespace npusim::op
