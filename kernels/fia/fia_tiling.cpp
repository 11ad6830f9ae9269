// FIA prompt kernel: tiling choice, work units and their split across cores (kernels/fia/README.md "Tiling").
#include <algorithm>

#include "kernels/fia/fia_layout.h"
#include "kernels/fia/fia_plan.h"
#include "kernels/host/case_file.h"

namespace npusim::op::fia {

const TilingSpace& fia_tiling_space() {
  static const TilingSpace space(
      "fused_infer_attention_score",
      {{.name = "s1_block", .lo = 16, .hi = 512, .multiple_of = 16,
        .default_rule = "128 (64 when D > 256); query S = 1: the G heads of a KV head rounded up to 16; halved until L1 and UB fit",
        .doc = "query rows per work unit (the cube's M); the two AIVs take half each"},
       {.name = "s2_block", .lo = 128, .hi = 4096, .multiple_of = 128,
        .default_rule = "the longest KV rounded up to 128, clamped to [128, 512]; lowered by 128 until L1 fits",
        .doc = "KV columns per score block (the softmax works on 128-column groups)"},
       {.name = "vec_rows", .lo = 8, .hi = 256, .multiple_of = 8,
        .default_rule = "the largest multiple of 8 (16 in fp16 high-performance mode) up to the AIV half whose UB layout fits, "
                        "with vec_rows x s2_block <= 8192",
        .doc = "rows per vector sub-tile of the softmax"},
       {.name = "preload", .lo = 1, .hi = 4, .default_rule = "1",
        .doc = "score blocks the cube computes ahead of the softmax (S workspace slots = preload + 1)"},
       {.name = "block_dim", .lo = 1, .hi_is_ai_cores = true, .default_rule = "min(AI cores, work units)",
        .doc = "AI cores used; units are split in contiguous ranges balancing score blocks"},
       {.name = "kv_buffers", .lo = 1, .hi = 2, .default_rule = "2 when both K / V slots fit L1, else 1",
        .doc = "K / V block slots in L1 (2 lets MTE2 stream the next blocks during the softmax)"},
       {.name = "kv_splits", .lo = 1, .hi = 256,
        .default_rule = "query S = 1 only: cores / (B x KV_N) when B x KV_N <= cores / 2, lowered while a split holds < 512 KV",
        .doc = "flash-decoding: KV splits per (batch, KV head), combined after SyncAll"}});
  return space;
}

namespace {
int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

int64_t max_skv(const attn::AttnProblem& p) {
  int64_t m = 0;
  for (int64_t b = 0; b < p.B; ++b) m = std::max(m, p.skv_eff(b));
  return m;
}

// Row arrays (max, sum, alpha) are indexed by sub-tile: offsets must stay on 32-byte blocks (16 f16 rows).
int64_t row_align(const attn::AttnProblem& p) { return p.high_perf ? 16 : 8; }

// Rows the larger AIV half of a unit can hold.
int64_t half_rows(int64_t s1) { return round_up((s1 + 1) / 2, 16); }

std::string fits_msg(const std::string& what, uint64_t need, uint64_t cap) {
  return what + " needs " + std::to_string(need) + " bytes, the config has " + std::to_string(cap);
}

// The largest vec_rows (multiple of 8, <= the AIV half) whose UB layout fits; 0 when none does.
int64_t fit_vec_rows(const attn::AttnProblem& p, FiaTiling t, uint64_t ub) {
  const int64_t cw = FiaPlan::cw_of(t.s2_block), a = row_align(p);
  int64_t vr = std::min(half_rows(t.s1_block), std::max<int64_t>(a, 8192 / cw / a * a)) / a * a;
  for (; vr >= a; vr -= a) {
    t.vec_rows = vr;
    if (fia_ub_bytes(p, t) <= ub) return vr;
  }
  return 0;
}

// Flash-decoding split count (hardware.md §5, vendor IsFlashDecode / SplitBNS): when B * KV_N <= cores / 2,
// kv_splits = cores / (B * KV_N), lowered while the longest KV per split is under 512 tokens.
int64_t auto_kv_splits(const attn::AttnProblem& p, const sim::HwConfig& hw) {
  const int64_t groups = p.B * p.KV_N, cores = hw.chip.ai_cores;
  if (groups == 0 || 2 * groups > cores) return 1;
  int64_t ns = cores / groups;
  while (ns > 1 && max_skv(p) / ns < 512) --ns;
  return std::max<int64_t>(ns, 1);
}

FiaTiling choose(const attn::AttnProblem& p, const sim::HwConfig& hw) {
  FiaTiling t;
  t.s1_block = p.D > 256 ? 64 : 128;  // vendor PFA: sOuter halves for large D (kernels/fia/README.md)
  if (p.Sq == 1) t.s1_block = std::max<int64_t>(16, round_up(p.G, 16));  // decode: the G heads of a KV head
  t.s2_block = std::clamp<int64_t>(round_up(std::max<int64_t>(max_skv(p), 1), 128), 128, 512);
  t.preload = 1;
  // Two K / V slots when they fit: MTE2 then streams the next block while the cube waits for the softmax.
  // Decode is bound by exactly that stream, so it trades s2_block for the second slot.
  t.kv_buffers = 2;
  const uint64_t l1 = uint64_t(hw.core.l1_bytes);
  if (p.Sq == 1)
    while (t.s2_block > 128 && fia_l1_bytes(p, t) > l1) t.s2_block -= 128;
  if (fia_l1_bytes(p, t) > l1) t.kv_buffers = 1;
  while (t.s2_block > 128 && fia_l1_bytes(p, t) > l1) t.s2_block -= 128;
  while (p.Sq > 1 && t.s1_block > 32 && fia_l1_bytes(p, t) > uint64_t(hw.core.l1_bytes)) t.s1_block /= 2;
  t.vec_rows = fit_vec_rows(p, t, hw.core.ub_bytes);
  while (p.Sq > 1 && t.vec_rows == 0 && t.s1_block > 32) {
    t.s1_block /= 2;
    t.vec_rows = fit_vec_rows(p, t, hw.core.ub_bytes);
  }
  return t;
}

void check_fit(const attn::AttnProblem& p, const FiaTiling& t, const sim::HwConfig& hw) {
  const uint64_t l1 = fia_l1_bytes(p, t), ub = fia_ub_bytes(p, t);
  if (l1 > uint64_t(hw.core.l1_bytes))
    throw CaseError("tiling: s1_block = " + std::to_string(t.s1_block) + ", s2_block = " + std::to_string(t.s2_block) +
                    " with D = " + std::to_string(p.D) + ": " + fits_msg("L1 (Q, K, V and P blocks)", l1, hw.core.l1_bytes) +
                    " (hw.core.l1_bytes)");
  if (ub > uint64_t(hw.core.ub_bytes))
    throw CaseError("tiling: vec_rows = " + std::to_string(t.vec_rows) + " with s1_block = " + std::to_string(t.s1_block) +
                    ", s2_block = " + std::to_string(t.s2_block) + ": " + fits_msg("UB (softmax sub-tiles, O accumulator)", ub,
                                                                                    hw.core.ub_bytes) +
                    " (hw.core.ub_bytes)");
  const L0Split s = l0_split(p, t, hw);
  if (s.kstep < 16 || s.nsub < 16)
    throw CaseError("tiling: s1_block = " + std::to_string(t.s1_block) + " leaves no room for a 16-wide slice in L0A / L0B / L0C "
                    "(hw.core.l0a_bytes, l0b_bytes, l0c_bytes)");
}

FiaUnit make_unit(const attn::AttnProblem& p, int64_t b, int64_t n, int64_t row0, int64_t s1, int64_t s2) {
  FiaUnit u{b, n, row0, std::min(s1, p.Sq - row0)};
  u.n2 = p.kv_n_of(n);
  const int64_t qs = p.q_start(b);
  int64_t lo = std::max(row0, qs), hi = std::min(row0 + u.rows, qs + p.act_q[b]);
  // Rows with an empty band form a prefix and / or a suffix of the valid rows (the band edges are monotone).
  while (lo < hi && p.visible_cols(b, lo - qs).first >= p.visible_cols(b, lo - qs).second) ++lo;
  while (hi > lo && p.visible_cols(b, hi - 1 - qs).first >= p.visible_cols(b, hi - 1 - qs).second) --hi;
  u.r_lo = lo, u.r_hi = hi;
  if (lo < hi) {
    const int64_t c_lo = p.visible_cols(b, lo - qs).first, c_hi = p.visible_cols(b, hi - 1 - qs).second;
    u.blk_first = c_lo / s2;
    u.blk_end = (c_hi + s2 - 1) / s2;
  }
  return u;
}

// Decode: one unit per (b, KV head, split); split k of batch b covers score blocks [k nb / ns, (k+1) nb / ns)
// with ns = min(kv_splits, nb), so every split has work. Groups with ns > 1 get partials in fd_workspace.
void decode_units(FiaPlan& pl) {
  const auto& p = pl.p;
  pl.fd_splits.assign(size_t(p.B), 1);
  pl.fd_off.assign(size_t(p.B * p.KV_N), -1);
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t nb = (p.skv_eff(b) + pl.t.s2_block - 1) / pl.t.s2_block;
    const int64_t ns = std::max<int64_t>(1, std::min(pl.t.kv_splits, nb));
    pl.fd_splits[size_t(b)] = ns;
    for (int64_t n2 = 0; n2 < p.KV_N; ++n2) {
      if (ns > 1) pl.fd_off[size_t(b * p.KV_N + n2)] = int64_t(pl.fd_bytes), pl.fd_bytes += uint64_t(ns) * pl.fd_split_bytes();
      for (int64_t k = 0; k < ns; ++k) {
        FiaUnit u{b, n2 * p.G, 0, p.G};
        u.n2 = n2;
        if (nb > 0) u.r_lo = 0, u.r_hi = p.G, u.blk_first = k * nb / ns, u.blk_end = (k + 1) * nb / ns;
        u.split = ns > 1 ? k : -1;
        pl.units.push_back(u);
      }
    }
  }
}

// Contiguous ranges of units (in unit order, which keeps the heads sharing K / V on neighbouring cores) that
// minimise the most loaded core: binary search on the capacity, greedy packing. Cost of a unit: its score
// blocks, plus one for the zero rows' stores.
std::vector<int64_t> split(const std::vector<FiaUnit>& units, int64_t cores) {
  std::vector<int64_t> cost(units.size());
  int64_t total = 0, biggest = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    cost[i] = 1 + (units[i].computed() ? 8 * (units[i].blk_end - units[i].blk_first) : 0);
    total += cost[i], biggest = std::max(biggest, cost[i]);
  }
  auto pack = [&](int64_t cap, std::vector<int64_t>* first) {
    int64_t used = 1, load = 0;
    if (first) first->assign(1, 0);
    for (size_t i = 0; i < units.size(); ++i) {
      if (load + cost[i] > cap) {
        ++used, load = 0;
        if (first) first->push_back(int64_t(i));
      }
      load += cost[i];
    }
    return used;
  };
  int64_t lo = biggest, hi = std::max(total, biggest);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    (pack(mid, nullptr) <= cores ? hi : lo) = mid + (pack(mid, nullptr) <= cores ? 0 : 1);
  }
  std::vector<int64_t> first;
  pack(lo, &first);
  while (int64_t(first.size()) <= cores) first.push_back(int64_t(units.size()));
  return first;
}
}  // namespace

int64_t FiaPlan::blk_cols(int64_t b, int64_t k) const { return std::min(t.s2_block, p.skv_eff(b) - k * t.s2_block); }

FiaPlan make_fia_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& ov) {
  FiaPlan pl;
  pl.p = p;
  FiaTiling c = choose(p, hw);
  pl.t.s1_block = ov.choose("s1_block", c.s1_block);
  pl.t.s2_block = ov.choose("s2_block", c.s2_block);
  pl.t.preload = ov.choose("preload", c.preload);
  pl.t.kv_buffers = ov.choose("kv_buffers", c.kv_buffers);
  pl.decode = p.Sq == 1;
  if (pl.decode) pl.t.kv_splits = ov.choose("kv_splits", auto_kv_splits(p, hw));
  const int64_t vr = fit_vec_rows(p, pl.t, hw.core.ub_bytes);
  const int64_t a = row_align(p);
  pl.t.vec_rows = ov.choose("vec_rows", vr ? vr : a);
  if (pl.t.vec_rows > half_rows(pl.t.s1_block))
    throw CaseError("tiling.vec_rows = " + std::to_string(pl.t.vec_rows) + " must be at most " +
                    std::to_string(half_rows(pl.t.s1_block)) + " (the rows of one AIV's half of tiling.s1_block = " +
                    std::to_string(pl.t.s1_block) + ")");
  if (pl.t.vec_rows % a)
    throw CaseError("tiling.vec_rows = " + std::to_string(pl.t.vec_rows) + " must be a multiple of " + std::to_string(a) +
                    (p.high_perf ? " in fp16 high-performance mode (fp16 row arrays stay on 32-byte blocks)" : ""));
  if (pl.t.vec_rows * FiaPlan::cw_of(pl.t.s2_block) > 255 * 64)
    throw CaseError("tiling.vec_rows x s2_block = " + std::to_string(pl.t.vec_rows * FiaPlan::cw_of(pl.t.s2_block)) +
                    " exceeds one counter-mode vector instruction (16320 fp32 elements)");
  if (pl.decode) {
    if (pl.t.s1_block < p.G)
      throw CaseError("tiling.s1_block = " + std::to_string(pl.t.s1_block) + " must hold the G = " + std::to_string(p.G) +
                      " query heads of a KV head (query S = 1)");
  }
  check_fit(p, pl.t, hw);
  pl.dv_pad = round_up(p.Dv, 16);
  if (pl.decode) decode_units(pl);
  for (int64_t b = 0; b < p.B && !pl.decode; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t r = 0; r < p.Sq; r += pl.t.s1_block) pl.units.push_back(make_unit(p, b, n, r, pl.t.s1_block, pl.t.s2_block));
  const int64_t cores = std::max<int64_t>(1, std::min<int64_t>(hw.chip.ai_cores, int64_t(pl.units.size())));
  pl.t.block_dim = ov.choose("block_dim", cores);
  pl.core_first = split(pl.units, pl.t.block_dim);
  pl.in = p.in == ElemType::BF16 ? isa::DType::BF16 : isa::DType::F16;
  pl.out = p.out == ElemType::BF16 ? isa::DType::BF16 : isa::DType::F16;
  pl.vec = p.high_perf ? isa::DType::F16 : isa::DType::F32;
  pl.mask_value = p.mask_value();
  pl.cw_max = FiaPlan::cw_of(pl.t.s2_block);
  const int64_t m_cap = round_up(pl.t.s1_block, 16);
  pl.ws_s_bytes = uint64_t(m_cap * pl.cw_max * isa::bytes_of(pl.vec));
  pl.ws_p_bytes = uint64_t(m_cap * pl.cw_max * 2);
  pl.ws_o_bytes = uint64_t(m_cap * pl.dv_pad * 4);
  pl.ws_core_bytes = round_up(int64_t(pl.s_slots() * pl.ws_s_bytes + 2 * pl.ws_p_bytes + 2 * pl.ws_o_bytes), 512);
  return pl;
}

}  // namespace npusim::op::fia
