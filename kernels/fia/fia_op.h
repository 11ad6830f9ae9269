#pragma once
// Op `fused_infer_attention_score` (FusedInferAttentionScore V2, ../shared/spec/fused_infer_attention_score.md):
// parameters and checks in fia_params.h, the prompt kernel behind fia_launch.h, the references in
// kernels/attention/attn_reference.h.
#include "kernels/op/op.h"

namespace npusim::op {

class FiaOp final : public Op {
 public:
  std::string name() const override { return "fused_infer_attention_score"; }
  std::string summary() const override {
    return "FusedInferAttentionScore V2: softmax(scale * Q.K^T + pse, masked) . V (prompt branch, query S > 1)";
  }
  std::vector<ParamSpec> params() const override;
  const TilingSpace& tiling_space() const override;
  Prepared prepare(const CaseFile& c, sim::Machine& m) const override;
  std::vector<Reference> reference(const CaseFile& c) const override;
};

}  // namespace npusim::op
