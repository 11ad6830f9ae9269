// Matmul tiling: buffer capacities and unit shapes from the hardware config decide every block size.
#include <algorithm>

#include "isa/numeric/int_math.h"
#include "kernels/host/case_file.h"
#include "kernels/matmul/matmul_plan.h"

namespace npusim::op {

using isa::round_down;
using isa::round_up;

const TilingSpace& matmul_tiling_space() {
  static const TilingSpace space(
      "matmul",
      {{.name = matmul_keys::base_m,
        .lo = 16,
        .hi = 4080,
        .multiple_of = 16,
        .default_rule = "min(128, M rounded up to 16), halved while a base_m x 16 tile does not fit L0C (and the "
                        "coupled UB staging)",
        .doc = "rows of one output tile (the cube's M per mmad)"},
       {.name = matmul_keys::base_n,
        .lo = 16,
        .hi = 4080,
        .multiple_of = 16,
        .default_rule = "min(256, N rounded up to 16), halved while base_m x base_n fp32 accumulators (and the bias "
                        "row) do not fit",
        .doc = "columns of one output tile",
        .follows = {matmul_keys::base_m}},
       {.name = matmul_keys::base_k,
        .lo = 16,
        .hi = 4095,
        .multiple_of = 16,
        .default_rule = "the largest multiple of the fractal K whose A / B slices fill one half of L0A / L0B, at most "
                        "four fractals (64 fp16 / bf16, 128 int8) and K rounded up",
        .doc = "K per mmad (int8: a multiple of 32)",
        .follows = {matmul_keys::base_m, matmul_keys::base_n}},
       {.name = matmul_keys::k_l1,
        .lo = 16,
        .hi = 1 << 20,
        .multiple_of = 16,
        .default_rule = "the largest multiple of base_k such that two A and two B chunks fit L1, at most K rounded up",
        .doc = "K per L1 chunk (double-buffered); a multiple of base_k",
        .follows = {matmul_keys::base_m, matmul_keys::base_n, matmul_keys::base_k}},
       {.name = matmul_keys::block_dim,
        .lo = 1,
        .hi_is_ai_cores = true,
        .default_rule = "min(AI cores, output tiles)",
        .doc = "AI cores used; tiles are dealt round-robin",
        .follows = {matmul_keys::base_m, matmul_keys::base_n}}});
  return space;
}

namespace {
constexpr int64_t kMaxKFractals = 4;  // default base_k cap, in fractal K (16 fp16 / bf16, 32 int8)

void require(bool ok, const std::string& msg) {
  if (!ok) throw CaseError(msg);
}
}  // namespace

MatmulTiling choose_matmul_tiling(const MatmulShape& s, const sim::HwConfig& hw, Tiling& ov) {
  const int64_t e = isa::bytes_of(s.in), k0 = isa::fractal_k(s.in);
  const int64_t l0c = hw.core.l0c_bytes, l0a = hw.core.l0a_bytes, l0b = hw.core.l0b_bytes, l1 = hw.core.l1_bytes;
  MatmulTiling t;
  // Output tile: as large as L0C allows (reuse of each loaded A row / B column grows with it), capped at
  // 128 x 256 so that one L0A / L0B half still holds a useful K step; never larger than the matrix.
  // Coupled cores stage a tile in UB on its way out; the bias table holds one row of base_n values.
  const bool coupled = hw.topology == sim::Topology::Coupled;
  const int64_t oe = isa::bytes_of(s.out);
  auto fits = [&](int64_t m, int64_t n) {
    return m * n * 4 <= l0c && (!s.bias || n * 4 <= hw.core.bt_bytes) &&
           (!coupled || m * round_up(n * oe, 32) <= hw.core.ub_bytes);
  };
  // An int8 operand stored with K as rows is transposed in 32 x 32 squares: its M (A) / N (B) tile side is a
  // multiple of 32 (views.h load_l0a / load_l0b).
  const int64_t am = square_m(s), an = square_n(s);
  int64_t bm = std::min<int64_t>(128, round_up(s.m, am));
  while (!fits(bm, 16) && bm > am) bm = round_up(bm / 2, am);
  t.base_m = ov.choose(matmul_keys::base_m, bm);
  int64_t bn = std::min<int64_t>(256, round_up(s.n, an));
  while (!fits(t.base_m, bn) && bn > an) bn = round_up(bn / 2, an);
  t.base_n = ov.choose(matmul_keys::base_n, bn);
  require(
      t.base_m % am == 0 && t.base_n % an == 0,
      "tiling.base_m = " + std::to_string(t.base_m) + ", tiling.base_n = " + std::to_string(t.base_n) +
          ": must be multiples of " + std::to_string(am) + " and " + std::to_string(an) +
          (am == 32 || an == 32 ? " (an int8 operand stored with K as rows is transposed in 32 x 32 squares)" : ""));
  require(!s.bias || t.base_n * 4 <= hw.core.bt_bytes,
          "tiling.base_n = " + std::to_string(t.base_n) + ": a bias row of base_n fp32 values needs " +
              std::to_string(t.base_n * 4) + " bytes but core.bt_bytes = " + std::to_string(hw.core.bt_bytes));
  require(!coupled || t.base_m * round_up(t.base_n * oe, 32) <= hw.core.ub_bytes,
          "tiling.base_m x tiling.base_n: the coupled core stages the output tile in UB (" +
              std::to_string(t.base_m * round_up(t.base_n * oe, 32)) +
              " bytes) but core.ub_bytes = " + std::to_string(hw.core.ub_bytes));
  require(t.base_m * t.base_n * 4 <= l0c, "tiling.base_m x tiling.base_n = " + std::to_string(t.base_m) + " x " +
                                              std::to_string(t.base_n) + " needs " +
                                              std::to_string(t.base_m * t.base_n * 4) +
                                              " bytes of accumulators but core.l0c_bytes = " + std::to_string(l0c));
  // K per mmad: one half of L0A and of L0B (the other half is loaded while the cube works), at most four fractals
  // (catlass examples/00_basic_matmul: L0TileShape 128 x 256 x 64 for half on Atlas A2): a longer K step coarsens
  // the MTE1 / cube overlap (a doubled L0B took base_k 128 and was slower on every matmul case, issue 12).
  int64_t bk = std::min({(l0a / 2) / (t.base_m * e), (l0b / 2) / (t.base_n * e), kMaxKFractals * k0});
  bk = std::max<int64_t>(k0, std::min({round_down(bk, k0), round_up(s.k, k0), round_down(int64_t{4095}, k0)}));
  t.base_k = ov.choose(matmul_keys::base_k, bk);
  require(t.base_k % k0 == 0,
          "tiling.base_k = " + std::to_string(t.base_k) + " must be a multiple of " + std::to_string(k0));
  require(2 * t.base_m * t.base_k * e <= l0a,
          "tiling.base_k = " + std::to_string(t.base_k) + ": two A slices of base_m x base_k need " +
              std::to_string(2 * t.base_m * t.base_k * e) + " bytes but core.l0a_bytes = " + std::to_string(l0a));
  require(2 * t.base_k * t.base_n * e <= l0b,
          "tiling.base_k = " + std::to_string(t.base_k) + ": two B slices of base_k x base_n need " +
              std::to_string(2 * t.base_k * t.base_n * e) + " bytes but core.l0b_bytes = " + std::to_string(l0b));
  // K per L1 chunk: two chunks of A and B (double buffer) plus the bias staging row.
  const int64_t staging = s.bias ? round_up(t.base_n * 4, 512) : 0;
  int64_t kl1 = (l1 - staging) / (2 * (t.base_m + t.base_n) * e);
  kl1 = std::max(t.base_k, std::min(round_down(kl1, t.base_k), round_up(s.k, t.base_k)));
  t.k_l1 = ov.choose(matmul_keys::k_l1, kl1);
  require(t.k_l1 % t.base_k == 0, "tiling.k_l1 = " + std::to_string(t.k_l1) + " must be a multiple of tiling.base_k");
  const int64_t l1_need = 2 * (t.base_m + t.base_n) * t.k_l1 * e + staging;
  require(l1_need <= l1, "tiling.k_l1 = " + std::to_string(t.k_l1) + ": two chunks of A and B need " +
                             std::to_string(l1_need) + " bytes of L1 but core.l1_bytes = " + std::to_string(l1));
  const int64_t tiles = ((s.m + t.base_m - 1) / t.base_m) * ((s.n + t.base_n - 1) / t.base_n);
  t.block_dim = ov.choose(matmul_keys::block_dim, std::min<int64_t>(hw.chip.ai_cores, tiles));
  return t;
}

}  // namespace npusim::op
