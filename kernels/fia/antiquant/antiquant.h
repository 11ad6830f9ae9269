#pragma once
// KV antiquantisation, the prompt branch's float16 path (p.antiquant): int8 key and value are dequantised to fp16
// before attention, each element as the vendor's AscendAntiQuant<int8_t, half> does on A2,
//   x' = f16( f16( f16(x) + offset[c] ) * scale[c] ),  c = n2 * D + d (per-channel) or one value (per-tensor),
// vconv s8 -> f16 (exact), vadd.f16, vmul.f16 (kernels/fia/README.md "KV antiquantisation" cites the sources). The
// vendor dequantises each K / V block into workspace inside its loop; here the AIVs of the launch dequantise the
// whole of K and V into GM copies in a prologue (the same bytes read and written, not overlapped with the
// attention) and every core meets at a SyncAll before the mainloops read them.
#include <cstdint>
#include <string>

#include "kernels/attention/plan.h"
#include "sim/config/hw_config.h"

namespace npusim::op::fia {

// The pass's plan: runs of int8 elements in GM, each using one channel row of the parameters.
struct DequantPlan {
  std::string src_key = "key", src_value = "value";  // the int8 tensors
  int64_t seg = 0;       // elements of one contiguous run that uses one channel row: BSH / BSND a token's KV_N * D,
                         // BNSD one row of D
  int64_t segments = 0;  // runs per tensor
  int64_t slab = 0;      // BNSD: runs per (b, n2), which share KV head n2's D channels; 0 (BSH / BSND): all heads
  int64_t chunk = 0;     // runs per UB chunk (never across a slab)
};

// Plans the pass from the problem and the UB capacity (CaseError when one run does not fit), points pl.gm.key /
// value at the fp16 copies (key_fp16 / value_fp16) and installs the pass as pl.prologue: each AIV dequantises its
// share of the runs of K, then of V. Returns the bytes of each copy, which the caller allocates.
uint64_t add_kv_dequant(attn::Plan& pl, const sim::HwConfig& hw);

}  // namespace npusim::op::fia
