#pragma once
// The cube side of the attention kernel on one AIC, as two blocks over one L0-sliced GEMM engine:
//   QK block (C1 of step s): S = Q K^T over the reduction length D + Dr (a second operand pair such as rope
//     occupies the columns after D of the same Q / K tiles, so it accumulates into the same L0C) -> fp32 (fp16 in
//     high-performance mode) scores in GM workspace S slot s % (preload + 1), then S_READY to the AIV pair;
//   PV block (C2 of step s): waits P_READY, O_blk = P V -> workspace O slot s % 2, then O_READY.
// Full quantisation: int8 tiles, int32 L0C, both results dequantised to fp16 by the FixPipe (deq1 / deq2).
// MSD antiquant decode: int8 query limbs (from the AIVs, cross flag Q_READY) x int8 K and int8 P limbs x int8 V,
// L x G rows each, int32 results written as they are; with int4 K / V the limbs are int4 too (GM -> L1 moves them
// as bytes, two elements each, as the vendor's ND2NZ has no 4-bit type).
// The GEMM engine holds two L0A + L0B slice slots and two L0C halves, each handed between pipes by named events.
#include <cstdint>
#include <vector>

#include "kernels/attention/buffers.h"
#include "kernels/attention/plan.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/seq_addr.h"
#include "kernels/tile/views.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op::attn {

class CubeBlocks {
 public:
  CubeBlocks(sim::CoreCtx& c, const Plan& pl);
  // Every "slot free" event is set once at the start and waited once at the end (no flag left set).
  void start();
  void finish();
  void qk(const Step& st, int64_t s);
  void pv(const Step& st, int64_t s);

 private:
  void load_rows(const RowRun& r, const tile::NzTile& dst, int64_t d, int64_t dst_col = 0);
  void load_v(const Step& st, int64_t s);
  void load_slices(const tile::L1Operand& a, const tile::L1Operand& b, int64_t m, int64_t n0, int64_t nn, int64_t kb0,
                   int64_t kbs);
  // out (m x n ND rows in GM, out_stride elements of out_t apart) = A (m x k) * B (k x n), in L0 slices; an
  // int32 accumulator (int8 operands) leaves L0C dequantised by deq.
  void gemm(const tile::L1Operand& a, const tile::L1Operand& b, int64_t m, int64_t n, int64_t k, isa::Addr out,
            int64_t out_stride, isa::DType out_t, double deq);
  void flags(bool set);
  // GM byte offset -> element offset in the cube's dtype (int4: two per byte).
  uint64_t elems_at(uint64_t bytes) const { return bytes * 8 / uint64_t(isa::bits_of(pl_.cube)); }
  // The cube's M rows of a unit: its computed rows, or their L limbs each (MSD).
  int64_t rows(const WorkUnit& u) const { return (u.r_hi - u.r_lo) * (pl_.msd.on ? pl_.msd.limbs : 1); }

  sim::CoreCtx& c_;
  const Plan& pl_;
  L1Layout l1_;
  L0Split l0_;
  isa::DType acc_;  // L0C: F32, or I32 for int8 / int4 operands
  tile::NzTile q_, pm_, k_[2], v_[2];
  isa::Addr l0a_[2], l0b_[2], l0c_[2];
  int64_t kvb_ = 1;       // K / V slots in L1 (tiling.kv_buffers)
  bool early_v_ = false;  // V(s) is loaded with K(s) in C1: its slot was freed by an earlier C2 (kvb > preload)
  int slot_ = 0, half_ = 0;
  std::vector<PageIds> pages_;  // ring: score block s uses pages_[s % size]
};

}  // namespace npusim::op::attn
