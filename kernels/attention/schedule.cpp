// Work units, the core split and the workspace layout (kernels/attention/README.md "Work scheduler").
#include "kernels/attention/schedule.h"

#include <algorithm>

namespace npusim::op::attn {

using isa::round_up;

namespace {
WorkUnit prompt_unit(const AttnProblem& p, int64_t b, int64_t n, int64_t row0, int64_t rows, int64_t s2) {
  WorkUnit u{b, n, row0, std::min(rows, p.Sq - row0)};
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
void decode_units(Plan& pl) {
  const auto& p = pl.p;
  pl.fd_splits.assign(size_t(p.B), 1);
  pl.fd_off.assign(size_t(p.B * p.KV_N), -1);
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t nb = (p.skv_eff(b) + pl.t.s2_block - 1) / pl.t.s2_block;
    const int64_t ns = std::max<int64_t>(1, std::min(pl.t.kv_splits, nb));
    pl.fd_splits[size_t(b)] = ns;
    for (int64_t n2 = 0; n2 < p.KV_N; ++n2) {
      if (ns > 1)
        pl.fd_off[size_t(b * p.KV_N + n2)] = int64_t(pl.fd_bytes), pl.fd_bytes += uint64_t(ns) * pl.fd_split_bytes();
      for (int64_t k = 0; k < ns; ++k) {
        WorkUnit u{b, n2 * p.G, 0, p.G};
        u.n2 = n2;
        if (nb > 0) u.r_lo = 0, u.r_hi = p.G, u.blk_first = k * nb / ns, u.blk_end = (k + 1) * nb / ns;
        u.split = ns > 1 ? k : -1;
        pl.units.push_back(u);
      }
    }
  }
}

// Binary search on the capacity, greedy packing. Cost of a unit: 8 per score block for a full unit, half of it
// fixed (the K / V block's load, per-instruction latencies) and half in proportion to its computed rows (16-row
// fractals of the cube's M, the vector rows), plus one for the zero rows' stores. (By blocks alone, a packed
// batch's short sequences in 256-row units cost as much as full units: the finish-time balance of
// fa_varlen_perf_packed_balance was 1.118; in proportion to the rows alone, small causal cases lost up to 22%.)
std::vector<int64_t> split(const std::vector<WorkUnit>& units, int64_t cores, int64_t s1_block) {
  std::vector<int64_t> cost(units.size());
  int64_t total = 0, biggest = 0;
  const int64_t full = round_up(s1_block, int64_t(16));
  for (size_t i = 0; i < units.size(); ++i) {
    const WorkUnit& u = units[i];
    const int64_t rows = std::min(full, round_up(u.r_hi - u.r_lo, int64_t(16)));
    cost[i] = 1 + (u.computed() ? (u.blk_end - u.blk_first) * (4 + 4 * rows / full) : 0);
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

int64_t Plan::blk_cols(int64_t b, int64_t k) const { return std::min(t.s2_block, p.skv_eff(b) - k * t.s2_block); }

void make_units(Plan& pl) {
  const auto& p = pl.p;
  pl.decode = p.incremental();
  pl.dv_pad = round_up(p.Dv, int64_t(16));
  if (pl.decode) return decode_units(pl);
  // Padded layouts: s1_block rows of the whole S from 0 (rows past a batch's length are written as empty rows).
  // TND: each batch's own rows [q_start(b), q_start(b) + act_q[b]) only, so packed batches of any lengths make
  // exactly their rows' units.
  const bool tnd = p.layout == Layout::TND;
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t first = tnd ? p.q_start(b) : 0, end = tnd ? first + p.act_q[size_t(b)] : p.Sq;
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t r = first; r < end; r += pl.t.s1_block)
        pl.units.push_back(prompt_unit(p, b, n, r, std::min(pl.t.s1_block, end - r), pl.t.s2_block));
  }
}

void finish_plan(Plan& pl) {
  const auto& p = pl.p;
  pl.core_first = split(pl.units, pl.t.block_dim, pl.t.s1_block);
  pl.in = p.in == ElemType::BF16 ? isa::DType::BF16 : p.in == ElemType::I8 ? isa::DType::I8 : isa::DType::F16;
  pl.out = p.out == ElemType::BF16 ? isa::DType::BF16 : p.out == ElemType::I8 ? isa::DType::I8 : isa::DType::F16;
  pl.vec = p.high_perf ? isa::DType::F16 : isa::DType::F32;
  pl.oblk = p.full_quant.on ? isa::DType::F16 : isa::DType::F32;
  pl.cube = pl.in, pl.score = pl.vec;
  if (p.antiquant.msd) {
    pl.msd = {true, p.antiquant.limbs, round_up(p.D, int64_t(64)), 0};
    // O stays F32 for the AIVs; the cube writes int32 limbs
    pl.cube = p.antiquant.int4 ? isa::DType::I4 : isa::DType::I8, pl.score = isa::DType::I32;
  }
  pl.mask_value = p.mask_value();
  pl.cw_max = Plan::cw_of(pl.t.s2_block);
  const int64_t m_cap = cube_rows(p, pl.t);
  pl.ws_s_bytes = uint64_t(m_cap * pl.cw_max * isa::bytes_of(pl.score));
  pl.ws_p_bytes = uint64_t(m_cap * pl.cw_max * isa::bits_of(pl.cube) / 8);
  pl.ws_o_bytes = uint64_t(m_cap * pl.dv_pad * isa::bytes_of(pl.oblk));
  if (pl.msd.on) pl.msd.ws_q_bytes = uint64_t(m_cap * p.D * isa::bits_of(pl.cube) / 8);
  pl.ws_core_bytes = round_up(int64_t(pl.s_slots() * pl.ws_s_bytes + pl.step_slots() * (pl.ws_p_bytes + pl.ws_o_bytes) +
                                      pl.q_slots() * pl.msd.ws_q_bytes),
                              int64_t(512));
}

PlanFlops plan_flops(const Plan& pl) {
  const auto& p = pl.p;
  uint64_t cells = 0, exec = 0;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t i = 0; i < p.act_q[size_t(b)]; ++i) {
      const auto [lo, hi] = p.visible_cols(b, i);
      cells += uint64_t(hi - lo);
    }
  cells *= uint64_t(p.N);
  const auto pad = [](int64_t v) { return uint64_t(round_up(v, int64_t(16))); };
  for (const auto& u : pl.units)
    for (int64_t k = u.blk_first; u.computed() && k < u.blk_end; ++k)
      exec += 2 * pad((u.r_hi - u.r_lo) * (pl.msd.on ? pl.msd.limbs : 1)) * pad(pl.blk_cols(u.b, k)) *
              (pad(p.qk_dim()) + pad(p.Dv));
  return {2 * cells * uint64_t(p.qk_dim() + p.Dv), exec};
}

std::vector<Step> core_steps(const Plan& pl, int core) {
  std::vector<Step> s;
  if (core + 1 >= int(pl.core_first.size())) return s;
  int64_t seq = 0;
  for (int64_t u = pl.core_first[size_t(core)]; u < pl.core_first[size_t(core) + 1]; ++u) {
    const WorkUnit& w = pl.units[size_t(u)];
    if (!w.computed()) continue;
    for (int64_t k = w.blk_first; k < w.blk_end; ++k) s.push_back({u, k, seq, k == w.blk_first, k == w.blk_end - 1});
    ++seq;
  }
  return s;
}

}  // namespace npusim::op::attn
