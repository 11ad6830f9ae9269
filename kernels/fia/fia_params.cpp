// Op `fused_infer_attention_score`: its declared parameters and parse_fia, which runs the validation stages of
// fia_checks.h in order. The stages live in fia_check_*.cpp; this file holds the helpers they share.
#include "kernels/fia/fia_params.h"
#include "kernels/op/params.h"

#include "kernels/fia/fia_checks.h"

namespace npusim::op {

std::vector<ParamSpec> fia_param_specs() {
  // Tensors in spec §1.1 order, then host arrays and scalars (design.md "Case file": tensors under inputs).
  return {
      {"query", "tensor", true, "",
       "BSH (B, S, H) or BSND / BNSD / BNSD_BSND (4-D); float16 or bfloat16; int8 (query S > 1) with int8 key / value: "
       "full quantisation"},
      {"key", "tensor_list", true, "",
       "query's layout with KV_N heads; a YAML list of B batch-1 tensors; paged 3-D / 4-D; the query's dtype, or int8 "
       "/ int4 (int32 words of 8 int4, last dim / 8) with antiquant parameters"},
      {"value", "tensor_list", true, "", "same shape(s) and dtype as key"},
      {"pse_shift", "tensor", false, "none",
       "(B or 1, N, >= Sq, >= Skv) (query S = 1: (B or 1, N, 1, >= Skv)), query dtype (float16 with an int8 query); "
       "added after the scale"},
      {"atten_mask", "tensor", false, "none",
       "bool / int8 / uint8, 1 = masked; (Sq, Skv) forms, or 2048 x 2048 for modes 2-4; query S = 1: (B, Skv), (B, 1, "
       "Skv), (B, 1, 1, Skv)"},
      {"dequant_scale1", "tensor", false, "none",
       "full quant (int8 query): dequant of Q.K^T on the FixPipe; float32 or uint64 (aclnnTransQuantParam), element 0"},
      {"quant_scale1", "tensor", false, "none",
       "full quant (int8 query): quantisation of P to int8; float32, element 0"},
      {"dequant_scale2", "tensor", false, "none",
       "full quant (int8 query): dequant of P.V on the FixPipe; float32 or uint64, element 0"},
      {"quant_scale2", "tensor", false, "none",
       "int8 attention_out: float32 (or bfloat16 with a bfloat16 query), [1] per-tensor or N*D per-channel"},
      {"quant_offset2", "tensor", false, "none",
       "int8 attention_out: offset, quant_scale2's dtype and size (default 0)"},
      {"antiquant_scale", "tensor", false, "none",
       "int8 K / V dequant scale, K's at [0] and V's at [1]: query S > 1 (float16 query) float16 (2) per-tensor or "
       "per-channel (2, KV_N, 1, D) BNSD / (2, H) BSH / (2, KV_N, D) BSND, x' = f16(f16(x + offset) * scale); query S "
       "= 1 (MSD) antiquant_mode 0 as those in the query's dtype, or 1 per-token float32 (2, B, S)"},
      {"antiquant_offset", "tensor", false, "none",
       "KV antiquant offset: antiquant_scale's dtype and shape (default 0)"},
      {"block_table", "tensor", false, "none", "page attention: int32 (B, max_blocks) block ids"},
      {"query_padding_size", "tensor", false, "none", "left padding: int64 [1], query rows end this many before S"},
      {"kv_padding_size", "tensor", false, "none", "left padding: int64 [1], K/V rows end this many before S"},
      {"key_antiquant_scale", "tensor", false, "none",
       "int8 K dequant scale, separated form: query S > 16 with page attention and a float16 query, float16 (1, H) BSH "
       "/ (1, KV_N, D) BSND per-channel; query S = 1 (MSD) per key_antiquant_mode: 0 (1, KV_N, 1, D) / (1, KV_N, D) / "
       "(1, H) or (1) in the query's dtype, 1 (1, B, S) float32, 2 (KV_N), 3 (B, KV_N, S) float32, 4 (block_num, "
       "block_size) float32, 5 (block_num, KV_N, block_size) float32"},
      {"key_antiquant_offset", "tensor", false, "none", "int8 K dequant offset: key_antiquant_scale's dtype and shape"},
      {"value_antiquant_scale", "tensor", false, "none",
       "int8 V dequant scale, separated form: as key_antiquant_scale"},
      {"value_antiquant_offset", "tensor", false, "none",
       "int8 V dequant offset: value_antiquant_scale's dtype and shape"},
      {"key_shared_prefix", "tensor", false, "none", "system prefix K, batch 1, key's layout and dtype"},
      {"value_shared_prefix", "tensor", false, "none", "system prefix V, same shape as key_shared_prefix"},
      {"actual_seq_lengths", "int_list", false, "query S",
       "valid query rows per batch: 1 value (all batches) or >= B; not used at query S = 1"},
      {"actual_seq_lengths_kv", "int_list", false, "key S",
       "valid K/V rows per batch (prefix excluded); paged: required"},
      {"actual_shared_prefix_len", "int_list", false, "prefix S", "[P]: prefix rows used, P <= prefix S"},
      {"num_heads", "int", true, "", "query heads N, 1..256"},
      {"scale", "float", false, "1.0", "multiplies Q.K^T (usually 1/sqrt(D))", 1.0},
      {"pre_tokens", "int", false, "2147483647",
       "band: columns visible up to this many before the diagonal; ignored at query S = 1", int64_t{2147483647}},
      {"next_tokens", "int", false, "2147483647",
       "band: columns visible up to this many after the diagonal; ignored at query S = 1", int64_t{2147483647}},
      {"input_layout", "string", false, "BSH",
       "BSH | BSND | BNSD | BNSD_BSND (BNSD in, BSND out; not with query S = 1)", std::string("BSH")},
      {"num_key_value_heads", "int", false, "0 (= num_heads)", "KV heads KV_N; N % KV_N == 0, N / KV_N <= 64",
       int64_t{0}},
      {"sparse_mode", "int", false, "0",
       "0 mask+band, 1 all mask, 2 left-up causal, 3 right-down causal, 4 band; ignored at query S = 1", int64_t{0}},
      {"inner_precise", "int", false, "0", "bit0 fp16 high performance (query S > 1 only), bit1 invalid-row correction",
       int64_t{0}},
      {"block_size", "int", false, "0",
       "page attention tokens per block: a multiple of 128 in [128, 512]; query S = 1: [1, 512]", int64_t{0}},
      {"antiquant_mode", "int", false, "0",
       "combined antiquant_scale at query S = 1: 0 per-channel / per-tensor, 1 per-token", int64_t{0}},
      {"softmax_lse_flag", "bool", false, "false", "also write softmax_lse (B, N, Sq, 1) float32", false},
      {"key_antiquant_mode", "int", false, "0",
       "K antiquant mode, query S = 1: 0 per-channel / per-tensor, 1 per-token, 2 per-tensor + head, 3 per-token + "
       "head, 4 / 5 per-token (+ head) managed by page attention (query S > 1: 0 only)",
       int64_t{0}},
      {"value_antiquant_mode", "int", false, "0",
       "V antiquant mode: as key_antiquant_mode; equal to it, or 1 with K's 0", int64_t{0}},
  };
}

attn::AttnProblem parse_fia(const CaseFile& c) {
  // check_param_names (Op::prepare) rejects missing required parameters too; parse_fia is also called alone.
  for (const char* t : {"query", "key", "value"})
    if (!has(c, t)) fail(std::string("inputs.") + t + " is required (fused_infer_attention_score)");
  if (!c.attrs || !c.attrs.IsMap() || !c.attrs["num_heads"])
    fail("attrs.num_heads is required (the query heads N, 1..256)");
  fia::Ctx x{c, {}, {}};
  fia::check_query(x);
  fia::check_quant(x);
  fia::check_kv(x);
  fia::check_prefix(x);
  fia::check_lengths(x);
  fia::check_scores(x);
  fia::check_precision(x);
  fia::check_post_quant(x);
  return x.p;
}

bool fia_query_empty(const CaseFile& c) { return has(c, "query") && numel(shape_of(fia::single(c, "query"))) == 0; }

namespace fia {

const TensorEntry& single(const CaseFile& c, const std::string& name) {
  return op::single(c, name, " (only key and value may be tensor lists)");
}

}  // namespace fia
}  // namespace npusim::op
