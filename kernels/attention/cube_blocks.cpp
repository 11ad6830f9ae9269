// The QK and PV blocks of the attention kernel (cube_blocks.h). Events (one AIC):
//   L1 slot free / loaded (MTE1 <-> MTE2): K slot 0, V slot 0, P, Q, K slot 1, V slot 1 (ids 0-5)
//   L0 slice free / loaded (M <-> MTE1): slice slots 0, 1     L0C half free / complete (FIX <-> M): halves 0, 1
// With kv_buffers > preload, V(s) is loaded right after K(s) in C1(s), so MTE2 keeps streaming K and V while the
// scalar waits for P_READY (what decode needs); otherwise V(s) is loaded at the start of C2(s).
#include "kernels/attention/cube_blocks.h"

#include <algorithm>

#include "kernels/attention/cross_flags.h"
#include "kernels/tile/events.h"

namespace npusim::op::attn {

using namespace isa;
using tile::Event;
using tile::L1Operand;
using tile::NzTile;

namespace {
constexpr Event kL1Free{Pipe::MTE1, Pipe::MTE2, 0}, kL1Loaded{Pipe::MTE2, Pipe::MTE1, 0};
constexpr Event kSliceFree{Pipe::M, Pipe::MTE1, 0}, kSliceLoaded{Pipe::MTE1, Pipe::M, 0};
constexpr Event kHalfFree{Pipe::FIX, Pipe::M, 0}, kHalfDone{Pipe::M, Pipe::FIX, 0};
enum L1Slot { kSlotK0 = 0, kSlotV0 = 1, kSlotP = 2, kSlotQ = 3, kSlotK1 = 4, kSlotV1 = 5 };
int k_slot(int64_t i) { return i ? kSlotK1 : kSlotK0; }
int v_slot(int64_t i) { return i ? kSlotV1 : kSlotV0; }

int64_t fractals(int64_t v) { return ceil_div(v, int64_t(kFractalRows)); }  // M / N fractals (16 rows or columns)
}  // namespace

CubeBlocks::CubeBlocks(sim::CoreCtx& c, const Plan& pl)
    : c_(c),
      pl_(pl),
      l1_(l1_layout(pl.p, pl.t)),
      l0_(l0_split(pl.p, pl.t, c.hw())),
      acc_(pl.cube == DType::I8 || pl.cube == DType::I4 ? DType::I32 : DType::F32) {
  const Addr base = c_.alloc(Buf::L1, l1_.total, "tiling.s1_block / s2_block L1 blocks (Q, K, V, P)");
  auto nz = [&](uint64_t off, int64_t rows_cap) { return NzTile{tile::plus(base, int64_t(off)), pl_.cube, rows_cap}; };
  q_ = nz(l1_.q, l1_.m_cap), pm_ = nz(l1_.pm, l1_.m_cap);
  kvb_ = pl_.t.kv_buffers;
  early_v_ = kvb_ > pl_.t.preload;
  for (int64_t i = 0; i < kvb_; ++i) k_[i] = nz(l1_.k[i], l1_.n_cap), v_[i] = nz(l1_.v[i], l1_.n_cap);
  for (int i = 0; i < 2; ++i) {
    l0a_[i] = c_.alloc(Buf::L0A, l0a_slice_bytes(pl_.p, pl_.t, l0_.kstep), "tiling.l0_k_step L0A slice");
    l0b_[i] = c_.alloc(Buf::L0B, l0b_slice_bytes(pl_.p, l0_.kstep, l0_.nsub), "tiling.l0_k_step x l0_n_sub L0B slice");
    l0c_[i] = c_.alloc(Buf::L0C, uint64_t(l1_.m_cap * l0_.nsub * 4), "tiling.l0_n_sub L0C half");
  }
  pages_.resize(size_t(pl_.t.preload + 1));
}

void CubeBlocks::load_rows(const RowRun& r, const NzTile& dst, int64_t d, int64_t dst_col) {
  if (pl_.cube == DType::I4) {  // as int8 bytes: an int4 NZ column group (64 elements) is one int8 group (32 bytes)
    const NzTile bytes{dst.at, DType::I8, dst.rows_cap};
    c_.issue(
        tile::nd2nz({c_.gm(r.gm, r.elem / 2), DType::I8, r.rows, d / 2, r.stride / 2}, bytes, r.dst_row, dst_col / 2));
    return;
  }
  c_.issue(
      tile::nd2nz({c_.gm(r.gm, r.elem * bytes_of(pl_.cube)), pl_.cube, r.rows, d, r.stride}, dst, r.dst_row, dst_col));
}

// L1 -> L0A / L0B for K fractals [kb0, kb0 + kbs) and N columns [n0, n0 + nn).
void CubeBlocks::load_slices(const L1Operand& a, const L1Operand& b, int64_t m, int64_t n0, int64_t nn, int64_t kb0,
                             int64_t kbs) {
  const int64_t mb = fractals(m), nb = fractals(nn);
  for (int64_t j = 0; j < kbs; ++j) {
    c_.issue(tile::load_l0a(a, kb0 + j, mb, tile::fractal(l0a_[slot_], j), kbs));
    c_.issue(tile::load_l0b(b, kb0 + j, n0 / kFractalRows, nb, tile::fractal(l0b_[slot_], j * nb)));
  }
}

void CubeBlocks::gemm(const L1Operand& a, const L1Operand& b, int64_t m, int64_t n, int64_t k, Addr out,
                      int64_t out_stride, DType out_t, double deq) {
  const int64_t kb = block_elems(pl_.cube);  // K per fractal: 16 (fp16 / bf16), 32 (int8), 64 (int4)
  for (int64_t n0 = 0; n0 < n; n0 += l0_.nsub) {
    const int64_t nn = std::min(l0_.nsub, n - n0);
    tile::wait(c_, kHalfFree.at(half_));
    for (int64_t k0 = 0; k0 < k; k0 += l0_.kstep) {
      const int64_t kk = std::min(l0_.kstep, k - k0);
      tile::wait(c_, kSliceFree.at(slot_));
      load_slices(a, b, m, n0, nn, k0 / kb, ceil_div(kk, kb));
      tile::handover(c_, kSliceLoaded.at(slot_));
      c_.issue(Mmad{.c = l0c_[half_],
                    .a = l0a_[slot_],
                    .b = l0b_[slot_],
                    .a_dtype = pl_.cube,
                    .m = uint16_t(m),
                    .n = uint16_t(nn),
                    .k = uint16_t(kk),
                    .init = k0 == 0});
      tile::set(c_, kSliceFree.at(slot_));
      slot_ ^= 1;
    }
    tile::handover(c_, kHalfDone.at(half_));
    Fixpipe f = tile::fixpipe_nd(l0c_[half_], acc_, m, nn, tile::plus(out, n0 * bytes_of(out_t)), out_t, out_stride);
    if (acc_ == DType::I32 && out_t != DType::I32)
      f.quant = Quant::Scalar, f.quant_scale = deq, f.sat = true;  // full quant: DEQF16
    c_.issue(f);
    tile::set(c_, kHalfFree.at(half_));
    half_ ^= 1;
  }
}

void CubeBlocks::qk(const Step& st, int64_t s) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t m = rows(u), j0 = st.blk * pl_.t.s2_block, cols = pl_.blk_cols(u.b, st.blk);
  if (st.first) {
    tile::wait(c_, kL1Free.at(kSlotQ));
    if (pl_.msd.on) {  // the AIV pair's int8 limbs of the query (limb-major rows, D apart)
      c_.cross_wait(kFlagQReady);
      load_rows({pl_.gm.workspace, elems_at(pl_.ws_q(c_.block_idx(), pl_.q_slot(st.seq))), m, pl_.p.D, 0}, q_, pl_.p.D);
    } else {
      load_rows({pl_.gm.query, row_q_elem(pl_, u, u.r_lo), m, row_q_stride(pl_), 0}, q_, pl_.p.D);
    }
    if (pl_.p.Dr > 0) load_rows(q_rope_run(pl_, u, u.r_lo, m), q_, pl_.p.Dr, pl_.p.D);  // columns [D, D + Dr)
    tile::set(c_, kL1Loaded.at(kSlotQ));
  }
  PageIds& pg = pages_[size_t(s % int64_t(pages_.size()))];
  pg.load(c_, pl_, u.b, j0, cols);
  const int64_t ks = s % kvb_;
  tile::wait(c_, kL1Free.at(k_slot(ks)));
  for (const RowRun& r : kv_runs(pl_, false, u.b, u.n2, j0, cols, pg)) load_rows(r, k_[ks], pl_.p.D);
  if (pl_.p.Dr > 0) load_rows(k_rope_run(pl_, u.b, u.n2, j0, cols), k_[ks], pl_.p.Dr, pl_.p.D);
  tile::set(c_, kL1Loaded.at(k_slot(ks)));
  if (early_v_) load_v(st, s);
  tile::wait(c_, kL1Loaded.at(k_slot(ks)));
  if (st.first) tile::wait(c_, kL1Loaded.at(kSlotQ));
  gemm({q_, false}, {k_[ks], false}, m, cols, pl_.p.qk_dim(),
       c_.gm(pl_.gm.workspace, pl_.ws_s(c_.block_idx(), s % pl_.s_slots())), pl_.cw_max, pl_.score,
       pl_.p.full_quant.deq1);
  tile::set(c_, kL1Free.at(k_slot(ks)));
  if (st.last) tile::set(c_, kL1Free.at(kSlotQ));
  c_.cross_set(2, kFlagSReady, Pipe::FIX);
}

void CubeBlocks::load_v(const Step& st, int64_t s) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t j0 = st.blk * pl_.t.s2_block, cols = pl_.blk_cols(u.b, st.blk), vs = s % kvb_;
  tile::wait(c_, kL1Free.at(v_slot(vs)));
  for (const RowRun& r : kv_runs(pl_, true, u.b, u.n2, j0, cols, pages_[size_t(s % int64_t(pages_.size()))]))
    load_rows(r, v_[vs], pl_.p.Dv);
  tile::set(c_, kL1Loaded.at(v_slot(vs)));
}

void CubeBlocks::pv(const Step& st, int64_t s) {
  const WorkUnit& u = pl_.units[size_t(st.unit)];
  const int64_t m = rows(u), vs = s % kvb_, n = pl_.blk_cols(u.b, st.blk);
  // int4: an odd block runs with K = n + 1 (the vendor's PV matmul; P's column n is 0, msd_research.md §5)
  const int64_t cols = pl_.cube == DType::I4 ? round_up(n, int64_t(2)) : n;
  if (!early_v_) load_v(st, s);
  c_.cross_wait(kFlagPReady);
  tile::wait(c_, kL1Free.at(kSlotP));
  load_rows({pl_.gm.workspace, elems_at(pl_.ws_p(c_.block_idx(), pl_.step_slot(s))), m, pl_.cw_max, 0}, pm_, cols);
  tile::set(c_, kL1Loaded.at(kSlotP));
  tile::wait(c_, kL1Loaded.at(v_slot(vs)));
  tile::wait(c_, kL1Loaded.at(kSlotP));
  gemm({pm_, false}, {v_[vs], true}, m, pl_.p.Dv, cols,
       c_.gm(pl_.gm.workspace, pl_.ws_o(c_.block_idx(), pl_.step_slot(s))), pl_.dv_pad,
       pl_.msd.on ? DType::I32 : pl_.oblk, pl_.p.full_quant.deq2);
  tile::set(c_, kL1Free.at(v_slot(vs)));
  tile::set(c_, kL1Free.at(kSlotP));
  c_.cross_set(2, kFlagOReady, Pipe::FIX);
}

void CubeBlocks::flags(bool set) {
  auto f = [&](Event e) { set ? tile::set(c_, e) : tile::wait(c_, e); };
  for (int e : {kSlotP, kSlotQ}) f(kL1Free.at(e));
  for (int64_t i = 0; i < kvb_; ++i)
    for (int e : {k_slot(i), v_slot(i)}) f(kL1Free.at(e));
  for (int i = 0; i < 2; ++i) f(kSliceFree.at(i)), f(kHalfFree.at(i));
}

void CubeBlocks::start() { flags(true); }
void CubeBlocks::finish() { flags(false); }

}  // namespace npusim::op::attn
