#include "kernels/tile/views.h"

namespace npusim::tile {

using isa::kBlockBytes;

isa::Nd2Nz nd2nz(const GmRows& src, const NzTile& dst, int64_t dst_row, int64_t dst_col) {
  const int64_t group = dst_col / isa::block_elems(dst.t);
  return isa::Nd2Nz{.dst = plus(dst.at, (group * dst.rows_cap + dst_row) * kBlockBytes),
                    .src = src.at,
                    .dtype = src.t,
                    .n_value = uint16_t(src.rows),
                    .d_value = uint32_t(src.cols),
                    .src_d_value = uint32_t(src.stride),
                    .dst_nz_c0_stride = uint16_t(dst.rows_cap)};
}

namespace {
// Blocks a local side skips after each burst: its row pitch minus the burst rounded up to whole blocks.
uint32_t local_gap_blocks(int64_t row_bytes, int64_t burst_bytes) {
  return uint32_t((row_bytes - isa::round_up(burst_bytes, int64_t(kBlockBytes))) / kBlockBytes);
}
}  // namespace

isa::DataCopy copy_in(const GmRows& src, const UbRows& dst) {
  const int64_t burst = src.cols * elem_size(src.t);
  return isa::DataCopy{.dst = dst.at,
                       .src = src.at,
                       .nburst = uint16_t(src.rows),
                       .burst_bytes = uint32_t(burst),
                       .src_gap = uint32_t((src.stride - src.cols) * elem_size(src.t)),
                       .dst_gap = local_gap_blocks(dst.row_bytes(), burst)};
}

isa::DataCopy copy_out(const UbRows& src, const GmRows& dst) {
  const int64_t burst = dst.cols * elem_size(dst.t);
  return isa::DataCopy{.dst = dst.at,
                       .src = src.at,
                       .nburst = uint16_t(dst.rows),
                       .burst_bytes = uint32_t(burst),
                       .src_gap = local_gap_blocks(src.row_bytes(), burst),
                       .dst_gap = uint32_t((dst.stride - dst.cols) * elem_size(dst.t))};
}

isa::DataCopy copy_bytes(Addr dst, Addr src, int64_t bytes) {
  return isa::DataCopy{.dst = dst, .src = src, .burst_bytes = uint32_t(bytes)};
}

isa::Load2d load_l0a(const L1Operand& a, int64_t kb, int64_t mb, Addr dst, int64_t kbs) {
  const int64_t rf = a.tile.row_fractals();
  if (!a.k_rows)  // rows are M: K block kb is column group kb, its M fractals consecutive
    return isa::Load2d{.dst = dst,
                       .src = a.tile.at,
                       .dtype = a.tile.t,
                       .start_index = uint16_t(kb * rf),
                       .repeat = uint8_t(mb),
                       .dst_gap = uint16_t(kbs - 1)};
  if (isa::bits_of(a.tile.t) == 8)  // 8-bit, rows are K: the square of K block kb in column group g (32 M columns)
    return isa::Load2d{.dst = dst,
                       .src = a.tile.at,
                       .dtype = a.tile.t,
                       .start_index = uint16_t(2 * kb),
                       .repeat = uint8_t(isa::ceil_div(mb, int64_t(2))),
                       .src_stride = uint16_t(rf),
                       .dst_gap = uint16_t(2 * kbs - 1),
                       .transpose = true,
                       .dst_frac_gap = uint16_t(kbs - 1)};
  // rows are K: M fractal i is column group i; take fractal kb of each, transposed into ZZ
  return isa::Load2d{.dst = dst,
                     .src = a.tile.at,
                     .dtype = a.tile.t,
                     .start_index = uint16_t(kb),
                     .repeat = uint8_t(mb),
                     .src_stride = uint16_t(rf),
                     .dst_gap = uint16_t(kbs - 1),
                     .transpose = true};
}

isa::Load2d load_l0b(const L1Operand& b, int64_t kb, int64_t n0_blk, int64_t nb, Addr dst) {
  const int64_t rf = b.tile.row_fractals();
  // 4-bit / 8-bit: a square (K block kb, group g) holds `per` N fractals (4g .. 4g + 3, or 2g, 2g + 1)
  if (const int64_t per = isa::bits_of(b.tile.t) == 4 ? 4 : isa::bits_of(b.tile.t) == 8 ? 2 : 1; b.k_rows && per > 1)
    return isa::Load2d{.dst = dst,
                       .src = b.tile.at,
                       .dtype = b.tile.t,
                       .start_index = uint16_t(n0_blk / per * rf + per * kb),
                       .repeat = uint8_t(isa::ceil_div(nb, per)),
                       .src_stride = uint16_t(rf),
                       .dst_gap = uint16_t(per - 1),
                       .transpose = true};
  if (b.k_rows)  // rows are K: N fractal n is column group n; fractal kb of each, transposed into ZN
    return isa::Load2d{.dst = dst,
                       .src = b.tile.at,
                       .dtype = b.tile.t,
                       .start_index = uint16_t(n0_blk * rf + kb),
                       .repeat = uint8_t(nb),
                       .src_stride = uint16_t(rf),
                       .transpose = true};
  // rows are N (the ZN fractal layout already): K block kb is column group kb, its N fractals consecutive
  return isa::Load2d{.dst = dst,
                     .src = b.tile.at,
                     .dtype = b.tile.t,
                     .start_index = uint16_t(kb * rf + n0_blk),
                     .repeat = uint8_t(nb)};
}

isa::Fixpipe fixpipe_nd(Addr l0c, DType acc, int64_t m, int64_t n, Addr dst, DType out, int64_t dst_stride) {
  return isa::Fixpipe{.dst = dst,
                      .src = l0c,
                      .src_dtype = acc,
                      .dst_dtype = out,
                      .m = uint16_t(m),
                      .n = uint16_t(n),
                      .src_m_stride = uint16_t(isa::round_up(m, int64_t(isa::kFractalRows))),
                      .dst_stride = uint32_t(dst_stride)};
}

}  // namespace npusim::tile
