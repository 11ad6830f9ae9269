// FA V3 parameter checks, stages 4-5: sparse_mode with the vendor's band rules, the mask forms, precision and
// the attrs that have no effect here (spec §2.2, §2.4; kernels/fa_varlen/README.md "Sparse modes").
#include <algorithm>
#include <cmath>

#include "kernels/fa_varlen/fa_checks.h"

namespace npusim::op::fa {

using attn::MaskKind;

namespace {
constexpr int64_t kCompressed = 2048;  // triu(ones(2048, 2048), 1) (vendor generate_npu_mask)

bool needs_compressed(int mode) { return mode == 2 || mode == 3 || mode == 4 || mode == 7 || mode == 8; }

int check_mode(const Ctx& x) {
  const int64_t m = attr_int(x.c, "sparse_mode");
  if (m == 5)
    fail(
        "attrs.sparse_mode = 5 (prefix) is not supported for variable-length sequences (vendor: 'Var len not support "
        "sparse mode 5')");
  if (m == 6) fail("attrs.sparse_mode = 6 (prefix, compressed) is rejected by FA V3 (spec §2.4)");
  if (m < 0 || m > 8 || m == 5 || m == 6)
    fail("attrs.sparse_mode = " + str(m) +
         " is invalid (0 mask + band, 1 all mask, 2 left-up causal, 3 right-down causal, 4 band, 7 / 8 causal with one "
         "band batch)");
  return int(m);
}

// The batch that takes the band in modes 7 (the last with Sq != 0) and 8 (the first with Sq != 0).
int64_t band_batch(const attn::AttnProblem& p, int mode) {
  int64_t pick = -1;
  for (int64_t b = 0; b < p.B; ++b)
    if (p.act_q[size_t(b)] && (mode == 7 || pick < 0)) pick = b;
  return pick;
}

std::string batch_text(int64_t b, int64_t sq, int64_t skv) {
  return "batch " + str(b) + " (Sq = " + str(sq) + ", Skv = " + str(skv) + ")";
}

// The vendor tiling's sparse checks (CheckPretokenAndNexttoken and the per-mode rules): each rejection is a
// case where some row would see no column (an "invalid row") or the band would be inconsistent.
void check_band(const attn::AttnProblem& p, int mode) {
  const int64_t pre = p.pre_tokens, next = p.next_tokens;
  const std::string pn = " (attrs.pre_tokens = " + str(pre) + ", attrs.next_tokens = " + str(next) + ")";
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t sq = p.act_q[size_t(b)], skv = p.act_kv[size_t(b)];
    const bool live = sq && skv;
    if ((mode == 3 || (mode == 7 && b != p.band_batch)) && sq > skv)
      fail("attrs.sparse_mode = " + str(mode) + ": " + batch_text(b, sq, skv) +
           " has Sq > Skv, which the right-down causal mask does not allow");
    if (mode == 0 && live && skv + pre < sq)
      fail("attrs.pre_tokens: " + batch_text(b, sq, skv) + " needs Skv + pre_tokens >= Sq in sparse_mode 0" + pn);
    const bool banded = mode == 4 || ((mode == 7 || mode == 8) && b == p.band_batch);
    if (banded && live && sq - next > skv)
      fail("attrs.next_tokens: " + batch_text(b, sq, skv) +
           " needs Sq - next_tokens <= Skv (its first rows would see no column)" + pn);
    if ((mode == 7 || mode == 8) && b == p.band_batch && pre < skv)
      fail("attrs.pre_tokens = " + str(pre) + " must be >= Skv = " + str(skv) + " of the band " +
           batch_text(b, sq, skv) + " in sparse_mode " + str(mode));
  }
  if (mode == 0 && next < 0) fail("attrs.next_tokens = " + str(next) + " must be >= 0 in sparse_mode 0" + pn);
  if (mode == 0 && pre < 0 && next < -pre)
    fail("attrs.pre_tokens: a negative pre_tokens needs next_tokens >= -pre_tokens" + pn);
  if (mode == 4 && pre < 0) fail("attrs.pre_tokens = " + str(pre) + " must be >= 0 in sparse_mode 4" + pn);
  if (mode == 4 && next < 0 && pre + next < 0)
    fail("attrs.next_tokens: pre_tokens + next_tokens must be >= 0 in sparse_mode 4" + pn);
  if (mode == 7 && next > 0) fail("attrs.next_tokens = " + str(next) + " must be <= 0 in sparse_mode 7" + pn);
}

void check_mask(Ctx& x, int mode) {
  attn::AttnProblem& p = x.p;
  if (!has(x.c, "atten_mask")) {
    if (x.rope) fail("inputs.atten_mask is required with query_rope / key_rope (spec §2.4)");
    if (needs_compressed(mode))
      fail("inputs.atten_mask is required with sparse_mode " + str(mode) +
           " (the compressed mask triu(ones(2048, 2048), 1))");
    p.mask = MaskKind::None;
    return;
  }
  const TensorEntry& t = single(x.c, "atten_mask");
  if (t.dtype != ElemType::Bool && t.dtype != ElemType::U8)
    fail("inputs.atten_mask dtype " + elem_type_name(t.dtype) +
         " must be bool or uint8 (1 = masked; the vendor rejects int8)");
  p.mask_dtype = t.dtype;
  const std::vector<int64_t> s = shape_of(t);
  if (s.size() == 4)
    fail("inputs.atten_mask has shape " + dims(s) +
         ": the 4-D forms are not supported (the vendor kernel's 4-D offsets agree with its row stride only for equal "
         "lengths); use (maxSq, maxSkv) or (T1, T2)");
  if (s.size() != 2)
    fail("inputs.atten_mask has shape " + dims(s) + " (rank " + str(int64_t(s.size())) + "); it must be 2-D");
  if (needs_compressed(mode)) {
    if (s[0] != kCompressed || s[1] != kCompressed)
      fail("inputs.atten_mask has shape " + dims(s) + " but sparse_mode " + str(mode) +
           " needs the compressed mask triu(ones(2048, 2048), 1) of shape [2048, 2048]");
    p.mask = MaskKind::Compressed;
    p.mask_sq = p.mask_skv = kCompressed;
    return;
  }
  const int64_t max_q = *std::max_element(p.act_q.begin(), p.act_q.end());
  const int64_t max_kv = *std::max_element(p.act_kv.begin(), p.act_kv.end());
  p.mask = MaskKind::Full;
  if (s[0] == max_q && s[1] == max_kv) {  // local: shared by every batch, batch-local (i, j); wins when both fit
    p.mask_sq = max_q, p.mask_skv = max_kv;
    return;
  }
  if (s[0] == p.Sq && s[1] == p.kv_s) {  // global (T1, T2): row cumQ + i, column cumKv + j
    p.mask_global = true;
    p.mask_sq = p.Sq, p.mask_skv = p.kv_s;
    return;
  }
  fail("inputs.atten_mask has shape " + dims(s) + " but sparse_mode " + str(mode) + " needs (maxSq, maxSkv) = [" +
       str(max_q) + ", " + str(max_kv) + "] (per batch) or (T1, T2) = [" + str(p.Sq) + ", " + str(p.kv_s) +
       "] (global)");
}

void check_list_attr(const CaseFile& c, const std::string& name) {
  bool given = false;
  const auto v = attr_int_list(c, name, &given);
  if (given && v.size() != 1)
    fail("attrs." + name + " must hold exactly one value (int64 [1]), not " + str(int64_t(v.size())));
}
}  // namespace

void check_scores(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const int mode = check_mode(x);
  p.sparse_mode = mode;
  p.pre_tokens = attr_int(x.c, "pre_tokens");
  p.next_tokens = attr_int(x.c, "next_tokens");
  check_mask(x, mode);
  if (mode == 7 || mode == 8) p.band_batch = band_batch(p, mode);
  if (mode == 1 || mode == 2 || mode == 3) p.pre_tokens = p.next_tokens = 2147483647;  // ignored by these modes
  if (mode != 0 || p.mask != MaskKind::None) check_band(p, mode);
}

void check_precision(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const double scale = attr_float(x.c, "scale");
  if (!std::isfinite(scale)) fail("attrs.scale = " + std::to_string(scale) + " must be finite");
  p.scale = scale;
  p.inner_precise = int(attr_int(x.c, "inner_precise"));
  if (p.inner_precise < 0 || p.inner_precise > 2)
    fail("attrs.inner_precise = " + str(p.inner_precise) + " must be 0, 1 or 2 (2 = invalid-row correction)");
  p.row_fix = p.inner_precise == 2;
  p.max_sum = true;     // softmax_max / softmax_sum (T1, N1, 8)
  p.cast_round = true;  // P and the output cast with CAST_ROUND, as the vendor FA kernel (README "Decisions")
  check_list_attr(x.c, "q_start_idx");
  check_list_attr(x.c, "kv_start_idx");
  bool given = false;
  const auto prefix = attr_int_list(x.c, "prefix", &given);
  if (given && int64_t(prefix.size()) != p.B)
    fail("attrs.prefix lists " + str(int64_t(prefix.size())) + " values but there are B = " + str(p.B) + " batches");
}

}  // namespace npusim::op::fa
