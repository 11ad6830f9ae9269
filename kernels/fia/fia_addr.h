#pragma once
// GM addressing of the FIA prompt kernel (see fia_addr.cpp).
#include <utility>
#include <vector>

#include "kernels/fia/fia_plan.h"

namespace npusim::op::fia {

// The physical block ids of the pages a score block touches, read from block_table with scalar GM loads (as
// the hardware does) when K is loaded and reused for V.
struct PageIds {
  std::vector<std::pair<int64_t, int64_t>> ids;  // (page index, block id)
  void load(sim::CoreCtx& c, const FiaPlan& pl, int64_t b, int64_t j0, int64_t cols);
  int64_t id(int64_t page) const;
};

// Row addressing of a unit. Prompt: rows are physical query rows of head u.n. Decode: row g is query head
// u.n2 * G + g (S = 1), so consecutive rows are one head stride apart in every layout.
uint64_t row_q_elem(const FiaPlan& pl, const FiaUnit& u, int64_t row);
int64_t row_q_stride(const FiaPlan& pl);
uint64_t row_out_elem(const FiaPlan& pl, const FiaUnit& u, int64_t row);
int64_t row_out_stride(const FiaPlan& pl);
uint64_t row_lse_elem(const FiaPlan& pl, const FiaUnit& u, int64_t row);  // consecutive rows are contiguous
int64_t row_head(const FiaPlan& pl, const FiaUnit& u, int64_t row);
int64_t row_logical(const FiaPlan& pl, const FiaUnit& u, int64_t row);   // query row i (band, mask, pse)

// Rows [j0, j0 + cols) of head n2's K (value = false) or V over [prefix || kv] of batch b, as runs.
std::vector<RowRun> kv_runs(const FiaPlan& pl, bool value, int64_t b, int64_t n2, int64_t j0, int64_t cols,
                            const PageIds& pages);

}  // namespace npusim::op::fia
