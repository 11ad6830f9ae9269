#pragma once
// FIA's int4 K / V given as int32 words (spec §1.6: "INT32 packing 8 nibbles, the N / D / H dims ÷ 8"). The vendor's
// aclnn layer only re-views such a tensor as int4 with its last dim x 8 (aclnn_fused_infer_attention_score_inner.cpp,
// kernels/fia/msd_research.md §9); npusim does the same before its checks, so everything after sees int4. Element k
// of a word is bits [4k, 4k + 4) of the little-endian int32 (the spec's assumption), which is also the low-nibble-first
// byte order int4 has in GM: the GM bytes are the words' bytes.
#include <optional>

#include "kernels/host/case_file.h"

namespace npusim::op::fia {

// `c` itself, or (when key / value / a shared prefix is int32) its int4 view built in `storage`.
const CaseFile& int4_view(const CaseFile& c, std::optional<CaseFile>& storage);

}  // namespace npusim::op::fia
