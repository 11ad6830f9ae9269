#include "kernels/tile/vec_ops.h"

#include <algorithm>

namespace npusim::tile {

using namespace isa;

namespace {
// A repeat count is 8 bits: an op over more rows runs as one instruction group per run of at most this many rows
// (s1_block 512 gives 256-row halves; uint8_t(256) would be a silent no-op).
constexpr int64_t kMaxRepeatRows = 255;
UbRows rows_of(const UbRows& x, int64_t r0, int64_t n) { return {x.row(r0), x.t, n, x.width}; }
}  // namespace

void VecOps::barrier() {
  if (c_.outstanding(Pipe::V)) c_.pipe_barrier(Pipe::V);
}

VecMask count(int64_t n) { return VecMask{.counter = true, .lo = uint64_t(n), .hi = ~0ull}; }

VecMask lanes_between(int lanes, int64_t from, int64_t to) {
  VecMask m{.counter = false, .lo = 0, .hi = 0};
  for (int64_t l = std::max<int64_t>(from, 0); l < std::min<int64_t>(to, lanes); ++l)
    (l < 64 ? m.lo : m.hi) |= 1ull << (l % 64);
  return m;
}

void VecOps::dup_cols(const UbRows& x, int64_t c0, int64_t c1, double value) {
  if (x.rows > kMaxRepeatRows) {
    for (int64_t r0 = 0; r0 < x.rows; r0 += kMaxRepeatRows)
      dup_cols(rows_of(x, r0, std::min(kMaxRepeatRows, x.rows - r0)), c0, c1, value);
    return;
  }
  const int L = x.lanes();
  for (int64_t g = c0 / L; g * L < c1; ++g)
    c_.issue(VDup{.dtype = x.t,
                  .dst = x.col(g),
                  .value = value,
                  .repeat = uint8_t(x.rows),
                  .mask = lanes_between(L, c0 - g * L, c1 - g * L),
                  .dst_s = {1, x.row_blocks()}});
}

void VecOps::dup_row_range(const UbRows& x, int64_t r, int64_t c0, int64_t c1, double value) {
  if (c0 >= c1) return;
  const int L = x.lanes();
  const Addr row = plus(x.at, r * x.row_bytes());
  int64_t g = c0 / L;
  if (c0 % L) {  // leading partial group
    c_.issue(VDup{.dtype = x.t,
                  .dst = plus(row, g * kRepeatBytes),
                  .value = value,
                  .mask = lanes_between(L, c0 - g * L, c1 - g * L)});
    ++g;
  }
  const int64_t full_end = c1 / L;
  if (full_end > g)
    c_.issue(VDup{.dtype = x.t, .dst = plus(row, g * kRepeatBytes), .value = value, .mask = count((full_end - g) * L)});
  if (c1 % L && full_end >= g)
    c_.issue(VDup{.dtype = x.t,
                  .dst = plus(row, full_end * kRepeatBytes),
                  .value = value,
                  .mask = lanes_between(L, 0, c1 - full_end * L)});
}

void VecOps::row_reduce(const UbRows& x, Addr acc, Addr dst, VRedOp op, SumOrder order) {
  if (const int64_t rows = block_reduce_rows(x, op, order)) return row_reduce_by_blocks(x, rows, acc, dst, op);
  if (x.rows > kMaxRepeatRows) {  // acc: one repeat per row; dst: one element per row
    for (int64_t r0 = 0; r0 < x.rows; r0 += kMaxRepeatRows)
      row_reduce(rows_of(x, r0, std::min(kMaxRepeatRows, x.rows - r0)), plus(acc, r0 * kRepeatBytes),
                 plus(dst, r0 * elem_size(x.t)), op);
    return;
  }
  const int64_t groups = x.width / x.lanes();
  const VStride row{1, x.row_blocks()}, packed{1, 8};
  const uint8_t rep = uint8_t(x.rows);
  Addr src = x.at;
  VStride src_s = row;
  if (groups > 1) {
    const VBinOp bop = op == VRedOp::Max ? VBinOp::Max : op == VRedOp::Min ? VBinOp::Min : VBinOp::Add;
    c_.issue(VBinary{.op = bop,
                     .dtype = x.t,
                     .dst = acc,
                     .src0 = x.col(0),
                     .src1 = x.col(1),
                     .repeat = rep,
                     .dst_s = packed,
                     .src0_s = row,
                     .src1_s = row});
    for (int64_t g = 2; g < groups; ++g) {
      barrier();  // each fold reads the one before
      c_.issue(VBinary{.op = bop,
                       .dtype = x.t,
                       .dst = acc,
                       .src0 = acc,
                       .src1 = x.col(g),
                       .repeat = rep,
                       .dst_s = packed,
                       .src0_s = packed,
                       .src1_s = row});
    }
    src = acc, src_s = packed;
    barrier();
  }
  c_.issue(VReduce{.op = op, .dtype = x.t, .dst = dst, .src = src, .repeat = rep, .src_s = src_s, .dst_rep = 1});
}

// fp32 rows of 2 or 4 lane groups, at most 255 repeats: the block-reduction path applies (its blocks, 32 bytes per
// lane group, then fit half of `acc`, and the folds alternate between the halves: a vector source may not overlap
// its destination). A max takes it at a multiple of 8 rows (then it is the fold path's result bit for bit); a sum
// only when asked (SumOrder::Blocks: another order of the fp32 additions), over the rows rounded up to 8.
int64_t VecOps::block_reduce_rows(const UbRows& x, VRedOp op, SumOrder order) {
  const int64_t groups = x.width / x.lanes();
  if (x.t != DType::F32 || (groups != 2 && groups != 4) || x.width != groups * x.lanes()) return 0;
  const bool sum = op == VRedOp::Sum && order == SumOrder::Blocks;
  if (op != VRedOp::Max && !sum) return 0;
  if (!sum && x.rows % 8) return 0;
  const int64_t rows = isa::round_up(x.rows, int64_t(8));
  return rows * groups <= 255 ? rows : 0;
}

// The public PTO kernel's row reductions (pto-isa @3186c381 TRowReduceOps, its 32 x 256 fp32 path): vcgmax /
// vcgadd folds every 32-byte block to one element (1 cycle per repeat, against 7 for a whole-repeat vcmax /
// vcadd), pairwise vmax / vadd with block stride 2 halves a row's blocks until one is left, and a last vcgmax /
// vcgadd takes each row's block to its element. Max is exact in any order; a sum's order is this one
// (tests/golden/attention_golden_parts.h, block_row_sum).
void VecOps::row_reduce_by_blocks(const UbRows& x, int64_t rows, Addr acc, Addr dst, VRedOp op) {
  const int64_t groups = x.width / x.lanes();
  const Addr half[2] = {acc, plus(acc, rows * isa::kRepeatBytes / 2)};
  const VBinOp fold = op == VRedOp::Max ? VBinOp::Max : VBinOp::Add;
  int64_t blocks = rows * groups;  // after the first vcgmax / vcgadd: one 32-byte block per lane group
  int cur = 0;
  c_.issue(VBlockReduce{
      .op = op, .dtype = x.t, .dst = half[0], .src = x.at, .repeat = uint8_t(blocks), .src_s = {1, 8}, .dst_rep = 1});
  for (int64_t per_row = groups; per_row > 1; per_row /= 2, cur ^= 1) {  // block j <- blocks 2j, 2j + 1
    barrier();
    blocks /= 2;
    c_.issue(VBinary{.op = fold,
                     .dtype = x.t,
                     .dst = half[cur ^ 1],
                     .src0 = half[cur],
                     .src1 = plus(half[cur], isa::kBlockBytes),
                     .repeat = uint8_t(blocks / 8),
                     .dst_s = {1, 8},
                     .src0_s = {2, 16},
                     .src1_s = {2, 16}});
  }
  barrier();
  c_.issue(VBlockReduce{.op = op,
                        .dtype = x.t,
                        .dst = dst,
                        .src = half[cur],
                        .repeat = uint8_t(rows / 8),
                        .src_s = {1, 8},
                        .dst_rep = 1});
}

bool VecOps::reduce_starts_at(const UbRows& x, int64_t c0, VRedOp op, SumOrder order) {
  if (block_reduce_rows(x, op, order)) return c0 < x.width;  // its first vcgmax / vcgadd reads every column
  const int64_t groups = x.width / x.lanes();
  return c0 < std::min<int64_t>(groups, 2) * x.lanes();
}

namespace {
// x = x op src1 over the valid columns: one instruction per 64-lane column group and run of at most kMaxRepeatRows
// rows, runs first; the second operand of rows [r0, ...) and group g at src1_at(r0, g) with strides src1_s.
template <class Src1At>
void rows_op(sim::CoreCtx& c, const UbRows& x, VBinOp op, int64_t valid_cols, Src1At src1_at, VStride src1_s) {
  const bool split = x.rows > kMaxRepeatRows;  // else one run of x as it is (an empty x too)
  for (int64_t r0 = 0; r0 == 0 || (split && r0 < x.rows); r0 += kMaxRepeatRows) {
    const UbRows run = split ? rows_of(x, r0, std::min(kMaxRepeatRows, x.rows - r0)) : x;
    const int L = run.lanes();
    for (int64_t g = 0; g * L < valid_cols; ++g) {
      const VecMask m = (g + 1) * L <= valid_cols ? VecMask{} : lanes_between(L, 0, valid_cols - g * L);
      c.issue(VBinary{.op = op,
                      .dtype = run.t,
                      .dst = run.col(g),
                      .src0 = run.col(g),
                      .src1 = src1_at(r0, g),
                      .repeat = uint8_t(run.rows),
                      .mask = m,
                      .dst_s = {1, run.row_blocks()},
                      .src0_s = {1, run.row_blocks()},
                      .src1_s = src1_s});
    }
  }
}
}  // namespace

void VecOps::row_bcast(const UbRows& x, Addr brc, VBinOp op, int64_t valid_cols) {
  // brc: one 32-byte block per row, the same block for every column group
  rows_op(c_, x, op, valid_cols, [&](int64_t r0, int64_t) { return plus(brc, r0 * kBlockBytes); }, {0, 1});
}

void VecOps::row_vec(const UbRows& x, Addr v, VBinOp op, int64_t valid_cols) {
  // v: one row of valid_cols values, the same row for every row of x
  rows_op(c_, x, op, valid_cols, [&](int64_t, int64_t g) { return plus(v, g * kRepeatBytes); }, {1, 0});
}

void VecOps::brcb(DType t, Addr src, Addr brc, int64_t rows) {
  c_.issue(VBrcb{.dtype = t, .dst = brc, .src = src, .repeat = uint8_t((rows + 7) / 8)});
}

void VecOps::binary(VBinOp op, DType t, Addr dst, Addr a, Addr b, int64_t n) {
  c_.issue(VBinary{.op = op, .dtype = t, .dst = dst, .src0 = a, .src1 = b, .mask = count(n)});
}
void VecOps::scalar(VScalarOp op, DType t, Addr dst, Addr a, double s, int64_t n) {
  c_.issue(VScalar{.op = op, .dtype = t, .dst = dst, .src = a, .scalar = s, .mask = count(n)});
}
void VecOps::unary(VUnaryOp op, DType t, Addr dst, Addr a, int64_t n) {
  c_.issue(VUnary{.op = op, .dtype = t, .dst = dst, .src = a, .mask = count(n)});
}
void VecOps::copy(DType t, Addr dst, Addr src, int64_t n) {
  c_.issue(VCopy{.dtype = t, .dst = dst, .src = src, .mask = count(n)});
}
void VecOps::dup(DType t, Addr dst, double v, int64_t n) {
  c_.issue(VDup{.dtype = t, .dst = dst, .value = v, .mask = count(n)});
}

void VecOps::cast(DType to, DType from, Addr dst, Addr src, int64_t n, RoundMode round) {
  // Contiguous arrays: each operand advances by its own element size per repeat (256 / larger size lanes; s4 is
  // packed, half a byte per lane).
  const int lanes = kRepeatBytes * 8 / std::max(isa::bits_of(to), isa::bits_of(from));
  const uint16_t dst_rep = uint16_t(lanes * isa::bits_of(to) / (8 * kBlockBytes)),
                 src_rep = uint16_t(lanes * isa::bits_of(from) / (8 * kBlockBytes));
  c_.issue(VCast{.dst_dtype = to,
                 .src_dtype = from,
                 .round = round,
                 .sat = true,
                 .dst = dst,
                 .src = src,
                 .mask = count(n),
                 .dst_s = {1, dst_rep},
                 .src_s = {1, src_rep}});
}

void VecOps::cmp_scalar_vec(CmpOp op, DType t, Addr bits, Addr a, Addr b, int64_t n) {
  c_.issue(VCmp{.op = op, .dtype = t, .dst = bits, .src0 = a, .src1 = b, .mask = count(n), .src1_s = {1, 0}});
}

void VecOps::select(DType t, Addr dst, Addr src, Addr bits, double s, int64_t n) {
  c_.issue(VSel{.dtype = t, .dst = dst, .src0 = src, .sel = bits, .scalar_mode = true, .scalar = s, .mask = count(n)});
}

}  // namespace npusim::tile
