#pragma once
// References of the attention operators for the accuracy policy (design.md "Accuracy policy",
// kernels/op/accuracy.h), op-neutral: FusedInferAttentionScore and FlashAttentionVarLenScoreV3 build an
// AttnProblem + AttnData and get the same references.
//
// Semantics (spec fused_infer_attention_score.md §1.3, §3.1), per batch b, head n, logical query row
// i < act_q[b], over the visible columns j of the row (AttnData::visible):
//   s_j = scale * dot(q_i, k_j) (+ pse);  m = max s;  l = sum exp(s - m);  out = sum exp(s - m) v_j / l;
//   lse = m + ln l.
// Special rows (checked exactly): an empty band (visible_cols empty), or every band column masked by the mask
// tensor with invalid-row correction on -> out 0, lse +inf; every band column masked by the tensor with the
// correction off -> unspecified (the kernel averages V; spec §1.5), flagged in Reference::unspecified.
// Physical rows outside [q_start(b), q_start(b) + act_q[b]) -> out 0, lse +inf. Query S = 1 with empty KV
// (skv_eff(b) = 0) -> out 0, lse -3.4e38 (as fp32; spec Decisions).
// FA statistics (p.max_sum): m and l of each row, 8 copies, in AttnData::stat_index order; empty KV 0 / 0, a
// row nobody computes with KV -FLT_MAX / +FLT_MAX (the invalid-row values), rows past the batches 0 / 0.
// The scores run over D + Dr (AttnData::q / k read the rope pair after D).
// Post-quant (p.post_quant.on, int8 out): attention_out's references are the values above quantised once,
// clamp(round_half_even(out * scale[c] + offset[c]), -128, 127), wherever the kernel quantises (computed rows,
// rows whose O is 0 by invalid-row correction, decode batches with empty KV); working dtype int8 (the int8 rule).
#include <cstdint>
#include <vector>

#include "kernels/attention/attn_data.h"
#include "kernels/attention/attn_problem.h"
#include "kernels/host/case_file.h"
#include "kernels/op/op.h"

namespace npusim::op::attn {

// One output's values in C order over its shape (AttnData::out_shape / lse_shape).
struct AttnValues {
  std::vector<double> out, lse;
  std::vector<uint8_t> out_unspecified, lse_unspecified;  // nonzero where the operator leaves the value open
  std::vector<double> max, sum;                           // FA (p.max_sum): AttnData::stat_shape, x8 per row
  std::vector<uint8_t> max_unspecified, sum_unspecified;
};

enum class RowKind { Empty, Unspecified, Computed };
// How row i of batch b is defined (the special-row rules above); `cols` receives the visible columns.
RowKind row_kind(const AttnProblem& p, const AttnData& d, int64_t b, int64_t i, std::vector<int64_t>& cols);

// fp64 of the semantics above (products exact in fp64, sums in fp64, std::exp / std::log in fp64).
AttnValues attention_ref64(const AttnProblem& p, const AttnData& d);

// The FlashAttention rule's naive low-precision result: the textbook formula with the inputs as stored,
// S = fp32 sequential dot rounded to the input dtype, scale (and pse) applied in fp32, P = softmax in fp32
// (hw_exp, sequential sum, IEEE division) rounded to the input dtype, P.V summed in fp32 sequentially and
// rounded to the output dtype (RINT, IEEE overflow); lse = fp32(m + hw_ln(l)). Same special rows as ref64.
AttnValues attention_naive(const AttnProblem& p, const AttnData& d);

// "attention_out" (working dtype = out dtype, FA rule gated except in fp16 high-performance mode) and, when
// p.lse, "softmax_lse" (working fp32, fp16 in high-performance mode where m and l are fp16; same gating). reduction_len
// = the longest skv_eff.
std::vector<Reference> attention_references(const AttnProblem& p, const AttnData& d);

}  // namespace npusim::op::attn

namespace npusim::op {

// The FIA case's inputs (query, key, value [lists], pse_shift, atten_mask, block_table, key_shared_prefix,
// value_shared_prefix) as AttnData, then attention_references.
std::vector<Reference> fia_references(const attn::AttnProblem& p, const CaseFile& c);

}  // namespace npusim::op
