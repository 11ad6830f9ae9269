// Op `flash_attention_var_len_score`: its declared parameters and parse_fa_varlen, which runs the validation
// stages of fa_checks.h in order.
#include "kernels/fa_varlen/fa_params.h"

#include "kernels/fa_varlen/fa_checks.h"

namespace npusim::op {

std::vector<ParamSpec> fa_varlen_param_specs() {
  // Tensors in the aclnn signature's order (spec §2.1), then the host values (torch_npu defaults).
  return {
      {"query", "tensor", true, "", "(T1, N1, D), bfloat16 (float16 without rope); D a multiple of 8, <= 768"},
      {"key", "tensor", true, "", "(T2, N2, D), query's dtype; N1 % N2 == 0"},
      {"value", "tensor", true, "", "(T2, N2, Dv), query's dtype; Dv <= D"},
      {"query_rope", "tensor", false, "none", "(T1, N1, Dr), bfloat16, Dr a multiple of 8, Dr <= D; with key_rope"},
      {"key_rope", "tensor", false, "none", "(T2, N2, Dr), bfloat16; with query_rope"},
      {"atten_mask", "tensor", false, "none",
       "bool / uint8, 1 = masked: (maxSq, maxSkv) per batch, (T1, T2) global, or (2048, 2048) compressed for modes 2, "
       "3, 4, 7, 8; required with rope"},
      {"pse", "tensor", false, "none", "must be absent (FA V3 takes no position shift)"},
      {"padding_mask", "tensor", false, "none", "reserved: must be absent"},
      {"drop_mask", "tensor", false, "none", "must be absent (keep_prob must be 1)"},
      {"head_num", "int", true, "", "query heads N1, 1..256"},
      {"input_layout", "string", true, "", "TND (the only layout)"},
      {"scale", "float", false, "1.0", "multiplies Q.K^T + Qr.Kr^T (as float32)", 1.0},
      {"keep_prob", "float", false, "1.0", "dropout keep probability: must be 1", 1.0},
      {"pre_tokens", "int", false, "2147483647", "band: columns visible up to this many before the diagonal",
       int64_t{2147483647}},
      {"next_tokens", "int", false, "2147483647", "band: columns visible up to this many after the diagonal",
       int64_t{2147483647}},
      {"inner_precise", "int", false, "0", "0 / 1 default, 2 invalid-row correction (fully masked rows: out 0)",
       int64_t{0}},
      {"sparse_mode", "int", false, "0",
       "0 mask + band, 1 all mask, 2 left-up causal, 3 right-down causal, 4 band, 7 / 8 causal with one band batch",
       int64_t{0}},
      {"pse_type", "int", false, "1", "0 or 1 (no pse either way)", int64_t{1}},
      {"actual_seq_qlen", "int_list", true, "", "cumulative query ends per batch, e.g. [2, 4, 4, 6]; the last is T1"},
      {"actual_seq_kvlen", "int_list", true, "", "cumulative key / value ends per batch; the last is T2"},
      {"prefix", "int_list", false, "none", "modes 5 / 6 only (not available here): no effect"},
      {"q_start_idx", "int_list", false, "none",
       "[1]: context-parallel start of the query (alibi pse only): no effect"},
      {"kv_start_idx", "int_list", false, "none", "[1]: context-parallel start of the KV (alibi pse only): no effect"},
  };
}

attn::AttnProblem parse_fa_varlen(const CaseFile& c) {
  for (const char* t : {"query", "key", "value"})
    if (!has(c, t)) fail(std::string("inputs.") + t + " is required (flash_attention_var_len_score)");
  for (const char* a : {"head_num", "input_layout", "actual_seq_qlen", "actual_seq_kvlen"})
    if (!c.attrs || !c.attrs.IsMap() || !c.attrs[a])
      fail(std::string("attrs.") + a + " is required (flash_attention_var_len_score)");
  fa::Ctx x{c, {}, false};
  fa::check_absent(x);
  fa::check_tensors(x);
  fa::check_lengths(x);
  fa::check_scores(x);
  fa::check_precision(x);
  return x.p;
}

namespace fa {
const TensorEntry& single(const CaseFile& c, const std::string& name) {
  return op::single(c, name, " (flash_attention_var_len_score takes no tensor lists)");
}
}  // namespace fa

}  // namespace npusim::op
