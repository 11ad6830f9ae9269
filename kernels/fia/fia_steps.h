#pragma once
// The score-block sequence one AI core works through; the cube and vector programs walk the same list, so
// their cross-core flags pair up one to one.
#include <vector>

#include "kernels/fia/fia_plan.h"

namespace npusim::op::fia {

// Cross-core flag ids (mode 2, AIC <-> its AIV pair).
inline constexpr int kFlagSReady = 0;  // AIC -> AIVs: scores of a block are in workspace
inline constexpr int kFlagPReady = 1;  // AIVs -> AIC: P of a block is in workspace
inline constexpr int kFlagOReady = 2;  // AIC -> AIVs: P V of a block is in workspace

struct Step {
  int64_t unit = 0, blk = 0;
  bool first = false, last = false;  // first / last visited block of its unit
};

inline std::vector<Step> core_steps(const FiaPlan& pl, int core) {
  std::vector<Step> s;
  if (core + 1 >= int(pl.core_first.size())) return s;
  for (int64_t u = pl.core_first[size_t(core)]; u < pl.core_first[size_t(core) + 1]; ++u) {
    const FiaUnit& w = pl.units[size_t(u)];
    if (!w.computed()) continue;
    for (int64_t k = w.blk_first; k < w.blk_end; ++k) s.push_back({u, k, k == w.blk_first, k == w.blk_end - 1});
  }
  return s;
}

}  // namespace npusim::op::fia
