// Vector-side PTO instructions: TLOAD / TSTORE between GM and UB (Vec) tiles, elementwise, scalar and unary ops,
// TEXPANDS, TCVT, TMOV, row reductions and row broadcasts. Semantics and the A2 / A3 lowering they follow:
// pto-isa docs/isa/<NAME>.md and include/pto/npu/a2a3/<Name>.hpp (read, not copied): elementwise ops compute exactly
// the destination's valid region and put no pipe_barrier of their own; the multi-step ones (row reductions,
// TROWEXPAND*, TDIVS into another tile) order their own steps with pipe_barrier(PIPE_V), and a reduction ends
// with one. Ordering between two instructions is the kernel's job: a missing pipe_barrier(PIPE_V) is a hazard
// fault of the machine's same-pipe check, as for any npusim kernel.
#include <algorithm>

#include "isa/numeric/int_math.h"
#include "kernels/pto/lower.h"
#include "kernels/tile/vec_ops.h"
#include "kernels/tile/views.h"

namespace npusim::pto {

using isa::Addr;
using isa::DType;
using isa::VecMask;
using isa::VStride;
using npusim_pto::Layout2;
using npusim_pto::Loc;
using npusim_pto::Op;

namespace {
constexpr int64_t kMaxRep = isa::kMaxRepeat;
constexpr int64_t kScratchBytes = 8 * 1024;  // pto-isa constants.hpp TMP_UB_OFFSET: the top 8 KiB of UB

bool row_major(const TileRef& t) { return t.blayout == Layout2::RowMajor && t.slayout == npusim_pto::Box::NoneBox; }
int64_t esize(const Lowering& l, const TileRef& t) { return isa::bytes_of(l.dtype(t.elem)); }
int64_t pitch(const Lowering& l, const TileRef& t) { return t.cols * esize(l, t); }  // bytes between rows

// Element i of the region lies at element i of the tile: the whole rows are valid, or it is one column of a
// column-major tile, or one row.
bool contiguous(const TileRef& t) {
  if (row_major(t)) return t.valid_cols == t.cols || t.valid_rows == 1;
  return t.cols == 1 || t.valid_rows == t.rows;
}

void require_vec(const Lowering& l, std::initializer_list<int> which) {
  for (int i : which)
    l.require(l.tile(i).loc == Loc::Vec,
              "operand " + std::to_string(i + 1) + " must be a Vec tile, not " + describe(l.tile(i)));
}

void require_same_region(const Lowering& l, const TileRef& d, const TileRef& s) {
  l.require(d.valid_rows == s.valid_rows && d.valid_cols == s.valid_cols,
            "source and destination valid regions differ (" + describe(s) + " vs " + describe(d) + ")");
}

// The column chunks of `lanes` elements and runs of at most 255 rows that cover a rows x cols region: f(chunk g,
// first row r0, repeat count, the chunk's lane mask).
template <class F>
void each_chunk(int64_t rows, int64_t cols, int64_t lanes, const F& f) {
  for (int64_t g = 0; g * lanes < cols; ++g) {
    const VecMask mask = tile::lanes_between(int(lanes), 0, std::min(lanes, cols - g * lanes));
    for (int64_t r0 = 0; r0 < rows; r0 += kMaxRep) f(g, r0, uint8_t(std::min(kMaxRep, rows - r0)), mask);
  }
}

// One vector instruction over a rows x cols region: `make(operand addresses, repeat, mask, operand strides)`.
// A contiguous region is one counter-mode instruction; otherwise one instruction per 256-byte column chunk and
// run of at most 255 rows, each row a repeat (the row pitch as repeat stride) and the chunk's lanes masked.
template <class Make>
void over_region(const Lowering& l, std::vector<const TileRef*> ops, int64_t lanes, const Make& make) {
  const TileRef& d = *ops[0];
  const int64_t rows = d.valid_rows, cols = d.valid_cols;
  if (rows == 0 || cols == 0) return;
  const bool flat = std::all_of(ops.begin(), ops.end(), [](const TileRef* t) { return contiguous(*t); });
  std::vector<Addr> at;
  for (const TileRef* t : ops) at.push_back(l.at(*t));
  if (flat) {  // each operand advances by its own element size per repeat (a cast's two sides differ)
    std::vector<VStride> s;
    for (const TileRef* t : ops) s.push_back({1, uint16_t(lanes * esize(l, *t) / isa::kBlockBytes)});
    make(at, uint8_t(1), tile::count(rows * cols), s);
    return;
  }
  for (const TileRef* t : ops)
    l.require(row_major(*t), "a partial-row region needs row-major tiles (" + describe(*t) + ")");
  std::vector<VStride> s;
  for (const TileRef* t : ops) s.push_back({1, uint16_t(pitch(l, *t) / isa::kBlockBytes)});
  each_chunk(rows, cols, lanes, [&](int64_t g, int64_t r0, uint8_t rep, VecMask mask) {
    std::vector<Addr> a;
    for (size_t i = 0; i < ops.size(); ++i)
      a.push_back(tile::plus(at[i], r0 * pitch(l, *ops[i]) + g * lanes * esize(l, *ops[i])));
    make(a, rep, mask, s);
  });
}

int64_t lanes_of(const Lowering& l, const TileRef& t) { return isa::kRepeatBytes / esize(l, t); }

void binary(const Lowering& l, isa::VBinOp op) {
  require_vec(l, {0, 1, 2});
  const TileRef &d = l.tile(0), &a = l.tile(1), &b = l.tile(2);
  require_same_region(l, d, a), require_same_region(l, d, b);
  l.require(d.elem == a.elem && d.elem == b.elem, "all three tiles must have the same element type");
  const DType t = l.dtype(d.elem);
  over_region(l, {&d, &a, &b}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VBinary{.op = op,
                           .dtype = t,
                           .dst = at[0],
                           .src0 = at[1],
                           .src1 = at[2],
                           .repeat = rep,
                           .mask = m,
                           .dst_s = s[0],
                           .src0_s = s[1],
                           .src1_s = s[2]});
  });
}

// The checks of a one-source instruction (Vec tiles, one valid region, one element type); its element type.
DType same_pair(const Lowering& l) {
  require_vec(l, {0, 1});
  const TileRef &d = l.tile(0), &a = l.tile(1);
  require_same_region(l, d, a);
  l.require(d.elem == a.elem, "source and destination must have the same element type");
  return l.dtype(d.elem);
}

void scalar(const Lowering& l, isa::VScalarOp op, double v) {
  const TileRef &d = l.tile(0), &a = l.tile(1);
  const DType t = same_pair(l);
  over_region(l, {&d, &a}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VScalar{.op = op,
                           .dtype = t,
                           .dst = at[0],
                           .src = at[1],
                           .scalar = v,
                           .repeat = rep,
                           .mask = m,
                           .dst_s = s[0],
                           .src_s = s[1]});
  });
}

void unary(const Lowering& l, isa::VUnaryOp op) {
  const TileRef &d = l.tile(0), &a = l.tile(1);
  const DType t = same_pair(l);
  over_region(l, {&d, &a}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VUnary{
        .op = op, .dtype = t, .dst = at[0], .src = at[1], .repeat = rep, .mask = m, .dst_s = s[0], .src_s = s[1]});
  });
}

void dup(const Lowering& l, const TileRef& d, double v) {
  const DType t = l.dtype(d.elem);
  over_region(l, {&d}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VDup{.dtype = t, .dst = at[0], .value = v, .repeat = rep, .mask = m, .dst_s = s[0]});
  });
}

// TDIVS(dst, src, s): in place a multiply by 1 / s (as A2 / A3 do it); otherwise dst = s, then dst = src / dst.
void divs(const Lowering& l) {
  const TileRef &d = l.tile(0), &a = l.tile(1);
  if (d.addr == a.addr) return scalar(l, isa::VScalarOp::Muls, double(1.0f / float(l.k.s)));  // (T)(1.0f / s)
  require_vec(l, {0, 1});
  require_same_region(l, d, a);
  dup(l, d, l.k.s);
  l.c.pipe_barrier(isa::Pipe::V);
  const DType t = l.dtype(d.elem);
  over_region(l, {&d, &a}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VBinary{.op = isa::VBinOp::Div,
                           .dtype = t,
                           .dst = at[0],
                           .src0 = at[1],
                           .src1 = at[0],
                           .repeat = rep,
                           .mask = m,
                           .dst_s = s[0],
                           .src0_s = s[1],
                           .src1_s = s[0]});
  });
}

isa::RoundMode round_of(int mode) {
  switch (mode) {  // pto::RoundMode
    case 2: return isa::RoundMode::ROUND;
    case 3: return isa::RoundMode::FLOOR;
    case 4: return isa::RoundMode::CEIL;
    case 5: return isa::RoundMode::TRUNC;
    case 6: return isa::RoundMode::ODD;
    default: return isa::RoundMode::RINT;  // CAST_NONE and CAST_RINT
  }
}

void convert(const Lowering& l) {
  require_vec(l, {0, 1});
  const TileRef &d = l.tile(0), &a = l.tile(1);
  require_same_region(l, d, a);
  const DType to = l.dtype(d.elem), from = l.dtype(a.elem);
  const int64_t lanes = isa::kRepeatBytes / std::max(esize(l, d), esize(l, a));
  over_region(l, {&d, &a}, lanes, [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(isa::VCast{.dst_dtype = to,
                         .src_dtype = from,
                         .round = round_of(l.k.mode),
                         .sat = l.k.i0 == 0,
                         .dst = at[0],
                         .src = at[1],
                         .repeat = rep,
                         .mask = m,
                         .dst_s = s[0],
                         .src_s = s[1]});
  });
}

void move(const Lowering& l) {
  require_vec(l, {0, 1});
  const TileRef &d = l.tile(0), &a = l.tile(1);
  require_same_region(l, d, a);
  l.require(esize(l, d) == esize(l, a) && esize(l, d) >= 2,
            "TMOV between Vec tiles moves 16- or 32-bit elements of one size");
  const DType t = l.dtype(d.elem);
  over_region(l, {&d, &a}, lanes_of(l, d), [&](auto& at, uint8_t rep, VecMask m, auto& s) {
    l.c.issue(
        isa::VCopy{.dtype = t, .dst = at[0], .src = at[1], .repeat = rep, .mask = m, .dst_s = s[0], .src_s = s[1]});
  });
}

// ---- GM <-> UB ----

void copy_vec(const Lowering& l, bool load) {
  const TileRef& t = l.tile(0);
  l.require(t.elem == l.k.g.elem || esize(l, t) == isa::bytes_of(l.dtype(l.k.g.elem)),
            "the tile and the GlobalTensor must have elements of one size");
  const Gm2 s = gm2(l);
  const DType dt = l.dtype(t.elem);
  l.require(s.rows <= t.rows && s.cols <= t.cols, "a " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                                                      " GlobalTensor does not fit " + describe(t));
  if (row_major(t)) {
    l.require(s.col_stride == 1 || s.cols == 1,
              "a row-major tile moves to / from an ND GlobalTensor (unit column stride)");
    const tile::GmRows g{l.at(l.k.g), dt, s.rows, s.cols, s.row_stride};
    const tile::UbRows u{l.at(t), dt, s.rows, t.cols};
    l.c.issue(load ? tile::copy_in(g, u) : tile::copy_out(u, g));
    return;
  }
  l.require(t.slayout == npusim_pto::Box::NoneBox && (s.row_stride == 1 || s.rows == 1),
            "a column-major tile moves to / from a DN GlobalTensor (unit row stride)");
  // DN: each column is a burst; the tile's columns are Rows elements apart.
  const tile::GmRows g{l.at(l.k.g), dt, s.cols, s.rows, s.cols == 1 ? s.rows : s.col_stride};
  const tile::UbRows u{l.at(t), dt, s.cols, t.rows};
  l.c.issue(load ? tile::copy_in(g, u) : tile::copy_out(u, g));
}

// ---- row reductions: dst (R x 1 column-major, or R x 32-byte row-major) = reduce over each row of src ----
void row_reduce(const Lowering& l, isa::VRedOp op) {
  require_vec(l, {0, 1, 2});
  const TileRef &d = l.tile(0), &s = l.tile(1), &tmp = l.tile(2);
  l.require(row_major(s), "the source must be a row-major (ND) tile, not " + describe(s));
  l.require(d.elem == s.elem, "source and destination must have the same element type");
  l.require(d.valid_rows == s.valid_rows, "source and destination valid rows differ");
  const bool dn = !row_major(d) && d.cols == 1;
  l.require(dn || row_major(d), "the destination is an R x 1 column-major tile or a row-major one");
  const DType t = l.dtype(s.elem);
  const int64_t lanes = lanes_of(l, s), rows = s.valid_rows, cols = s.valid_cols;
  const uint16_t dst_rep = uint16_t(dn ? 1 : d.cols);
  const tile::UbRows x{l.at(s), t, rows, s.cols};
  if (cols <= lanes) {  // one repeat per row
    for (int64_t r0 = 0; r0 < rows; r0 += kMaxRep)
      l.c.issue(isa::VReduce{.op = op,
                             .dtype = t,
                             .dst = tile::plus(l.at(d), r0 * dst_rep * esize(l, d)),
                             .src = x.row(r0),
                             .repeat = uint8_t(std::min(kMaxRep, rows - r0)),
                             .mask = tile::lanes_between(int(lanes), 0, cols),
                             .src_s = {1, x.row_blocks()},
                             .dst_rep = dst_rep});
  } else {
    l.require(cols == s.cols && (s.cols * esize(l, s)) % isa::kRepeatBytes == 0 && dn,
              "a reduction over more than one 256-byte repeat needs whole valid rows of a multiple of 256 bytes and an "
              "R x 1 column-major destination (not supported yet otherwise)");
    l.require(int64_t(tmp.rows) * tmp.cols * esize(l, tmp) >= rows * isa::kRepeatBytes,
              "tmp must hold 256 bytes per row (" + std::to_string(rows * isa::kRepeatBytes) + " bytes), it has " +
                  std::to_string(int64_t(tmp.rows) * tmp.cols * esize(l, tmp)));
    tile::VecOps(l.c).row_reduce(x, l.at(tmp), l.at(d), op);
  }
  l.c.pipe_barrier(isa::Pipe::V);  // as on A2 / A3: the reduction's result is ready for the next instruction
}

// ---- row broadcasts: one value per row (an R x 1 column-major tile) spread over the row ----
// vbrcb puts row r's value in a 32-byte block of UB scratch (the top 8 KiB, as pto-isa's TMP_UB_OFFSET), then
// one instruction per column chunk reads that block for every lane of its row (block stride 0).
Addr broadcast_rows(const Lowering& l, const TileRef& v, int64_t rows) {
  l.require(!row_major(v) && v.cols == 1, "the per-row operand must be an R x 1 column-major tile, not " + describe(v));
  l.require(rows * isa::kBlockBytes <= kScratchBytes, "more than 256 rows in one row broadcast");
  const Addr scratch{isa::Buf::UB, l.c.capacity(isa::Buf::UB) - kScratchBytes};
  l.c.issue(isa::VBrcb{
      .dtype = l.dtype(v.elem), .dst = scratch, .src = l.at(v), .repeat = uint8_t(isa::ceil_div(rows, int64_t(8)))});
  l.c.pipe_barrier(isa::Pipe::V);
  return scratch;
}

void row_expand_op(const Lowering& l, isa::VBinOp op) {
  require_vec(l, {0, 1, 2});
  const TileRef& d = l.tile(0);
  // The full operand has the destination's valid shape; the other one holds a value per row.
  const bool full_first = l.tile(1).valid_rows == d.valid_rows && l.tile(1).valid_cols == d.valid_cols;
  const TileRef& full = l.tile(full_first ? 1 : 2);
  const TileRef& per_row = l.tile(full_first ? 2 : 1);
  require_same_region(l, d, full);
  l.require(row_major(d) && row_major(full), "the destination and the full operand must be row-major");
  const DType t = l.dtype(d.elem);
  const Addr brc = broadcast_rows(l, per_row, d.valid_rows);
  const int64_t lanes = lanes_of(l, d), rows = d.valid_rows, cols = d.valid_cols;
  const uint16_t dp = uint16_t(pitch(l, d) / isa::kBlockBytes), fp = uint16_t(pitch(l, full) / isa::kBlockBytes);
  const VStride bs{0, 1}, fs{1, fp};  // the broadcast block (stride 0) and the full operand's rows
  each_chunk(rows, cols, lanes, [&](int64_t g, int64_t r0, uint8_t rep, VecMask mask) {
    const Addr dst = tile::plus(l.at(d), r0 * pitch(l, d) + g * isa::kRepeatBytes);
    const Addr src = tile::plus(l.at(full), r0 * pitch(l, full) + g * isa::kRepeatBytes);
    const Addr b = tile::plus(brc, r0 * isa::kBlockBytes);
    l.c.issue(isa::VBinary{.op = op,
                           .dtype = t,
                           .dst = dst,
                           .src0 = full_first ? src : b,
                           .src1 = full_first ? b : src,
                           .repeat = rep,
                           .mask = mask,
                           .dst_s = {1, dp},
                           .src0_s = full_first ? fs : bs,
                           .src1_s = full_first ? bs : fs});
  });
}

void row_expand(const Lowering& l) {
  require_vec(l, {0, 1});
  const TileRef &d = l.tile(0), &v = l.tile(1);
  l.require(row_major(d), "the destination must be row-major");
  const DType t = l.dtype(d.elem);
  const Addr brc = broadcast_rows(l, v, d.valid_rows);
  const int64_t lanes = lanes_of(l, d), rows = d.valid_rows, cols = d.valid_cols;
  const uint16_t dp = uint16_t(pitch(l, d) / isa::kBlockBytes);
  each_chunk(rows, cols, lanes, [&](int64_t g, int64_t r0, uint8_t rep, VecMask mask) {
    l.c.issue(isa::VCopy{.dtype = t,
                         .dst = tile::plus(l.at(d), r0 * pitch(l, d) + g * isa::kRepeatBytes),
                         .src = tile::plus(brc, r0 * isa::kBlockBytes),
                         .repeat = rep,
                         .mask = mask,
                         .dst_s = {1, dp},
                         .src_s = {0, 1}});
  });
}

// TTRI: the whole valid region gets the value right of the diagonal, then (after a barrier: the same bytes) each
// row's part left of it the other value, one masked dup per row (as A2 / A3 write it row by row).
void triangle(const Lowering& l) {
  require_vec(l, {0});
  const TileRef& d = l.tile(0);
  l.require(row_major(d), "the tile must be row-major");
  const bool upper = l.k.mode == 1;
  dup(l, d, upper ? 1.0 : 0.0);
  l.c.pipe_barrier(isa::Pipe::V);
  const tile::UbRows x{l.at(d), l.dtype(d.elem), d.valid_rows, d.cols};
  for (int64_t r = 0; r < d.valid_rows; ++r) {
    const int64_t end = std::clamp<int64_t>(r + l.k.i0 + (upper ? 0 : 1), 0, d.valid_cols);  // columns left of it
    if (end > 0) tile::VecOps(l.c).dup_row_range(x, r, 0, end, upper ? 0.0 : 1.0);
  }
}
}  // namespace

bool lower_vec(const Lowering& l) {
  using isa::VBinOp;
  using isa::VScalarOp;
  using isa::VUnaryOp;
  switch (l.k.op) {
    case Op::TLOAD: return copy_vec(l, true), true;
    case Op::TSTORE: return copy_vec(l, false), true;
    case Op::TADD: return binary(l, VBinOp::Add), true;
    case Op::TSUB: return binary(l, VBinOp::Sub), true;
    case Op::TMUL: return binary(l, VBinOp::Mul), true;
    case Op::TDIV: return binary(l, VBinOp::Div), true;
    case Op::TMAX: return binary(l, VBinOp::Max), true;
    case Op::TMIN: return binary(l, VBinOp::Min), true;
    case Op::TADDS: return scalar(l, VScalarOp::Adds, l.k.s), true;
    case Op::TSUBS: return scalar(l, VScalarOp::Adds, -l.k.s), true;
    case Op::TMULS: return scalar(l, VScalarOp::Muls, l.k.s), true;
    case Op::TMAXS: return scalar(l, VScalarOp::Maxs, l.k.s), true;
    case Op::TMINS: return scalar(l, VScalarOp::Mins, l.k.s), true;
    case Op::TDIVS: return divs(l), true;
    case Op::TEXP: return unary(l, VUnaryOp::Exp), true;
    case Op::TLOG: return unary(l, VUnaryOp::Ln), true;
    case Op::TABS: return unary(l, VUnaryOp::Abs), true;
    case Op::TSQRT: return unary(l, VUnaryOp::Sqrt), true;
    case Op::TRSQRT: return unary(l, VUnaryOp::Rsqrt), true;
    case Op::TRELU: return unary(l, VUnaryOp::Relu), true;
    case Op::TEXPANDS: return require_vec(l, {0}), dup(l, l.tile(0), l.k.s), true;
    case Op::TCVT: return convert(l), true;
    case Op::TMOV: return move(l), true;
    case Op::TROWMAX: return row_reduce(l, isa::VRedOp::Max), true;
    case Op::TROWSUM: return row_reduce(l, isa::VRedOp::Sum), true;
    case Op::TROWMIN: return row_reduce(l, isa::VRedOp::Min), true;
    case Op::TROWEXPAND: return row_expand(l), true;
    case Op::TROWEXPANDADD: return row_expand_op(l, VBinOp::Add), true;
    case Op::TROWEXPANDSUB: return row_expand_op(l, VBinOp::Sub), true;
    case Op::TROWEXPANDMUL: return row_expand_op(l, VBinOp::Mul), true;
    case Op::TROWEXPANDDIV: return row_expand_op(l, VBinOp::Div), true;
    case Op::TTRI: return triangle(l), true;
    default: return false;
  }
}

}  // namespace npusim::pto
