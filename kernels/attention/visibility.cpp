// The visibility block of the attention kernel (vec_blocks.h): which score cells are masked, from the mask
// tensor, the compressed causal mask or the band, and the pse rows that are added before it.
#include <algorithm>

#include "kernels/attention/seq_addr.h"
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::GmRows;
using tile::UbRows;

// The pse rows and the mask tensor rows of one sub-tile (r rows from physical row `row`, columns [j0, j0 + cols)).
void VecBlocks::load_side_inputs(const WorkUnit& u, int64_t row, int64_t r, int64_t j0, int64_t cols, int64_t cw) {
  const int64_t i0 = row_logical(pl_, u, row), col = p_.mask_col(u.b, j0), prow = p_.mask_row(u.b, i0);
  if (p_.pse) {  // rows are query rows (prompt) or heads (decode, pse_sq = 1): pse_skv elements apart either way
    const uint64_t e = uint64_t(((p_.pse_b > 1 ? u.b : 0) * p_.N + row_head(pl_, u, row)) * p_.pse_sq * p_.pse_skv +
                                prow * p_.pse_skv + col);
    const DType t = pl_.in == DType::I8 ? DType::F16 : pl_.in;  // fp16 with an int8 query
    c_.issue(tile::copy_in({c_.gm(pl_.gm.pse, e * 2), t, r, cols, p_.pse_skv}, {ub(L_.pse_raw), t, r, cw}));
  }
  if (!p_.uses_mask_tensor()) return;
  const uint64_t e = uint64_t(p_.mask_plane(u.b) + prow * p_.mask_skv + col);
  if (!pl_.decode) {
    c_.issue(
        tile::copy_in({c_.gm(pl_.gm.mask, e), DType::U8, r, cols, p_.mask_skv}, {ub(L_.mask_u8), DType::U8, r, cw}));
    return;
  }
  for (int64_t k = 0; k < r; ++k)  // decode: every head of the group reads the batch's one mask row
    c_.issue(tile::copy_bytes(ub(L_.mask_u8, k * cw), c_.gm(pl_.gm.mask, e), cols));
}

// Rows of the compressed (2048 x 2048, 1 above the diagonal) mask such that bit (i, j) of the sub-tile is set iff
// j - i > off; returns false when no cell is set (nothing to load).
bool VecBlocks::load_compressed(int64_t i0, int64_t r, int64_t j0, int64_t cols, int64_t cw, int64_t off, bool& all) {
  const int64_t d = j0 - i0 - off;
  all = d > r - 1;  // every cell has j - i > off
  if (all || d <= -(cols - 1)) return false;
  const int64_t bx = d >= 0 ? 0 : -d, by = d >= 0 ? d : 0;
  c_.issue(tile::copy_in({c_.gm(pl_.gm.mask, uint64_t(bx * p_.mask_skv + by)), DType::U8, r, cols, p_.mask_skv},
                         {ub(L_.mask_u8), DType::U8, r, cw}));
  return true;
}

// x = keep ? x : MASKVAL with keep = (mask byte == 0) (or != 0 with keep_nonzero).
void VecBlocks::select_by_bytes(const UbRows& x, bool keep_nonzero) {
  const int64_t n = x.rows * x.width;
  ops_.cast(DType::F16, DType::U8, ub(L_.mask_h), ub(L_.mask_u8), n);
  tile::set(c_, kSideFree);  // (it also completes the cast: the compare needs no barrier)
  ops_.cmp_scalar_vec(keep_nonzero ? CmpOp::NE : CmpOp::EQ, DType::F16, ub(L_.bits), ub(L_.mask_h), ub(L_.zero), n);
  ops_.barrier();
  ops_.select(vt_, x.at, x.at, ub(L_.bits), pl_.mask_value, n);
}

// One compressed-mask bound: cells with j - i > off are masked (upper) or kept (lower, keep_above).
void VecBlocks::compressed_bound(const UbRows& x, int64_t i0, int64_t j0, int64_t cols, int64_t off, bool keep_above) {
  bool all = false;
  tile::wait(c_, kSideFree);
  const bool load = load_compressed(i0, x.rows, j0, cols, x.width, off, all);
  tile::handover(c_, kSideLoaded);
  if (load) return select_by_bytes(x, keep_above);
  tile::set(c_, kSideFree);
  if (all != keep_above) ops_.barrier(), ops_.dup(vt_, x.at, pl_.mask_value, x.rows * x.width);  // every cell masked
}

VecBlocks::MaskWrites VecBlocks::apply_mask(const WorkUnit& u, const UbRows& x, int64_t i0, int64_t j0, int64_t cols) {
  const Band band = p_.band(u.b);
  if (p_.mask == MaskKind::Compressed) {
    if (band.hi < kUnbounded) compressed_bound(x, i0, j0, cols, band.hi, false);
    if (band.lo > -kUnbounded) compressed_bound(x, i0, j0, cols, band.lo - 1, true);
    return {};
  }
  if (p_.uses_mask_tensor()) select_by_bytes(x, false);
  if (p_.sparse_mode == 0 && (band.lo > -kUnbounded || band.hi < kUnbounded)) {
    ops_.barrier();  // the rows below overwrite x as the steps before left it (they are disjoint from each other)
    MaskWrites w{.banded = true};
    for (int64_t r = 0; r < x.rows; ++r) {  // band clipping row by row (mode 0 has no compressed mask)
      const auto [lo, hi] = p_.visible_cols(u.b, i0 + r);
      const int64_t left = std::clamp(lo - j0, int64_t(0), cols), right = std::clamp(hi - j0, int64_t(0), cols);
      ops_.dup_row_range(x, r, 0, left, pl_.mask_value);
      ops_.dup_row_range(x, r, right, cols, pl_.mask_value);
      if (left > 0) w.first_col = 0, w.last_col = std::max(w.last_col, left - 1);
      if (right < cols) w.first_col = std::min(w.first_col, right), w.last_col = cols - 1;
    }
    return w;
  }
  return {};
}

}  // namespace npusim::op::attn
