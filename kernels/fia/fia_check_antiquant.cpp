// FIA parameter checks: KV antiquantisation with the combined parameters (antiquant_scale / antiquant_offset), the
// prompt branch's float16 path (spec §1.6; vendor PFA: mechanism 1 of /work/notes/fia_quant_research.md §C.3,
// cited in kernels/fia/README.md "KV antiquantisation"). The tensors are checked at stage 2 (they decide the
// key / value dtype rule of stage 3), the storage rules at the end. What the vendor admits and npusim does not run
// yet (query S = 1: MSD; page attention, tensor lists; the separated key_ / value_ parameters) exits 2 saying so.
#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {
const char* const kNotYet = ": not supported yet (npusim runs the prompt branch's dense float16 path)";

// The per-channel shape the vendor binds to the layout (PFA tiling: BNSD (2, N, 1, D), BSH (2, H), BSND
// (2, N, D); N = KV heads); per-tensor is (2).
std::vector<int64_t> per_channel_shape(const attn::AttnProblem& p) {
  switch (p.layout) {
    case attn::Layout::BSH: return {2, p.KV_N * p.D};
    case attn::Layout::BSND: return {2, p.KV_N, p.D};
    default: return {2, p.KV_N, 1, p.D};
  }
}
}  // namespace

void check_antiquant_tensors(Ctx& x) {
  const bool s = has(x.c, "antiquant_scale"), o = has(x.c, "antiquant_offset");
  if (o && !s) fail("inputs.antiquant_offset is given without inputs.antiquant_scale (spec §1.6)");
  if (!s) return;
  const TensorEntry& st = single(x.c, "antiquant_scale");
  const std::string given = "inputs.antiquant_scale (" + elem_type_name(st.dtype) + " " + dims(shape_of(st)) + ")";
  if (x.p.in == ElemType::BF16)
    fail(given + " with a bfloat16 query: the combined parameters are the float16 query's; a bfloat16 query takes "
         "key_antiquant_scale and value_antiquant_scale (MSD)" + std::string(kNotYet));
  if (x.p.in != ElemType::F16)
    fail(given + " with an " + elem_type_name(x.p.in) + " query: KV antiquantisation needs a float16 query (spec §1.6)");
  if (st.dtype != ElemType::F16)
    fail("inputs.antiquant_scale dtype " + elem_type_name(st.dtype) + " must be float16 with a float16 query (spec §1.6)");
  if (x.decode())
    fail(given + " with query S = 1: the vendor's decode kernel dequantises through MSD (int8 limbs of the query)" +
         std::string(kNotYet));
  const std::vector<int64_t> shape = shape_of(st), channel = per_channel_shape(x.p);
  const bool per_tensor = shape == std::vector<int64_t>{2};
  if (!per_tensor && shape != channel)
    fail("inputs.antiquant_scale has shape " + dims(shape) + " but must be [2] (per-tensor) or " + dims(channel) +
         " (per-channel with input_layout " + attn::layout_name(x.p.layout) + ": K's at [0], V's at [1]; spec §1.6)");
  if (o) {
    const TensorEntry& ot = single(x.c, "antiquant_offset");
    if (ot.dtype != st.dtype)
      fail("inputs.antiquant_offset dtype " + elem_type_name(ot.dtype) + " must equal inputs.antiquant_scale's " +
           elem_type_name(st.dtype));
    if (shape_of(ot) != shape)
      fail("inputs.antiquant_offset has shape " + dims(shape_of(ot)) + " but must equal inputs.antiquant_scale's " +
           dims(shape));
  }
  x.p.antiquant = {true, per_tensor, o};
}

void check_antiquant_rules(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  if (!p.antiquant.on) return;
  if (p.kv == attn::KvStorage::List) fail("inputs.antiquant_scale with a tensor list key / value" + std::string(kNotYet));
  if (p.kv != attn::KvStorage::Dense)
    fail("inputs.antiquant_scale with page attention (inputs.block_table)" + std::string(kNotYet));
  if (p.prefix) fail("inputs.antiquant_scale with a shared prefix (inputs.key_shared_prefix)" + std::string(kNotYet));
  if (p.D % 32 != 0)
    fail("inputs.key is int8 (KV antiquantisation), which needs D = " + str(p.D) +
         " to be a multiple of 32 (D is 32-element aligned whenever int8 is involved; spec §1.6)");
}

}  // namespace npusim::op::fia
