#pragma once
// Op `flash_attention_var_len_score` (aclnnFlashAttentionVarLenScoreV3,
// ../shared/spec/flash_attention_varlen_score_v3.md): the training FlashAttention forward over packed variable-length
// sequences (TND) with an optional rope pair. Parameters and checks in fa_params.h, the tiling in fa_tiling.h; the
// kernel is the attention blocks' (kernels/attention/), the references kernels/attention/attn_reference.h.
#include "kernels/attention/attn_data.h"
#include "kernels/op/op.h"

namespace npusim::op {

class FaVarLenOp final : public Op {
 public:
  std::string name() const override { return "flash_attention_var_len_score"; }
  std::string summary() const override {
    return "FlashAttentionVarLenScoreV3: softmax(scale * (Q.K^T + Qr.Kr^T), masked) . V over packed TND sequences, "
           "with softmax_max / softmax_sum";
  }
  std::vector<ParamSpec> params() const override;
  const TilingSpace& tiling_space() const override;
  Prepared prepare(const CaseFile& c, sim::Machine& m) const override;
  std::vector<Reference> reference(const CaseFile& c) const override;
};

// The case's tensors as the attention references and the golden read them (absent optional inputs stay null).
attn::AttnTensors fa_varlen_tensors(const CaseFile& c);

}  // namespace npusim::op
