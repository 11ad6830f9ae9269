#pragma once
// Sequence addressing of the attention blocks: layouts (BSH, BSND, BNSD, TND with cumulative offsets) become
// strides; prefix, tensor lists and pages become runs of rows, so neither the host nor the kernel ever
// relayouts, replicates or pre-gathers a tensor. GM names come from Plan::gm.
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/plan.h"

namespace npusim::sim {
class CoreCtx;
}

namespace npusim::op::attn {

// A run of rows of one GM tensor with a fixed row stride (elements of the tensor's dtype).
struct RowRun {
  std::string gm;     // GM allocation name
  uint64_t elem = 0;  // element offset of the first row's d = 0
  int64_t rows = 0, stride = 0;
  int64_t dst_row = 0;  // row index inside the block being gathered
};
// Element offset of (b, n, physical row) in query / the output.
uint64_t q_elem(const Plan& pl, int64_t b, int64_t n, int64_t row);
uint64_t out_elem(const Plan& pl, int64_t b, int64_t n, int64_t row);
int64_t q_row_stride(const Plan& pl);
int64_t out_row_stride(const Plan& pl);
// Name of the key / value GM tensor holding batch b's own rows (tensor lists: one tensor per batch).
std::string kv_gm(const Plan& pl, bool value, int64_t b);

// The physical block ids of the pages a score block touches, read from block_table with scalar GM loads (as
// the hardware does) when K is loaded and reused for V.
struct PageIds {
  std::vector<std::pair<int64_t, int64_t>> ids;  // (page index, block id)
  void load(sim::CoreCtx& c, const Plan& pl, int64_t b, int64_t j0, int64_t cols);
  int64_t id(int64_t page) const;
};

// Row addressing of a unit. Prompt: rows are physical query rows of head u.n. Decode: row g is query head
// u.n2 * G + g (S = 1), so consecutive rows are one head stride apart in every layout.
uint64_t row_q_elem(const Plan& pl, const WorkUnit& u, int64_t row);
int64_t row_q_stride(const Plan& pl);
uint64_t row_out_elem(const Plan& pl, const WorkUnit& u, int64_t row);
int64_t row_out_stride(const Plan& pl);
uint64_t row_lse_elem(const Plan& pl, const WorkUnit& u, int64_t row);  // consecutive rows are contiguous
int64_t row_head(const Plan& pl, const WorkUnit& u, int64_t row);
int64_t row_logical(const Plan& pl, const WorkUnit& u, int64_t row);  // query row i (band, mask, pse)

// The second Q / K pair (rope, dense K only): rows of query_rope for a unit's query rows [row, row + rows) and
// of key_rope for K rows [j0, j0 + cols) of head n2 of batch b (head dim p.Dr, the tensors' own layouts).
RowRun q_rope_run(const Plan& pl, const WorkUnit& u, int64_t row, int64_t rows);
RowRun k_rope_run(const Plan& pl, int64_t b, int64_t n2, int64_t j0, int64_t cols);
// softmax_max / softmax_sum element of a prompt unit's physical row (FA, TND): see AttnData::stat_index.
uint64_t row_stat_elem(const Plan& pl, const WorkUnit& u, int64_t row);

// Rows [j0, j0 + cols) of head n2's K (value = false) or V over [prefix || kv] of batch b, as runs.
std::vector<RowRun> kv_runs(const Plan& pl, bool value, int64_t b, int64_t n2, int64_t j0, int64_t cols,
                            const PageIds& pages);

}  // namespace npusim::op::attn
