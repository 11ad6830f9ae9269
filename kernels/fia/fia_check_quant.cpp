// FIA parameter checks, stage 2 and the last stage: quantisation parameters (spec §1.6, §1.7).
// Post-quantisation (quant_scale2 / quant_offset2: int8 attention_out) and full quantisation
// (fia_check_full_quant.cpp) are implemented; their shape / dtype rules run at stage 2 and the rules that need
// the lengths, the mask and the lse flag at the end (check_post_quant). KV antiquantisation: fia_check_antiquant.cpp;
// its modes are range-checked here, and the ones npusim does not run are rejected (silently ignoring them would
// compute a different operator).
// kernels/fia/README.md "Post-quantisation" cites the vendor sources of each rule.
#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {
// The vendor's dequantising prompt path (a float16 query, S > 1) is per-channel / per-tensor only: its kernel calls
// AscendAntiQuant with a headSize vector or a scalar, its tiling rejects other modes with a block table and reads only
// the combined parameters without one (hicann/ops-transformer c29bc10: prompt_flash_attention_s1s2_bns1_x910.h
// 163-400; prompt_flash_attention_tiling.cpp 2530, 2609-2611, 4421-4425).
const char* const kPerChannelOnly =
    " must be 0 with query S > 1 outside MSD (the vendor's dequantising prompt path is per-channel / per-tensor: "
    "\"keyAntiquantMode and valueAntiquantMode only support per-token and per-channel when keyAntiquantScale or "
    "valueAntiquantScale is enabled\" rejects every mode but 0; spec §1.6)";

// antiquant_mode 0..1 (legacy); key/value_antiquant_mode 0..5 (6 = per-token-group is not on A2), only 0 and 1
// with query S > 1 (all of 0-5 with S = 1, MSD), equal except K per-channel (0) + V per-token (1) (spec §1.6).
void check_modes(const Ctx& x) {
  const int64_t legacy = attr_int(x.c, "antiquant_mode");
  if (legacy < 0 || legacy > 1)
    fail("attrs.antiquant_mode = " + str(legacy) + " must be 0 (per-channel) or 1 (per-token)");
  const int64_t km = attr_int(x.c, "key_antiquant_mode"), vm = attr_int(x.c, "value_antiquant_mode");
  for (const auto& [name, m] :
       {std::pair<const char*, int64_t>{"key_antiquant_mode", km}, {"value_antiquant_mode", vm}}) {
    if (m < 0 || m > 5)
      fail(std::string("attrs.") + name + " = " + str(m) + " must be in [0, 5] (spec §1.6; 6 is not on A2)");
    if (m > 1 && x.p.Sq != 1)
      fail(std::string("attrs.") + name + " = " + str(m) + " must be 0 or 1 when query S > 1 (spec §1.6)");
  }
  if (km != vm && !(km == 0 && vm == 1))
    fail("attrs.key_antiquant_mode = " + str(km) + " and attrs.value_antiquant_mode = " + str(vm) +
         " must be equal, or 0 and 1 (spec §1.6)");
  if (legacy != 0 && x.p.Sq != 1)
    fail("attrs.antiquant_mode = " + str(legacy) +
         " is not allowed with query S > 1 (the vendor: \"antiquant_mode is not supported!\"; the prompt branch's "
         "combined parameters are per-channel or per-tensor; spec §1.6)");
  if (x.decode()) {  // every mode runs through MSD; K per-channel + V per-token only with the separated parameters
    if (km != vm && x.p.antiquant.on && !x.p.antiquant.separated)
      fail("attrs.key_antiquant_mode = " + str(km) + " and attrs.value_antiquant_mode = " + str(vm) +
           " need the separated key_ / value_antiquant parameters (the combined inputs.antiquant_scale takes "
           "attrs.antiquant_mode for both)");
    return;
  }
  if (x.p.antiquant.msd) return;  // the bfloat16 separated form: modes 0 / 1 (fia_check_antiquant_msd.cpp)
  if (km != 0) fail("attrs.key_antiquant_mode = " + str(km) + kPerChannelOnly);
  if (vm != 0) fail("attrs.value_antiquant_mode = " + str(vm) + kPerChannelOnly);
}

// quant_scale2 / quant_offset2: dtype float32 (or bfloat16 with a bfloat16 query), one element (per-tensor) or
// N * D (per-channel, index n * D + d, any shape with that many elements such as [N * D], [N, D], [1, N, 1, D]);
// the offset only with the scale, in the scale's dtype and size (vendor PFA CheckPostQuantParams, IFA
// post-quant checks).
void check_post_quant_tensors(Ctx& x) {
  attn::PostQuant& q = x.p.post_quant;
  const bool s = has(x.c, "quant_scale2"), o = has(x.c, "quant_offset2");
  if (o && !s)
    fail(
        "inputs.quant_offset2 is given without inputs.quant_scale2 (the output is int8 exactly when quant_scale2 is "
        "given; spec §1.7)");
  if (!s) return;
  const TensorEntry& st = single(x.c, "quant_scale2");
  const std::string allowed =
      x.p.in == ElemType::BF16 ? "float32 or bfloat16" : "float32 (bfloat16 needs a bfloat16 query)";
  if (st.dtype != ElemType::F32 && !(st.dtype == ElemType::BF16 && x.p.in == ElemType::BF16))
    fail("inputs.quant_scale2 dtype " + elem_type_name(st.dtype) + " is not allowed: " + allowed + " (query " +
         elem_type_name(x.p.in) + "; spec §1.1)");
  const int64_t n = numel(shape_of(st)), hd = x.p.N * x.p.D;
  if (n != 1 && n != hd)
    fail("inputs.quant_scale2 has shape " + dims(shape_of(st)) + " (" + str(n) +
         " elements) but must have 1 (per-tensor) or N * D = " + str(x.p.N) + " * " + str(x.p.D) + " = " + str(hd) +
         " elements (per-channel)");
  q.on = true, q.dtype = st.dtype, q.per_channel = n != 1;
  x.p.out = ElemType::I8;
  if (o) {
    const TensorEntry& ot = single(x.c, "quant_offset2");
    if (ot.dtype != st.dtype)
      fail("inputs.quant_offset2 dtype " + elem_type_name(ot.dtype) + " must equal inputs.quant_scale2's " +
           elem_type_name(st.dtype));
    if (numel(shape_of(ot)) != n)
      fail("inputs.quant_offset2 has shape " + dims(shape_of(ot)) +
           " but must have as many elements as inputs.quant_scale2 " + dims(shape_of(st)) + " (" + str(n) + ")");
    q.offset = true;
  }
  if (!q.per_channel) {  // the kernel takes per-tensor values as scalars (read from GM by its scalar unit)
    q.scale = first_number(st);
    if (o) q.offset_value = first_number(single(x.c, "quant_offset2"));
  }
}

// Post-quant with an offset: rows the prompt kernel skips keep 0 instead of the quantised offset, so the
// vendor rejects cases where rows would be skipped (PFA tiling, spec §1.7): per batch with Sq_b = act_q[b],
// Skv_b = act_kv[b] and prefix P, after the sparse mode's conversion of (pre, next): mode 0 with a mask
// fails if pre + Skv_b + P - Sq_b < 0 or next < 0, mode 3 if Skv_b + P - Sq_b < 0, mode 4 if pre < 0 or
// next + Skv_b + P - Sq_b < 0; modes 1, 2 and mode 0 without a mask never.
void check_skipped_rows(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t delta = p.act_kv[size_t(b)] + p.prefix_len - p.act_q[size_t(b)];
    bool bad = false;
    std::string rule;
    if (p.sparse_mode == 0 && p.mask != attn::MaskKind::None)
      bad = p.pre_tokens + delta < 0 || p.next_tokens < 0,
      rule = "pre_tokens + Skv + prefix - Sq < 0 or next_tokens < 0";
    else if (p.sparse_mode == 3) bad = delta < 0, rule = "Skv + prefix - Sq < 0";
    else if (p.sparse_mode == 4)
      bad = p.pre_tokens < 0 || p.next_tokens + delta < 0,
      rule = "pre_tokens < 0 or next_tokens + Skv + prefix - Sq < 0";
    if (bad)
      fail("inputs.quant_offset2 is given with attrs.sparse_mode = " + str(p.sparse_mode) + " where " + rule +
           " (batch " + str(b) + ": Sq " + str(p.act_q[size_t(b)]) + ", Skv " + str(p.act_kv[size_t(b)]) + ", prefix " +
           str(p.prefix_len) + ", pre_tokens " + str(p.pre_tokens) + ", next_tokens " + str(p.next_tokens) +
           "): some rows do not take part in the calculation and would read 0 instead of the quantised offset (spec "
           "§1.7)");
  }
}
}  // namespace

void check_quant(Ctx& x) {
  check_full_quant_tensors(x);
  check_post_quant_tensors(x);
  check_antiquant_tensors(x);
  check_modes(x);
}

void check_post_quant(Ctx& x) {
  const attn::AttnProblem& p = x.p;
  check_full_quant_rules(x);
  check_antiquant_rules(x);
  if (!p.post_quant.on) return;
  // Any int8 tensor needs D aligned to 32 elements (FIA tiling: "D should be 32 elements aligned when int8 is
  // involved").
  if (p.D % 32 != 0)
    fail("inputs.quant_scale2 makes attention_out int8, which needs D = " + str(p.D) +
         " to be a multiple of 32 (spec §1.7)");
  if (p.post_quant.per_channel) {
    if (p.left_pad)
      fail("inputs.quant_scale2 is per-channel (" + str(p.N * p.D) +
           " elements) and cannot be combined with left padding (inputs.query_padding_size / kv_padding_size; spec "
           "§1.7)");
    if (p.lse)
      fail("inputs.quant_scale2 is per-channel (" + str(p.N * p.D) +
           " elements) and cannot be combined with attrs.softmax_lse_flag = true (spec §1.7)");
  }
  if (x.decode()) return;  // the interceptions below are the prompt kernel's (query S = 1 ignores the band)
  if (p.sparse_mode == 4 && (p.pre_tokens < 0 || p.next_tokens < 0))
    fail("attrs.sparse_mode = 4 with pre_tokens = " + str(p.pre_tokens) + " / next_tokens = " + str(p.next_tokens) +
         ": a negative band edge is not allowed when attention_out is int8 (inputs.quant_scale2; spec §1.7)");
  if (p.post_quant.offset) check_skipped_rows(x);
}

}  // namespace npusim::op::fia
