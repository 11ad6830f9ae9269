#pragma once
// Vector building blocks on row-major UB tiles (UbRows whose width * size is a multiple of 256 bytes): contiguous
// counter-mode ops, per-row broadcasts and row reductions. Each function issues a fixed, documented instruction
// sequence; golden models (tests/golden/attention_golden.h) follow the same order of roundings.
#include <cstdint>

#include "isa/instr/instr.h"
#include "kernels/tile/views.h"
#include "sim/machine/core_ctx.h"

namespace npusim::tile {

isa::VecMask count(int64_t n);
// Lanes [from, to) of a repeat enabled (normal mode).
isa::VecMask lanes_between(int lanes, int64_t from, int64_t to);

// Same-pipe ordering: the V pipe does not wait for an earlier vector instruction's results before the next one
// reads or overwrites them (isa/README.md "Same-pipe ordering"). A function that issues a dependent chain puts
// pipe_barrier(V) between its own steps; between two calls the caller puts barrier() where the second depends on
// the first, and nowhere else (a barrier costs the producer's latency).
class VecOps {
 public:
  explicit VecOps(sim::CoreCtx& c) : c_(c) {}
  // pipe_barrier(V) -- the next vector instruction starts after every earlier one's results have landed --
  // unless no vector instruction is outstanding (CoreCtx::outstanding: a set_flag from V or a barrier since).
  void barrier();
  // Every element of rows x [c0, c1) = value (one instruction per lane group the range touches).
  void dup_cols(const UbRows& x, int64_t c0, int64_t c1, double value);
  // Row r, columns [c0, c1) = value (per-row clipping of the band in mode 0).
  void dup_row_range(const UbRows& x, int64_t r, int64_t c0, int64_t c1, double value);
  // The order of a row sum (a max is exact in any order and picks its path itself).
  //   LaneGroups: the lane groups folded elementwise in order, then the whole-reduce tree over the lanes;
  //   Blocks: pto-isa's TROWSUM path for fp32 rows of 2 or 4 lane groups (vcgadd per 32-byte block, the groups'
  //     block sums added pairwise (g0 + g1, g2 + g3, then the two), vcgadd of the last 8), with the rows rounded
  //     up to 8: the caller's x, acc and dst hold those rows (their values are not read back). Other shapes fold.
  enum class SumOrder { LaneGroups, Blocks };
  // dst[r] = reduce over the row (max or sum): lane groups folded elementwise in order into `acc`
  // (acc = g0 op g1, acc = acc op g2, ...), then the whole-reduce tree over the lanes; a barrier between folds.
  // A max over fp32 rows of 2 or 4 lane groups (a multiple of 8 rows) takes the block-reduction path instead
  // (exact either way), and a sum in SumOrder::Blocks (above); `acc` holds one repeat per row.
  void row_reduce(const UbRows& x, isa::Addr acc, isa::Addr dst, isa::VRedOp op, SumOrder order = SumOrder::LaneGroups);
  // Whether row_reduce(x, op, order)'s first instruction reads column c0 or any after it (the fold path: lane
  // groups 0 and 1; the block path: every column): a caller that just wrote only columns from c0 on needs a
  // barrier before row_reduce only then.
  static bool reduce_starts_at(const UbRows& x, int64_t c0, isa::VRedOp op, SumOrder order = SumOrder::LaneGroups);
  // x[r][:] = x[r][:] op brc[r] where brc holds one 32-byte broadcast block per row (vbrcb output).
  void row_bcast(const UbRows& x, isa::Addr brc, isa::VBinOp op, int64_t valid_cols);

 private:
  // The rows the block path reduces (x.rows, or rounded up to 8 for a sum), 0 when it does not apply.
  static int64_t block_reduce_rows(const UbRows& x, isa::VRedOp op, SumOrder order);
  void row_reduce_by_blocks(const UbRows& x, int64_t rows, isa::Addr acc, isa::Addr dst, isa::VRedOp op);

 public:
  // x[r][c] = x[r][c] op v[c] for c < valid_cols: one row vector applied to every row (repeat stride 0).
  void row_vec(const UbRows& x, isa::Addr v, isa::VBinOp op, int64_t valid_cols);
  // brc = vbrcb of the first `rows` elements at src (rounded up to 8 rows).
  void brcb(isa::DType t, isa::Addr src, isa::Addr brc, int64_t rows);
  void binary(isa::VBinOp op, isa::DType t, isa::Addr dst, isa::Addr a, isa::Addr b, int64_t n);
  void scalar(isa::VScalarOp op, isa::DType t, isa::Addr dst, isa::Addr a, double s, int64_t n);
  void unary(isa::VUnaryOp op, isa::DType t, isa::Addr dst, isa::Addr a, int64_t n);
  void copy(isa::DType t, isa::Addr dst, isa::Addr src, int64_t n);
  void cast(isa::DType to, isa::DType from, isa::Addr dst, isa::Addr src, int64_t n,
            isa::RoundMode round = isa::RoundMode::RINT);
  void dup(isa::DType t, isa::Addr dst, double v, int64_t n);
  // bits = (a op b[0 .. lanes)) for n elements (b is one repeat reused: repeat stride 0).
  void cmp_scalar_vec(isa::CmpOp op, isa::DType t, isa::Addr bits, isa::Addr a, isa::Addr b_one_repeat, int64_t n);
  // dst = bit ? src : s, n elements.
  void select(isa::DType t, isa::Addr dst, isa::Addr src, isa::Addr bits, double s, int64_t n);

 private:
  sim::CoreCtx& c_;
};

}  // namespace npusim::tile
