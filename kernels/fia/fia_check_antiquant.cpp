// FIA parameter checks: KV antiquantisation on the prompt branch's float16 path (spec §1.6; the vendor's PFA tiling,
// cited in kernels/fia/README.md "KV antiquantisation"): the combined parameters (antiquant_scale /
// antiquant_offset) with dense K / V, the separated key_ / value_antiquant ones with page attention. The tensors are
// checked at stage 2 (they decide the key / value dtype rule of stage 3), the storage and page-attention rules at
// the end. MSD (query S = 1, or a bfloat16 query with the separated parameters) is fia_check_antiquant_msd.cpp.
// Tensor lists and a shared prefix take the combined parameters like dense K / V (kernels/fia/antiquant dequantises
// every tensor).
#include <set>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {

// The per-channel shape the vendor binds to the layout (PFA tiling: BNSD (2, N, 1, D), BSH (2, H), BSND
// (2, N, D); N = KV heads; the separated parameters have 1 for the 2); per-tensor is (2).
std::vector<int64_t> per_channel_shape(const attn::AttnProblem& p, int64_t first = 2) {
  switch (p.layout) {
    case attn::Layout::BSH: return {first, p.KV_N * p.D};
    case attn::Layout::BSND: return {first, p.KV_N, p.D};
    default: return {first, p.KV_N, 1, p.D};
  }
}

const char* const kSeparated[] = {"key_antiquant_scale", "key_antiquant_offset", "value_antiquant_scale",
                                  "value_antiquant_offset"};

// The separated key_ / value_antiquant parameters. With a float16 query and query S > 16 the vendor dequantises
// in fp16 as for the combined ones, and reads the separated ones only with page attention (PFA tiling
// CheckAntiquantParamsShape: per-channel, modes 0, shape (1, H) BSH / (1, KV_N, D) BSND); everything else runs MSD.
// When the combined antiquant_scale / antiquant_offset are given too, the separated ones win (spec §1.6, as at
// query S = 1): the combined ones are not read, so their shapes and dtypes are not checked either.
void check_separated(Ctx& x) {
  const std::set<ElemType> allowed = {ElemType::F16, ElemType::BF16, ElemType::F32};
  for (const char* name : kSeparated)
    if (has(x.c, name) && !allowed.count(single(x.c, name).dtype))
      fail(std::string("inputs.") + name + " dtype " + elem_type_name(single(x.c, name).dtype) +
           " is not allowed (float16, bfloat16 or float32; spec §1.6)");
  const std::string given = "inputs.key_antiquant_scale / value_antiquant_scale";
  if (x.p.in == ElemType::BF16) return check_antiquant_prompt_msd_tensors(x);  // MSD (fia_check_antiquant_msd.cpp)
  if (x.p.in != ElemType::F16)
    fail(given + " with an " + elem_type_name(x.p.in) +
         " query: KV antiquantisation needs a float16 or bfloat16 query (spec §1.6)");
  if (x.p.Sq <= 16)
    fail(given + " with a float16 query and query S = " + str(x.p.Sq) +
         " <= 16: the separated prompt form needs a bfloat16 query (spec §1.6; a float16 query with S > 16 takes them "
         "with page attention)");
  for (const char* side : {"key", "value"})
    if (!has(x.c, std::string(side) + "_antiquant_scale"))
      fail("inputs." + std::string(side) + "_antiquant_scale is missing: " + given + " go together (spec §1.6)");
  if (has(x.c, "key_antiquant_offset") != has(x.c, "value_antiquant_offset"))
    fail("inputs.key_antiquant_offset and inputs.value_antiquant_offset go together (spec §1.6)");
  if (!has(x.c, "block_table"))
    fail(given +
         " with a float16 query and query S > 16 are read by the vendor's float16 path only with page attention "
         "(without inputs.block_table it reads the combined inputs.antiquant_scale: \"antiquant scale is nullptr\")");
  if (x.p.layout != attn::Layout::BSH && x.p.layout != attn::Layout::BSND)
    fail(given + " with page attention need input_layout BSH or BSND, not " + attn::layout_name(x.p.layout) +
         " (the vendor: \"not support antiquant when layout is not BSH or BSND\")");
  const std::vector<int64_t> want = per_channel_shape(x.p, 1);
  for (const char* side : {"key", "value"}) {
    const std::string s = std::string(side) + "_antiquant_scale", o = std::string(side) + "_antiquant_offset";
    const TensorEntry& st = single(x.c, s);
    if (st.dtype != ElemType::F16)
      fail("inputs." + s + " dtype " + elem_type_name(st.dtype) +
           " must be float16 with a float16 query and query S > 16");
    if (shape_of(st) != want)
      fail("inputs." + s + " has shape " + dims(shape_of(st)) + " but must be " + dims(want) +
           " (per-channel with input_layout " + attn::layout_name(x.p.layout) + "; spec §1.6)");
    if (has(x.c, o)) {
      const TensorEntry& ot = single(x.c, o);
      if (ot.dtype != st.dtype || shape_of(ot) != want)
        fail("inputs." + o + " (" + elem_type_name(ot.dtype) + " " + dims(shape_of(ot)) + ") must have inputs." + s +
             "'s dtype and shape (" + elem_type_name(st.dtype) + " " + dims(want) + ")");
    }
  }
  x.p.antiquant = {true, false, has(x.c, "key_antiquant_offset"), true};
}
}  // namespace

void check_antiquant_tensors(Ctx& x) {
  if (x.decode()) return check_antiquant_decode_tensors(x);  // MSD (fia_check_antiquant_msd.cpp)
  for (const char* name : kSeparated)
    if (has(x.c, name)) return check_separated(x);
  const bool s = has(x.c, "antiquant_scale"), o = has(x.c, "antiquant_offset");
  if (o && !s) fail("inputs.antiquant_offset is given without inputs.antiquant_scale (spec §1.6)");
  if (!s) return;
  const TensorEntry& st = single(x.c, "antiquant_scale");
  const std::string given = "inputs.antiquant_scale (" + elem_type_name(st.dtype) + " " + dims(shape_of(st)) + ")";
  if (x.p.in == ElemType::BF16)
    fail(given +
         " with a bfloat16 query and query S > 1: the combined parameters are the float16 query's; a bfloat16 query "
         "takes key_antiquant_scale and value_antiquant_scale (spec §1.6)");
  if (x.p.in != ElemType::F16)
    fail(given + " with an " + elem_type_name(x.p.in) +
         " query: KV antiquantisation needs a float16 query (spec §1.6)");
  if (st.dtype != ElemType::F16)
    fail("inputs.antiquant_scale dtype " + elem_type_name(st.dtype) +
         " must be float16 with a float16 query (spec §1.6)");
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

void check_antiquant_rules(Ctx& x) {
  attn::AttnProblem& p = x.p;
  if (!p.antiquant.on) return;
  if (p.antiquant.int4) return check_antiquant_int4_rules(x);  // fia_check_antiquant_msd.cpp
  if (p.D % 32 != 0)
    fail("inputs.key is int8 (KV antiquantisation), which needs D = " + str(p.D) +
         " to be a multiple of 32 (D is 32-element aligned whenever int8 is involved; spec §1.6)");
  if (p.antiquant.msd) return x.decode() ? check_antiquant_decode_rules(x) : check_antiquant_prompt_msd_rules(x);
  const bool paged = p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD;
  if (paged && !p.antiquant.separated)
    fail(std::string("inputs.antiquant_scale with page attention (inputs.block_table): ") +
         (p.antiquant.per_tensor
              ? "the vendor: \"not support antiquant when blockTable is not null and antiquant mode is not perchannel\""
              : "the vendor's page-attention path reads the separated key_antiquant_scale / value_antiquant_scale "
                "(per-channel, modes 0) instead") +
         " (spec §1.6)");
  if (paged) {  // the vendor's CheckPAAntiquantSupportScenarios
    if (p.inner_precise != 1)
      fail("attrs.inner_precise = " + str(p.inner_precise) +
           " with page attention and KV antiquantisation must be 1 (the vendor: \"PA perchannel antiquant only support "
           "high performance\")");
    if (p.sparse_mode != 3 || p.mask == attn::MaskKind::None)
      fail("attrs.sparse_mode = " + str(p.sparse_mode) +
           (p.mask == attn::MaskKind::None ? " without inputs.atten_mask" : "") +
           ": page attention with KV antiquantisation needs sparse_mode 3 with an atten_mask (the vendor: \"PA "
           "perchannel antiquant only support sparse mode 3\")");
    if (p.pse)
      fail(
          "inputs.pse_shift cannot be combined with page attention and KV antiquantisation (the vendor: \"PA "
          "perchannel antiquant not support PSE\")");
  }
}

}  // namespace npusim::op::fia
