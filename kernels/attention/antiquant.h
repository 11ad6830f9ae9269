#pragma once
// KV antiquantisation, the prompt branch's float16 path (p.antiquant): int8 key and value are dequantised to fp16
// before attention, each element as the vendor's AscendAntiQuant<int8_t, half> does on A2,
//   x' = f16( f16( f16(x) + offset[c] ) * scale[c] ),  c = n2 * D + d (per-channel) or one value (per-tensor),
// vconv s8 -> f16 (exact), vadd.f16, vmul.f16 (kernels/fia/README.md "KV antiquantisation" cites the sources). The
// vendor dequantises each K / V block into workspace inside its loop; here the AIVs of the launch dequantise the
// whole of K and V into GM copies in a prologue (the same bytes read and written, not overlapped with the
// attention) and every core meets at a SyncAll before the mainloops read them.
#include "kernels/attention/plan.h"
#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op::attn {

// Fills pl.dequant from the problem and the UB capacity, and points pl.gm.key / value at the fp16 copies
// (key_fp16 / value_fp16, which the caller allocates: dequant_bytes() each). CaseError when one run does not fit.
void plan_dequant(Plan& pl, const sim::HwConfig& hw);
uint64_t dequant_bytes(const Plan& pl);
// The prologue of one AIV: its share of the runs of K, then of V.
void dequant_kv(sim::CoreCtx& c, const Plan& pl);

}  // namespace npusim::op::attn
