#pragma once
// Internal to the FIA parameter layer (fia_params.cpp and the fia_check_*.cpp files it calls): the state
// built up while a case is validated, the validation stages in the order parse_fia runs them, and small
// helpers shared by the stages.
#include <string>
#include <vector>

#include "kernels/attention/attn_problem.h"
#include "kernels/host/case_file.h"
#include "kernels/op/case_access.h"
#include "kernels/op/params.h"

namespace npusim::op::fia {

struct Ctx {
  const CaseFile& c;
  attn::AttnProblem p;
  std::vector<int64_t> q_shape;
  bool query_empty = false;  // numel 0: only the size-independent rules apply (spec §1.8 "Empty tensors")
  int64_t kv_rows = 0;       // K/V rows one batch can address: dense S, list max S_b, paged max_blocks*block_size
  bool act_q_given = false, act_kv_given = false;
  // The widest [prefix || kv] a mask or pse must cover (spec §1.4, §1.8: Skv >= P + Skv, paged max_blocks*bs).
  int64_t skv_max() const { return p.prefix_len + kv_rows; }
  // Query S = 1: the incremental (IFA) branch, whose rules differ (fia_check_decode.cpp).
  bool decode() const { return p.Sq == 1; }
};

// ---- stages (parse_fia calls them in this order; each reads what the earlier ones filled) ----
void check_query(Ctx& x);       // fia_check_query.cpp: dtype, layout, rank, B / N / Sq / D, KV_N and G
void check_quant(Ctx& x);       // fia_check_quant.cpp: post-quant tensors; the other quantisation parameters rejected
void check_kv(Ctx& x);          // fia_check_kv.cpp: key / value dense, tensor list or paged
void check_prefix(Ctx& x);      // fia_check_lengths.cpp: key/value_shared_prefix, actual_shared_prefix_len
void check_lengths(Ctx& x);     // fia_check_lengths.cpp: actual lengths, left padding, paged block counts
void check_scores(Ctx& x);      // fia_check_scores.cpp: sparse_mode, pre / next, atten_mask, pse_shift
void check_precision(Ctx& x);   // fia_check_scores.cpp: scale, inner_precise, high_perf, row_fix, lse
void check_post_quant(Ctx& x);  // fia_check_quant.cpp: int8 output rules needing lengths, mask and lse
// Query S = 1 variants, called by the stages above (fia_check_decode.cpp):
void check_decode_padding(Ctx& x);  // from check_lengths: kv_padding_size alone, starts < 0 -> empty KV
void check_decode_scores(Ctx& x);   // from check_scores: sparse / pre / next ignored, (B, .., Skv) masks, pse
// Full quantisation (fia_check_full_quant.cpp): scales and their presence (from check_quant), the int8 query's
// feature restrictions (from check_post_quant).
void check_full_quant_tensors(Ctx& x);
void check_full_quant_rules(const Ctx& x);
// KV antiquantisation with the combined parameters (fia_check_antiquant.cpp): the tensors (from check_quant, before
// check_kv's dtype rule), the storage / D rules (from check_post_quant).
void check_antiquant_tensors(Ctx& x);
void check_antiquant_rules(Ctx& x);
// ... at query S = 1, MSD (fia_check_antiquant_msd.cpp): modes 0-5, dtypes (stage 2); shapes, storage, limbs (end).
void check_antiquant_decode_tensors(Ctx& x);
void check_antiquant_decode_rules(Ctx& x);
// ... with a bfloat16 query and query S in 2..16 (the prompt kernel's MSD mode; same file).
void check_antiquant_prompt_msd_tensors(Ctx& x);
void check_antiquant_prompt_msd_rules(Ctx& x);
// ... with int4 K / V (query S = 1 only; same file): D, parameter form and modes, what int4 excludes.
void check_antiquant_int4_rules(Ctx& x);

// ---- helpers: kernels/op/case_access.h (fail, str, dims, has, shape_of, numel, first_value), and ----
// The one tensor of a parameter that is not a tensor list (only key and value may be lists in FIA).
const TensorEntry& single(const CaseFile& c, const std::string& name);
// The key (its first tensor) is int4, after the int32 view (fia_int4_view.h): int4 KV antiquantisation.
inline bool int4_key(const CaseFile& c) {
  const auto& k = c.inputs.at("key");
  return !k.empty() && k[0].dtype == ElemType::I4;
}

// ---- shared by the lengths / scores stages and their S = 1 variants ----
// query_padding_size / kv_padding_size: int64 [1], needs attrs.<act_name>; max(value, 0) (fia_check_lengths.cpp).
int64_t padding_value(const Ctx& x, const std::string& name, bool act_given, const std::string& act_name);
void check_mask_dtype(const TensorEntry& t);  // bool, int8 or uint8 (fia_check_scores.cpp)
void check_pse(Ctx& x);                       // (B or 1, N, >= Sq (S = 1: 1), >= Skv) (fia_check_scores.cpp)

// ---- shared by the K / V and prefix checks (fia_check_kv.cpp) ----
// Checks a K / V-like tensor in the query's layout (rank, batch `batch`, KV_N heads of D) and returns its S.
int64_t kv_layout_rows(const Ctx& x, const std::string& label, const std::vector<int64_t>& shape, int64_t batch);
// `other` must have exactly `ref`'s shape (spec §1.1: K and V shapes must be identical).
void same_shape(const std::string& other_label, const std::vector<int64_t>& other, const std::string& ref_label,
                const std::vector<int64_t>& ref);

}  // namespace npusim::op::fia
