// FIA prompt branch: plan, GM image and launch (1 AIC : 2 AIV mix on the split topology).
#include "kernels/fia/fia_launch.h"


#include "kernels/attention/antiquant.h"
#include "kernels/attention/mainloop.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/op/gm_inputs.h"

namespace npusim::op {

using attn::KvStorage;

namespace {
uint64_t load_all(sim::Machine& m, const CaseFile& c, const attn::AttnProblem& p) {
  uint64_t bytes = 0;
  auto put = [&](const std::string& gm, const TensorEntry& e, bool scalar) {
    load_input(m, gm, e, scalar);
    bytes += tensor_bytes(e.data);
  };
  put("query", c.inputs.at("query")[0], false);
  for (const char* kv : {"key", "value"}) {
    const auto& list = c.inputs.at(kv);
    if (p.kv == KvStorage::List)
      for (size_t b = 0; b < list.size(); ++b) put(std::string(kv) + "." + std::to_string(b), list[b], false);
    else
      put(kv, list[0], false);
  }
  for (const char* opt : {"pse_shift", "atten_mask", "key_shared_prefix", "value_shared_prefix", "quant_scale2",
                          "quant_offset2"})
    if (c.inputs.count(opt)) put(opt, c.inputs.at(opt)[0], false);
  if (c.inputs.count("block_table")) put("block_table", c.inputs.at("block_table")[0], true);
  // KV antiquant parameters: per-tensor values are read by the AIVs' scalar units (materialised in timing mode).
  for (const char* opt : {"antiquant_scale", "antiquant_offset", "key_antiquant_scale", "key_antiquant_offset",
                          "value_antiquant_scale", "value_antiquant_offset"})
    if (c.inputs.count(opt)) put(opt, c.inputs.at(opt)[0], true);
  return bytes;
}

std::vector<int64_t> out_shape(const attn::AttnProblem& p) {
  switch (p.out_layout) {
    case attn::Layout::BSH: return {p.B, p.Sq, p.N * p.Dv};
    case attn::Layout::BNSD: return {p.B, p.N, p.Sq, p.Dv};
    default: return {p.B, p.Sq, p.N, p.Dv};
  }
}

}  // namespace

Prepared fia_prepare(const attn::AttnProblem& p, const CaseFile& c, sim::Machine& m) {
  Tiling tiling(fia::fia_tiling_space(), c, m.hw());
  attn::check_split_topology(m.hw(), "fused_infer_attention_score");
  attn::Plan pl = fia::make_fia_plan(p, m.hw(), tiling);
  Prepared r;
  const uint64_t in_bytes = load_all(m, c, p);
  const ElemType out_t = p.out;
  const auto shape = out_shape(p);
  uint64_t out_bytes = uint64_t(p.B * p.Sq * p.N * p.Dv * elem_bytes(out_t));
  m.gm().allocate("attention_out", out_bytes);
  r.outputs.push_back({"attention_out", out_t, shape, "attention_out"});
  if (p.lse) {
    m.gm().allocate("softmax_lse", uint64_t(p.B * p.N * p.Sq * 4));
    r.outputs.push_back({"softmax_lse", ElemType::F32, {p.B, p.N, p.Sq, 1}, "softmax_lse"});
    out_bytes += uint64_t(p.B * p.N * p.Sq * 4);
  }
  m.gm().allocate("workspace", pl.ws_core_bytes * uint64_t(pl.t.block_dim));
  if (p.antiquant.on && !p.antiquant.msd) {  // the AIVs' fp16 copies of the int8 key / value (kernels/attention/antiquant.h)
    attn::plan_dequant(pl, m.hw());
    m.gm().allocate(pl.gm.key, attn::dequant_bytes(pl));
    m.gm().allocate(pl.gm.value, attn::dequant_bytes(pl));
  }
  if (pl.has_splits()) m.gm().allocate("fd_workspace", pl.fd_bytes);
  r.tiling = tiling.used();
  if (pl.decode && !pl.fd_splits.empty()) {  // a batch splits its KV at most into its score blocks
    std::string used;
    bool lowered = false;
    for (const int64_t ns : pl.fd_splits) used += (used.empty() ? "" : ", ") + std::to_string(ns), lowered |= ns < pl.t.kv_splits;
    if (lowered)
      r.clamped["kv_splits"] = "requested " + std::to_string(pl.t.kv_splits) + ", used per batch [" + used +
                               "]: a split needs at least one score block of s2_block KV";
  }
  r.min_gm_bytes = in_bytes + out_bytes;
  attn::launch_plan("fused_infer_attention_score", std::move(pl), m.hw(), r);
  return r;
}

}  // namespace npusim::op
