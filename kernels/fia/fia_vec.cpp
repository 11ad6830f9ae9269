// The FIA kernel's vector program (each AIV of a pair takes half of a unit's computed rows).
//   V1(s): waits S_READY; per sub-tile of vec_rows rows: scale, + pse, mask, row max, exp, row sum, running
//          max / sum update, P cast -> workspace; then P_READY to the AIC.
//   V2(s): waits O_READY; O = O * alpha + P V (first block: O = P V); the unit's last block divides by the
//          sum, casts and writes attention_out (and softmax_lse), or (flash-decoding) writes its split's partial.
// Order: V1(0), then V1(s + 1), V2(s): the softmax of block s + 1 runs while the cube multiplies P V of s.
// With KV splits, after SyncAll the AIVs combine the partials (combine_group).
// Intra-core flags: MTE2->V / V->MTE2 0, 1 the two x staging buffers; 2 / 3 the side inputs (mask, pse);
// 5 / 4 the O accumulator (first-block load); 6 / 6 the combine's staging; V->MTE3 / MTE3->V 0, 1 the two cast
// buffers, 2 the lse row, 3 the constant rows (once), 4 a split's partial.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/fia/fia_addr.h"
#include "kernels/fia/fia_layout.h"
#include "kernels/fia/fia_steps.h"
#include "kernels/fia/fia_vec_ops.h"

namespace npusim::op::fia {

using namespace isa;
using sim::CoreCtx;

namespace {
constexpr int kEvSide = 2, kEvSideFree = 3, kEvOaccFree = 4, kEvOacc = 5, kEvLse = 2, kEvPartial = 4, kEvCombine = 6;
const double kInf = std::numeric_limits<double>::infinity();

struct Vec {
  CoreCtx& c;
  const FiaPlan& pl;
  const attn::AttnProblem& p;
  UbLayout L;
  VecOps ops;
  DType vt;
  uint64_t base = 0;
  int xb = 0, pbi = 0;
  int64_t zero_next = 0;

  Vec(CoreCtx& ctx, const FiaPlan& plan)
      : c(ctx), pl(plan), p(plan.p), L(ub_layout(plan.p, plan.t)), ops(ctx), vt(plan.vec) {
    base = c.alloc(Buf::UB, L.total, "tiling.vec_rows / s1_block UB buffers (softmax sub-tiles, O accumulator)").off;
    zero_next = pl.core_first[size_t(c.block_idx())];
  }
  Addr ub(uint64_t off, int64_t bytes = 0) const { return {Buf::UB, base + off + uint64_t(bytes)}; }
  Addr ws(uint64_t off) const { return c.gm("workspace", off); }
  int es() const { return bytes_of(vt); }

  // This AIV's share of a unit's computed rows: [first, first + count) counted from r_lo.
  std::pair<int64_t, int64_t> share(const FiaUnit& u) const {
    const int64_t m = u.r_hi - u.r_lo, half = std::min(m, (m + 15) / 16 * 8);
    return c.sub_block_idx() == 0 ? std::pair{int64_t(0), half} : std::pair{half, m - half};
  }

  // ---------------- V1 ----------------
  void load_side_inputs(const FiaUnit& u, int64_t row, int64_t r, int64_t j0, int64_t cols, int64_t cw) {
    const int64_t gap_blocks_b = (cw - (cols + 31) / 32 * 32) / 32, gap_blocks_h = (cw * 2 - (cols * 2 + 31) / 32 * 32) / 32;
    const int64_t i0 = row_logical(pl, u, row), col = p.mask_col(u.b, j0), prow = p.mask_row(u.b, i0);
    if (p.pse) {  // rows are query rows (prompt) or heads (decode, pse_sq = 1): pse_skv elements apart either way
      const uint64_t e = uint64_t(((p.pse_b > 1 ? u.b : 0) * p.N + row_head(pl, u, row)) * p.pse_sq * p.pse_skv +
                                  prow * p.pse_skv + col);
      c.issue(DataCopy{.dst = ub(L.pse_raw), .src = c.gm("pse_shift", e * 2), .nburst = uint16_t(r), .burst_bytes = uint32_t(cols * 2),
                       .src_gap = uint32_t((p.pse_skv - cols) * 2), .dst_gap = uint32_t(gap_blocks_h)});
    }
    if (!p.uses_mask_tensor()) return;
    const uint64_t e = uint64_t((p.mask_per_batch ? u.b : 0) * p.mask_sq * p.mask_skv + prow * p.mask_skv + col);
    if (!pl.decode) {
      c.issue(DataCopy{.dst = ub(L.mask_u8), .src = c.gm("atten_mask", e), .nburst = uint16_t(r), .burst_bytes = uint32_t(cols),
                       .src_gap = uint32_t(p.mask_skv - cols), .dst_gap = uint32_t(gap_blocks_b)});
      return;
    }
    for (int64_t k = 0; k < r; ++k)  // decode: every head of the group reads the batch's one mask row
      c.issue(DataCopy{.dst = ub(L.mask_u8, k * cw), .src = c.gm("atten_mask", e), .burst_bytes = uint32_t(cols)});
  }

  // Rows of the compressed (2048 x 2048, 1 above the diagonal) mask such that bit (i, j) of the sub-tile is
  // set iff j - i > off; returns false when no cell is set (nothing to load).
  bool load_compressed(int64_t i0, int64_t r, int64_t j0, int64_t cols, int64_t cw, int64_t off, bool& all) {
    const int64_t d = j0 - i0 - off;
    all = d > r - 1;  // every cell has j - i > off
    if (all || d <= -(cols - 1)) return false;
    const int64_t bx = d >= 0 ? 0 : -d, by = d >= 0 ? d : 0;
    c.issue(DataCopy{.dst = ub(L.mask_u8), .src = c.gm("atten_mask", uint64_t(bx * 2048 + by)), .nburst = uint16_t(r),
                     .burst_bytes = uint32_t(cols), .src_gap = uint32_t(2048 - cols),
                     .dst_gap = uint32_t((cw - (cols + 31) / 32 * 32) / 32)});
    return true;
  }

  // x = keep ? x : MASKVAL with keep = (mask byte == 0) (or != 0 with keep_nonzero).
  void select_by_bytes(const Tile& x, bool keep_nonzero) {
    const int64_t n = x.rows * x.width;
    ops.cast(DType::F16, DType::U8, ub(L.mask_h), ub(L.mask_u8), n);
    c.set_flag(Pipe::V, Pipe::MTE2, kEvSideFree);
    ops.cmp_scalar_vec(keep_nonzero ? CmpOp::NE : CmpOp::EQ, DType::F16, ub(L.bits), ub(L.mask_h), ub(L.zero), n);
    ops.select(vt, x.at, x.at, ub(L.bits), pl.mask_value, n);
  }

  // One compressed-mask bound: cells with j - i > off are masked (upper) or kept (lower, keep_above).
  void compressed_bound(const Tile& x, int64_t i0, int64_t j0, int64_t cols, int64_t off, bool keep_above) {
    bool all = false;
    c.wait_flag(Pipe::V, Pipe::MTE2, kEvSideFree);
    const bool load = load_compressed(i0, x.rows, j0, cols, x.width, off, all);
    c.set_flag(Pipe::MTE2, Pipe::V, kEvSide);
    c.wait_flag(Pipe::MTE2, Pipe::V, kEvSide);
    if (load) return select_by_bytes(x, keep_above);
    c.set_flag(Pipe::V, Pipe::MTE2, kEvSideFree);
    if (all != keep_above) ops.dup(vt, x.at, pl.mask_value, x.rows * x.width);  // every cell masked
  }

  void apply_mask(const FiaUnit& u, const Tile& x, int64_t i0, int64_t j0, int64_t cols) {
    const attn::Band band = p.band(u.b);
    if (p.mask == attn::MaskKind::Compressed) {
      if (band.hi < attn::kUnbounded) compressed_bound(x, i0, j0, cols, band.hi, false);
      if (band.lo > -attn::kUnbounded) compressed_bound(x, i0, j0, cols, band.lo - 1, true);
      return;
    }
    if (p.uses_mask_tensor()) select_by_bytes(x, false);
    if (p.sparse_mode == 0 && (band.lo > -attn::kUnbounded || band.hi < attn::kUnbounded))
      for (int64_t r = 0; r < x.rows; ++r) {  // band clipping row by row (mode 0 has no compressed mask)
        const auto [lo, hi] = p.visible_cols(u.b, i0 + r);
        ops.dup_row_range(x, r, 0, std::clamp(lo - j0, int64_t(0), cols), pl.mask_value);
        ops.dup_row_range(x, r, std::clamp(hi - j0, int64_t(0), cols), cols, pl.mask_value);
      }
  }

  void v1_subtile(const Step& st, int64_t s, int64_t lr, int64_t r, int64_t a) {
    const FiaUnit& u = pl.units[size_t(st.unit)];
    const int64_t j0 = st.blk * pl.t.s2_block, cols = pl.blk_cols(u.b, st.blk), cw = FiaPlan::cw_of(cols);
    const int64_t row = u.r_lo + a + lr, i0 = row_logical(pl, u, row), n = r * cw, ai = s % 2;
    const Tile x{ub(L.x[xb]), r, cw, vt};
    c.wait_flag(Pipe::V, Pipe::MTE2, xb);
    const uint64_t src = pl.ws_s(c.block_idx(), s % pl.s_slots()) + uint64_t((a + lr) * pl.cw_max * es());
    c.issue(DataCopy{.dst = x.at, .src = ws(src), .nburst = uint16_t(r), .burst_bytes = uint32_t(cw * es()),
                     .src_gap = uint32_t((pl.cw_max - cw) * es())});
    const bool side = p.pse || p.uses_mask_tensor();
    if (side) c.wait_flag(Pipe::V, Pipe::MTE2, kEvSideFree), load_side_inputs(u, row, r, j0, cols, cw);
    c.set_flag(Pipe::MTE2, Pipe::V, xb);
    c.wait_flag(Pipe::MTE2, Pipe::V, xb);
    ops.scalar(VScalarOp::Muls, vt, x.at, x.at, p.scale, n);
    if (p.pse) {
      ops.cast(DType::F32, pl.in, ub(L.pse32), ub(L.pse_raw), n);
      if (!p.uses_mask_tensor()) c.set_flag(Pipe::V, Pipe::MTE2, kEvSideFree);
      ops.binary(VBinOp::Add, vt, x.at, x.at, ub(L.pse32), n);
    }
    apply_mask(u, x, i0, j0, cols);
    if (cols < cw) ops.dup_cols(x, cols, cw, pl.mask_value);
    softmax_rows(x, cols, lr, r, st.first, parity[size_t(s)], ai);
    if (cols < cw) ops.dup_cols(x, cols, cw, 0.0);
    // P in the input dtype -> workspace.
    c.wait_flag(Pipe::MTE3, Pipe::V, pbi);
    if (vt == DType::F32) ops.cast(pl.in, DType::F32, ub(L.pb[pbi]), x.at, n);
    else ops.copy(DType::F16, ub(L.pb[pbi]), x.at, n);
    c.set_flag(Pipe::V, Pipe::MTE2, xb);
    c.set_flag(Pipe::V, Pipe::MTE3, pbi);
    c.wait_flag(Pipe::V, Pipe::MTE3, pbi);
    c.issue(DataCopy{.dst = ws(pl.ws_p(c.block_idx(), s % 2) + uint64_t((a + lr) * pl.cw_max * 2)), .src = ub(L.pb[pbi]),
                     .nburst = uint16_t(r), .burst_bytes = uint32_t(cw * 2), .dst_gap = uint32_t((pl.cw_max - cw) * 2)});
    c.set_flag(Pipe::MTE3, Pipe::V, pbi);
    xb ^= 1, pbi ^= 1;
  }

  // Online softmax of one sub-tile: m, l (unit parity mi) and alpha (step parity ai) rows [lr, lr + r).
  void softmax_rows(const Tile& x, int64_t cols, int64_t lr, int64_t r, bool first, int64_t mi, int64_t ai) {
    const int64_t e = es();
    const Addr m = ub(L.m[mi], lr * e), l = ub(L.l[mi], lr * e), alpha = ub(L.alpha[ai], lr * e);
    ops.row_reduce(x, ub(L.acc), ub(L.rmax), VRedOp::Max);
    if (first) {
      ops.copy(vt, m, ub(L.rmax), r);
    } else {
      ops.binary(VBinOp::Max, vt, ub(L.mnew), m, ub(L.rmax), r);
      ops.binary(VBinOp::Sub, vt, alpha, m, ub(L.mnew), r);
      ops.unary(VUnaryOp::Exp, vt, alpha, alpha, r);
      ops.copy(vt, m, ub(L.mnew), r);
    }
    ops.brcb(vt, m, ub(L.brcb), r);
    ops.row_bcast(x, ub(L.brcb), VBinOp::Sub, x.width);
    ops.unary(VUnaryOp::Exp, vt, x.at, x.at, x.rows * x.width);
    if (cols < x.width) ops.dup_cols(x, cols, x.width, 0.0);
    ops.row_reduce(x, ub(L.acc), ub(L.rsum), VRedOp::Sum);
    if (first) {
      ops.copy(vt, l, ub(L.rsum), r);
    } else {
      ops.binary(VBinOp::Mul, vt, l, l, alpha, r);
      ops.binary(VBinOp::Add, vt, l, l, ub(L.rsum), r);
    }
  }

  void v1(const Step& st, int64_t s) {
    c.cross_wait(kFlagSReady);
    const FiaUnit& u = pl.units[size_t(st.unit)];
    if (st.first) zero_through(st.unit + 1);
    const auto [a, cnt] = share(u);
    for (int64_t lr = 0; lr < cnt; lr += pl.t.vec_rows) v1_subtile(st, s, lr, std::min(pl.t.vec_rows, cnt - lr), a);
    c.cross_set(2, kFlagPReady, Pipe::MTE3);
  }

  // ---------------- V2 and the final step ----------------
  void v2(const Step& st, int64_t s) {
    c.cross_wait(kFlagOReady);
    const FiaUnit& u = pl.units[size_t(st.unit)];
    const auto [a, cnt] = share(u);
    if (cnt == 0) return;
    const int64_t dv = pl.dv_pad;
    const uint64_t src = pl.ws_o(c.block_idx(), s % 2) + uint64_t(a * dv * 4);
    if (st.first) {
      c.wait_flag(Pipe::V, Pipe::MTE2, kEvOaccFree);
      c.issue(DataCopy{.dst = ub(L.oacc), .src = ws(src), .burst_bytes = uint32_t(cnt * dv * 4)});
      c.set_flag(Pipe::MTE2, Pipe::V, kEvOacc);
      c.wait_flag(Pipe::MTE2, Pipe::V, kEvOacc);
    } else {
      for (int64_t r0 = 0; r0 < cnt; r0 += L.o_rows) {
        const int64_t r = std::min(L.o_rows, cnt - r0);
        c.wait_flag(Pipe::V, Pipe::MTE2, xb);
        c.issue(DataCopy{.dst = ub(L.x[xb]), .src = ws(src + uint64_t(r0 * dv * 4)), .burst_bytes = uint32_t(r * dv * 4)});
        c.set_flag(Pipe::MTE2, Pipe::V, xb);
        c.wait_flag(Pipe::MTE2, Pipe::V, xb);
        alpha_brcb(s % 2, r0, r);
        const Tile o{ub(L.oacc, r0 * dv * 4), r, dv, DType::F32};
        ops.row_bcast(o, ub(L.obrcb), VBinOp::Mul, p.Dv);
        ops.binary(VBinOp::Add, DType::F32, o.at, o.at, ub(L.x[xb]), r * dv);
        c.set_flag(Pipe::V, Pipe::MTE2, xb);
        xb ^= 1;
      }
    }
    if (st.last) finish(u, a, cnt, parity[size_t(s)]);
  }

  void alpha_brcb(int64_t ai, int64_t r0, int64_t r) {
    if (vt == DType::F32) return ops.brcb(DType::F32, ub(L.alpha[ai], r0 * 4), ub(L.obrcb), r);
    ops.cast(DType::F32, DType::F16, ub(L.tmp), ub(L.alpha[ai], r0 * 2), r);
    ops.brcb(DType::F32, ub(L.tmp), ub(L.obrcb), r);
  }

  // out = O / l (0 for invalid rows with row_fix: l -> +inf), lse = m + ln l (+inf for invalid rows).
  void finish(const FiaUnit& u, int64_t a, int64_t cnt, int64_t mi) {
    if (u.split >= 0) return finish_partial(u, a, cnt, mi);
    Addr mf = ub(L.m[mi]), lf = ub(L.l[mi]);
    if (vt == DType::F16) {
      ops.cast(DType::F32, DType::F16, ub(L.mnew), mf, cnt);
      ops.cast(DType::F32, DType::F16, ub(L.tmp), lf, cnt);
      mf = ub(L.mnew), lf = ub(L.tmp);
    }
    const int64_t row0 = u.r_lo + a;
    if (p.row_fix) {
      ops.dup(vt, ub(L.acc), pl.mask_value, 256 / es());
      ops.cmp_scalar_vec(CmpOp::NE, vt, ub(L.bits), ub(L.m[mi]), ub(L.acc), cnt);
    }
    if (p.lse) {
      c.wait_flag(Pipe::MTE3, Pipe::V, kEvLse);
      ops.unary(VUnaryOp::Ln, DType::F32, ub(L.lse), lf, cnt);
      ops.binary(VBinOp::Add, DType::F32, ub(L.lse), ub(L.lse), mf, cnt);
      if (p.row_fix) ops.select(DType::F32, ub(L.lse), ub(L.lse), ub(L.bits), kInf, cnt);
      c.set_flag(Pipe::V, Pipe::MTE3, kEvLse);
      c.wait_flag(Pipe::V, Pipe::MTE3, kEvLse);
      c.issue(DataCopy{.dst = c.gm("softmax_lse", row_lse_elem(pl, u, row0) * 4), .src = ub(L.lse),
                       .burst_bytes = uint32_t(cnt * 4)});
      c.set_flag(Pipe::MTE3, Pipe::V, kEvLse);
    }
    if (p.row_fix) ops.select(DType::F32, lf, lf, ub(L.bits), kInf, cnt);
    const int64_t dv = pl.dv_pad;
    for (int64_t r0 = 0; r0 < cnt; r0 += L.o_rows) {
      const int64_t r = std::min(L.o_rows, cnt - r0);
      ops.brcb(DType::F32, ub(lf.off - base, r0 * 4), ub(L.obrcb), r);
      const Tile o{ub(L.oacc, r0 * dv * 4), r, dv, DType::F32};
      ops.row_bcast(o, ub(L.obrcb), VBinOp::Div, p.Dv);
      c.wait_flag(Pipe::MTE3, Pipe::V, pbi);
      ops.cast(pl.out, DType::F32, ub(L.pb[pbi]), o.at, r * dv);
      c.set_flag(Pipe::V, Pipe::MTE3, pbi);
      c.wait_flag(Pipe::V, Pipe::MTE3, pbi);
      store_out(ub(L.pb[pbi]), u, row0 + r0, r);
      c.set_flag(Pipe::MTE3, Pipe::V, pbi);
      pbi ^= 1;
    }
    c.set_flag(Pipe::V, Pipe::MTE2, kEvOaccFree);
  }

  // Flash-decoding partial of one split: O / l (fp32), m and l of rows [a, a + cnt) -> fd_workspace.
  void finish_partial(const FiaUnit& u, int64_t a, int64_t cnt, int64_t mi) {
    const int64_t dv = pl.dv_pad, gp = pl.g_pad();
    for (int64_t r0 = 0; r0 < cnt; r0 += L.o_rows) {
      const int64_t r = std::min(L.o_rows, cnt - r0);
      ops.brcb(DType::F32, ub(L.l[mi], r0 * 4), ub(L.obrcb), r);
      ops.row_bcast({ub(L.oacc, r0 * dv * 4), r, dv, DType::F32}, ub(L.obrcb), VBinOp::Div, p.Dv);
    }
    const uint64_t base = uint64_t(pl.fd_off[size_t(u.b * p.KV_N + u.n2)]) + uint64_t(u.split) * pl.fd_split_bytes();
    c.set_flag(Pipe::V, Pipe::MTE3, kEvPartial);
    c.wait_flag(Pipe::V, Pipe::MTE3, kEvPartial);
    c.issue(DataCopy{.dst = c.gm("fd_workspace", base + uint64_t(a * dv * 4)), .src = ub(L.oacc), .burst_bytes = uint32_t(cnt * dv * 4)});
    c.issue(DataCopy{.dst = c.gm("fd_workspace", base + uint64_t((gp * dv + a) * 4)), .src = ub(L.m[mi]), .burst_bytes = uint32_t(cnt * 4)});
    c.issue(DataCopy{.dst = c.gm("fd_workspace", base + uint64_t((gp * dv + gp + a) * 4)), .src = ub(L.l[mi]),
                     .burst_bytes = uint32_t(cnt * 4)});
    c.set_flag(Pipe::MTE3, Pipe::V, kEvPartial);
    c.wait_flag(Pipe::MTE3, Pipe::V, kEvPartial);
    c.set_flag(Pipe::V, Pipe::MTE2, kEvOaccFree);
  }

  // ---------------- flash-decoding combine (after SyncAll) ----------------
  void load_wait(const DataCopy& d) {
    c.issue(d);
    c.set_flag(Pipe::MTE2, Pipe::V, kEvCombine);
    c.wait_flag(Pipe::MTE2, Pipe::V, kEvCombine);
  }
  void buffer_free() {  // the V reads of a staging buffer are done before MTE2 refills it
    c.set_flag(Pipe::V, Pipe::MTE2, kEvCombine);
    c.wait_flag(Pipe::V, Pipe::MTE2, kEvCombine);
  }

  // One (b, KV head) group: M = max m_k, w_k = l_k exp(m_k - M), W = sum w_k, out = sum O_k (w_k / W),
  // lse = M + ln W (kernels/fia/README.md "Flash-decoding").
  void combine_group(int64_t b, int64_t n2) {
    const int64_t ns = pl.fd_splits[size_t(b)], g = p.G, gp = pl.g_pad(), dv = pl.dv_pad;
    const uint64_t base = uint64_t(pl.fd_off[size_t(b * p.KV_N + n2)]), sb = pl.fd_split_bytes();
    const uint64_t m_at = L.x[0], l_at = L.x[0] + uint64_t(ns * gp * 4), w_at = L.x[0] + uint64_t(2 * ns * gp * 4);
    const uint32_t row_gap = uint32_t((gp * 4 - (g * 4 + 31) / 32 * 32) / 32);
    buffer_free();
    for (const auto& [dst, off] : {std::pair{m_at, gp * dv}, std::pair{l_at, gp * dv + gp}})
      c.issue(DataCopy{.dst = ub(dst), .src = c.gm("fd_workspace", base + uint64_t(off * 4)), .nburst = uint16_t(ns),
                       .burst_bytes = uint32_t(g * 4), .src_gap = uint32_t(sb - uint64_t(g * 4)), .dst_gap = row_gap});
    c.set_flag(Pipe::MTE2, Pipe::V, kEvCombine);
    c.wait_flag(Pipe::MTE2, Pipe::V, kEvCombine);
    auto at = [&](uint64_t arr, int64_t k) { return ub(arr, k * gp * 4); };
    const Addr M = ub(L.mnew), W = ub(L.tmp), t = ub(L.alpha[0]), Wd = ub(L.rsum), lse = ub(L.lse);
    ops.copy(DType::F32, M, at(m_at, 0), g);
    for (int64_t k = 1; k < ns; ++k) ops.binary(VBinOp::Max, DType::F32, M, M, at(m_at, k), g);
    for (int64_t k = 0; k < ns; ++k) {
      ops.binary(VBinOp::Sub, DType::F32, t, at(m_at, k), M, g);
      ops.unary(VUnaryOp::Exp, DType::F32, t, t, g);
      ops.binary(VBinOp::Mul, DType::F32, at(w_at, k), at(l_at, k), t, g);
    }
    ops.copy(DType::F32, W, at(w_at, 0), g);
    for (int64_t k = 1; k < ns; ++k) ops.binary(VBinOp::Add, DType::F32, W, W, at(w_at, k), g);
    ops.copy(DType::F32, Wd, W, g);
    if (p.row_fix) {
      ops.dup(DType::F32, ub(L.acc), pl.mask_value, 64);
      ops.cmp_scalar_vec(CmpOp::NE, DType::F32, ub(L.bits), M, ub(L.acc), g);
      ops.select(DType::F32, Wd, W, ub(L.bits), kInf, g);
    }
    for (int64_t k = 0; k < ns; ++k) ops.binary(VBinOp::Div, DType::F32, at(w_at, k), at(w_at, k), Wd, g);
    const FiaUnit grp{b, n2 * p.G, 0, g};
    if (p.lse) {
      c.wait_flag(Pipe::MTE3, Pipe::V, kEvLse);
      ops.unary(VUnaryOp::Ln, DType::F32, lse, W, g);
      ops.binary(VBinOp::Add, DType::F32, lse, lse, M, g);
      if (p.row_fix) ops.select(DType::F32, lse, lse, ub(L.bits), kInf, g);
      c.set_flag(Pipe::V, Pipe::MTE3, kEvLse);
      c.wait_flag(Pipe::V, Pipe::MTE3, kEvLse);
      c.issue(DataCopy{.dst = c.gm("softmax_lse", row_lse_elem(pl, grp, 0) * 4), .src = lse, .burst_bytes = uint32_t(g * 4)});
      c.set_flag(Pipe::MTE3, Pipe::V, kEvLse);
    }
    const Tile o{ub(L.x[1]), g, dv, DType::F32};
    for (int64_t k = 0; k < ns; ++k) {
      if (k) buffer_free();
      load_wait(DataCopy{.dst = o.at, .src = c.gm("fd_workspace", base + uint64_t(k) * sb), .burst_bytes = uint32_t(g * dv * 4)});
      ops.brcb(DType::F32, at(w_at, k), ub(L.obrcb), g);
      ops.row_bcast(o, ub(L.obrcb), VBinOp::Mul, p.Dv);
      if (k == 0) ops.copy(DType::F32, ub(L.oacc), o.at, g * dv);
      else ops.binary(VBinOp::Add, DType::F32, ub(L.oacc), ub(L.oacc), o.at, g * dv);
    }
    c.wait_flag(Pipe::MTE3, Pipe::V, pbi);
    ops.cast(pl.out, DType::F32, ub(L.pb[pbi]), ub(L.oacc), g * dv);
    c.set_flag(Pipe::V, Pipe::MTE3, pbi);
    c.wait_flag(Pipe::V, Pipe::MTE3, pbi);
    store_out(ub(L.pb[pbi]), grp, 0, g);
    c.set_flag(Pipe::MTE3, Pipe::V, pbi);
    pbi ^= 1;
  }

  void combine() {
    const int64_t me = int64_t(c.block_idx()) * 2 + c.sub_block_idx(), aivs = pl.t.block_dim * 2;
    int64_t idx = 0;
    for (int64_t b = 0; b < p.B; ++b)
      for (int64_t n2 = 0; n2 < p.KV_N; ++n2)
        if (pl.fd_off[size_t(b * p.KV_N + n2)] >= 0 && idx++ % aivs == me) combine_group(b, n2);
  }

  // rows x Dv output rows from UB (rows dv_pad elements apart) to attention_out.
  void store_out(Addr src, const FiaUnit& u, int64_t row, int64_t rows) {
    const int64_t row_bytes = p.Dv * bytes_of(pl.out), ub_row = pl.dv_pad * bytes_of(pl.out);
    c.issue(DataCopy{.dst = c.gm("attention_out", row_out_elem(pl, u, row) * uint64_t(bytes_of(pl.out))), .src = src,
                     .nburst = uint16_t(rows), .burst_bytes = uint32_t(row_bytes),
                     .src_gap = uint32_t((ub_row - (row_bytes + 31) / 32 * 32) / 32),
                     .dst_gap = uint32_t((row_out_stride(pl) - p.Dv) * bytes_of(pl.out))});
  }

  // Rows nobody computes (past the actual length, empty band, units without work): out 0, lse +inf.
  void zero_rows(const FiaUnit& u, int64_t row, int64_t rows) {
    for (int64_t r = 0; r < rows; r += 8) store_out(ub(L.zout), u, row + r, std::min<int64_t>(8, rows - r));
    if (!p.lse) return;
    for (int64_t r = 0; r < rows; r += 64)
      c.issue(DataCopy{.dst = c.gm("softmax_lse", row_lse_elem(pl, u, row + r) * 4), .src = ub(L.zlse),
                       .burst_bytes = uint32_t(std::min<int64_t>(64, rows - r) * 4)});
  }

  void zero_through(int64_t unit_end) {
    for (; zero_next < unit_end; ++zero_next) {
      if (c.sub_block_idx() != 0) continue;
      const FiaUnit& u = pl.units[size_t(zero_next)];
      if (!u.computed()) {
        zero_rows(u, u.row0, u.rows);
        continue;
      }
      zero_rows(u, u.row0, u.r_lo - u.row0);
      zero_rows(u, u.r_hi, u.row0 + u.rows - u.r_hi);
    }
  }

  void flags(bool set) {
    auto f = [&](Pipe a, Pipe b, int e) { set ? c.set_flag(a, b, e) : c.wait_flag(a, b, e); };
    for (int i = 0; i < 2; ++i) f(Pipe::V, Pipe::MTE2, i), f(Pipe::MTE3, Pipe::V, i);
    f(Pipe::V, Pipe::MTE2, kEvSideFree);
    f(Pipe::V, Pipe::MTE2, kEvOaccFree);
    f(Pipe::MTE3, Pipe::V, kEvLse);
  }

  void init_constants() {
    ops.dup(DType::F16, ub(L.zout), 0.0, 8 * pl.dv_pad);
    ops.dup(DType::F32, ub(L.zlse), pl.decode ? -3.4e38 : kInf, 64);  // spec Decisions: empty KV at S = 1 -> -3.4e38
    ops.dup(DType::F16, ub(L.zero), 0.0, 128);
    c.set_flag(Pipe::V, Pipe::MTE3, 3);
    c.wait_flag(Pipe::V, Pipe::MTE3, 3);
  }

  std::vector<int64_t> parity;  // unit parity of each step (m / l buffers)

  void run() {
    const std::vector<Step> steps = core_steps(pl, c.block_idx());
    int64_t seq = -1;
    for (const Step& st : steps) parity.push_back((seq += st.first ? 1 : 0) % 2);
    flags(true);
    init_constants();
    const int64_t n = int64_t(steps.size());
    if (n) v1(steps[0], 0);
    for (int64_t s = 0; s < n; ++s) {
      if (s + 1 < n) v1(steps[size_t(s + 1)], s + 1);
      v2(steps[size_t(s)], s);
    }
    const size_t core = size_t(c.block_idx());
    zero_through(core + 1 < pl.core_first.size() ? pl.core_first[core + 1] : zero_next);
    if (pl.has_splits()) {
      c.pipe_barrier(Pipe::ALL);  // partials written before the cores meet
      c.sync_all();
      combine();
    }
    flags(false);
  }
};
}  // namespace

void fia_vector(CoreCtx& c, const FiaPlan& pl) {
  Vec(c, pl).run();
}

}  // namespace npusim::op::fia
