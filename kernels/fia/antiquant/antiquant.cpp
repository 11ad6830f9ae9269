// The KV antiquantisation pass (antiquant.h), the attention mainloop's prologue. Each AIV takes an equal share of the
// contiguous runs of a tensor (K, then V) and streams them through UB in chunks, two chunk slots deep so that MTE2
// loads chunk i + 1 while the vector unit converts chunk i and MTE3 stores chunk i - 1:
//   MTE2  int8 chunk GM -> UB                                   (waits: its slot free, MTE3 -> MTE2)
//   V     vconv s8 -> f16; vadd.f16 offset; vmul.f16 scale      (waits: loaded, MTE2 -> V)
//   MTE3  fp16 chunk UB -> GM copy                               (waits: converted, V -> MTE3)
// Per-channel parameters are applied as whole-chunk binary ops against UB tiles that repeat the channel row once
// per run of the chunk (built by one DMA of the row and doubling vector copies); per-tensor ones as vadds / vmuls
// with the scalar, which the scalar unit reads from GM.
#include "kernels/fia/antiquant/antiquant.h"

#include <algorithm>

#include "isa/numeric/numeric.h"
#include "kernels/attention/seq_addr.h"
#include "kernels/host/case_file.h"
#include "kernels/tile/events.h"
#include "kernels/tile/vec_ops.h"
#include "kernels/tile/views.h"

namespace npusim::op::fia {

using attn::AntiQuant;
using attn::AttnProblem;
using attn::KvStorage;
using attn::Layout;
using attn::Plan;

using isa::Addr;
using isa::Buf;
using isa::DType;
using isa::Pipe;

namespace {
constexpr tile::Event kSlotFree{Pipe::MTE3, Pipe::MTE2, 0};  // .at(slot)
constexpr tile::Event kLoaded{Pipe::MTE2, Pipe::V, 0};       // .at(slot)
constexpr tile::Event kConverted{Pipe::V, Pipe::MTE3, 0};    // .at(slot)
constexpr tile::Event kRowLoaded{Pipe::MTE2, Pipe::V, 2};    // the channel rows of the tiles

// UB bytes per element of a chunk: two slots of int8 in + fp16 out, and (per-channel) the offset and scale tiles.
int64_t ub_bytes_per_elem(const AntiQuant& a) { return 2 * (1 + 2) + (a.per_tensor ? 0 : 2 * 2); }

struct UbLayout {
  Addr in8[2], x16[2], toff, tscale;
};

class Dequantiser {
 public:
  Dequantiser(sim::CoreCtx& c, const Plan& pl, const DequantPlan& q) : c_(c), pl_(pl), q_(q), ops_(c) {
    const int64_t elems = q_.chunk * q_.seg;
    for (int s = 0; s < 2; ++s) {
      ub_.in8[s] = c.alloc(Buf::UB, uint64_t(elems), "KV antiquant int8 chunk");
      ub_.x16[s] = c.alloc(Buf::UB, uint64_t(elems * 2), "KV antiquant fp16 chunk");
    }
    if (!pl.p.antiquant.per_tensor) {
      ub_.toff = c.alloc(Buf::UB, uint64_t(elems * 2), "KV antiquant offset tile");
      ub_.tscale = c.alloc(Buf::UB, uint64_t(elems * 2), "KV antiquant scale tile");
    }
  }

  void run() {
    for (int s = 0; s < 2; ++s) tile::set(c_, kSlotFree.at(s));
    for (const DequantTensor& t : q_.tensors)
      if (t.segments > 0) tensor(t);
    for (int s = 0; s < 2; ++s) tile::wait(c_, kSlotFree.at(s));
  }

 private:
  // This AIV's runs of one tensor: an equal share of all runs (the first ones take the remainder).
  void tensor(const DequantTensor& t) {
    const int64_t cores = int64_t(c_.block_num()) * 2, me = int64_t(c_.block_idx()) * 2 + c_.sub_block_idx();
    const int64_t per = t.segments / cores, extra = t.segments % cores;
    const int64_t first = me * per + std::min(me, extra), end = first + per + (me < extra ? 1 : 0);
    int64_t head = -1;  // the KV head whose channel rows the tiles hold (BSH / BSND: 0 = all heads); -1: none
    if (pl_.p.antiquant.per_tensor) load_scalars(t.value);
    for (int64_t r = first; r < end;) {
      int64_t n = std::min(q_.chunk, end - r);
      if (t.slab > 0) n = std::min(n, (r / t.slab + 1) * t.slab - r);  // a chunk stays in one (b, n2)
      const int64_t n2 = t.slab > 0 ? (r / t.slab) % pl_.p.KV_N : 0;
      if (!pl_.p.antiquant.per_tensor && n2 != head) build_tiles(t.value, n2), head = n2;
      chunk(t, r, n);
      r += n;
    }
  }

  void load_scalars(bool value) {
    const auto bits = [&](bool offset) {
      const Addr at = c_.gm(pl_.p.antiquant_tensor(value, offset), uint64_t(pl_.p.antiquant_index(value, 0, 0) * 2));
      return double(isa::f16_to_f32(uint16_t(c_.load_scalar(DType::F16, at))));
    };
    scale_ = bits(false);
    offset_ = pl_.p.antiquant.offset ? bits(true) : 0.0;
  }

  // The tiles repeat the channel row (BSH / BSND: all KV_N * D channels; BNSD: head n2's D) once per run. The
  // vector unit may still read the old tiles: the pipes drain first.
  void build_tiles(bool value, int64_t n2) {
    c_.pipe_barrier(Pipe::ALL);
    const int64_t w = q_.seg, row = pl_.p.antiquant_index(value, n2, 0);
    c_.issue(tile::copy_bytes(ub_.tscale, c_.gm(pl_.p.antiquant_tensor(value, false), uint64_t(row * 2)), w * 2));
    if (pl_.p.antiquant.offset)
      c_.issue(tile::copy_bytes(ub_.toff, c_.gm(pl_.p.antiquant_tensor(value, true), uint64_t(row * 2)), w * 2));
    tile::handover(c_, kRowLoaded);
    for (int64_t have = 1; have < q_.chunk;) {  // doubling copies: 1, 2, 4, ... runs
      const int64_t n = std::min(have, q_.chunk - have);
      if (n > have / 2) ops_.barrier();  // it reads runs [have / 2, have), which the doubling before wrote
      ops_.copy(DType::F16, tile::plus(ub_.tscale, have * w * 2), ub_.tscale, n * w);
      if (pl_.p.antiquant.offset) ops_.copy(DType::F16, tile::plus(ub_.toff, have * w * 2), ub_.toff, n * w);
      have += n;
    }
  }

  void chunk(const DequantTensor& t, int64_t r, int64_t n) {
    const int s = int(next_slot_);
    next_slot_ ^= 1;
    const int64_t elems = n * q_.seg;
    const std::string &src = t.src, &dst = t.dst;
    tile::wait(c_, kSlotFree.at(s));
    c_.issue(tile::copy_bytes(ub_.in8[s], c_.gm(src, uint64_t(r * q_.seg)), elems));
    tile::handover(c_, kLoaded.at(s));
    ops_.cast(DType::F16, DType::I8, ub_.x16[s], ub_.in8[s], elems);
    ops_.barrier();  // each step reads the chunk as the one before left it
    if (pl_.p.antiquant.per_tensor) {
      if (pl_.p.antiquant.offset)
        ops_.scalar(isa::VScalarOp::Adds, DType::F16, ub_.x16[s], ub_.x16[s], offset_, elems), ops_.barrier();
      ops_.scalar(isa::VScalarOp::Muls, DType::F16, ub_.x16[s], ub_.x16[s], scale_, elems);
    } else {
      if (pl_.p.antiquant.offset)
        ops_.binary(isa::VBinOp::Add, DType::F16, ub_.x16[s], ub_.x16[s], ub_.toff, elems), ops_.barrier();
      ops_.binary(isa::VBinOp::Mul, DType::F16, ub_.x16[s], ub_.x16[s], ub_.tscale, elems);
    }
    tile::handover(c_, kConverted.at(s));
    c_.issue(tile::copy_bytes(c_.gm(dst, uint64_t(r * q_.seg * 2)), ub_.x16[s], elems * 2));
    tile::set(c_, kSlotFree.at(s));
  }

  sim::CoreCtx& c_;
  const Plan& pl_;
  const DequantPlan& q_;
  tile::VecOps ops_;
  UbLayout ub_{};
  unsigned next_slot_ = 0;
  double scale_ = 1, offset_ = 0;
};

// The int8 tensors, K's then V's, each with its runs by storage: dense in the query's layout (B x kv_s tokens), a
// tensor list's (1 x S_b tokens each), the shared prefix's (1 x prefix_s), or the page cache's (block_num,
// block_size, KV_N * D) / (block_num, KV_N, block_size, D), dequantised whole (unused blocks too: the same bytes).
std::vector<DequantTensor> kv_tensors(const Plan& pl, bool paged, bool bnsd) {
  const AttnProblem& p = pl.p;
  std::vector<DequantTensor> r;
  auto add = [&](const std::string& src, const std::string& dst, bool value, int64_t slabs, int64_t rows) {
    r.push_back({src, dst, value, slabs * rows * (bnsd ? p.KV_N : 1), bnsd ? rows : 0});
  };
  for (const bool value : {false, true}) {
    const std::string& base = value ? pl.gm.value : pl.gm.key;
    if (p.kv == KvStorage::List)  // key.B -> key_fp16.B (attn::kv_gm names a list's tensors)
      for (int64_t b = 0; b < p.B; ++b)
        add(attn::kv_gm(pl, value, b), base + "_fp16." + std::to_string(b), value, 1, p.list_s[size_t(b)]);
    else add(base, base + "_fp16", value, paged ? p.block_num : p.B, paged ? p.block_size : p.kv_s);
    const std::string& prefix = value ? pl.gm.value_prefix : pl.gm.key_prefix;
    if (p.prefix) add(prefix, prefix + "_fp16", value, 1, p.prefix_s);
  }
  return r;
}
}  // namespace

std::vector<std::pair<std::string, uint64_t>> add_kv_dequant(Plan& pl, const sim::HwConfig& hw) {
  const AttnProblem& p = pl.p;
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  const bool bnsd = paged ? p.kv == KvStorage::PagedNBsD : p.layout == Layout::BNSD || p.layout == Layout::BNSD_BSND;
  DequantPlan q;
  q.tensors = kv_tensors(pl, paged, bnsd);
  q.seg = bnsd ? p.D : p.KV_N * p.D;
  // A chunk is one counter-mode instruction per step: at most 255 repeats of 128 fp16 lanes.
  constexpr int64_t kMaxChunkElems = 255 * 128;
  const int64_t per_elem = ub_bytes_per_elem(p.antiquant);
  const int64_t cap = std::min(int64_t(hw.core.ub_bytes) / per_elem, kMaxChunkElems);
  q.chunk = std::max<int64_t>(1, cap / q.seg);
  int64_t slab = 0;  // the longest slab: a chunk never needs more runs
  for (const DequantTensor& t : q.tensors) slab = std::max(slab, t.slab);
  if (bnsd) q.chunk = std::min(q.chunk, std::max<int64_t>(1, slab));
  if (q.seg > cap)
    throw CaseError("KV antiquantisation streams runs of " + std::to_string(q.seg) + " elements (" +
                    (bnsd ? std::string("D") : std::string("KV_N * D")) + ") through UB at " +
                    std::to_string(per_elem) +
                    " bytes each; a run must fit core.ub_bytes = " + std::to_string(hw.core.ub_bytes) +
                    " and one vector instruction (" + std::to_string(kMaxChunkElems) + " elements)");
  std::vector<std::pair<std::string, uint64_t>> copies;
  int64_t runs = 0;
  for (const DequantTensor& t : q.tensors)
    copies.emplace_back(t.dst, uint64_t(t.segments * q.seg * 2)), runs += t.segments;
  pl.gm.key += "_fp16", pl.gm.value += "_fp16";
  if (p.prefix) pl.gm.key_prefix += "_fp16", pl.gm.value_prefix += "_fp16";
  pl.prologue = {"dequant", [q, runs](sim::CoreCtx& c, const Plan& plan) {
                   if (runs > 0) Dequantiser(c, plan, q).run();
                 }};
  return copies;
}

}  // namespace npusim::op::fia
