// The KV antiquantisation pass (antiquant.h), the attention mainloop's prologue. Each AIV takes an equal share of the
// contiguous runs of every tensor (K's, then V's), cut into chunks, and streams them through UB two chunk slots deep:
//   MTE2  int8 chunk GM -> UB                                   (waits: its slot free, MTE3 -> MTE2)
//   V     vconv s8 -> f16; vadd.f16 offset; vmul.f16 scale      (waits: loaded, MTE2 -> V)
//   MTE3  fp16 chunk UB -> GM copy                               (waits: converted, V -> MTE3)
// MTE2 issues chunk i + 1's load before it hands chunk i over (a set_flag waits for the pipe's earlier copies), so
// the GM latencies of consecutive loads overlap: with a few chunks per AIV the pass is latency-bound. Per-channel
// parameters: every channel row of K's and V's scale / offset is loaded once, first, and applied to the chunk's runs
// as rows (VecOps::row_vec: the row re-read by every repeat, repeat stride 0); per-tensor ones as vadds / vmuls with
// the scalars, which the scalar unit reads from GM.
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
constexpr tile::Event kSlotFree{Pipe::MTE3, Pipe::MTE2, 0};   // .at(slot)
constexpr tile::Event kLoaded{Pipe::MTE2, Pipe::V, 0};        // .at(slot)
constexpr tile::Event kConverted{Pipe::V, Pipe::MTE3, 0};     // .at(slot)
constexpr tile::Event kParamsLoaded{Pipe::MTE2, Pipe::V, 2};  // the per-channel rows

// UB bytes per element of a chunk: two slots of int8 in + fp16 out.
constexpr int64_t kUbBytesPerElem = 2 * (1 + 2);

// UB bytes of one tensor's per-channel rows: its scale (and offset) over all KV_N * D channels, fp16.
int64_t row_bytes(const AttnProblem& p) {
  return p.antiquant.per_tensor ? 0 : (p.antiquant.offset ? 2 : 1) * p.KV_N * p.D * 2;
}

// One chunk of an AIV's share: `runs` runs from run r of tensor t, all of KV head n2 (BNSD; else 0: every head).
struct Chunk {
  const DequantTensor* t = nullptr;
  int64_t r = 0, runs = 0, n2 = 0;
};

class Dequantiser {
 public:
  Dequantiser(sim::CoreCtx& c, const Plan& pl, const DequantPlan& q) : c_(c), pl_(pl), q_(q), ops_(c) {
    const int64_t elems = q_.chunk * q_.seg;
    for (int s = 0; s < 2; ++s) {
      ub_in8_[s] = c.alloc(Buf::UB, uint64_t(elems), "KV antiquant int8 chunk");
      ub_x16_[s] = c.alloc(Buf::UB, uint64_t(elems * 2), "KV antiquant fp16 chunk");
    }
    if (!pl.p.antiquant.per_tensor)
      ub_params_ = c.alloc(Buf::UB, uint64_t(row_bytes(pl.p) * (q_.both_rows ? 2 : 1)), "KV antiquant channel rows");
  }

  void run() {
    const std::vector<Chunk> chunks = my_chunks();
    if (chunks.empty()) return;
    const bool rows = !pl_.p.antiquant.per_tensor;
    if (rows) load_rows(chunks[0].t->value);
    if (rows && q_.both_rows) load_rows(!chunks[0].t->value);
    if (!rows) load_scalars();
    for (int s = 0; s < 2; ++s) tile::set(c_, kSlotFree.at(s));
    load(chunks[0], 0);
    for (size_t i = 0; i < chunks.size(); ++i) {
      const int s = int(i % 2);
      if (i + 1 < chunks.size()) load(chunks[i + 1], 1 - s);  // before the hand-over, which waits for the loads
      // V's rows replace K's (when UB holds one set) once nothing reads them
      const bool swap = rows && !q_.both_rows && i > 0 && chunks[i].t->value != chunks[i - 1].t->value;
      if (swap) c_.pipe_barrier(Pipe::ALL), load_rows(chunks[i].t->value);
      if (rows && (i == 0 || swap)) tile::handover(c_, kParamsLoaded);
      tile::handover(c_, kLoaded.at(s));
      convert(chunks[i], s);
    }
    for (int s = 0; s < 2; ++s) tile::wait(c_, kSlotFree.at(s));
  }

 private:
  // This AIV's chunks: of each tensor an equal share of the runs (the first AIVs take the remainder), cut into
  // chunks of at most q_.chunk runs that stay within one (b, n2) slab.
  std::vector<Chunk> my_chunks() const {
    const int64_t cores = int64_t(c_.block_num()) * 2, me = int64_t(c_.block_idx()) * 2 + c_.sub_block_idx();
    std::vector<Chunk> r;
    for (const DequantTensor& t : q_.tensors) {
      const int64_t per = t.segments / cores, extra = t.segments % cores;
      const int64_t first = me * per + std::min(me, extra), end = first + per + (me < extra ? 1 : 0);
      for (int64_t at = first; at < end;) {
        int64_t n = std::min(q_.chunk, end - at);
        if (t.slab > 0) n = std::min(n, (at / t.slab + 1) * t.slab - at);
        r.push_back({&t, at, n, t.slab > 0 ? (at / t.slab) % pl_.p.KV_N : 0});
        at += n;
      }
    }
    return r;
  }

  // Every channel row (all KV heads) of K's (value = false) or V's scale and offset (row_at).
  void load_rows(bool value) {
    const int64_t w = pl_.p.KV_N * pl_.p.D;
    for (const bool offset : {false, true})
      if (!offset || pl_.p.antiquant.offset)
        c_.issue(tile::copy_bytes(
            row_at(value, offset, 0),
            c_.gm(pl_.p.antiquant_tensor(value, offset), uint64_t(pl_.p.antiquant_index(value, 0, 0) * 2)), w * 2));
  }
  // K's rows, then V's (DequantPlan::both_rows), or the one tensor's in the same place.
  Addr row_at(bool value, bool offset, int64_t n2) const {
    const int64_t w = pl_.p.KV_N * pl_.p.D;
    const int64_t k = (value && q_.both_rows ? (pl_.p.antiquant.offset ? 2 : 1) : 0) + (offset ? 1 : 0);
    return tile::plus(ub_params_, (k * w + n2 * pl_.p.D) * 2);
  }

  void load_scalars() {
    for (const bool value : {false, true}) {
      const auto bits = [&](bool offset) {
        const Addr at = c_.gm(pl_.p.antiquant_tensor(value, offset), uint64_t(pl_.p.antiquant_index(value, 0, 0) * 2));
        return double(isa::f16_to_f32(uint16_t(c_.load_scalar(DType::F16, at))));
      };
      scale_[value] = bits(false);
      offset_[value] = pl_.p.antiquant.offset ? bits(true) : 0.0;
    }
  }

  void load(const Chunk& k, int s) {
    tile::wait(c_, kSlotFree.at(s));
    c_.issue(tile::copy_bytes(ub_in8_[s], c_.gm(k.t->src, uint64_t(k.r * q_.seg)), k.runs * q_.seg));
  }

  void convert(const Chunk& k, int s) {
    const int64_t elems = k.runs * q_.seg;
    const bool value = k.t->value, offset = pl_.p.antiquant.offset;
    const Addr x = ub_x16_[s];
    ops_.cast(DType::F16, DType::I8, x, ub_in8_[s], elems);
    ops_.barrier();  // each step reads the chunk as the one before left it
    if (pl_.p.antiquant.per_tensor) {
      if (offset) ops_.scalar(isa::VScalarOp::Adds, DType::F16, x, x, offset_[value], elems), ops_.barrier();
      ops_.scalar(isa::VScalarOp::Muls, DType::F16, x, x, scale_[value], elems);
    } else {
      const tile::UbRows rows{x, DType::F16, k.runs, q_.seg};
      if (offset) ops_.row_vec(rows, row_at(value, true, k.n2), isa::VBinOp::Add, q_.seg), ops_.barrier();
      ops_.row_vec(rows, row_at(value, false, k.n2), isa::VBinOp::Mul, q_.seg);
    }
    tile::handover(c_, kConverted.at(s));
    c_.issue(tile::copy_bytes(c_.gm(k.t->dst, uint64_t(k.r * q_.seg * 2)), x, elems * 2));
    tile::set(c_, kSlotFree.at(s));
  }

  sim::CoreCtx& c_;
  const Plan& pl_;
  const DequantPlan& q_;
  tile::VecOps ops_;
  Addr ub_in8_[2]{}, ub_x16_[2]{}, ub_params_{};
  double scale_[2]{1, 1}, offset_[2]{};  // per-tensor: K's [0] and V's [1]
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
  // Both tensors' channel rows stay in UB when they take at most a quarter of it; else V's replace K's (a drain).
  const int64_t ub = int64_t(hw.core.ub_bytes);
  q.both_rows = 2 * row_bytes(p) <= ub / 4;
  const int64_t per_elem = kUbBytesPerElem, rows = row_bytes(p) * (q.both_rows ? 2 : 1);
  const int64_t cap = std::min((ub - rows) / per_elem, kMaxChunkElems);
  q.chunk = std::max<int64_t>(1, cap / q.seg);
  int64_t slab = 0;  // the longest slab: a chunk never needs more runs
  for (const DequantTensor& t : q.tensors) slab = std::max(slab, t.slab);
  if (bnsd) q.chunk = std::min(q.chunk, std::max<int64_t>(1, slab));
  if (q.seg > cap)
    throw CaseError("KV antiquantisation streams runs of " + std::to_string(q.seg) + " elements (" +
                    (bnsd ? std::string("D") : std::string("KV_N * D")) + ") through UB at " +
                    std::to_string(per_elem) + " bytes each (after " + std::to_string(rows) +
                    " bytes of channel rows); a run must fit core.ub_bytes = " + std::to_string(hw.core.ub_bytes) +
                    " and one vector instruction (" + std::to_string(kMaxChunkElems) + " elements)");
  std::vector<std::pair<std::string, uint64_t>> copies;
  for (const DequantTensor& t : q.tensors) copies.emplace_back(t.dst, uint64_t(t.segments * q.seg * 2));
  pl.gm.key += "_fp16", pl.gm.value += "_fp16";
  if (p.prefix) pl.gm.key_prefix += "_fp16", pl.gm.value_prefix += "_fp16";
  pl.prologue = {"dequant", [q](sim::CoreCtx& c, const Plan& plan) { Dequantiser(c, plan, q).run(); }};
  return copies;
}

}  // namespace npusim::op::fia
