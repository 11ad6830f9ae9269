// Capacity rules of the attention tilings (tiling_fit.h).
#include "kernels/attention/tiling_fit.h"

#include <algorithm>
#include <string>

#include "kernels/attention/buffers.h"
#include "kernels/attention/schedule.h"
#include "kernels/attention/tiling_keys.h"
#include "kernels/host/case_file.h"

namespace npusim::op::attn {

namespace {
std::string fits_msg(const std::string& what, uint64_t need, uint64_t cap) {
  return what + " needs " + std::to_string(need) + " bytes, the config has " + std::to_string(cap);
}
constexpr int64_t kCounterModeElems = 255 * 64;  // one counter-mode vector instruction (255 repeats of 64 fp32)
}  // namespace

int64_t half_rows(int64_t s1) { return isa::round_up((s1 + 1) / 2, int64_t(16)); }

int64_t sub_tile_elems(uint64_t ub) { return std::min<int64_t>(kCounterModeElems, int64_t(ub / 24)); }

int64_t fit_vec_rows(const AttnProblem& p, BlockTiling t, uint64_t ub, int64_t a) {
  const int64_t cw = Plan::cw_of(t.s2_block);
  const int64_t half = half_rows(t.s1_block);
  int64_t vr = std::min(half, std::max<int64_t>(a, sub_tile_elems(ub) / cw / a * a)) / a * a;
  for (; vr >= a; vr -= a) {
    // Sub-tiles of one size: a shorter last one idles the vector pipe at the end of every block (a bigger UB took
    // 24 of 64 rows, 24 + 24 + 16, and was slower than 16 x 4).
    if (half % vr) continue;
    t.vec_rows = vr;
    if (ub_bytes(p, t) <= ub) return vr;
  }
  return 0;
}

void fit_ub(const AttnProblem& p, BlockTiling& t, uint64_t ub, int64_t a, int64_t min_s1, Lowerable may) {
  t.vec_rows = fit_vec_rows(p, t, ub, a);
  const auto s1_room = [&] { return may.s1_block && t.s1_block > min_s1; };
  const auto s2_room = [&] { return may.s2_block && t.s2_block > 128; };
  while (t.vec_rows == 0 && (s1_room() || s2_room())) {
    if (s2_room() && (t.s2_block > 256 || !s1_room())) t.s2_block -= 128;
    else t.s1_block /= 2;
    t.vec_rows = fit_vec_rows(p, t, ub, a);
  }
}

int64_t prompt_units(const AttnProblem& p, int64_t s1) {
  int64_t units = 0;
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t rows = p.layout == Layout::TND ? p.act_q[size_t(b)] : p.Sq;
    units += p.N * ((rows + s1 - 1) / s1);
  }
  return units;
}

void fill_cores(const AttnProblem& p, BlockTiling& t, int64_t cores, int64_t min_s1, Lowerable may) {
  while (may.s1_block && t.s1_block - 16 >= min_s1 && prompt_units(p, t.s1_block) < cores) t.s1_block -= 16;
}

int64_t two_blocks_cap(int64_t longest_kv) {
  return std::max<int64_t>(128, isa::round_up((std::max<int64_t>(longest_kv, 1) + 1) / 2, int64_t(128)));
}

int64_t even_blocks(int64_t kv, int64_t splits, int64_t cap) {
  const int64_t n = std::max<int64_t>(splits, 1);
  const auto per_split = [&](int64_t s2) { return (std::max<int64_t>(1, (kv + s2 - 1) / s2) + n - 1) / n; };
  const int64_t fewest = per_split(cap);  // no smaller block gives a split fewer blocks
  int64_t s2 = cap;
  while (s2 > 128 && per_split(s2 - 128) == fewest) s2 -= 128;
  return s2;
}

void check_fit(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw) {
  const uint64_t l1 = l1_bytes(p, t), ub = ub_bytes(p, t);
  if (l1 > uint64_t(hw.core.l1_bytes))
    throw CaseError("tiling: s1_block = " + std::to_string(t.s1_block) + ", s2_block = " + std::to_string(t.s2_block) +
                    " with D = " + std::to_string(p.D) + (p.Dr ? " + Dr = " + std::to_string(p.Dr) : std::string()) +
                    ": " + fits_msg("L1 (Q, K, V and P blocks)", l1, hw.core.l1_bytes) + " (hw.core.l1_bytes)");
  if (ub > uint64_t(hw.core.ub_bytes))
    throw CaseError("tiling: vec_rows = " + std::to_string(t.vec_rows) + " with s1_block = " +
                    std::to_string(t.s1_block) + ", s2_block = " + std::to_string(t.s2_block) + ": " +
                    fits_msg("UB (softmax sub-tiles, O accumulator)", ub, hw.core.ub_bytes) + " (hw.core.ub_bytes)");
  check_l0(p, t, hw);
}

void check_l0(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw) {
  const L0Split s = l0_split(p, t, hw);
  const int64_t kq = l0_k_unit(p), nq = l0_n_unit(p), rows = cube_rows(p, t);
  auto str = [](auto v) { return std::to_string(v); };
  if (!t.l0_k && !t.l0_n && (s.kstep < kq || s.nsub < nq))
    throw CaseError("tiling: s1_block = " + str(t.s1_block) + " leaves no room for a " + str(kq) +
                    "-wide slice in L0A / L0B / L0C (hw.core.l0a_bytes, l0b_bytes, l0c_bytes)");
  if (s.kstep % kq)
    throw CaseError("tiling.l0_k_step = " + str(s.kstep) + " must be a multiple of " + str(kq) +
                    " (the K of one L0 fractal of the cube's operands)");
  if (s.nsub % nq)
    throw CaseError("tiling.l0_n_sub = " + str(s.nsub) + " must be a multiple of " + str(nq) +
                    (nq > 16 ? " (the side of the transposing V load's square)" : ""));
  if (2 * l0a_slice_bytes(p, t, s.kstep) > uint64_t(hw.core.l0a_bytes))
    throw CaseError("tiling.l0_k_step = " + str(s.kstep) + ": two L0A slices of " + str(rows) + " cube rows need " +
                    str(2 * l0a_slice_bytes(p, t, s.kstep)) + " bytes but hw.core.l0a_bytes = " +
                    str(hw.core.l0a_bytes) + " (lower tiling.l0_k_step or tiling.s1_block)");
  if (2 * l0b_slice_bytes(p, s.kstep, s.nsub) > uint64_t(hw.core.l0b_bytes))
    throw CaseError("tiling.l0_k_step x l0_n_sub = " + str(s.kstep) + " x " + str(s.nsub) + ": two L0B slices need " +
                    str(2 * l0b_slice_bytes(p, s.kstep, s.nsub)) +
                    " bytes but hw.core.l0b_bytes = " + str(hw.core.l0b_bytes));
  if (2 * rows * s.nsub * 4 > hw.core.l0c_bytes)
    throw CaseError("tiling.l0_n_sub = " + str(s.nsub) + ": two L0C halves of " + str(rows) + " x " + str(s.nsub) +
                    " fp32 need " + str(2 * rows * s.nsub * 4) +
                    " bytes but hw.core.l0c_bytes = " + str(hw.core.l0c_bytes));
}

void choose_l0(const AttnProblem& p, BlockTiling& t, const sim::HwConfig& hw, Tiling& ov) {
  // The rule picks N first; a case that sets only one of the two gets the other fitted beside it.
  if (ov.overridden(keys::l0_n_sub) && !ov.overridden(keys::l0_k_step)) t.l0_n = ov.choose(keys::l0_n_sub, 16);
  t.l0_k = ov.choose(keys::l0_k_step, std::max<int64_t>(16, l0_split(p, t, hw).kstep));
  t.l0_n = ov.choose(keys::l0_n_sub, std::max<int64_t>(16, l0_split(p, t, hw).nsub));
}

void check_vec_rows(const BlockTiling& t, int64_t a, bool high_perf) {
  if (t.vec_rows > half_rows(t.s1_block))
    throw CaseError("tiling.vec_rows = " + std::to_string(t.vec_rows) + " must be at most " +
                    std::to_string(half_rows(t.s1_block)) +
                    " (the rows of one AIV's half of tiling.s1_block = " + std::to_string(t.s1_block) + ")");
  if (t.vec_rows % a)
    throw CaseError("tiling.vec_rows = " + std::to_string(t.vec_rows) + " must be a multiple of " + std::to_string(a) +
                    (high_perf ? " in fp16 high-performance mode (fp16 row arrays stay on 32-byte blocks)" : ""));
  if (t.vec_rows * Plan::cw_of(t.s2_block) > kCounterModeElems)
    throw CaseError("tiling.vec_rows x s2_block = " + std::to_string(t.vec_rows * Plan::cw_of(t.s2_block)) +
                    " exceeds one counter-mode vector instruction (16320 fp32 elements)");
}

void choose_blocks(Plan& pl, const BlockTiling& rule, Tiling& ov) {
  pl.t.s1_block = ov.choose(keys::s1_block, rule.s1_block);
  pl.t.s2_block = ov.choose(keys::s2_block, rule.s2_block);
  pl.t.preload = ov.choose(keys::preload, rule.preload);
  pl.t.kv_buffers = ov.choose(keys::kv_buffers, rule.kv_buffers);
}

void choose_vec_rows(Plan& pl, uint64_t ub, Tiling& ov, int64_t align, bool high_perf) {
  const int64_t fit = fit_vec_rows(pl.p, pl.t, ub, align);
  pl.t.vec_rows = ov.choose(keys::vec_rows, fit ? fit : align);
  check_vec_rows(pl.t, align, high_perf);
}

void finish_tiling(Plan& pl, const sim::HwConfig& hw, Tiling& ov) {
  choose_l0(pl.p, pl.t, hw, ov);
  check_fit(pl.p, pl.t, hw);
  make_units(pl);
  const int64_t units = std::max<int64_t>(1, std::min<int64_t>(hw.chip.ai_cores, int64_t(pl.units.size())));
  pl.t.block_dim = ov.choose(keys::block_dim, units);
}

}  // namespace npusim::op::attn
