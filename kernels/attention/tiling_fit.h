#pragma once
// Capacity rules every attention op's tiling applies (FIA: kernels/fia/fia_tiling.cpp, FA V3:
// kernels/fa_varlen/fa_tiling.cpp): the vec_rows that fits UB, the checks that a tiling fits L1 / UB / L0, and
// the vec_rows rules. Messages name the tiling key and the config parameter.
#include <cstdint>
#include <vector>

#include "kernels/attention/plan.h"
#include "kernels/op/tiling.h"
#include "sim/config/hw_config.h"

namespace npusim::op::attn {

// Rows the larger AIV half of an s1-row unit holds.
int64_t half_rows(int64_t s1);
// The largest vec_rows (a multiple of `align` that divides the AIV half, vec_rows x cw <= sub_tile_elems(ub)) whose
// UB layout fits; 0 when none does.
int64_t fit_vec_rows(const AttnProblem& p, BlockTiling t, uint64_t ub, int64_t align);
// fp32 elements of one softmax sub-tile the default tiling aims for: its two fp32 buffers and their two casts
// (12 bytes per element) take half of UB (8192 on a 192 KiB UB), at most one counter-mode instruction.
int64_t sub_tile_elems(uint64_t ub);
// Sets t.vec_rows by fit_vec_rows; while nothing fits, lowers s2_block by 128 down to 256, then halves s1_block
// down to min_s1, then lowers s2_block to 128 (a smaller UB still gets a tiling when one exists; the cube keeps
// its M longest, since a short s1_block reloads K / V per unit). vec_rows stays 0 when none fits. A block size the
// case sets is never lowered (`may`).
struct Lowerable {
  bool s1_block = true, s2_block = true;
};
void fit_ub(const AttnProblem& p, BlockTiling& t, uint64_t ub, int64_t align, int64_t min_s1, Lowerable may = {});
// Prompt work units of an s1-row block: one per (batch, head, s1 rows of the batch's query rows) (schedule.h).
int64_t prompt_units(const AttnProblem& p, int64_t s1);
// The default block sizes' two load-balance rules (prompt only; no rates, only shapes and the core count):
// s1_block is lowered by 16 rows (down to min_s1) while its work units leave cores idle, so a short prompt still
// spreads over every core; s2_block is at most half the longest KV rounded up to 128, so that each unit has two
// score blocks for the cube and the softmax to overlap. Neither lowers a key the case sets.
void fill_cores(const AttnProblem& p, BlockTiling& t, int64_t cores, int64_t min_s1, Lowerable may);
int64_t two_blocks_cap(int64_t longest_kv);
// The smallest multiple of 128 up to `cap` that gives the busiest of `splits` KV splits no more score blocks of
// `kv` columns than `cap` does: the same block count per split with the work spread evenly over the splits.
int64_t even_blocks(int64_t kv, int64_t splits, int64_t cap);
// Throws CaseError when the tiling's L1 / UB layouts or L0 slices do not fit the config.
void check_fit(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw);
// The L0 split (t.l0_k / l0_n, or the rule when 0): fractal multiples, two slices each in L0A / L0B, two L0C halves.
void check_l0(const AttnProblem& p, const BlockTiling& t, const sim::HwConfig& hw);
// Sets t.l0_k / t.l0_n through the tiling keys l0_k_step / l0_n_sub, defaulting to l0_split's rule (a key the case
// sets is fitted around), so that a report names the split and a case can pin it.
void choose_l0(const AttnProblem& p, BlockTiling& t, const sim::HwConfig& hw, Tiling& ov);
// vec_rows within the AIV half, a multiple of `align`, one counter-mode vector instruction per sub-tile.
void check_vec_rows(const BlockTiling& t, int64_t align, bool high_perf);

// The steps both attention ops take from their default rule's block sizes to a plan's tiling, in this order:
// s1_block, s2_block, preload and kv_buffers through the case's overrides (`rule`: the op's defaults);
void choose_blocks(Plan& pl, const BlockTiling& rule, Tiling& ov);
// vec_rows (the largest that fits UB, else `align`), checked;
void choose_vec_rows(Plan& pl, uint64_t ub, Tiling& ov, int64_t align, bool high_perf);
// the L0 split, the capacity checks, the work units and block_dim (min(AI cores, units) unless the case sets it).
void finish_tiling(Plan& pl, const sim::HwConfig& hw, Tiling& ov);

}  // namespace npusim::op::attn
