#pragma once
// KV antiquantisation, the prompt branch's float16 path (p.antiquant): int8 key and value are dequantised to fp16
// before attention, each element as the vendor's AscendAntiQuant<int8_t, half> does on A2,
//   x' = f16( f16( f16(x) + offset[c] ) * scale[c] ),  c = n2 * D + d (per-channel) or one value (per-tensor),
// vconv s8 -> f16 (exact), vadd.f16, vmul.f16 (kernels/fia/README.md "KV antiquantisation" cites the sources). The
// vendor dequantises each K / V block into workspace inside its loop; here the AIVs of the launch dequantise the
// whole of K and V (every tensor of a tensor list, and a shared prefix) into GM copies in a prologue (the same bytes
// read and written, not overlapped with the attention) and every core meets at a SyncAll before the mainloops read
// them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/plan.h"
#include "sim/config/hw_config.h"

namespace npusim::op::fia {

// One int8 tensor of the pass and its fp16 copy: K or V dense or paged, one tensor of a tensor list, or the shared
// prefix.
struct DequantTensor {
  std::string src, dst;  // GM names: the int8 tensor, its fp16 copy
  bool value = false;    // V's parameters (else K's)
  int64_t segments = 0;  // runs of the tensor
  int64_t slab = 0;      // BNSD: runs per (b, n2), which share KV head n2's D channels; 0 (BSH / BSND): all heads
};

// The pass's plan: runs of int8 elements in GM, each using one channel row of the parameters, K's tensors first.
struct DequantPlan {
  std::vector<DequantTensor> tensors;
  int64_t seg = 0;        // elements of one contiguous run that uses one channel row: BSH / BSND a token's KV_N * D,
                          // BNSD one row of D
  int64_t chunk = 0;      // runs per UB chunk (never across a slab)
  bool both_rows = true;  // per-channel: K's and V's channel rows both held in UB (else V's replace K's)
};

// Plans the pass from the problem and the UB capacity (CaseError when one run does not fit), points the plan's
// K / V names (pl.gm.key / value, and key_prefix / value_prefix with a shared prefix) at the fp16 copies (the same
// names + "_fp16"; a tensor list's copies are "key_fp16.B" as its tensors are "key.B") and installs the pass as
// pl.prologue: each AIV dequantises its share of the runs of every K tensor, then of every V tensor. Returns the
// copies, which the caller allocates: (GM name, bytes).
std::vector<std::pair<std::string, uint64_t>> add_kv_dequant(attn::Plan& pl, const sim::HwConfig& hw);

}  // namespace npusim::op::fia
