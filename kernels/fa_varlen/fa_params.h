#pragma once
// Parameters of op `flash_attention_var_len_score` (aclnnFlashAttentionVarLenScoreV3,
// ../shared/spec/flash_attention_varlen_score_v3.md; names as torch_npu's npu_fusion_attention_v2): the declared
// parameter list and the validation that turns a case into an attn::AttnProblem (TND, FA statistics, CAST_ROUND).
// Every rule broken throws CaseError naming the parameter (inputs.X / attrs.X), the value and the rule.
#include <vector>

#include "kernels/attention/attn_problem.h"
#include "kernels/op/op.h"

namespace npusim::op {

std::vector<ParamSpec> fa_varlen_param_specs();

// Validates the case (spec §2.1-2.4, kernels/fa_varlen/README.md "Decisions") and fills the problem. Works with
// or without tensor data loaded (timing mode): only shapes, dtypes and host attrs are read.
attn::AttnProblem parse_fa_varlen(const CaseFile& c);

}  // namespace npusim::op
