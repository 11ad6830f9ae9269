// The matmul cube program. Flags (one AIC; ids per event pair):
//   MTE1->MTE2 e0/e1  L1 chunk slot free         MTE2->MTE1 e0/e1  L1 chunk slot filled
//   M->MTE1    e0/e1  L0A/L0B slice slot free    MTE1->M    e0/e1  L0A/L0B slice slot filled
//   FIX->M     e0     L0C free (previous tile written)   M->FIX e0  L0C tile complete
//   bias: MTE1->MTE2 e2 staging row free, MTE2->MTE1 e2 staging row filled, M->MTE1 e2 bias table free
#include "kernels/matmul/matmul_kernel.h"

#include <algorithm>

#include "kernels/tile/events.h"
#include "kernels/tile/views.h"

namespace npusim::op {

using namespace isa;
using sim::CoreCtx;
using tile::Event;
using tile::L1Operand;

namespace {
constexpr Event kChunkFree{Pipe::MTE1, Pipe::MTE2, 0}, kChunkLoaded{Pipe::MTE2, Pipe::MTE1, 0};  // .at(slot 0 / 1)
constexpr Event kSliceFree{Pipe::M, Pipe::MTE1, 0}, kSliceLoaded{Pipe::MTE1, Pipe::M, 0};        // .at(slot 0 / 1)
constexpr Event kBiasRowFree{Pipe::MTE1, Pipe::MTE2, 2}, kBiasRowLoaded{Pipe::MTE2, Pipe::MTE1, 2};
constexpr Event kBiasTableFree{Pipe::M, Pipe::MTE1, 2};
constexpr Event kUbOutFree{Pipe::MTE3, Pipe::V, 0}, kUbOutFull{Pipe::V, Pipe::MTE3, 0};  // coupled epilogue
// L0C hand-over between M and the pipe that empties it (FixPipe, or V on coupled cores).
Event l0c_done(Pipe drain) { return {Pipe::M, drain, 0}; }
Event l0c_free(Pipe drain) { return {drain, Pipe::M, 0}; }

struct Chunk {
  int64_t tile, m0, n0, mt, nt;  // output tile origin and extent
  int64_t k0, kc;                // K range of the chunk
  bool first, last;              // first / last chunk of its tile
};

struct Buffers {
  L1Operand a[2], b[2];  // the A / B chunk slots in L1
  Addr l0a[2], l0b[2], l0c, bias_l1, bt, ub_out;
};

// The pipe that empties L0C: FixPipe on split cores; the vector pipe (L0C -> UB) on coupled cores.
Pipe drain_pipe(const CoreCtx& c) { return c.kind() == CoreKind::Coupled ? Pipe::V : Pipe::FIX; }
int64_t ub_row_elems(const MatmulPlan& p) {  // UB rows of the coupled epilogue start on 32-byte blocks
  const int64_t oe = bytes_of(p.s.out);
  return round_up(p.t.base_n * oe, int64_t(kBlockBytes)) / oe;
}

// This core's (tile, K chunk) sequence, generated on the fly (a list could be huge at the largest shapes).
class ChunkWalk {
 public:
  ChunkWalk(const CoreCtx& c, const MatmulPlan& p)
      : p_(p), tiles_(p.tiles_m() * p.tiles_n()), chunks_(ceil_div(p.s.k, p.t.k_l1)), tile_(c.block_idx()) {}
  bool done() const { return tile_ >= tiles_; }
  Chunk get() const {
    const int64_t m0 = (tile_ / p_.tiles_n()) * p_.t.base_m, n0 = (tile_ % p_.tiles_n()) * p_.t.base_n;
    return {tile_,
            m0,
            n0,
            std::min(p_.t.base_m, p_.s.m - m0),
            std::min(p_.t.base_n, p_.s.n - n0),
            ch_ * p_.t.k_l1,
            std::min(p_.t.k_l1, p_.s.k - ch_ * p_.t.k_l1),
            ch_ == 0,
            ch_ == chunks_ - 1};
  }
  void next() {
    if (++ch_ == chunks_) ch_ = 0, tile_ += p_.t.block_dim;
  }

 private:
  const MatmulPlan& p_;
  int64_t tiles_, chunks_, tile_, ch_ = 0;
};

Buffers allocate(CoreCtx& c, const MatmulPlan& p) {
  const auto& t = p.t;
  const uint64_t e = p.elem();
  Buffers b;
  // A rows are M (or K when A is stored transposed), B rows are K (or N when stored transposed).
  const int64_t a_rows = p.s.transpose_a ? t.k_l1 : t.base_m, b_rows = p.s.transpose_b ? t.base_n : t.k_l1;
  for (int s = 0; s < 2; ++s) {
    b.a[s] = {{c.alloc(Buf::L1, t.base_m * t.k_l1 * e, "tiling.k_l1 A chunk"), p.s.in, a_rows}, p.s.transpose_a};
    b.b[s] = {{c.alloc(Buf::L1, t.k_l1 * t.base_n * e, "tiling.k_l1 B chunk"), p.s.in, b_rows}, !p.s.transpose_b};
    b.l0a[s] = c.alloc(Buf::L0A, t.base_m * t.base_k * e, "tiling.base_k A slice");
    b.l0b[s] = c.alloc(Buf::L0B, t.base_k * t.base_n * e, "tiling.base_k B slice");
  }
  b.l0c = c.alloc(Buf::L0C, t.base_m * t.base_n * 4, "tiling.base_m x base_n accumulators");
  if (p.s.bias) {
    b.bias_l1 = c.alloc(Buf::L1, t.base_n * 4, "bias staging row", kFractalBytes);  // L1 -> BT source alignment
    b.bt = c.alloc(Buf::BT, t.base_n * 4, "tiling.base_n bias table");
  }
  if (c.kind() == CoreKind::Coupled)
    b.ub_out = c.alloc(Buf::UB, t.base_m * ub_row_elems(p) * bytes_of(p.s.out), "tiling.base_m x base_n output tile");
  return b;
}

// GM -> L1 for one chunk: A as (rows of M or K) and B likewise, each converted ND -> NZ.
void load_chunk(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b, int slot) {
  const auto& s = p.s;
  const int64_t e = p.elem();
  c.stage("load", ch.tile, ch.k0 / p.t.k_l1);  // trace span: this chunk's GM -> L1 copies
  tile::wait(c, kChunkFree.at(slot));
  if (!s.transpose_a)  // A (M x K): rows m, columns k
    c.issue(tile::nd2nz({{Buf::GM, p.a_gm + uint64_t((ch.m0 * s.k + ch.k0) * e)}, s.in, ch.mt, ch.kc, s.k},
                        b.a[slot].tile));
  else  // A^T (K x M): rows k, columns m
    c.issue(tile::nd2nz({{Buf::GM, p.a_gm + uint64_t((ch.k0 * s.m + ch.m0) * e)}, s.in, ch.kc, ch.mt, s.m},
                        b.a[slot].tile));
  if (!s.transpose_b)  // B (K x N): rows k, columns n
    c.issue(tile::nd2nz({{Buf::GM, p.b_gm + uint64_t((ch.k0 * s.n + ch.n0) * e)}, s.in, ch.kc, ch.nt, s.n},
                        b.b[slot].tile));
  else  // B^T (N x K): rows n, columns k -- already the ZN fractal layout
    c.issue(tile::nd2nz({{Buf::GM, p.b_gm + uint64_t((ch.n0 * s.k + ch.k0) * e)}, s.in, ch.nt, ch.kc, s.k},
                        b.b[slot].tile));
  tile::set(c, kChunkLoaded.at(slot));
}

// The M / N extent the cube computes for a tile: the tile's, rounded up to the square granule of a transposed
// int8 operand (the extra rows / columns multiply zero padding and are not stored).
int64_t mmad_m(const MatmulPlan& p, const Chunk& ch) { return round_up(ch.mt, square_m(p.s)); }
int64_t mmad_n(const MatmulPlan& p, const Chunk& ch) { return round_up(ch.nt, square_n(p.s)); }

// L1 -> L0A / L0B for one mmad step: K fractals [kb_first, kb_first + kbs) of the chunk.
void load_step(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b, int slot, int l0, int64_t kb_first,
               int64_t kbs) {
  const int64_t mb = ceil_div(mmad_m(p, ch), int64_t(kFractalRows)),
                nb = ceil_div(mmad_n(p, ch), int64_t(kFractalRows));
  for (int64_t j = 0; j < kbs; ++j) {
    c.issue(tile::load_l0a(b.a[slot], kb_first + j, mb, tile::fractal(b.l0a[l0], j), kbs));
    c.issue(tile::load_l0b(b.b[slot], kb_first + j, 0, nb, tile::fractal(b.l0b[l0], j * nb)));
  }
}

void load_bias(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b) {
  c.stage("bias", ch.tile);
  tile::wait(c, kBiasRowFree);
  c.issue(tile::copy_bytes(b.bias_l1, {Buf::GM, p.bias_gm + uint64_t(ch.n0) * 4}, ch.nt * 4));
  tile::handover(c, kBiasRowLoaded);
  tile::wait(c, kBiasTableFree);
  c.issue(tile::copy_bytes(b.bt, b.bias_l1, ch.nt * 4));
  tile::set(c, kBiasRowFree);
}

Fixpipe tile_fixpipe(const MatmulPlan& p, const Chunk& ch, const Buffers& b, Addr dst, int64_t dst_stride) {
  Fixpipe f = tile::fixpipe_nd(b.l0c, p.s.acc, ch.mt, ch.nt, dst, p.s.out, dst_stride);
  f.src_m_stride = uint16_t(round_up(mmad_m(p, ch), int64_t(kFractalRows)));  // the rows of L0C's column blocks
  if (p.s.acc == DType::I32 && p.s.out == DType::F16) f.quant = Quant::Scalar, f.quant_scale = p.s.dequant_scale;
  return f;
}

void store_tile(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b) {
  c.stage("store", ch.tile);  // trace span: L0C -> GM of one output tile
  const auto& s = p.s;
  const int oe = bytes_of(s.out);
  const Addr out{Buf::GM, p.c_gm + uint64_t((ch.m0 * s.n + ch.n0) * oe)};
  const Pipe drain = drain_pipe(c);
  tile::handover(c, l0c_done(drain));
  if (drain == Pipe::FIX) {
    c.issue(tile_fixpipe(p, ch, b, out, s.n));
    tile::set(c, l0c_free(drain));
    return;
  }
  // Coupled: L0C -> UB on the vector pipe, then UB -> GM row by row on MTE3.
  tile::wait(c, kUbOutFree);
  c.issue(tile_fixpipe(p, ch, b, b.ub_out, ub_row_elems(p)));
  tile::set(c, l0c_free(drain));
  tile::handover(c, kUbOutFull);
  c.issue(tile::copy_out({b.ub_out, s.out, ch.mt, ub_row_elems(p)}, {out, s.out, ch.mt, ch.nt, s.n}));
  tile::set(c, kUbOutFree);
}

// Multiplies one chunk: base_k steps through the two L0 slots; the first step of a tile starts the
// accumulators (from zero or from the bias table).
void compute_chunk(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b, int slot, int64_t& step) {
  const int64_t k0 = p.k0(), steps = ceil_div(ch.kc, p.t.base_k);
  c.stage("mmad", ch.tile, ch.k0 / p.t.k_l1);  // trace span: L1 -> L0 loads and mmads of this chunk
  tile::wait(c, kChunkLoaded.at(slot));
  for (int64_t st = 0; st < steps; ++st, ++step) {
    const int l0 = static_cast<int>(step % 2);
    const int64_t kk = std::min(p.t.base_k, ch.kc - st * p.t.base_k);
    tile::wait(c, kSliceFree.at(l0));
    load_step(c, p, ch, b, slot, l0, st * p.t.base_k / k0, ceil_div(kk, k0));
    if (st == steps - 1) tile::set(c, kChunkFree.at(slot));  // MTE1 is in order: the chunk is consumed
    tile::handover(c, kSliceLoaded.at(l0));
    const bool start = ch.first && st == 0;
    if (start) tile::wait(c, l0c_free(drain_pipe(c)));
    c.issue(Mmad{.c = b.l0c,
                 .a = b.l0a[l0],
                 .b = b.l0b[l0],
                 .a_dtype = p.s.in,
                 .m = uint16_t(mmad_m(p, ch)),
                 .n = uint16_t(mmad_n(p, ch)),
                 .k = uint16_t(kk),
                 .init = start,
                 .bias = start && p.s.bias,
                 .bias_addr = b.bt});
    if (start && p.s.bias) tile::set(c, kBiasTableFree);
    tile::set(c, kSliceFree.at(l0));
  }
}
}  // namespace

void matmul_cube(CoreCtx& c, const MatmulPlan& p) {
  ChunkWalk walk(c, p);
  if (walk.done()) return;
  const Buffers b = allocate(c, p);
  for (int s = 0; s < 2; ++s) tile::set(c, kChunkFree.at(s)), tile::set(c, kSliceFree.at(s));
  const Pipe drain = drain_pipe(c);
  tile::set(c, l0c_free(drain));
  if (drain == Pipe::V) tile::set(c, kUbOutFree);
  if (p.s.bias) tile::set(c, kBiasRowFree), tile::set(c, kBiasTableFree);
  int64_t step = 0;
  Chunk cur = walk.get();
  load_chunk(c, p, cur, b, 0);
  for (int slot = 0;; slot = 1 - slot) {
    walk.next();
    if (cur.first && p.s.bias) load_bias(c, p, cur, b);  // before the prefetch: it is tiny and urgent
    const bool more = !walk.done();
    const Chunk nxt = more ? walk.get() : cur;
    if (more) load_chunk(c, p, nxt, b, 1 - slot);  // prefetch, across tiles too
    compute_chunk(c, p, cur, b, slot, step);
    if (cur.last) store_tile(c, p, cur, b);
    if (!more) break;
    cur = nxt;
  }
  for (int s = 0; s < 2; ++s) tile::wait(c, kChunkFree.at(s)), tile::wait(c, kSliceFree.at(s));
  tile::wait(c, l0c_free(drain));
  if (drain == Pipe::V) tile::wait(c, kUbOutFree);
  if (p.s.bias) tile::wait(c, kBiasRowFree), tile::wait(c, kBiasTableFree);
}

}  // namespace npusim::op
