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

// Rows [j0, j0 + cols) of head n2's K (value = false) or V over [prefix || kv] of batch b, as runs.
std::vector<RowRun> kv_runs(const FiaPlan& pl, bool value, int64_t b, int64_t n2, int64_t j0, int64_t cols,
                            const PageIds& pages);

}  // namespace npusim::op::fia
