// The FIA prompt kernel's cube program (one AIC). Per score block s of its units:
//   C1(s): S = Q K^T -> workspace S slot s % (preload + 1), then cross flag S_READY to the AIV pair;
//   C2(s): waits P_READY, O_blk = P V -> workspace O slot s % 2, then cross flag O_READY.
// Order: C1(0 .. preload-1), then C1(s + preload), C2(s) for s = 0, 1, ...: the cube computes scores ahead
// while the AIVs run the softmax of earlier blocks. Intra-core flags (event ids per pipe pair):
//   MTE1->MTE2 / MTE2->MTE1: 0 K block free / loaded, 1 V, 2 P, 3 Q; 4 / 5 the second K / V slot
// With kv_buffers > preload, V(s) is loaded right after K(s) in C1(s), so MTE2 keeps streaming K and V while
// the scalar waits for P_READY (what decode needs); otherwise V(s) is loaded at the start of C2(s).
//   M->MTE1 / MTE1->M: 0, 1 the two L0A + L0B slice slots     FIX->M / M->FIX: 0, 1 the two L0C halves
#include <algorithm>

#include "kernels/fia/fia_addr.h"
#include "kernels/fia/fia_layout.h"
#include "kernels/fia/fia_steps.h"
#include "sim/machine/core_ctx.h"

namespace npusim::op::fia {

using namespace isa;
using sim::CoreCtx;

namespace {
enum L1Ev { kEvK = 0, kEvV = 1, kEvP = 2, kEvQ = 3 };
int ev_k(int64_t slot) { return slot ? 4 : kEvK; }  // K / V slot 1 use events 4 / 5
int ev_v(int64_t slot) { return slot ? 5 : kEvV; }

int64_t ceil16(int64_t v) { return (v + 15) / 16; }

struct Cube {
  CoreCtx& c;
  const FiaPlan& pl;
  L1Layout l1;
  L0Split l0;
  Addr q, k[2], v[2], pm, l0a[2], l0b[2], l0c[2];
  int64_t kvb = 1;      // K / V slots in L1 (tiling.kv_buffers)
  bool early_v = false; // V(s) is loaded with K(s) in C1: its slot was freed by an earlier C2 (kvb > preload)
  int slot = 0, half = 0;
  std::vector<PageIds> pages;  // ring: score block s uses pages[s % size]

  Cube(CoreCtx& ctx, const FiaPlan& plan) : c(ctx), pl(plan), l1(l1_layout(plan.p, plan.t)), l0(l0_split(plan.p, plan.t, ctx.hw())) {
    const Addr base = c.alloc(Buf::L1, l1.total, "tiling.s1_block / s2_block L1 blocks (Q, K, V, P)");
    q = {Buf::L1, base.off + l1.q}, pm = {Buf::L1, base.off + l1.pm};
    kvb = pl.t.kv_buffers;
    early_v = kvb > pl.t.preload;
    for (int64_t i = 0; i < kvb; ++i) k[i] = {Buf::L1, base.off + l1.k[i]}, v[i] = {Buf::L1, base.off + l1.v[i]};
    for (int i = 0; i < 2; ++i) {
      l0a[i] = c.alloc(Buf::L0A, uint64_t(l1.m_cap * l0.kstep * 2), "L0A slice");
      l0b[i] = c.alloc(Buf::L0B, uint64_t(l0.kstep * l0.nsub * 2), "L0B slice");
      l0c[i] = c.alloc(Buf::L0C, uint64_t(l1.m_cap * l0.nsub * 4), "L0C half");
    }
    pages.resize(size_t(pl.t.preload + 1));
  }

  // GM rows -> L1 (NZ, column groups of rows_cap rows).
  void load_rows(const RowRun& r, Addr dst, int64_t d, int64_t rows_cap) {
    c.issue(Nd2Nz{.dst = {Buf::L1, dst.off + uint64_t(r.dst_row) * 32}, .src = c.gm(r.gm, r.elem * 2), .dtype = pl.in,
                  .n_value = uint16_t(r.rows), .d_value = uint32_t(d), .src_d_value = uint32_t(r.stride),
                  .dst_nz_c0_stride = uint16_t(rows_cap)});
  }

  // L1 -> L0A / L0B for K fractals [kb0, kb0 + kbs) and N columns [n0, n0 + nn).
  void load_slices(Addr a, Addr b, bool b_trans, int64_t m, int64_t n0, int64_t nn, int64_t kb0, int64_t kbs) {
    const int64_t mb = ceil16(m), nb = ceil16(nn), a_rows = l1.m_cap / 16, b_rows = l1.n_cap / 16;
    for (int64_t j = 0; j < kbs; ++j) {
      const int64_t kb = kb0 + j;
      c.issue(Load2d{.dst = {Buf::L0A, l0a[slot].off + uint64_t(j) * 512}, .src = a, .dtype = pl.in,
                     .start_index = uint16_t(kb * a_rows), .repeat = uint8_t(mb), .dst_gap = uint16_t(kbs - 1)});
      const Addr dst{Buf::L0B, l0b[slot].off + uint64_t(j * nb) * 512};
      if (b_trans)  // stored N x K (rows n): fractal (kb, n block) at kb * b_rows + n block
        c.issue(Load2d{.dst = dst, .src = b, .dtype = pl.in, .start_index = uint16_t(kb * b_rows + n0 / 16), .repeat = uint8_t(nb)});
      else  // stored K x N (rows k): fractal (n block, kb) at n block * b_rows + kb, transposed into ZN
        c.issue(Load2d{.dst = dst, .src = b, .dtype = pl.in, .start_index = uint16_t((n0 / 16) * b_rows + kb), .repeat = uint8_t(nb),
                       .src_stride = uint16_t(b_rows), .transpose = true});
    }
  }

  // out (m x n, GM, row stride out_stride elements of out_t) = A (m x k, L1) * B (L1), in L0 slices.
  void gemm(Addr a, Addr b, bool b_trans, int64_t m, int64_t n, int64_t k, Addr out, int64_t out_stride, DType out_t) {
    for (int64_t n0 = 0; n0 < n; n0 += l0.nsub) {
      const int64_t nn = std::min(l0.nsub, n - n0);
      c.wait_flag(Pipe::FIX, Pipe::M, half);
      for (int64_t k0 = 0; k0 < k; k0 += l0.kstep) {
        const int64_t kk = std::min(l0.kstep, k - k0);
        c.wait_flag(Pipe::M, Pipe::MTE1, slot);
        load_slices(a, b, b_trans, m, n0, nn, k0 / 16, ceil16(kk));
        c.set_flag(Pipe::MTE1, Pipe::M, slot);
        c.wait_flag(Pipe::MTE1, Pipe::M, slot);
        c.issue(Mmad{.c = l0c[half], .a = l0a[slot], .b = l0b[slot], .a_dtype = pl.in, .m = uint16_t(m), .n = uint16_t(nn),
                     .k = uint16_t(kk), .init = k0 == 0});
        c.set_flag(Pipe::M, Pipe::MTE1, slot);
        slot ^= 1;
      }
      c.set_flag(Pipe::M, Pipe::FIX, half);
      c.wait_flag(Pipe::M, Pipe::FIX, half);
      c.issue(Fixpipe{.dst = {Buf::GM, out.off + uint64_t(n0 * bytes_of(out_t))}, .src = l0c[half], .src_dtype = DType::F32,
                      .dst_dtype = out_t, .m = uint16_t(m), .n = uint16_t(nn), .src_m_stride = uint16_t(ceil16(m) * 16),
                      .dst_stride = uint32_t(out_stride)});
      c.set_flag(Pipe::FIX, Pipe::M, half);
      half ^= 1;
    }
  }

  void c1(const Step& st, int64_t s) {
    const FiaUnit& u = pl.units[st.unit];
    const int64_t m = u.r_hi - u.r_lo, n2 = u.n2, j0 = st.blk * pl.t.s2_block, cols = pl.blk_cols(u.b, st.blk);
    if (st.first) {
      c.wait_flag(Pipe::MTE1, Pipe::MTE2, kEvQ);
      load_rows({"query", row_q_elem(pl, u, u.r_lo), m, row_q_stride(pl), 0}, q, pl.p.D, l1.m_cap);
      c.set_flag(Pipe::MTE2, Pipe::MTE1, kEvQ);
    }
    PageIds& pg = pages[size_t(s % int64_t(pages.size()))];
    pg.load(c, pl, u.b, j0, cols);
    const int64_t ks = s % kvb;
    c.wait_flag(Pipe::MTE1, Pipe::MTE2, ev_k(ks));
    for (const RowRun& r : kv_runs(pl, false, u.b, n2, j0, cols, pg)) load_rows(r, k[ks], pl.p.D, l1.n_cap);
    c.set_flag(Pipe::MTE2, Pipe::MTE1, ev_k(ks));
    if (early_v) load_v(st, s);
    c.wait_flag(Pipe::MTE2, Pipe::MTE1, ev_k(ks));
    if (st.first) c.wait_flag(Pipe::MTE2, Pipe::MTE1, kEvQ);
    gemm(q, k[ks], true, m, cols, pl.p.D, c.gm("workspace", pl.ws_s(c.block_idx(), s % pl.s_slots())), pl.cw_max, pl.vec);
    c.set_flag(Pipe::MTE1, Pipe::MTE2, ev_k(ks));
    if (st.last) c.set_flag(Pipe::MTE1, Pipe::MTE2, kEvQ);
    c.cross_set(2, kFlagSReady, Pipe::FIX);
  }

  void load_v(const Step& st, int64_t s) {
    const FiaUnit& u = pl.units[st.unit];
    const int64_t j0 = st.blk * pl.t.s2_block, cols = pl.blk_cols(u.b, st.blk), vs = s % kvb;
    c.wait_flag(Pipe::MTE1, Pipe::MTE2, ev_v(vs));
    for (const RowRun& r : kv_runs(pl, true, u.b, u.n2, j0, cols, pages[size_t(s % int64_t(pages.size()))]))
      load_rows(r, v[vs], pl.p.Dv, l1.n_cap);
    c.set_flag(Pipe::MTE2, Pipe::MTE1, ev_v(vs));
  }

  void c2(const Step& st, int64_t s) {
    const FiaUnit& u = pl.units[st.unit];
    const int64_t m = u.r_hi - u.r_lo, cols = pl.blk_cols(u.b, st.blk), vs = s % kvb;
    if (!early_v) load_v(st, s);
    c.cross_wait(kFlagPReady);
    c.wait_flag(Pipe::MTE1, Pipe::MTE2, kEvP);
    load_rows({"workspace", pl.ws_p(c.block_idx(), s % 2) / 2, m, pl.cw_max, 0}, pm, cols, l1.m_cap);
    c.set_flag(Pipe::MTE2, Pipe::MTE1, kEvP);
    c.wait_flag(Pipe::MTE2, Pipe::MTE1, ev_v(vs));
    c.wait_flag(Pipe::MTE2, Pipe::MTE1, kEvP);
    gemm(pm, v[vs], false, m, pl.p.Dv, cols, c.gm("workspace", pl.ws_o(c.block_idx(), s % 2)), pl.dv_pad, DType::F32);
    c.set_flag(Pipe::MTE1, Pipe::MTE2, ev_v(vs));
    c.set_flag(Pipe::MTE1, Pipe::MTE2, kEvP);
    c.cross_set(2, kFlagOReady, Pipe::FIX);
  }

  void flags(bool set) {
    for (int e : {kEvP, kEvQ}) set ? c.set_flag(Pipe::MTE1, Pipe::MTE2, e) : c.wait_flag(Pipe::MTE1, Pipe::MTE2, e);
    for (int64_t i = 0; i < kvb; ++i)
      for (int e : {ev_k(i), ev_v(i)}) set ? c.set_flag(Pipe::MTE1, Pipe::MTE2, e) : c.wait_flag(Pipe::MTE1, Pipe::MTE2, e);
    for (int i = 0; i < 2; ++i) {
      set ? c.set_flag(Pipe::M, Pipe::MTE1, i) : c.wait_flag(Pipe::M, Pipe::MTE1, i);
      set ? c.set_flag(Pipe::FIX, Pipe::M, i) : c.wait_flag(Pipe::FIX, Pipe::M, i);
    }
  }
};
}  // namespace

void fia_cube(CoreCtx& c, const FiaPlan& pl) {
  if (size_t(c.block_idx()) + 1 >= pl.core_first.size()) return;
  const std::vector<Step> steps = core_steps(pl, c.block_idx());
  if (steps.empty()) return;
  Cube k(c, pl);
  k.flags(true);
  const int64_t n = int64_t(steps.size()), pre = pl.t.preload;
  for (int64_t s = 0; s < std::min(pre, n); ++s) k.c1(steps[size_t(s)], s);
  for (int64_t s = 0; s < n; ++s) {
    if (s + pre < n) k.c1(steps[size_t(s + pre)], s + pre);
    k.c2(steps[size_t(s)], s);
  }
  k.flags(false);
}

// Flash-decoding: every core of the launch takes part in the SyncAll before the AIVs combine the partials.
void fia_cube_entry(CoreCtx& c, const FiaPlan& pl) {
  fia_cube(c, pl);
  if (pl.has_splits()) c.sync_all();
}

}  // namespace npusim::op::fia
