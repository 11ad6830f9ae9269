// Op `flash_attention_var_len_score`: registration, the GM image and the launch of the attention blocks
// (1 AIC : 2 AIV mix on the split topology), and the references.
#include "kernels/fa_varlen/fa_op.h"

#include "kernels/attention/attn_reference.h"
#include "kernels/attention/prepare.h"
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
  attn::AttentionPrepare prep("flash_attention_var_len_score", fa::fa_tiling_space(), c, m);
  const attn::Plan& pl = prep.set_plan(fa::make_fa_plan(p, m.hw(), prep.tiling()));
  uint64_t in_bytes = 0;
  for (const char* name : kInputs)
    if (c.inputs.count(name)) {
      const TensorEntry& e = c.inputs.at(name)[0];
      load_input(m, name, e);
      in_bytes += uint64_t(numel(shape_of(e))) * elem_bytes(e.dtype);
    }
  const attn::OutputDesc& o = pl.outputs;  // the GM names the kernel writes
  prep.output(o.out, p.out, {p.Sq, p.N, p.Dv});
  prep.output(o.max, ElemType::F32, {p.Sq, p.N, 8});
  prep.output(o.sum, ElemType::F32, {p.Sq, p.N, 8});
  prep.allocate_workspace();
  return prep.finish(in_bytes);
}

std::vector<Reference> FaVarLenOp::reference(const CaseFile& c) const {
  const attn::AttnProblem p = parse_fa_varlen(c);
  return attn::attention_references(p, attn::AttnData(p, fa_varlen_tensors(c)));
}

}  // namespace npusim::op
