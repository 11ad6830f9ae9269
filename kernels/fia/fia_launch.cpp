// FIA prompt branch: plan, GM image and launch (1 AIC : 2 AIV mix on the split topology).
#include "kernels/fia/fia_launch.h"

#include "kernels/attention/prepare.h"
#include "kernels/fia/antiquant/antiquant.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/op/gm_inputs.h"

namespace npusim::op {

using attn::KvStorage;

namespace {
struct Loaded {
  uint64_t bytes = 0, kv_bytes = 0;
  std::vector<std::string> kv;  // the GM allocations of the key / value inputs
};

Loaded load_all(sim::Machine& m, const CaseFile& c, const attn::AttnProblem& p) {
  Loaded r;
  uint64_t& bytes = r.bytes;
  auto put = [&](const std::string& gm, const TensorEntry& e, bool scalar) {
    load_input(m, gm, e, scalar);
    bytes += tensor_bytes(e.data);
  };
  put("query", c.inputs.at("query")[0], false);
  for (const char* kv : {"key", "value"}) {
    const auto& list = c.inputs.at(kv);
    for (size_t b = 0; b < (p.kv == KvStorage::List ? list.size() : 1); ++b) {
      r.kv.push_back(p.kv == KvStorage::List ? std::string(kv) + "." + std::to_string(b) : std::string(kv));
      put(r.kv.back(), list[b], false);
      r.kv_bytes += tensor_bytes(list[b].data);
    }
  }
  for (const char* opt :
       {"pse_shift", "atten_mask", "key_shared_prefix", "value_shared_prefix", "quant_scale2", "quant_offset2"})
    if (c.inputs.count(opt)) put(opt, c.inputs.at(opt)[0], false);
  if (c.inputs.count("block_table")) put("block_table", c.inputs.at("block_table")[0], true);
  // KV antiquant parameters: per-tensor values are read by the AIVs' scalar units (materialised in timing mode).
  for (const char* opt : {"antiquant_scale", "antiquant_offset", "key_antiquant_scale", "key_antiquant_offset",
                          "value_antiquant_scale", "value_antiquant_offset"})
    if (c.inputs.count(opt)) put(opt, c.inputs.at(opt)[0], true);
  return r;
}

// The L2 policy of K / V (tiling key kv_l2_bypass): the vendor's incremental attention reads them around the L2 when
// together they reach 1.2x its size (ops-transformer @c29bc10 incre_flash_attention_tiling.cpp, l2CacheOffFlag_;
// calibration.md §8): streamed once, they would only evict what is worth keeping, and the bypass path is faster
// than the cached path's allocate ceiling (§6). The prompt kernel keeps them cached (each is re-read per query block).
void choose_kv_l2(sim::Machine& m, Tiling& tiling, const attn::Plan& pl, const Loaded& in) {
  const bool vendor = pl.decode && in.kv_bytes * 5 >= uint64_t(m.hw().l2.bytes) * 6;
  if (tiling.choose(fia::keys::kv_l2_bypass, vendor ? 1 : 0))
    for (const auto& name : in.kv) m.gm().set_l2_bypass(name);
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
  attn::AttentionPrepare prep("fused_infer_attention_score", fia::fia_tiling_space(), c, m);
  attn::Plan& pl = prep.set_plan(fia::make_fia_plan(p, m.hw(), prep.tiling()));
  const Loaded in = load_all(m, c, p);
  choose_kv_l2(m, prep.tiling(), pl, in);
  const attn::OutputDesc& o = pl.outputs;  // the GM names the kernel writes
  prep.output(o.out, p.out, out_shape(p));
  if (p.lse) prep.output(o.lse, ElemType::F32, {p.B, p.N, p.Sq, 1});
  prep.allocate_workspace();
  if (p.antiquant.on && !p.antiquant.msd) {  // the AIVs' fp16 copies of the int8 key / value (fia/antiquant)
    for (const auto& [name, bytes] : fia::add_kv_dequant(pl, m.hw())) m.gm().allocate(name, bytes);
  }
  if (pl.has_splits()) m.gm().allocate(pl.gm.fd_workspace, pl.fd_bytes);
  if (pl.decode && !pl.fd_splits.empty()) {  // a batch splits its KV at most into its score blocks
    std::string used;
    bool lowered = false;
    for (const int64_t ns : pl.fd_splits)
      used += (used.empty() ? "" : ", ") + std::to_string(ns), lowered |= ns < pl.t.kv_splits;
    if (lowered)
      prep.result().clamped["kv_splits"] = "requested " + std::to_string(pl.t.kv_splits) + ", used per batch [" + used +
                                           "]: a split needs at least one score block of s2_block KV";
  }
  return prep.finish(in.bytes);
}

}  // namespace npusim::op
