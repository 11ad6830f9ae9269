// The matmul cube program. Flags (one AIC; ids per event pair):
//   MTE1->MTE2 e0/e1  L1 chunk slot free         MTE2->MTE1 e0/e1  L1 chunk slot filled
//   M->MTE1    e0/e1  L0A/L0B slice slot free    MTE1->M    e0/e1  L0A/L0B slice slot filled
//   FIX->M     e0     L0C free (previous tile written)   M->FIX e0  L0C tile complete
//   bias: MTE1->MTE2 e2 staging row free, MTE2->MTE1 e2 staging row filled, M->MTE1 e2 bias table free
#include "kernels/matmul/matmul_kernel.h"

#include <algorithm>

namespace npusim::op {

using namespace isa;
using sim::CoreCtx;

namespace {
struct Chunk {
  int64_t tile, m0, n0, mt, nt;  // output tile origin and extent
  int64_t k0, kc;                // K range of the chunk
  bool first, last;              // first / last chunk of its tile
};

struct Buffers {
  Addr a_l1[2], b_l1[2], l0a[2], l0b[2], l0c, bias_l1, bt, ub_out;
};

// The pipe that empties L0C: FixPipe on split cores; the vector pipe (L0C -> UB) on coupled cores.
Pipe drain_pipe(const CoreCtx& c) { return c.kind() == CoreKind::Coupled ? Pipe::V : Pipe::FIX; }
int64_t ub_row_elems(const MatmulPlan& p) {  // UB rows of the coupled epilogue start on 32-byte blocks
  const int64_t oe = bytes_of(p.s.out);
  return (p.t.base_n * oe + 31) / 32 * 32 / oe;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// This core's (tile, K chunk) sequence, generated on the fly (a list could be huge at the largest shapes).
class ChunkWalk {
 public:
  ChunkWalk(const CoreCtx& c, const MatmulPlan& p)
      : p_(p), tiles_(p.tiles_m() * p.tiles_n()), chunks_(ceil_div(p.s.k, p.t.k_l1)), tile_(c.block_idx()) {}
  bool done() const { return tile_ >= tiles_; }
  Chunk get() const {
    const int64_t m0 = (tile_ / p_.tiles_n()) * p_.t.base_m, n0 = (tile_ % p_.tiles_n()) * p_.t.base_n;
    return {tile_, m0, n0, std::min(p_.t.base_m, p_.s.m - m0), std::min(p_.t.base_n, p_.s.n - n0), ch_ * p_.t.k_l1,
            std::min(p_.t.k_l1, p_.s.k - ch_ * p_.t.k_l1), ch_ == 0, ch_ == chunks_ - 1};
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
  for (int s = 0; s < 2; ++s) {
    b.a_l1[s] = c.alloc(Buf::L1, t.base_m * t.k_l1 * e, "tiling.k_l1 A chunk");
    b.b_l1[s] = c.alloc(Buf::L1, t.k_l1 * t.base_n * e, "tiling.k_l1 B chunk");
    b.l0a[s] = c.alloc(Buf::L0A, t.base_m * t.base_k * e, "tiling.base_k A slice");
    b.l0b[s] = c.alloc(Buf::L0B, t.base_k * t.base_n * e, "tiling.base_k B slice");
  }
  b.l0c = c.alloc(Buf::L0C, t.base_m * t.base_n * 4, "tiling.base_m x base_n accumulators");
  if (p.s.bias) {
    b.bias_l1 = c.alloc(Buf::L1, t.base_n * 4, "bias staging row", 512);
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
  c.wait_flag(Pipe::MTE1, Pipe::MTE2, slot);
  if (!s.transpose_a)  // A (M x K): rows m, columns k
    c.issue(Nd2Nz{.dst = b.a_l1[slot], .src = {Buf::GM, p.a_gm + uint64_t((ch.m0 * s.k + ch.k0) * e)}, .dtype = s.in,
                  .n_value = uint16_t(ch.mt), .d_value = uint32_t(ch.kc), .src_d_value = uint32_t(s.k),
                  .dst_nz_c0_stride = uint16_t(p.t.base_m)});
  else  // A^T (K x M): rows k, columns m
    c.issue(Nd2Nz{.dst = b.a_l1[slot], .src = {Buf::GM, p.a_gm + uint64_t((ch.k0 * s.m + ch.m0) * e)}, .dtype = s.in,
                  .n_value = uint16_t(ch.kc), .d_value = uint32_t(ch.mt), .src_d_value = uint32_t(s.m),
                  .dst_nz_c0_stride = uint16_t(p.t.k_l1)});
  if (!s.transpose_b)  // B (K x N): rows k, columns n
    c.issue(Nd2Nz{.dst = b.b_l1[slot], .src = {Buf::GM, p.b_gm + uint64_t((ch.k0 * s.n + ch.n0) * e)}, .dtype = s.in,
                  .n_value = uint16_t(ch.kc), .d_value = uint32_t(ch.nt), .src_d_value = uint32_t(s.n),
                  .dst_nz_c0_stride = uint16_t(p.t.k_l1)});
  else  // B^T (N x K): rows n, columns k -- already the ZN fractal layout
    c.issue(Nd2Nz{.dst = b.b_l1[slot], .src = {Buf::GM, p.b_gm + uint64_t((ch.n0 * s.k + ch.k0) * e)}, .dtype = s.in,
                  .n_value = uint16_t(ch.nt), .d_value = uint32_t(ch.kc), .src_d_value = uint32_t(s.k),
                  .dst_nz_c0_stride = uint16_t(p.t.base_n)});
  c.set_flag(Pipe::MTE2, Pipe::MTE1, slot);
}

// L1 -> L0A / L0B for one mmad step: K fractals [kb_first, kb_first + kbs) of the chunk.
void load_step(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b, int slot, int l0, int64_t kb_first,
               int64_t kbs) {
  const auto& t = p.t;
  const int64_t mb = ceil_div(ch.mt, 16), nb = ceil_div(ch.nt, 16);
  const int64_t mb_l1 = t.base_m / 16, nb_l1 = t.base_n / 16, kb_l1 = t.k_l1 / 16;
  for (int64_t j = 0; j < kbs; ++j) {
    const int64_t kb = kb_first + j;
    // A: ZZ fractal (i, j) at (i * kbs + j); L1 holds (kb, i) at kb * mb_l1 + i, or transposed at i * kb_l1 + kb.
    if (!p.s.transpose_a)
      c.issue(Load2d{.dst = {Buf::L0A, b.l0a[l0].off + uint64_t(j) * 512}, .src = b.a_l1[slot], .dtype = p.s.in,
                     .start_index = uint16_t(kb * mb_l1), .repeat = uint8_t(mb), .dst_gap = uint16_t(kbs - 1)});
    else
      c.issue(Load2d{.dst = {Buf::L0A, b.l0a[l0].off + uint64_t(j) * 512}, .src = b.a_l1[slot], .dtype = p.s.in,
                     .start_index = uint16_t(kb), .repeat = uint8_t(mb), .src_stride = uint16_t(kb_l1),
                     .dst_gap = uint16_t(kbs - 1), .transpose = true});
    // B: ZN fractal (j, n) at (j * nb + n); L1 holds (kb, n) at n * kb_l1 + kb (transposed load) or, for B^T,
    // (n, kb) at kb * nb_l1 + n.
    const Addr dst{Buf::L0B, b.l0b[l0].off + uint64_t(j * nb) * 512};
    if (!p.s.transpose_b)
      c.issue(Load2d{.dst = dst, .src = b.b_l1[slot], .dtype = p.s.in, .start_index = uint16_t(kb), .repeat = uint8_t(nb),
                     .src_stride = uint16_t(kb_l1), .transpose = true});
    else
      c.issue(Load2d{.dst = dst, .src = b.b_l1[slot], .dtype = p.s.in, .start_index = uint16_t(kb * nb_l1),
                     .repeat = uint8_t(nb)});
  }
}

void load_bias(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b) {
  c.wait_flag(Pipe::MTE1, Pipe::MTE2, 2);
  c.issue(DataCopy{.dst = b.bias_l1, .src = {Buf::GM, p.bias_gm + uint64_t(ch.n0) * 4}, .burst_bytes = uint32_t(ch.nt * 4)});
  c.set_flag(Pipe::MTE2, Pipe::MTE1, 2);
  c.wait_flag(Pipe::MTE2, Pipe::MTE1, 2);
  c.wait_flag(Pipe::M, Pipe::MTE1, 2);
  c.issue(DataCopy{.dst = b.bt, .src = b.bias_l1, .burst_bytes = uint32_t(ch.nt * 4)});
  c.set_flag(Pipe::MTE1, Pipe::MTE2, 2);
}

Fixpipe tile_fixpipe(const MatmulPlan& p, const Chunk& ch, const Buffers& b, Addr dst, int64_t dst_stride) {
  Fixpipe f{.dst = dst, .src = b.l0c, .src_dtype = p.s.acc, .dst_dtype = p.s.out, .m = uint16_t(ch.mt),
            .n = uint16_t(ch.nt), .src_m_stride = uint16_t(ceil_div(ch.mt, 16) * 16), .dst_stride = uint32_t(dst_stride)};
  if (p.s.acc == DType::I32 && p.s.out == DType::F16) f.quant = Quant::Scalar, f.quant_scale = p.s.dequant_scale;
  return f;
}

void store_tile(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b) {
  const auto& s = p.s;
  const int oe = bytes_of(s.out);
  const Addr out{Buf::GM, p.c_gm + uint64_t((ch.m0 * s.n + ch.n0) * oe)};
  const Pipe drain = drain_pipe(c);
  c.set_flag(Pipe::M, drain, 0);
  c.wait_flag(Pipe::M, drain, 0);
  if (drain == Pipe::FIX) {
    c.issue(tile_fixpipe(p, ch, b, out, s.n));
    c.set_flag(Pipe::FIX, Pipe::M, 0);
    return;
  }
  // Coupled: L0C -> UB on the vector pipe, then UB -> GM row by row on MTE3.
  c.wait_flag(Pipe::MTE3, Pipe::V, 0);
  c.issue(tile_fixpipe(p, ch, b, b.ub_out, ub_row_elems(p)));
  c.set_flag(Pipe::V, Pipe::M, 0);
  c.set_flag(Pipe::V, Pipe::MTE3, 0);
  c.wait_flag(Pipe::V, Pipe::MTE3, 0);
  c.issue(DataCopy{.dst = out, .src = b.ub_out, .nburst = uint16_t(ch.mt), .burst_bytes = uint32_t(ch.nt * oe),
                   .src_gap = uint32_t((ub_row_elems(p) * oe - ceil_div(ch.nt * oe, 32) * 32) / 32),
                   .dst_gap = uint32_t((s.n - ch.nt) * oe)});
  c.set_flag(Pipe::MTE3, Pipe::V, 0);
}

// Multiplies one chunk: base_k steps through the two L0 slots; the first step of a tile starts the
// accumulators (from zero or from the bias table).
void compute_chunk(CoreCtx& c, const MatmulPlan& p, const Chunk& ch, const Buffers& b, int slot, int64_t& step) {
  const int64_t k0 = p.k0(), steps = ceil_div(ch.kc, p.t.base_k);
  c.wait_flag(Pipe::MTE2, Pipe::MTE1, slot);
  for (int64_t st = 0; st < steps; ++st, ++step) {
    const int l0 = static_cast<int>(step % 2);
    const int64_t kk = std::min(p.t.base_k, ch.kc - st * p.t.base_k);
    c.wait_flag(Pipe::M, Pipe::MTE1, l0);
    load_step(c, p, ch, b, slot, l0, st * p.t.base_k / k0, ceil_div(kk, k0));
    if (st == steps - 1) c.set_flag(Pipe::MTE1, Pipe::MTE2, slot);  // MTE1 is in order: the chunk is consumed
    c.set_flag(Pipe::MTE1, Pipe::M, l0);
    c.wait_flag(Pipe::MTE1, Pipe::M, l0);
    const bool start = ch.first && st == 0;
    if (start) c.wait_flag(drain_pipe(c), Pipe::M, 0);
    c.issue(Mmad{.c = b.l0c, .a = b.l0a[l0], .b = b.l0b[l0], .a_dtype = p.s.in, .m = uint16_t(ch.mt), .n = uint16_t(ch.nt),
                 .k = uint16_t(kk), .init = start, .bias = start && p.s.bias, .bias_addr = b.bt});
    if (start && p.s.bias) c.set_flag(Pipe::M, Pipe::MTE1, 2);
    c.set_flag(Pipe::M, Pipe::MTE1, l0);
  }
}
}  // namespace

void matmul_cube(CoreCtx& c, const MatmulPlan& p) {
  ChunkWalk walk(c, p);
  if (walk.done()) return;
  const Buffers b = allocate(c, p);
  for (int s = 0; s < 2; ++s) c.set_flag(Pipe::MTE1, Pipe::MTE2, s), c.set_flag(Pipe::M, Pipe::MTE1, s);
  const Pipe drain = drain_pipe(c);
  c.set_flag(drain, Pipe::M, 0);
  if (drain == Pipe::V) c.set_flag(Pipe::MTE3, Pipe::V, 0);
  if (p.s.bias) c.set_flag(Pipe::MTE1, Pipe::MTE2, 2), c.set_flag(Pipe::M, Pipe::MTE1, 2);
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
  for (int s = 0; s < 2; ++s) c.wait_flag(Pipe::MTE1, Pipe::MTE2, s), c.wait_flag(Pipe::M, Pipe::MTE1, s);
  c.wait_flag(drain, Pipe::M, 0);
  if (drain == Pipe::V) c.wait_flag(Pipe::MTE3, Pipe::V, 0);
  if (p.s.bias) c.wait_flag(Pipe::MTE1, Pipe::MTE2, 2), c.wait_flag(Pipe::M, Pipe::MTE1, 2);
}

}  // namespace npusim::op
