#include "sim/machine/cost.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "isa/instr/footprint.h"
#include "isa/instr/overloaded.h"
#include "isa/numeric/int_math.h"
#include "sim/machine/cost_model.h"
#include "sim/registry.h"

namespace npusim::sim {

namespace {
using namespace isa;

struct ClassRates {
  int64_t beats, latency;
};
ClassRates rates(VecClass c, const HwConfig& hw) {
  const auto& v = hw.vector;
  switch (c) {
    case VecClass::Simple: return {v.simple_beats, v.simple_latency_cycles};
    case VecClass::Binary: return {v.binary_beats, v.binary_latency_cycles};
    case VecClass::Div: return {v.div_beats, v.div_latency_cycles};
    case VecClass::Exp: return {v.exp_beats, v.exp_latency_cycles};
    case VecClass::Ln: return {v.ln_beats, v.ln_latency_cycles};
    case VecClass::Sqrt: return {v.sqrt_beats, v.sqrt_latency_cycles};
    case VecClass::Reduce: return {v.reduce_beats, v.reduce_latency_cycles};
    case VecClass::BlockReduce: return {v.block_reduce_beats, v.block_reduce_latency_cycles};
    case VecClass::Cast: return {v.cast_beats, v.cast_latency_cycles};
  }
  return {1, 0};
}

// One vector operand's 8 block addresses in repeat r.
struct Operand {
  Addr a;
  VStride s;
  bool present;
};
int blocks_of(const Operand& o, uint32_t r, int nblocks, uint64_t* out) {
  if (!o.present) return 0;
  for (int b = 0; b < nblocks; ++b) out[b] = o.a.off + (uint64_t{r} * o.s.rep + uint64_t(b) * o.s.blk) * kBlockBytes;
  return nblocks;
}

// Sum of per-repeat beats. The bank-group pattern of repeat r depends on r only through (r * rep) mod 16
// for each operand, so it repeats with period 16: compute one period and extrapolate. (The bank-row term
// addr / row_bytes can change within a long instruction that crosses a 64 KiB row; the extrapolation
// then uses the first period's rows: an approximation of at most one beat per repeat.)
PipeCost vector_occupancy_uncached(const UbBanks& ub, std::initializer_list<Operand> reads, Operand write,
                                   uint32_t repeats, int src_blocks, int dst_blocks, int64_t class_beats);

// Kernels issue the same vector instruction shapes over and over; the bank-conflict walk is a pure
// function of the operands, so a direct-mapped memo makes it nearly free. The key is packed into 40 bytes
// (UB offsets below 4 GiB; anything else is walked every time) so the table stays in the host's L2: with
// 128-byte entries every lookup of the 64 K-entry table was a cache miss.
struct OccKey {
  uint32_t addr[4];    // read operands 0-2, then the write; ~0 = absent
  uint32_t stride[4];  // blk << 16 | rep
  uint32_t repeats;
  uint8_t src_blocks, dst_blocks, class_beats, pad = 0;
  bool operator==(const OccKey&) const = default;
};
struct OccEntry {
  OccKey key;
  uint32_t valid = 0;
  uint64_t occupancy = 0, conflict_beats = 0;
};
static_assert(sizeof(OccEntry) == 64);

bool packable(std::initializer_list<Operand> reads, Operand write, int src_blocks, int dst_blocks,
              int64_t class_beats) {
  constexpr uint64_t kMax = UINT32_MAX - 1;
  for (const auto& o : reads)
    if (o.present && o.a.off > kMax) return false;
  return !(write.present && write.a.off > kMax) && reads.size() <= 3 && src_blocks <= 255 && dst_blocks <= 255 &&
         class_beats >= 0 && class_beats <= 255;
}

PipeCost vector_occupancy(const UbBanks& ub, std::initializer_list<Operand> reads, Operand write, uint32_t repeats,
                          int src_blocks, int dst_blocks, int64_t class_beats) {
  if (repeats == 0) return {};
  if (!packable(reads, write, src_blocks, dst_blocks, class_beats))
    return vector_occupancy_uncached(ub, reads, write, repeats, src_blocks, dst_blocks, class_beats);
  OccKey k{};
  for (int j = 0; j < 4; ++j) k.addr[j] = ~0u, k.stride[j] = ~0u;  // unused slots differ from any operand
  int i = 0;
  auto put = [&](int slot, const Operand& o) {
    k.addr[slot] = o.present ? static_cast<uint32_t>(o.a.off) : ~0u;
    k.stride[slot] = (uint32_t{o.s.blk} << 16) | o.s.rep;
  };
  for (const auto& o : reads) put(i++, o);
  put(3, write);
  k.repeats = repeats, k.src_blocks = uint8_t(src_blocks), k.dst_blocks = uint8_t(dst_blocks);
  k.class_beats = uint8_t(class_beats);
  uint64_t words[5];
  std::memcpy(words, &k, sizeof words);
  uint64_t h = 0;
  for (uint64_t v : words) {  // every key bit reaches the index bits (a plain FNV step only moves bits up)
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
  }
  // The geometry is fixed for a machine, but tests cost several configs in one process: a change empties it.
  // 4096 entries (256 KiB): 65536 were 4 MiB touched at random, about a thousand first-touch page faults per
  // launch, for a few hundred keys.
  static thread_local std::vector<OccEntry> memo(4096);
  static thread_local UbBanks memo_ub{0, 0};
  if (memo_ub.groups != ub.groups || memo_ub.row_bytes != ub.row_bytes) {
    std::fill(memo.begin(), memo.end(), OccEntry{});
    memo_ub = ub;
  }
  // Two ways per set: a kernel's few hundred shapes fit many times over, but two of them that share a slot and
  // alternate (one per softmax sub-tile) evicted each other every time in a direct-mapped table -- 13 k walks of
  // ~21 k instructions each on FIA 2048 from 132 distinct keys. The newest entry goes first, the older second.
  OccEntry* set = &memo[h & (memo.size() - 1) & ~size_t{1}];
  for (int w = 0; w < 2; ++w)
    if (set[w].valid && set[w].key == k) return {set[w].occupancy, 0, set[w].conflict_beats};
  const PipeCost c = vector_occupancy_uncached(ub, reads, write, repeats, src_blocks, dst_blocks, class_beats);
  set[1] = set[0];
  set[0].key = k, set[0].valid = 1, set[0].occupancy = c.occupancy, set[0].conflict_beats = c.conflict_beats;
  return c;
}

PipeCost vector_occupancy_uncached(const UbBanks& ub, std::initializer_list<Operand> reads, Operand write,
                                   uint32_t repeats, int src_blocks, int dst_blocks, int64_t class_beats) {
  const uint32_t period = std::min<uint32_t>(repeats, 16);
  uint64_t per[16];
  for (uint32_t r = 0; r < period; ++r) {
    uint64_t rd[24] = {}, wr[8] = {};
    int nr = 0;
    for (const auto& o : reads) nr += blocks_of(o, r, src_blocks, rd + nr);
    const int nw = blocks_of(write, r, dst_blocks, wr);
    per[r] = std::max<uint64_t>(repeat_conflict_beats(ub, rd, nr, wr, nw), class_beats);
  }
  PipeCost c;
  for (uint32_t r = 0; r < period; ++r) c.occupancy += per[r] * ((repeats - r + period - 1) / period);
  // The beats above the class's own rate are what the bank conflicts cost (report.json pipe_summary).
  c.conflict_beats = c.occupancy - uint64_t(std::max<int64_t>(class_beats, 0)) * repeats;
  return c;
}

PipeCost with_latency(PipeCost c, int64_t latency) {
  c.latency = static_cast<uint64_t>(latency);
  return c;
}

int blocks_for(DType t, int lanes) { return lanes * bits_of(t) / (8 * kBlockBytes); }

// Reductions read one operand with the common strides and write a few packed results.
template <class V>
PipeCost reduce_cost(const V& v, VecClass c, const HwConfig& hw) {
  const int lanes = lanes_per_repeat(std::max(1, bytes_of(v.dtype)));
  const auto r = rates(c, hw);
  const uint32_t reps = effective_repeats(v.mask, v.repeat, lanes);
  return with_latency(vector_occupancy(ub_banks(hw), {{v.src, v.src_s, true}}, {v.dst, {}, false}, reps, 8, 0, r.beats),
                      r.latency);
}

template <class V>
PipeCost vec_unary(const V& v, VecClass c, const HwConfig& hw) {
  const int e = std::max(1, bytes_of(v.dtype));
  const int lanes = lanes_per_repeat(e);
  const auto r = rates(c, hw);
  const uint32_t reps = effective_repeats(v.mask, v.repeat, lanes);
  return with_latency(
      vector_occupancy(ub_banks(hw), {{v.src, v.src_s, true}}, {v.dst, v.dst_s, true}, reps, 8, 8, r.beats), r.latency);
}
}  // namespace

// The geometry comes from the bank keys alone, so growing ub_bytes adds bank rows above the existing ones and
// code at the same addresses keeps its conflicts.
UbBanks ub_banks(const HwConfig& hw) {
  return {hw.ub.bank_groups, std::max<int64_t>(kBlockBytes, hw.ub.bank_groups * hw.ub.bank_bytes)};
}

namespace {
// Whether every repeated address in the list sits right after an equal one, proven from its shape: an
// operand's blocks never descend (block stride >= 0), so the list splits into non-decreasing runs, in which
// equal addresses are adjacent; runs whose [first, last] spans do not overlap cannot share an address. Then
// "differs from its predecessor" is "first of its value". False means "maybe not" (overlapping operands):
// the caller compares every pair.
bool duplicates_adjacent(const uint64_t* a, int n) {
  constexpr int kMaxRuns = 6;
  uint64_t lo[kMaxRuns], hi[kMaxRuns];
  int runs = 0;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && a[i] >= a[i - 1]) {
      hi[runs - 1] = a[i];
      continue;
    }
    if (runs == kMaxRuns) return false;
    lo[runs] = hi[runs] = a[i];
    ++runs;
  }
  for (int x = 0; x < runs; ++x)
    for (int y = 0; y < x; ++y)
      if (lo[x] <= hi[y] && lo[y] <= hi[x]) return false;
  return true;
}
}  // namespace

uint64_t repeat_conflict_beats(const UbBanks& ub, const uint64_t* rd, int nr, const uint64_t* wr, int nw) {
  auto group = [&](uint64_t a) { return ub.group(a); };
  // bank = groups * row + group, row = addr / row_bytes (910B: 3 rows of 64 KiB, 16 groups).
  auto bank = [&](uint64_t a) { return ub.bank(a); };
  // A group serves one 32-byte row per cycle (hardware.md §2): several lanes reading the *same* block (block
  // stride 0, the broadcast operand of vendor softmax kernels) need that row once, so blocks count once each.
  // Distinct blocks per group: a block counts unless an earlier lane of the list has the same address (at most
  // 24 reads, 8 writes: a branch-free scan is cheaper than sorting).
  auto busiest_group = [&](const uint64_t* a, int n) {
    const int k = std::min(n, 24);
    uint8_t count[64] = {};
    int most = 0;
    if (duplicates_adjacent(a, k)) {  // the usual case, proven cheaply: a duplicate follows its twin
      for (int i = 0; i < k; ++i)
        if (i == 0 || a[i] != a[i - 1]) most = std::max<int>(most, ++count[group(a[i]) & 63]);
      return most;
    }
    for (int i = 0; i < k; ++i) {
      bool seen = false;
      for (int j = 0; j < i; ++j) seen |= a[j] == a[i];
      if (!seen) most = std::max<int>(most, ++count[group(a[i]) & 63]);
    }
    return most;
  };
  const int beats = std::max({1, busiest_group(rd, nr), busiest_group(wr, nw)});
  // A read and a write of different blocks in one bank conflict; the same block read and written (the
  // in-place case) does not.
  uint64_t wbanks = 0, wb[8];
  const int kw = std::min(nw, 8);
  for (int j = 0; j < kw; ++j) wbanks |= uint64_t{1} << ((wb[j] = bank(wr[j])) & 63);
  for (int i = 0; i < nr; ++i) {
    const uint64_t b = bank(rd[i]);
    if (!((wbanks >> (b & 63)) & 1)) continue;
    bool conflict = false;  // (the in-place case reads and writes the same blocks: every pair is compared)
    for (int j = 0; j < kw; ++j) conflict |= wb[j] == b && wr[j] != rd[i];
    for (int j = kw; j < nw; ++j) conflict |= bank(wr[j]) == b && wr[j] != rd[i];
    if (conflict) return beats + 1;
  }
  return beats;
}

VecClass vec_class(const Instr& in) {
  if (auto* b = std::get_if<VBinary>(&in)) return b->op == VBinOp::Div ? VecClass::Div : VecClass::Binary;
  if (std::holds_alternative<VCmp>(in)) return VecClass::Binary;
  if (auto* sel = std::get_if<VSel>(&in)) return sel->scalar_mode ? VecClass::Simple : VecClass::Binary;
  if (auto* u = std::get_if<VUnary>(&in)) {
    switch (u->op) {
      case VUnaryOp::Exp: return VecClass::Exp;
      case VUnaryOp::Ln: return VecClass::Ln;
      case VUnaryOp::Rec:
      case VUnaryOp::Sqrt:
      case VUnaryOp::Rsqrt: return VecClass::Sqrt;
      default: return VecClass::Simple;
    }
  }
  if (std::holds_alternative<VReduce>(in)) return VecClass::Reduce;
  if (std::holds_alternative<VBlockReduce>(in) || std::holds_alternative<VPairAdd>(in)) return VecClass::BlockReduce;
  if (std::holds_alternative<VCast>(in)) return VecClass::Cast;
  return VecClass::Simple;
}

uint64_t mmad_flops(const Mmad& m) { return 2ull * m.m * m.n * m.k; }

uint64_t mmad_executed_flops(const Mmad& m) {
  if (!m.m || !m.n || !m.k) return 0;
  const uint64_t k0 = fractal_k(m.a_dtype);
  return 2ull * ceil_div(m.m, 16) * 16 * ceil_div(m.n, 16) * 16 * ceil_div(m.k, k0) * k0;
}

double fixpipe_bytes_per_cycle(const Fixpipe& f, const HwConfig& hw) {
  return std::min(static_cast<double>(hw.fixpipe.elems_per_cycle) * std::max(1, bytes_of(f.dst_dtype)),
                  static_cast<double>(hw.fixpipe.gm_bytes_per_cycle));
}

PipeCost local_cost(const Instr& in, const HwConfig& hw) {
  return std::visit(
      Overloaded{
          [&](const Mmad& m) -> PipeCost {
            if (!m.m || !m.n || !m.k) return {1, 0};  // a no-op still takes an issue slot
            const int64_t per = m.a_dtype == DType::F32  ? hw.cube.fractal_cycles_f32
                                : m.a_dtype == DType::I8 ? hw.cube.fractal_cycles_s8
                                : m.a_dtype == DType::I4 ? hw.cube.fractal_cycles_s4
                                                         : hw.cube.fractal_cycles_b16;
            const uint64_t steps = ceil_div(m.m, 16) * ceil_div(m.n, 16) * ceil_div(m.k, fractal_k(m.a_dtype));
            return {static_cast<uint64_t>(hw.cube.startup_cycles) + steps * per, 0};
          },
          [&](const Load2d& l) -> PipeCost {
            const auto rate = l.dst.buf == Buf::L0A ? hw.mte1.l0a_bytes_per_cycle : hw.mte1.l0b_bytes_per_cycle;
            const uint64_t per = load2d_fractals(l);  // an 8-bit square moves two fractals, a 4-bit one four
            return {ceil_div(uint64_t{l.repeat} * per * kFractalBytes, rate),
                    static_cast<uint64_t>(hw.mte1.startup_cycles)};
          },
          [&](const Fixpipe& f) -> PipeCost {  // on-chip destinations (L1; UB on coupled cores)
            const uint64_t elems = uint64_t{f.m} * f.n;
            if (f.dst.buf == Buf::UB) {
              const uint64_t bytes = elems * std::max(1, bytes_of(f.dst_dtype));
              return {ceil_div(bytes, std::max<int64_t>(1, hw.vector.l0c_to_ub_bytes_per_cycle)), 0};
            }
            return {ceil_div(elems, hw.fixpipe.elems_per_cycle), static_cast<uint64_t>(hw.fixpipe.startup_cycles)};
          },
          [&](const DataCopy& d) -> PipeCost {  // on-chip only: L1 -> BT / FB, UB -> L1 on coupled cores
            const uint64_t bytes = uint64_t{d.nburst} * d.burst_bytes;
            if (d.src.buf == Buf::L1)
              return {ceil_div(bytes, hw.mte1.bt_fb_bytes_per_cycle),
                      static_cast<uint64_t>(hw.mte1.bt_fb_startup_cycles)};
            return {ceil_div(bytes, std::max<int64_t>(1, hw.mte3.ub_to_l1_bytes_per_cycle)),
                    static_cast<uint64_t>(hw.mte3.startup_cycles)};
          },
          [&](const VBinary& v) -> PipeCost {
            const int lanes = lanes_per_repeat(std::max(1, bytes_of(v.dtype)));
            const auto r = rates(vec_class(in), hw);
            const uint32_t reps = effective_repeats(v.mask, v.repeat, lanes);
            return with_latency(vector_occupancy(ub_banks(hw), {{v.src0, v.src0_s, true}, {v.src1, v.src1_s, true}},
                                                 {v.dst, v.dst_s, true}, reps, 8, 8, r.beats),
                                r.latency);
          },
          [&](const VScalar& v) { return vec_unary(v, VecClass::Simple, hw); },
          [&](const VUnary& v) { return vec_unary(v, vec_class(in), hw); },
          [&](const VCopy& v) { return vec_unary(v, VecClass::Simple, hw); },
          [&](const VCast& v) -> PipeCost {
            const int se = std::max(1, bytes_of(v.src_dtype)), de = std::max(1, bytes_of(v.dst_dtype));
            const int lanes = lanes_per_repeat(std::max(se, de));
            const auto r = rates(VecClass::Cast, hw);
            const uint32_t reps = effective_repeats(v.mask, v.repeat, lanes);
            return with_latency(
                vector_occupancy(ub_banks(hw), {{v.src, v.src_s, true}}, {v.dst, v.dst_s, true}, reps,
                                 blocks_for(v.src_dtype, lanes), blocks_for(v.dst_dtype, lanes), r.beats),
                r.latency);
          },
          [&](const VReduce& v) { return reduce_cost(v, VecClass::Reduce, hw); },
          [&](const VBlockReduce& v) { return reduce_cost(v, VecClass::BlockReduce, hw); },
          [&](const VPairAdd& v) { return reduce_cost(v, VecClass::BlockReduce, hw); },
          [&](const VBrcb& v) -> PipeCost {
            const auto r = rates(VecClass::Simple, hw);
            return with_latency(vector_occupancy(ub_banks(hw), {}, {v.dst, v.dst_s, true}, v.repeat, 0, 8, r.beats),
                                r.latency);
          },
          [&](const VDup& v) -> PipeCost {
            const int lanes = lanes_per_repeat(std::max(1, bytes_of(v.dtype)));
            const auto r = rates(VecClass::Simple, hw);
            return with_latency(vector_occupancy(ub_banks(hw), {}, {v.dst, v.dst_s, true},
                                                 effective_repeats(v.mask, v.repeat, lanes), 0, 8, r.beats),
                                r.latency);
          },
          [&](const VCmp& v) -> PipeCost {
            const int lanes = lanes_per_repeat(std::max(1, bytes_of(v.dtype)));
            const auto r = rates(vec_class(in), hw);
            return with_latency(
                vector_occupancy(ub_banks(hw), {{v.src0, v.src0_s, true}, {v.src1, v.src1_s, true}}, {v.dst, {}, false},
                                 effective_repeats(v.mask, v.repeat, lanes), 8, 0, r.beats),
                r.latency);
          },
          [&](const VSel& v) -> PipeCost {
            const int lanes = lanes_per_repeat(std::max(1, bytes_of(v.dtype)));
            const auto r = rates(vec_class(in), hw);
            return with_latency(
                vector_occupancy(ub_banks(hw), {{v.src0, v.src0_s, true}, {v.src1, v.src1_s, !v.scalar_mode}},
                                 {v.dst, v.dst_s, true}, effective_repeats(v.mask, v.repeat, lanes), 8, 8, r.beats),
                r.latency);
          },
          [&](const SLoad&) -> PipeCost {
            return {0, static_cast<uint64_t>(hw.scalar.gm_load_latency_cycles)};
          },
          // Nd2Nz always reads GM: the memory system costs it (pipe_exec.cpp). Register and posted-store scalar
          // instructions cost only their issue cycles; sync instructions have no cost of their own (their
          // waits are the machine's). Listing every kind (no catch-all) keeps the visitor exhaustive.
          [&](const Nd2Nz&) -> PipeCost {
            return {0, 0};
          },
          [&](const SMov&) -> PipeCost {
            return {0, 0};
          },
          [&](const SAlu&) -> PipeCost {
            return {0, 0};
          },
          [&](const SStore&) -> PipeCost {
            return {0, 0};
          },
          [&](const Dcci&) -> PipeCost {
            return {0, 0};
          },  // (its wait is the scalar unit's: scalar_unit.cpp)
          [&](const SetFlag&) -> PipeCost {
            return {0, 0};
          },
          [&](const WaitFlag&) -> PipeCost {
            return {0, 0};
          },
          [&](const PipeBarrier&) -> PipeCost {
            return {0, 0};
          },
          [&](const CrossSet&) -> PipeCost {
            return {0, 0};
          },
          [&](const CrossWait&) -> PipeCost {
            return {0, 0};
          },
          [&](const SyncAll&) -> PipeCost {
            return {0, 0};
          }},
      in);
}

namespace {
// `class_rates`: the per-class rates of the config's cube / mte1 / fixpipe / vector / scalar keys (the functions
// above), the calibrated model every bundled config uses.
class ClassRatesModel final : public PipeCostModel {
 public:
  explicit ClassRatesModel(const HwConfig& hw) : hw_(hw) {}
  PipeCost local(const Instr& in) const override { return local_cost(in, hw_); }
  double fixpipe_bytes_per_cycle(const Fixpipe& f) const override { return sim::fixpipe_bytes_per_cycle(f, hw_); }

 private:
  HwConfig hw_;
};
}  // namespace

NPUSIM_REGISTER_IMPL(PipeCostModel, "class_rates", ClassRatesModel);

std::unique_ptr<PipeCostModel> make_cost_model(const HwConfig& hw) {
  return ImplRegistry<PipeCostModel>::instance().create("cost.impl", hw.cost.impl, hw);
}

}  // namespace npusim::sim
