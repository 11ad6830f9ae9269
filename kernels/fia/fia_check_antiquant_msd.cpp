// FIA parameter checks: KV antiquantisation through MSD (int8 limbs of the query; kernels/attention/msd_block.cpp):
// at query S = 1 the vendor's decode kernel (modes, dtypes and shapes of spec §1.6 and of the IFA tiling checks,
// hicann/ops-transformer c29bc10, attention/incre_flash_attention/op_host/incre_flash_attention_tiling*.cpp;
// kernels/fia/msd_research.md §8 quotes their messages), and with a bfloat16 query and S <= 16 the prompt kernel's
// MSD mode (PFA tiling prompt_flash_attention_tiling.cpp CheckIOType and its MSD block, lines 4895-4900 and
// 5218-5438; the messages below quote it). The tensors and modes at stage 2, the shapes that need the batch, the
// page cache and the lengths at the end.
#include <algorithm>
#include <set>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {

bool separated_given(const CaseFile& c) {
  for (const char* n :
       {"key_antiquant_scale", "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset"})
    if (has(c, n)) return true;
  return false;
}

std::string mode_name(int m) {
  static const char* const names[] = {"per-channel",
                                      "per-token",
                                      "per-tensor + per-head",
                                      "per-token + per-head",
                                      "per-token managed by page attention",
                                      "per-token + per-head managed by page attention"};
  return std::to_string(m) + " (" + names[m] + ")";
}

// The dtype rule of one side's parameters: per-channel / per-tensor (+ per-head) in the query's dtype, per-token fp32.
void check_param_dtype(const Ctx& x, const std::string& name, int mode, ElemType t) {
  const bool token = mode == 1 || mode >= 3;
  if (token && t != ElemType::F32)
    fail("inputs." + name + " dtype " + elem_type_name(t) + " must be float32 with mode " + mode_name(mode) +
         " (the vendor: \"per-token mode is enabled, datatype of antiquant scale should be float32\")");
  if (!token && t != x.p.in)
    fail("inputs." + name + " dtype " + elem_type_name(t) + " must be the query's " + elem_type_name(x.p.in) +
         " with mode " + mode_name(mode) +
         " (the vendor: \"illegal datatype of antiquant scale, it should be same with input qtype\")");
}

// The offset goes with its scale: same dtype, same shape.
void check_offset(const Ctx& x, const std::string& scale, const std::string& offset) {
  if (!has(x.c, offset)) return;
  const TensorEntry& st = single(x.c, scale);
  const TensorEntry& ot = single(x.c, offset);
  if (ot.dtype != st.dtype || shape_of(ot) != shape_of(st))
    fail("inputs." + offset + " (" + elem_type_name(ot.dtype) + " " + dims(shape_of(ot)) + ") must have inputs." +
         scale + "'s dtype and shape (" + elem_type_name(st.dtype) + " " + dims(shape_of(st)) +
         "; the vendor: \"datatype of antiquant scale and antiquant offset should be the same\")");
}

// The shapes one side's parameter may have in its mode (`first`: 1 separated, 2 combined = K's and V's).
std::vector<std::vector<int64_t>> allowed_shapes(const attn::AttnProblem& p, int mode, int64_t first, int64_t s_a,
                                                 bool combined) {
  switch (mode) {
    case 1: return {{first, p.B, s_a}};
    case 2: return {{p.KV_N}};
    case 3: return {{p.B, p.KV_N, s_a}};
    case 4: return {{p.block_num, p.block_size}};
    case 5: return {{p.block_num, p.KV_N, p.block_size}};
    default: break;
  }
  std::vector<std::vector<int64_t>> r = {{first, p.KV_N, 1, p.D}, {first, p.KV_N, p.D}, {first, p.KV_N * p.D}};
  r.push_back(combined ? std::vector<int64_t>{2} : std::vector<int64_t>{1});  // per-tensor
  return r;
}

std::string list_shapes(const std::vector<std::vector<int64_t>>& v) {
  std::string s;
  for (const auto& d : v) s += (s.empty() ? "" : " or ") + dims(d);
  return s;
}
}  // namespace

void check_antiquant_decode_tensors(Ctx& x) {
  const bool sep = separated_given(x.c), comb = has(x.c, "antiquant_scale") || has(x.c, "antiquant_offset");
  if (!sep && !comb) return;
  if (x.p.in != ElemType::F16 && x.p.in != ElemType::BF16)
    fail("KV antiquantisation parameters with an " + elem_type_name(x.p.in) +
         " query: the query must be float16 or bfloat16 (the vendor: \"when input Q type is fp16, KV type should be "
         "fp16 or int8 or int4\"; spec §1.6)");
  attn::AntiQuant& a = x.p.antiquant;
  a.on = true, a.msd = true, a.separated = sep;
  const int64_t legacy = attr_int(x.c, "antiquant_mode");
  if (sep) {  // the separated parameters win over the combined ones (spec §1.6)
    for (const char* side : {"key", "value"})
      if (!has(x.c, std::string(side) + "_antiquant_scale"))
        fail("inputs." + std::string(side) +
             "_antiquant_scale is missing: inputs.key_antiquant_scale and inputs.value_antiquant_scale go together "
             "(spec §1.6)");
    if (has(x.c, "key_antiquant_offset") != has(x.c, "value_antiquant_offset"))
      fail("inputs.key_antiquant_offset and inputs.value_antiquant_offset go together (spec §1.6)");
    a.k_mode = int(attr_int(x.c, "key_antiquant_mode")), a.v_mode = int(attr_int(x.c, "value_antiquant_mode"));
    a.offset = has(x.c, "key_antiquant_offset");
    a.k_dtype = single(x.c, "key_antiquant_scale").dtype, a.v_dtype = single(x.c, "value_antiquant_scale").dtype;
  } else {
    if (!has(x.c, "antiquant_scale"))
      fail("inputs.antiquant_offset is given without inputs.antiquant_scale (spec §1.6)");
    a.k_mode = a.v_mode = int(legacy);
    a.offset = has(x.c, "antiquant_offset");
    a.k_dtype = a.v_dtype = single(x.c, "antiquant_scale").dtype;
  }
  if (a.k_mode < 0 || a.k_mode > 5 || a.v_mode < 0 || a.v_mode > 5) return;  // check_modes names the attribute
  const std::string ks = sep ? "key_antiquant_scale" : "antiquant_scale",
                    vs = sep ? "value_antiquant_scale" : "antiquant_scale";
  check_param_dtype(x, ks, a.k_mode, a.k_dtype);
  if (sep) check_param_dtype(x, vs, a.v_mode, a.v_dtype);
  check_offset(x, ks, sep ? "key_antiquant_offset" : "antiquant_offset");
  if (sep) check_offset(x, vs, "value_antiquant_offset");
  if (a.k_mode == 0 && a.v_mode == 1 && x.p.in != ElemType::F16 && !int4_key(x.c))  // the fp16-only rule is int8's
    fail(
        "attrs.key_antiquant_mode = 0 with attrs.value_antiquant_mode = 1 (K per-channel, V per-token) needs a float16 "
        "query, not " +
        elem_type_name(x.p.in) +
        " (aclnnFusedInferAttentionScoreV2: int8 KV in this mode allows only fp16 query and output)");
}

// ---- query S in 2..16, bfloat16 query, the separated parameters: the prompt kernel's MSD mode ----

void check_antiquant_prompt_msd_tensors(Ctx& x) {
  attn::AntiQuant& a = x.p.antiquant;
  if (x.p.Sq > 16)
    fail("query S = " + str(x.p.Sq) +
         " with inputs.key_antiquant_scale / value_antiquant_scale and a bfloat16 query must be <= 16 (the vendor: \"S "
         "of query is larger than 16, when the key/value's dequant scale is enabled\"; spec §1.6)");
  for (const char* side : {"key", "value"})
    if (!has(x.c, std::string(side) + "_antiquant_scale"))
      fail("inputs." + std::string(side) +
           "_antiquant_scale is missing (the vendor: \"Shape of the key's dequant scale or the shape of the value's "
           "dequant scale is null\")");
  if (has(x.c, "key_antiquant_offset") != has(x.c, "value_antiquant_offset"))
    fail("inputs.key_antiquant_offset and inputs.value_antiquant_offset go together (spec §1.6)");
  const int64_t km = attr_int(x.c, "key_antiquant_mode"), vm = attr_int(x.c, "value_antiquant_mode");
  if (km != vm || (km != 0 && km != 1))
    fail("attrs.key_antiquant_mode = " + str(km) + " and attrs.value_antiquant_mode = " + str(vm) +
         " must both be 0 (per-channel) or both 1 (per-token) with query S > 1 (the vendor: \"the key/value's quant "
         "mode only support per-token and per-channel when the key/value's dequant scale is enabled\")");
  a = {};
  a.on = a.msd = a.separated = true;
  a.k_mode = a.v_mode = int(km);
  a.offset = has(x.c, "key_antiquant_offset");
  a.limbs = 2, a.coef = 127.49f, a.expand = 254.98f;  // PFA x910 base: msdAntiqCoeff1 / msdAntiqExpandCoeff, 2 limbs
  a.k_dtype = single(x.c, "key_antiquant_scale").dtype, a.v_dtype = single(x.c, "value_antiquant_scale").dtype;
  const ElemType want = km == 1 ? ElemType::F32 : ElemType::BF16;
  for (const char* name :
       {"key_antiquant_scale", "value_antiquant_scale", "key_antiquant_offset", "value_antiquant_offset"})
    if (has(x.c, name) && single(x.c, name).dtype != want)
      fail(std::string("inputs.") + name + " dtype " + elem_type_name(single(x.c, name).dtype) + " must be " +
           elem_type_name(want) + " in " + (km == 1 ? "per-token" : "per-channel") +
           " mode (the vendor: \"... is not " + (km == 1 ? "float32 in pertoken" : "bf16 in per-channel") +
           " mode\"; spec §1.6)");
  check_offset(x, "key_antiquant_scale", "key_antiquant_offset");
  check_offset(x, "value_antiquant_scale", "value_antiquant_offset");
}

void check_antiquant_prompt_msd_rules(Ctx& x) {
  attn::AttnProblem& p = x.p;
  attn::AntiQuant& a = p.antiquant;
  const std::string who = " is not supported when the key/value's dequant scale is enabled";
  if (p.kv == attn::KvStorage::List) fail("a tensor-list key / value (the vendor: \"tensorlist" + who + "\")");
  if (p.left_pad)
    fail("left padding (inputs.query_padding_size / kv_padding_size; the vendor: \"LeftPadding" + who + "\")");
  if (p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD)
    fail(
        "inputs.block_table (page attention) with inputs.key_antiquant_scale, a bfloat16 query and query S > 1 (spec "
        "§1.6: not with page attention; the vendor has no such kernel)");
  // A shared prefix: the vendor's host tiling takes it (no prefix check among the MSD rules; PFA tiling keys with
  // prefix + MSD exist), and per-channel parameters read no token index. Per-token ones: its kernel reads prefix
  // token t at param[b][t] and KV token j at param[b][prefix + j] of a (B, the key's S) tensor, past the row's end
  // for the last prefix tokens' worth of KV (hicann/ops-transformer c29bc10, prompt_flash_attention_tiling.cpp
  // 5276-5296 and prompt_flash_attention_s1s2_bns1_x910_base.h 983-1040): undefined, so npusim refuses it.
  if (p.prefix && a.k_mode == 1)
    fail(
        "inputs.key_shared_prefix with per-token key_ / value_antiquant parameters (mode 1), a bfloat16 query and "
        "query S > 1: the vendor's (B, the key's S) parameters leave the prefix tokens no index of their own (its "
        "kernel reads past each row), so npusim rejects it; per-channel parameters (mode 0) take a prefix");
  // Shapes: per-token (B, S) with the key's S; per-channel (N, D), (N, 1, D) or (H) of the KV heads.
  const std::vector<std::vector<int64_t>> ok =
      a.k_mode == 1 ? std::vector<std::vector<int64_t>>{{p.B, p.kv_s}}
                    : std::vector<std::vector<int64_t>>{{p.KV_N, p.D}, {p.KV_N, 1, p.D}, {p.KV_N * p.D}};
  for (const char* name : {"key_antiquant_scale", "value_antiquant_scale"}) {
    const std::vector<int64_t> shape = shape_of(single(x.c, name));
    if (std::find(ok.begin(), ok.end(), shape) == ok.end())
      fail(std::string("inputs.") + name + " has shape " + dims(shape) + " but must be " + list_shapes(ok) + " in " +
           (a.k_mode == 1 ? "per-token mode (B, the key's S)" : "per-channel mode (KV heads, D)") +
           " with query S > 1 (spec §1.6)");
  }
  a.token_s = a.k_mode == 1 ? p.kv_s : 0;
}

// Int4 K / V (spec §1.6 "INT4"; the vendor's IFA tiling, msd_research.md §9): query S = 1 only (the prompt forms take
// int8), D a multiple of 64, the separated parameters in modes 0 (per-channel), 1, 3 or K 0 / V 1; no post-quant,
// page attention or left padding. Then the decode rules with 4 limbs and the int4 constants 7.49 / 14.98.
void check_antiquant_int4_rules(Ctx& x) {
  attn::AttnProblem& p = x.p;
  attn::AntiQuant& a = p.antiquant;
  if (!x.decode())
    fail("int4 key / value with query S = " + str(p.Sq) +
         ": int4 KV antiquantisation runs at query S = 1 only (spec §1.6: the query S > 1 forms take int8 K / V)");
  if (p.D % 64 != 0)
    fail("D = " + str(p.D) +
         " with int4 key / value must be a multiple of 64 (8 in an int32-packed view; spec §1.6, the vendor's "
         "KVINT4_BYTE_BLOCK)");
  if (!a.separated)
    fail(
        "inputs.antiquant_scale (the combined parameters) with int4 key / value: int4 takes only the separated "
        "inputs.key_antiquant_scale / value_antiquant_scale (spec §1.6)");
  const bool ok =
      (a.k_mode == a.v_mode && (a.k_mode == 0 || a.k_mode == 1 || a.k_mode == 3)) || (a.k_mode == 0 && a.v_mode == 1);
  if (!ok)
    fail("attrs.key_antiquant_mode = " + str(a.k_mode) + " / value_antiquant_mode = " + str(a.v_mode) +
         " with int4 key / value: int4 supports modes 0 / 0 (per-channel), 1 / 1, 3 / 3 and 0 / 1 only (spec §1.6)");
  if (a.k_mode == 0 && shape_of(single(x.c, "key_antiquant_scale")) == std::vector<int64_t>{1})
    fail(
        "inputs.key_antiquant_scale of shape [1] (per-tensor) with int4 key / value: mode 0 with int4 is per-channel "
        "only (aclnnFusedInferAttentionScoreV2: per-tensor is int8 only)");
  if (p.post_quant.on)
    fail("inputs.quant_scale2 (int8 attention_out, post-quant) with int4 key / value is not supported (spec §1.6)");
  if (p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD)
    fail("inputs.block_table (page attention) with int4 key / value and a " + elem_type_name(p.in) +
         " query is not supported (spec §1.6)");
  if (p.left_pad)
    fail("inputs.kv_padding_size (left padding) with int4 key / value and a " + elem_type_name(p.in) +
         " query is not supported (spec §1.6)");
  check_antiquant_decode_rules(x);
  a.limbs = 4, a.coef = 7.49f,
  a.expand = 14.98f;  // IFA: KVINT4 ? 7.49 : 127, 14.98 : 254; 4 limbs (msd_research.md §9)
}

void check_antiquant_decode_rules(Ctx& x) {
  attn::AttnProblem& p = x.p;
  attn::AntiQuant& a = p.antiquant;
  // A tensor list takes every mode without pages, a shared prefix every mode without pages too: per-token parameters
  // hold the prefix's rows at batch 0's first tokens (AttnProblem::token_param_at, the vendor's indexing).
  const bool paged = p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD;
  for (const int m : {a.k_mode, a.v_mode})
    if (m >= 4 && !paged)
      fail("attrs." + std::string(m == a.k_mode ? "key" : "value") + "_antiquant_mode = " + mode_name(m) +
           " needs page attention (inputs.block_table; the vendor: \"the key/value's quant mode 4 and 5 use page "
           "attention to manage scale/offset, must be used in page attention scene\")");
  if (p.inner_precise > 1)
    fail("attrs.inner_precise = " + str(p.inner_precise) +
         " with KV antiquantisation at query S = 1 must be 0 (3 limbs) or 1 (2 limbs; the vendor's decode tiling: "
         "\"precision mode should be 0 or 1\")");
  a.limbs = p.inner_precise == 0 ? 3 : 2;
  if (paged && p.block_size % 32 != 0)
    fail("attrs.block_size = " + str(p.block_size) +
         " with an int8 KV cache must be a multiple of 32 (the vendor: \"When Page Attention is enabled, if kv cache "
         "dtype is int8, input attr blocksize should be 32 aligned\")");
  // Shapes: per-token S (modes 1, 3) is the parameter's last dim and must cover every KV row a batch addresses.
  const int64_t first = a.separated ? 1 : 2;
  const std::string ks = a.separated ? "key_antiquant_scale" : "antiquant_scale";
  const std::string vs = a.separated ? "value_antiquant_scale" : "antiquant_scale";
  int64_t token_s = -1;
  for (const bool value : {false, true}) {
    if (value && !a.separated) break;  // the combined tensor holds both
    const std::string& name = value ? vs : ks;
    const std::vector<int64_t> shape = shape_of(single(x.c, name));
    const int m = a.mode(value);
    const int64_t s_a = (m == 1 || m == 3) && !shape.empty() ? shape.back() : 0;
    const auto ok = allowed_shapes(p, m, first, s_a, !a.separated);
    bool found = false;
    for (const auto& d : ok) found = found || d == shape;
    if (!found)
      fail("inputs." + name + " has shape " + dims(shape) + " but must be " +
           list_shapes(
               allowed_shapes(p, m, first, m == 1 || m == 3 ? std::max<int64_t>(x.kv_rows, 1) : 0, !a.separated)) +
           " with mode " + mode_name(m) + " (spec §1.6)");
    if (m == 0) {
      const bool per_tensor = shape == std::vector<int64_t>{first};
      if (value && a.k_mode == 0 && per_tensor != a.per_tensor)
        fail("inputs.key_antiquant_scale " + dims(shape_of(single(x.c, ks))) + " and inputs.value_antiquant_scale " +
             dims(shape) + " must both be per-tensor (1) or both per-channel (spec §1.6)");
      a.per_tensor = per_tensor;
    }
    if (m == 1 || m == 3) {
      if (p.prefix && s_a < p.prefix_len + x.kv_rows)
        fail("inputs." + name + " has S = " + str(s_a) + " (its last dim) but must be at least " +
             str(p.prefix_len + x.kv_rows) + " = the shared prefix's " + str(p.prefix_len) + " rows + the key's " +
             str(x.kv_rows) +
             " per batch, which follow them (the vendor: \"total kv S Size (with shared prefix) "
             "bigger than antiquant perToken size\")");
      if (s_a < x.kv_rows)
        fail("inputs." + name + " has S = " + str(s_a) + " (its last dim) but the key addresses " + str(x.kv_rows) +
             " rows per batch: a per-token parameter needs one value per KV row (spec §1.6)");
      if (token_s >= 0 && s_a != token_s)
        fail("inputs.value_antiquant_scale's S = " + str(s_a) + " must equal inputs.key_antiquant_scale's " +
             str(token_s));
      token_s = s_a;
    }
  }
  a.token_s = std::max<int64_t>(token_s, 0);
}

}  // namespace npusim::op::fia
