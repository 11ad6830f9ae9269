#pragma once
// Internal to the FA V3 parameter layer: the state built while a case is validated and the stages in the order
// parse_fa_varlen runs them (fa_check_shapes.cpp, fa_check_scores.cpp).
#include <string>
#include <vector>

#include "kernels/attention/attn_problem.h"
#include "kernels/host/case_file.h"
#include "kernels/op/case_access.h"
#include "kernels/op/params.h"

namespace npusim::op::fa {

struct Ctx {
  const CaseFile& c;
  attn::AttnProblem p;
  bool rope = false;  // query_rope / key_rope given
};

// The one tensor of a parameter (FA V3 takes no tensor lists).
const TensorEntry& single(const CaseFile& c, const std::string& name);

void check_absent(const Ctx& x);  // pse, padding_mask, drop_mask; keep_prob, pse_type, input_layout
void check_tensors(Ctx& x);       // query / key / value / rope: dtypes, ranks, T / N / D rules, head_num
void check_lengths(Ctx& x);       // actual_seq_qlen / actual_seq_kvlen: cumulative ends, B, the last = T
void check_scores(Ctx& x);        // sparse_mode and its band rules, pre / next, atten_mask forms
void check_precision(Ctx& x);     // scale, inner_precise, prefix / q_start_idx / kv_start_idx

}  // namespace npusim::op::fa
