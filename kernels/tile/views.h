#pragma once
// Typed views of tensors and tiles, and the instruction parameters they produce (the catlass / CuTe way: a view
// carries address, dtype, shape and layout, so burst, gap, fractal and stride arithmetic exists once, here).
//
//   GmRows   ND rows in GM: `rows` rows of `cols` elements, `stride` elements apart.
//   UbRows   rows in UB, each starting on a 32-byte block, `width` elements apart (width * size % 32 == 0).
//   NzTile   an L1 tile in NZ: column groups of block_elems(t) columns, `rows_cap` rows each (a multiple of 16),
//            i.e. 16 x c0 fractals stacked down a column group. A matmul operand in L1 is an NzTile plus which of
//            its dimensions the rows are (the K dimension, or the M / N dimension).
//   L0 slices ZZ (L0A) and ZN (L0B) are addressed by fractal; L0C by 16 x 16 fp32 fractals, column-block-major.
//
// Each function returns one instruction, exactly as a kernel would spell it; kernels issue it (one call per
// instruction, design.md principle 6). isa/instr/instr.h documents every field.
#include <cstdint>

#include "isa/instr/instr.h"
#include "isa/numeric/int_math.h"

namespace npusim::tile {

using isa::Addr;
using isa::DType;

inline Addr plus(Addr a, int64_t bytes) { return {a.buf, a.off + uint64_t(bytes)}; }
inline int64_t elem_size(DType t) { return isa::bytes_of(t); }  // bytes per element, as int64_t

struct GmRows {
  Addr at;
  DType t = DType::F16;
  int64_t rows = 1, cols = 0, stride = 0;  // stride: elements between row starts
};

struct UbRows {
  Addr at;
  DType t = DType::F32;
  int64_t rows = 1, width = 0;  // width: elements between row starts
  int64_t row_bytes() const { return width * elem_size(t); }
  Addr row(int64_t r) const { return plus(at, r * row_bytes()); }
  // Vector geometry of the rows (vec_ops.h): lanes of one repeat, 32-byte blocks per row, lane group g.
  int lanes() const { return isa::kRepeatBytes / int(elem_size(t)); }
  uint16_t row_blocks() const { return uint16_t(row_bytes() / isa::kBlockBytes); }
  Addr col(int64_t g) const { return plus(at, g * isa::kRepeatBytes); }
};

struct NzTile {
  Addr at;
  DType t = DType::F16;
  int64_t rows_cap = 16;  // rows of one column group (a multiple of 16)
  int64_t row_fractals() const { return rows_cap / isa::kFractalRows; }
  // Bytes of a tile of `cols` columns (whole column groups).
  int64_t bytes(int64_t cols) const {
    return rows_cap * isa::round_up(cols, int64_t(isa::block_elems(t))) * elem_size(t);
  }
};

// A matmul operand held in L1: an NZ tile whose rows are the K dimension (k_rows) or the M / N dimension.
struct L1Operand {
  NzTile tile;
  bool k_rows = false;
};

// ---- GM <-> L1 / UB ----------------------------------------------------------------------------
// GM rows -> rows [dst_row, dst_row + src.rows), columns [dst_col, dst_col + src.cols) of an NZ tile (MTE2, ND ->
// NZ; a partial block is zero-filled). dst_col is a multiple of the column-group width block_elems(t).
isa::Nd2Nz nd2nz(const GmRows& src, const NzTile& dst, int64_t dst_row = 0, int64_t dst_col = 0);
// GM rows -> UB rows (MTE2): src.cols elements of each row; the rest of each UB row is skipped.
isa::DataCopy copy_in(const GmRows& src, const UbRows& dst);
// UB rows -> GM rows (MTE3): dst.cols elements of each row.
isa::DataCopy copy_out(const UbRows& src, const GmRows& dst);
// One contiguous burst of `bytes` (any path DataCopy allows).
isa::DataCopy copy_bytes(Addr dst, Addr src, int64_t bytes);

// ---- L1 -> L0A / L0B (MTE1) --------------------------------------------------------------------
// Column j (K fractal kb) of a ZZ slice of L0A that holds kbs K fractals per row: the mb M fractals of K block kb.
isa::Load2d load_l0a(const L1Operand& a, int64_t kb, int64_t mb, Addr dst, int64_t kbs);
// An operand stored with K as rows is transposed on the way; 8-bit types move 32 x 32 squares, so M (A) or N (B)
// fractals come in pairs: mb / nb and n0_blk must be even (round the mmad's M / N up to 32).
// Row kb of a ZN slice of L0B: nb N fractals starting at N fractal n0_blk, for K block kb.
isa::Load2d load_l0b(const L1Operand& b, int64_t kb, int64_t n0_blk, int64_t nb, Addr dst);
// Fractal j of a ZZ / ZN slice.
inline Addr fractal(Addr slice, int64_t j) { return plus(slice, j * isa::kFractalBytes); }

// ---- L0C -> GM (FIX) ---------------------------------------------------------------------------
// The m x n accumulators at l0c (column blocks of round_up(m, 16) rows) -> ND rows of dst (dst.cols unused).
isa::Fixpipe fixpipe_nd(Addr l0c, DType acc, int64_t m, int64_t n, Addr dst, DType out, int64_t dst_stride);

}  // namespace npusim::tile
