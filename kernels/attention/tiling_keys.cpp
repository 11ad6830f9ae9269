// The shared declaration of the attention tiling keys (tiling_keys.h).
#include "kernels/attention/tiling_keys.h"

#include <utility>

#include "kernels/attention/plan.h"

namespace npusim::op::attn {
namespace {

TilingKey with_rule(TilingKey k, const KeyRule& r) {
  k.default_rule = r.default_rule;
  k.follows = r.follows;
  if (r.hi) k.hi = r.hi;
  return k;
}

std::vector<TilingKey> l0_keys() {
  return {{.name = keys::l0_k_step,
           .lo = 16,
           .hi = 1024,
           .multiple_of = 16,
           .default_rule =
               "the largest multiple of the fractal K (16 fp16 / bf16, 32 int8, 64 int4) whose cube-rows x K slice "
               "fills half of L0A and whose K x l0_n_sub slice half of L0B, at most 8 fractals and 256",
           .doc = "K per mmad slice of the cube's Q K^T and P V (two L0A / L0B slices, double-buffered)",
           .follows = {keys::s1_block, keys::l0_n_sub}},
          {.name = keys::l0_n_sub,
           .lo = 16,
           .hi = 1024,
           .multiple_of = 16,
           .default_rule =
               "the largest multiple of 16 (int8 32, int4 64) whose cube-rows x N fp32 fill half of L0C, at most 128, "
               "chosen before l0_k_step (with l0_k_step set: whose K x N slice also fills half of L0B)",
           .doc = "N per L0C half (the FixPipe drains one half while the cube fills the other)",
           .follows = {keys::s1_block, keys::l0_k_step}}};
}

}  // namespace

std::vector<TilingKey> attention_keys(const AttentionRules& r, std::vector<TilingKey> own) {
  std::vector<TilingKey> keys{
      with_rule({.name = keys::s1_block,
                 .lo = 16,
                 .hi = 512,
                 .multiple_of = 16,
                 .doc = "query rows per work unit (the cube's M); the two AIVs take half each"},
                r.s1_block),
      with_rule({.name = keys::s2_block,
                 .lo = 128,
                 .hi = 1024,
                 .multiple_of = 128,
                 .doc = "KV columns per score block (the softmax works on 128-column groups)"},
                r.s2_block),
      with_rule({.name = keys::vec_rows,
                 .lo = 8,
                 .hi = 256,
                 .multiple_of = 8,
                 .doc = "rows per vector sub-tile of the softmax"},
                r.vec_rows),
      with_rule({.name = keys::preload,
                 .lo = 1,
                 .hi = kMaxPreload,
                 .doc = "score blocks the cube computes ahead of the softmax (S workspace slots = preload + 1)"},
                r.preload),
      with_rule({.name = keys::block_dim,
                 .lo = 1,
                 .hi_is_ai_cores = true,
                 .doc = "AI cores used; the work units are split in contiguous ranges balancing score blocks"},
                r.block_dim),
      with_rule({.name = keys::kv_buffers,
                 .lo = 1,
                 .hi = 2,
                 .doc = "K / V block slots in L1 (2 lets MTE2 stream the next blocks during the softmax)"},
                r.kv_buffers),
  };
  for (TilingKey& k : own) keys.push_back(std::move(k));
  for (TilingKey& k : l0_keys()) keys.push_back(std::move(k));
  return keys;
}

}  // namespace npusim::op::attn
