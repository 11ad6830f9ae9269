// Cube-side PTO instructions: TLOAD into L1 (Mat) tiles, TEXTRACT L1 -> L0A / L0B, TMATMUL / TMATMUL_ACC and
// TSTORE of accumulators. Tile layouts (pto-isa docs/coding/Tile.md): a Mat tile is NZ (outer col-major, inner
// row-major fractals; what an ND GlobalTensor loads into) or ZN (outer row-major, inner col-major; what a DN
// GlobalTensor loads into, i.e. the NZ layout of the transpose). Left tiles are L0A's ZZ, Right tiles L0B's ZN and
// Acc tiles L0C's column-block-major 16 x 16 fractals, the layouts npusim's mmad reads and writes (isa/README.md).
#include <algorithm>

#include "isa/numeric/int_math.h"
#include "kernels/pto/lower.h"
#include "kernels/tile/views.h"

namespace npusim::pto {

using isa::DType;
using npusim_pto::Loc;
using npusim_pto::Op;

namespace {
constexpr int64_t kRows = isa::kFractalRows;
bool is_int(DType t) { return t == DType::I8 || t == DType::I4; }

void require_same_elem(const Lowering& l, const TileRef& t, const GmRef& g) {
  l.require(t.elem == g.elem, "the tile (" + describe(t) + ") and the GlobalTensor must have the same element type");
}

void require_fits(const Lowering& l, const TileRef& t, int64_t rows, int64_t cols) {
  l.require(rows >= 0 && cols >= 0 && rows <= t.rows && cols <= t.cols,
            "a " + std::to_string(rows) + " x " + std::to_string(cols) + " GlobalTensor does not fit the tile (" +
                describe(t) + ")");
}

// GM -> L1: ND into an NZ tile, DN into a ZN tile (the NZ layout of the transpose), ND into a plain row-major one.
void load_mat(const Lowering& l) {
  const TileRef& t = l.tile(0);
  const GmRef& g = l.k.g;
  require_same_elem(l, t, g);
  const DType dt = l.dtype(t.elem);
  const Gm2 s = gm2(l);
  require_fits(l, t, s.rows, s.cols);
  if (is_nz(t) || is_zn(t)) {
    const bool nz = is_nz(t);
    l.require(nz ? s.col_stride == 1 : s.row_stride == 1,
              std::string(nz ? "an NZ tile loads from an ND GlobalTensor (unit column stride)"
                             : "a ZN tile loads from a DN GlobalTensor (unit row stride)") +
                  "; got strides " + std::to_string(s.row_stride) + ", " + std::to_string(s.col_stride));
    const int64_t cap = nz ? t.rows : t.cols;  // rows of one column group of the (transposed) NZ layout
    l.require(cap % kRows == 0, "the tile's " + std::string(nz ? "rows" : "columns") + " must be a multiple of 16");
    const tile::GmRows src{l.at(g), dt, nz ? s.rows : s.cols, nz ? s.cols : s.rows, nz ? s.row_stride : s.col_stride};
    l.c.issue(tile::nd2nz(src, tile::NzTile{l.at(t), dt, cap}));
    return;
  }
  l.require(t.slayout == npusim_pto::Box::NoneBox && t.blayout == npusim_pto::Layout2::RowMajor && s.col_stride == 1,
            "TLOAD into " + describe(t) +
                " from this GlobalTensor is not supported (NZ from ND, ZN from DN, row-major from ND)");
  l.c.issue(tile::copy_in({l.at(g), dt, s.rows, s.cols, s.row_stride}, tile::UbRows{l.at(t), dt, s.rows, t.cols}));
}

// L1 -> L0A (Left, ZZ) or L0B (Right, ZN): the dst-sized window of src at (row, col), one load2d per K fractal.
void extract(const Lowering& l) {
  const TileRef &d = l.tile(0), &s = l.tile(1);
  const int64_t row = l.k.i0, col = l.k.i1;
  l.require(d.loc == Loc::Left || d.loc == Loc::Right,
            "the destination must be a Left or Right tile, not " + describe(d));
  l.require(s.loc == Loc::Mat && (is_nz(s) || is_zn(s)), "the source must be an NZ or ZN Mat tile, not " + describe(s));
  l.require(d.elem == s.elem, "source and destination must have the same element type");
  const DType dt = l.dtype(d.elem);
  const int64_t k0 = isa::fractal_k(dt);
  const bool left = d.loc == Loc::Left;
  const int64_t kdim = left ? d.cols : d.rows, other = left ? d.rows : d.cols;  // K and M (Left) / N (Right)
  const int64_t kat = left ? col : row, oat = left ? row : col;
  l.require(row >= 0 && col >= 0 && row + d.rows <= s.rows && col + d.cols <= s.cols,
            "the window " + std::to_string(d.rows) + " x " + std::to_string(d.cols) + " at (" + std::to_string(row) +
                ", " + std::to_string(col) + ") leaves the source tile (" + describe(s) + ")");
  l.require(kdim % k0 == 0 && kat % k0 == 0 && other % kRows == 0 && oat % kRows == 0,
            "the window must start and end on fractals: K (" + std::to_string(kdim) + " at " + std::to_string(kat) +
                ") by " + std::to_string(k0) + ", " + (left ? "M" : "N") + " (" + std::to_string(other) + " at " +
                std::to_string(oat) + ") by 16");
  const int64_t kbs = kdim / k0, ob = other / kRows;
  l.require(ob <= isa::kMaxRepeat, "more than 255 fractals along " + std::string(left ? "M" : "N"));
  // Is the K dimension the rows of the source's column groups (so each fractal is transposed on the way)?
  const bool k_rows = left ? is_zn(s) : is_nz(s);
  l.require(!k_rows || isa::bits_of(dt) == 16, "a transposing extract (" +
                                                   std::string(left ? "Left from a ZN" : "Right from an NZ") +
                                                   " tile) is supported for 16-bit types only");
  const int64_t rf = (is_nz(s) ? s.rows : s.cols) / kRows;  // fractals down one column group
  const tile::L1Operand src{{l.at(s), dt, rf * kRows}, k_rows};
  const int64_t k_first = kat / k0, o_first = oat / kRows;
  const isa::Addr base = l.at(d);
  for (int64_t kb = 0; kb < kbs; ++kb) {
    isa::Load2d ld = left ? tile::load_l0a(src, k_first + kb, ob, tile::fractal(base, kb), kbs)
                          : tile::load_l0b(src, k_first + kb, o_first, ob, tile::fractal(base, kb * ob));
    if (left) ld.start_index = uint16_t(ld.start_index + (k_rows ? o_first * rf : o_first));
    l.c.issue(ld);
  }
}

// TMATMUL (c, a, b) / TMATMUL_ACC (c, c_in, a, b): m, n and k from the valid regions of a and b.
void matmul(const Lowering& l, bool accumulate) {
  const TileRef& c = l.tile(0);
  const TileRef& a = l.tile(accumulate ? 2 : 1);
  const TileRef& b = l.tile(accumulate ? 3 : 2);
  l.require(
      c.loc == Loc::Acc && a.loc == Loc::Left && b.loc == Loc::Right,
      "operands must be (Acc, Left, Right) tiles, got (" + describe(c) + ", " + describe(a) + ", " + describe(b) + ")");
  if (accumulate)
    l.require(l.tile(1).addr == c.addr && l.tile(1).loc == Loc::Acc,
              "the input accumulator must be the output tile itself (in-place accumulation in L0C)");
  l.require(a.elem == b.elem, "Left and Right tiles must have the same element type");
  const DType in = l.dtype(a.elem), acc = l.dtype(c.elem);
  l.require(acc == (is_int(in) ? DType::I32 : DType::F32), "the accumulator of " + std::string(isa::dtype_name(in)) +
                                                               " inputs is " + (is_int(in) ? "int32" : "float32") +
                                                               ", not " + describe(c));
  const int64_t m = a.valid_rows, n = b.valid_cols, k = a.valid_cols, k0 = isa::fractal_k(in);
  l.require(b.valid_rows == k, "Left valid columns (" + std::to_string(k) + ") and Right valid rows (" +
                                   std::to_string(b.valid_rows) + ") must agree");
  l.require(c.valid_rows == m && c.valid_cols == n, "the accumulator's valid region must be " + std::to_string(m) +
                                                        " x " + std::to_string(n) + ", not " + describe(c));
  // mmad reads ceil(k / k0) fractals per row of A and ceil(n / 16) per row of B: the tiles' own fractal grids.
  l.require(isa::ceil_div(k, k0) == a.cols / k0 && isa::ceil_div(n, kRows) == b.cols / kRows,
            "the valid K and N must cover the Left / Right tiles' fractal columns (partial K or N tiles: size the "
            "tiles to the data)");
  l.c.issue(isa::Mmad{.c = l.at(c),
                      .a = l.at(a),
                      .b = l.at(b),
                      .a_dtype = in,
                      .m = uint16_t(m),
                      .n = uint16_t(n),
                      .k = uint16_t(k),
                      .init = !accumulate});
}

// L0C -> GM: the GlobalTensor's rows x cols from the accumulator, converted to the GlobalTensor's type.
void store_acc(const Lowering& l) {
  const TileRef& t = l.tile(0);
  const GmRef& g = l.k.g;
  const Gm2 s = gm2(l);
  l.require(s.col_stride == 1, "an accumulator stores to an ND GlobalTensor (unit column stride)");
  l.require(s.rows <= t.valid_rows && s.cols <= t.valid_cols,
            "a " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                " GlobalTensor is larger than the accumulator's valid region (" + describe(t) + ")");
  isa::Fixpipe f = tile::fixpipe_nd(l.at(t), l.dtype(t.elem), s.rows, s.cols, l.at(g), l.dtype(g.elem), s.row_stride);
  f.src_m_stride = uint16_t(isa::round_up(int64_t(t.valid_rows), kRows));  // the column blocks TMATMUL wrote
  l.c.issue(f);
}
}  // namespace

bool lower_cube(const Lowering& l) {
  const Op op = l.k.op;
  if (op == Op::TLOAD && l.tile(0).loc == Loc::Mat) return load_mat(l), true;
  if (op == Op::TEXTRACT) return extract(l), true;
  if (op == Op::TMATMUL || op == Op::TMATMUL_ACC) return matmul(l, op == Op::TMATMUL_ACC), true;
  if (op == Op::TSTORE && l.tile(0).loc == Loc::Acc) return store_acc(l), true;
  return false;
}

}  // namespace npusim::pto
