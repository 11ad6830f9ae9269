#pragma once
// Parameters of op `fused_infer_attention_score` (FIA V2, ../shared/spec/fused_infer_attention_score.md):
// the declared parameter list and the validation that turns a case into an attn::AttnProblem. Every rule
// broken throws CaseError naming the parameter (inputs.X / attrs.X), the value and the rule.
#include <vector>

#include "kernels/attention/attn_problem.h"
#include "kernels/op/op.h"

namespace npusim::op {

// Every V2 parameter under its snake_case name: tensors (spec §1.1 order), then host arrays and scalars.
std::vector<ParamSpec> fia_param_specs();

// Validates the case (spec §1.4-1.9 and the Decisions section) and fills the problem. Works with or without
// tensor data loaded (timing mode): only query_padding_size / kv_padding_size values are read, generated on
// the fly when a generated tensor carries no data.
attn::AttnProblem parse_fia(const CaseFile& c);

// The query has no elements: the op returns empty outputs without launching (spec §1.8 "Empty tensors").
bool fia_query_empty(const CaseFile& c);

}  // namespace npusim::op
