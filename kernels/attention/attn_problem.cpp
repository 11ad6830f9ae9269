// Derived members of the op-neutral attention problem (attn_problem.h): addressing, starts, band, masking value.
#include "kernels/attention/attn_problem.h"

#include <algorithm>
#include <cfloat>
#include <numeric>

namespace npusim::op::attn {

std::string layout_name(Layout l) {
  switch (l) {
    case Layout::BSH: return "BSH";
    case Layout::BSND: return "BSND";
    case Layout::BNSD: return "BNSD";
    case Layout::BNSD_BSND: return "BNSD_BSND";
    case Layout::TND: return "TND";
  }
  return "?";
}

Strides layout_strides(Layout l, int64_t heads, int64_t rows, int64_t d) {
  switch (l) {
    case Layout::BNSD:
    case Layout::BNSD_BSND:  // an input in BNSD_BSND is BNSD (only the output is BSND)
      return {heads * rows * d, rows * d, d};
    case Layout::TND:  // (T, N, D): batches are concatenated along T, so b has no stride (q_start / kv_start)
      return {0, d, heads * d};
    case Layout::BSH:
    case Layout::BSND: break;
  }
  return {rows * heads * d, d, heads * d};
}

namespace {
// TND: the first token of batch b is the sum of the earlier batches' lengths.
int64_t cumulative(const std::vector<int64_t>& len, int64_t b) {
  return std::accumulate(len.begin(), len.begin() + b, int64_t{0});
}
}  // namespace

int64_t AttnProblem::q_start(int64_t b) const {
  if (layout == Layout::TND) return cumulative(act_q, b);
  return left_pad ? Sq - q_pad - act_q[b] : 0;
}

int64_t AttnProblem::kv_start(int64_t b) const {
  if (layout == Layout::TND && kv == KvStorage::Dense) return cumulative(act_kv, b);
  if (!left_pad) return 0;
  const int64_t s = kv == KvStorage::List ? list_s[b] : kv_s;
  return s - kv_pad - act_kv[b];
}

Band AttnProblem::band(int64_t b) const {
  if (incremental()) return {};  // query S = 1: sparse_mode, pre_tokens and next_tokens are ignored (spec §1.1)
  const int64_t delta = skv_eff(b) - act_q[b];
  // Clamped so that no edge arithmetic (here and in visible_cols) can overflow, whatever pre / next hold.
  const int64_t pre = std::clamp(pre_tokens, -kUnbounded, kUnbounded);
  const int64_t next = std::clamp(next_tokens, -kUnbounded, kUnbounded);
  switch (sparse_mode) {
    case 0:
      if (mask == MaskKind::None || left_pad) return {};
      return {-pre, next};
    case 2: return {-kUnbounded, 0};
    case 3: return {-kUnbounded, delta};
    case 4: return {-(pre - delta), next + delta};
    case 7: return b == band_batch ? Band{-(pre - delta), next + delta} : Band{-kUnbounded, delta};
    case 8: return b == band_batch ? Band{-(pre - delta), next + delta} : Band{-kUnbounded, 0};
    default: return {};  // mode 1: the mask tensor alone decides
  }
}

std::pair<int64_t, int64_t> AttnProblem::visible_cols(int64_t b, int64_t i) const {
  const Band bd = band(b);
  const int64_t lo = std::max<int64_t>(0, i + bd.lo), hi = std::min(skv_eff(b), i + bd.hi + 1);
  if (lo >= hi) return {0, 0};  // empty; normalised so callers can test first == second
  return {lo, hi};
}

// Spec §1.3: the prompt (PFA) path masks with -FLT_MAX (-65504 in fp16 high-performance mode), the incremental
// (IFA, query S = 1) path with -1e12.
float AttnProblem::mask_value() const { return incremental() ? -1e12f : high_perf ? -65504.0f : -FLT_MAX; }

}  // namespace npusim::op::attn

namespace npusim::op::attn {

// Spec §1.6 scale index per mode (kernels/fia/msd_research.md §8); the combined tensor holds K's part, then V's.
int64_t AttnProblem::antiquant_index(bool value, int64_t b, int64_t n2, int64_t t, int64_t blk, int64_t d) const {
  const AntiQuant& a = antiquant;
  const int m = a.mode(value);
  int64_t part = 0;  // elements of K's part of the combined tensor
  int64_t at = 0;
  switch (m) {
    case 1: part = B * a.token_s, at = b * a.token_s + t; break;
    case 2: part = KV_N, at = n2; break;
    case 3: part = B * KV_N * a.token_s, at = (b * KV_N + n2) * a.token_s + t; break;
    case 4: at = blk * block_size + t % std::max<int64_t>(block_size, 1); break;
    case 5: at = (blk * KV_N + n2) * block_size + t % std::max<int64_t>(block_size, 1); break;
    default: part = a.per_tensor ? 1 : KV_N * D, at = a.per_tensor ? 0 : n2 * D + d; break;
  }
  return (value && !a.separated ? part : 0) + at;
}

}  // namespace npusim::op::attn
