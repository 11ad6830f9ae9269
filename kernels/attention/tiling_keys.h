#pragma once
// The attention ops' tiling keys (FIA and FA V3): the handles their tilings read the keys through, and one
// declaration of each key both ops have (its legal values and what it does). An op adds how it chooses each default
// (AttentionRules) and its own keys; the two keys of the L0 split close every attention op's list.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op/tiling.h"

namespace npusim::op::attn {

namespace keys {
inline constexpr KeyName s1_block{"s1_block"};
inline constexpr KeyName s2_block{"s2_block"};
inline constexpr KeyName vec_rows{"vec_rows"};
inline constexpr KeyName preload{"preload"};
inline constexpr KeyName kv_buffers{"kv_buffers"};
inline constexpr KeyName l0_k_step{"l0_k_step"};
inline constexpr KeyName l0_n_sub{"l0_n_sub"};
using op::keys::block_dim;
}  // namespace keys

// How an op chooses one shared key: its default rule (the text `npusim ops OP --tiling` prints, tested against the
// rule in tests/op/test_tiling_rules.cpp) and the keys that rule reads. `hi` 0 keeps the shared upper bound.
struct KeyRule {
  std::string default_rule;
  std::vector<std::string> follows;
  int64_t hi = 0;
};
struct AttentionRules {
  KeyRule s1_block, s2_block, vec_rows, preload, block_dim, kv_buffers;
};

// The op's declared keys: the six shared ones with the op's rules, then `own` (the op's own keys), then l0_k_step
// and l0_n_sub (whose rule is the shared one of tiling_fit.h choose_l0).
std::vector<TilingKey> attention_keys(const AttentionRules& rules, std::vector<TilingKey> own = {});

}  // namespace npusim::op::attn
