// FIA parameter checks, stages 6 and 7: what shapes the scores -- sparse_mode, pre / next tokens, atten_mask,
// pse_shift (spec §1.1, §1.4) -- and the precision flags derived from them (§1.5).
#include <cmath>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

using attn::MaskKind;

namespace {
constexpr int64_t kCompressed = 2048;  // the modes 2-4 mask: triu(ones(2048, 2048), 1)

std::string mode_text(int m) { return "sparse_mode " + std::to_string(m); }

int check_sparse_mode(const Ctx& x) {
  const int64_t m = attr_int(x.c, "sparse_mode");
  if (m >= 5 && m <= 8)
    fail("attrs.sparse_mode = " + str(m) +
         " is not supported by FIA V2 (modes 5-8 are FlashAttentionScore's; FIA: 0-4)");
  if (m < 0 || m > 8)
    fail("attrs.sparse_mode = " + str(m) +
         " is invalid (0 mask + band, 1 all mask, 2 left-up causal, 3 right-down causal, 4 band)");
  return static_cast<int>(m);
}

// Spec §1.4 checks. Modes 1-3 ignore pre / next. Mode 0 forces them to INT_MAX without a mask or with left
// padding, but they are still checked there: a case whose band is malformed is rejected, not silently widened.
void check_pre_next(const Ctx& x, int mode, int64_t pre, int64_t next) {
  for (const auto& [name, v] : {std::pair<const char*, int64_t>{"pre_tokens", pre}, {"next_tokens", next}})
    if (v < -attn::kUnbounded || v > attn::kUnbounded)
      fail(std::string("attrs.") + name + " = " + str(v) + " must be within +-" + str(attn::kUnbounded) +
           " (beyond that every band is unbounded; larger values would overflow the band arithmetic)");
  if (mode != 0 && mode != 4) return;
  const std::string both =
      "attrs.pre_tokens = " + str(pre) + ", attrs.next_tokens = " + str(next) + " (" + mode_text(mode) + ")";
  if (pre < 0 && next < 0) fail(both + ": pre_tokens and next_tokens may not both be negative");
  if (-next > pre) fail(both + ": -next_tokens must be <= pre_tokens (else the band is empty)");
  const int64_t sq = x.p.Sq, skv = x.skv_max();
  // Mode 0 bounds a negative next by the query S and a negative pre by the KV S; mode 4 the other way round.
  const int64_t next_bound = mode == 0 ? sq : skv, pre_bound = mode == 0 ? skv : sq;
  const char* next_what = mode == 0 ? "the query S" : "the prefix + key S";
  const char* pre_what = mode == 0 ? "the prefix + key S" : "the query S";
  if (next < 0 && -next >= next_bound)
    fail(both + ": a negative next_tokens needs |next_tokens| < " + next_what + " = " + str(next_bound));
  if (pre < 0 && -pre >= pre_bound)
    fail(both + ": a negative pre_tokens needs |pre_tokens| < " + pre_what + " = " + str(pre_bound));
}

void check_compressed_mask(Ctx& x, int mode, const std::vector<int64_t>& s) {
  const int64_t c = kCompressed;
  if (s != std::vector<int64_t>{c, c} && s != std::vector<int64_t>{1, c, c} && s != std::vector<int64_t>{1, 1, c, c})
    fail("inputs.atten_mask has shape " + dims(s) + " but " + mode_text(mode) +
         " needs the compressed mask triu(ones(2048, 2048), 1) of shape (2048, 2048), (1, 2048, 2048) or (1, 1, 2048, "
         "2048)");
  x.p.mask = MaskKind::Compressed;
  x.p.mask_sq = x.p.mask_skv = c;
}

// (Sq, Skv), (B or 1, Sq, Skv), (B or 1, 1, Sq, Skv); the last two dims may be padded up (spec §1.1).
void check_full_mask(Ctx& x, int mode, const std::vector<int64_t>& s) {
  attn::AttnProblem& p = x.p;
  const size_t r = s.size();
  const std::string got = "inputs.atten_mask has shape " + dims(s);
  const std::string want = " (" + mode_text(mode) +
                           ": (Sq, Skv), (B or 1, Sq, Skv) or (B or 1, 1, Sq, Skv) with Sq >= " + str(p.Sq) +
                           ", Skv >= " + str(x.skv_max()) + " = prefix + key S, B = " + str(p.B) + ")";
  if (r < 2 || r > 4) fail(got + " but must be 2-D, 3-D or 4-D" + want);
  if (r >= 3 && s[0] != 1 && s[0] != p.B) fail(got + " but its first dim must be 1 or B" + want);
  if (r == 4 && s[1] != 1) fail(got + " but its second dim must be 1" + want);
  if (s[r - 2] < p.Sq || s[r - 1] < x.skv_max()) fail(got + " but its last two dims are too small" + want);
  p.mask = MaskKind::Full;
  p.mask_per_batch = r >= 3 && s[0] == p.B && p.B > 1;
  p.mask_sq = s[r - 2];
  p.mask_skv = s[r - 1];
}

void check_mask(Ctx& x, int mode) {
  if (!has(x.c, "atten_mask")) {
    if (mode == 1) fail("inputs.atten_mask is required with sparse_mode 1 (all-mask mode: the mask alone decides)");
    if (mode >= 2)
      fail("inputs.atten_mask is required with " + mode_text(mode) +
           " (the compressed mask triu(ones(2048, 2048), 1); the vendor requires it)");
    x.p.mask = MaskKind::None;
    return;
  }
  const TensorEntry& t = single(x.c, "atten_mask");
  check_mask_dtype(t);
  x.p.mask_dtype = t.dtype;
  if (mode >= 2) check_compressed_mask(x, mode, shape_of(t));
  else check_full_mask(x, mode, shape_of(t));
}

// Some row of some batch certainly sees no column (before the mask tensor): rows past the band, mode 3 with
// act_q > skv_eff, a negative next, an empty KV. The visible columns of row i are an interval whose ends only
// grow with i, so the empty rows are a prefix and / or a suffix of 0 .. act_q - 1: rows 0 and act_q - 1 decide.
bool rows_certainly_empty(const attn::AttnProblem& p) {
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t rows = p.act_q[static_cast<size_t>(b)];
    if (rows == 0) continue;
    for (int64_t i : {int64_t{0}, rows - 1}) {
      const auto [lo, hi] = p.visible_cols(b, i);
      if (lo >= hi) return true;
    }
  }
  return false;
}
}  // namespace

void check_mask_dtype(const TensorEntry& t) {
  if (t.dtype != ElemType::Bool && t.dtype != ElemType::I8 && t.dtype != ElemType::U8)
    fail("inputs.atten_mask dtype " + elem_type_name(t.dtype) + " must be bool, int8 or uint8 (1 = masked)");
}

// (B or 1, N, >= Sq, >= Skv) in the query dtype (spec §1.1); with query S = 1 the third dim is 1.
void check_pse(Ctx& x) {
  if (!has(x.c, "pse_shift")) return;
  attn::AttnProblem& p = x.p;
  const TensorEntry& t = single(x.c, "pse_shift");
  const auto s = shape_of(t);
  const ElemType want = p.in == ElemType::I8 ? ElemType::F16 : p.in;  // full quantisation adds it in fp16 (§1.7)
  if (t.dtype != want)
    fail("inputs.pse_shift dtype " + elem_type_name(t.dtype) + " must be " + elem_type_name(want) + " (query " +
         elem_type_name(p.in) + ")");
  const auto rows_ok = [&] { return x.decode() ? s[2] == 1 : s[2] >= p.Sq; };
  if (s.size() != 4 || !rows_ok() || (s[0] != 1 && s[0] != p.B) || s[1] != p.N || s[3] < x.skv_max())
    fail("inputs.pse_shift has shape " + dims(s) + " but must be (B = " + str(p.B) + " or 1, N = " + str(p.N) +
         (x.decode() ? ", 1 (query S = 1)" : ", >= Sq = " + str(p.Sq)) + ", >= Skv = " + str(x.skv_max()) +
         " = prefix + key S)");
  p.pse = true;
  p.pse_b = s[0];
  p.pse_sq = s[2];
  p.pse_skv = s[3];
}

void check_scores(Ctx& x) {
  if (x.decode()) {
    check_decode_scores(x);
    return;
  }
  attn::AttnProblem& p = x.p;
  const int mode = check_sparse_mode(x);
  p.sparse_mode = mode;
  p.pre_tokens = attr_int(x.c, "pre_tokens");
  p.next_tokens = attr_int(x.c, "next_tokens");
  check_pre_next(x, mode, p.pre_tokens, p.next_tokens);
  check_mask(x, mode);
  check_pse(x);
}

void check_precision(Ctx& x) {
  attn::AttnProblem& p = x.p;
  p.scale = attr_float(x.c, "scale");
  if (!std::isfinite(p.scale)) fail("attrs.scale = " + std::to_string(p.scale) + " must be a finite number");
  const int64_t ip = attr_int(x.c, "inner_precise");
  if (ip < 0 || ip > 3)
    fail("attrs.inner_precise = " + str(ip) +
         " must be in [0, 3] (bit0 fp16 high performance, bit1 invalid-row correction)");
  p.inner_precise = static_cast<int>(ip);
  // A pse forces high precision (spec §1.5). Query S = 1 never runs high performance: the IFA softmax is fp32,
  // bit 0 only selects the prompt branch's fp16 vector maths (kernels/fia/README.md, decisions). Full
  // quantisation always computes in fp16, pse included (PromptFlashAttentionTypeTraits<int8_t>; spec §1.7).
  p.high_perf = !x.decode() && ((p.in == ElemType::F16 && (ip & 1) && !p.pse) || p.full_quant.on);
  p.row_fix = (ip & 2) || rows_certainly_empty(p);
  p.lse = attr_bool(x.c, "softmax_lse_flag");
}

}  // namespace npusim::op::fia
