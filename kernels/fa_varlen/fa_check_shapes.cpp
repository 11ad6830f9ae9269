// FA V3 parameter checks, stages 1-3: what must be absent, the tensors' shapes and dtypes, the sequence lengths
// (spec §2.1, §2.4; kernels/fa_varlen/README.md "Decisions").
#include <algorithm>

#include "kernels/fa_varlen/fa_checks.h"

namespace npusim::op::fa {

using attn::Layout;

namespace {
constexpr int64_t kMaxHeads = 256, kMaxHeadDim = 768, kMaxBatch = 2048, kMaxTokens = 1048576;  // spec §2.1 doc limits
constexpr int64_t kDimAlign = 8;                                                               // D, Dv, Dr (spec §2.1)

std::vector<int64_t> rank3(const CaseFile& c, const std::string& name, const char* form) {
  const std::vector<int64_t> s = shape_of(single(c, name));
  if (s.size() != 3)
    fail("inputs." + name + " has shape " + dims(s) + " (rank " + str(int64_t(s.size())) +
         ") but input_layout TND needs " + form);
  return s;
}

void check_dtypes(const Ctx& x) {
  const ElemType q = single(x.c, "query").dtype;
  if (q != ElemType::BF16 && q != ElemType::F16)
    fail("inputs.query dtype " + elem_type_name(q) +
         " is not supported (bfloat16, or float16 without rope; the float32 variant of the older pages is not "
         "modelled)");
  for (const char* t : {"key", "value", "query_rope", "key_rope"})
    if (has(x.c, t) && single(x.c, t).dtype != q)
      fail(std::string("inputs.") + t + " dtype " + elem_type_name(single(x.c, t).dtype) + " must equal the query's (" +
           elem_type_name(q) + ")");
  if (x.rope && q != ElemType::BF16)
    fail("inputs.query dtype " + elem_type_name(q) +
         " is not allowed with query_rope / key_rope (spec §2.4: bfloat16 only)");
}

void check_head_dims(const attn::AttnProblem& p) {
  if (p.D < kDimAlign || p.D > kMaxHeadDim || p.D % kDimAlign)
    fail("inputs.query head dim D = " + str(p.D) + " must be a multiple of 8 in [8, 768] (spec §2.1)");
  if (p.Dv < kDimAlign || p.Dv > p.D || p.Dv % kDimAlign)
    fail("inputs.value head dim Dv = " + str(p.Dv) + " must be a multiple of 8 in [8, D = " + str(p.D) +
         "] (spec §2.4: kD >= vD)");
}

void check_rope(Ctx& x, const std::vector<int64_t>& q, const std::vector<int64_t>& k) {
  attn::AttnProblem& p = x.p;
  const auto qr = rank3(x.c, "query_rope", "(T1, N1, Dr)"), kr = rank3(x.c, "key_rope", "(T2, N2, Dr)");
  if (qr[0] != q[0] || qr[1] != q[1])
    fail("inputs.query_rope has shape " + dims(qr) + " but its T1, N1 must match the query's " + dims(q));
  if (kr[0] != k[0] || kr[1] != k[1])
    fail("inputs.key_rope has shape " + dims(kr) + " but its T2, N2 must match the key's " + dims(k));
  if (kr[2] != qr[2]) fail("inputs.key_rope head dim " + str(kr[2]) + " must equal query_rope's Dr = " + str(qr[2]));
  p.Dr = qr[2];
  if (p.Dr < kDimAlign || p.Dr > p.D || p.Dr % kDimAlign)
    fail("inputs.query_rope head dim Dr = " + str(p.Dr) + " must be a multiple of 8 in [8, D = " + str(p.D) +
         "] (spec §2.1)");
}

// Vendor IsNeedPad (spec §2.4 "shape needing pad"): with rope a D or Dv off the alignment, or D != Dv for the
// D values the vendor pads, is rejected -- unless D < 96 and the sequences are short enough for the waiver.
void check_rope_padding(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  const int64_t a = (p.D < 196 || p.D == 448) ? 16 : 128;
  const bool odd_dv = p.D != p.Dv && (p.D == 64 || p.D == 80 || p.D == 88);
  if (p.D % a == 0 && p.Dv % a == 0 && !odd_dv) return;
  int64_t max_kv = 0, last_q = 0;
  for (int64_t b = 0; b < p.B; ++b) {
    max_kv = std::max(max_kv, p.act_kv[size_t(b)]);
    if (p.act_q[size_t(b)]) last_q = p.q_start(b) + p.act_q[size_t(b)];
  }
  if (p.D < 96 && max_kv <= 1024 && last_q < 163840) return;
  fail("inputs.query D = " + str(p.D) + ", value Dv = " + str(p.Dv) +
       " would need padding, which the rope variant rejects (spec §2.4): D and Dv must be multiples of " + str(a) +
       (odd_dv ? " and D = Dv for D in {64, 80, 88}" : "") +
       " (waived for D < 96 when every Skv <= 1024 and the query ends before token 163840)");
}

// Cumulative ends -> lengths: non-negative, non-decreasing, the last equal to the tensor's T.
std::vector<int64_t> lengths(const CaseFile& c, const std::string& name, int64_t t, const char* tensor) {
  const std::vector<int64_t> cum = attr_int_list(c, name);
  std::vector<int64_t> len;
  int64_t prev = 0;
  for (size_t b = 0; b < cum.size(); ++b) {
    if (cum[b] < prev)
      fail("attrs." + name + "[" + str(int64_t(b)) + "] = " + str(cum[b]) + " is less than " +
           (b ? "the previous value " + str(prev) : std::string("0")) + " (cumulative ends never decrease)");
    len.push_back(cum[b] - prev);
    prev = cum[b];
  }
  if (len.empty()) fail("attrs." + name + " must list at least one batch (cumulative ends, e.g. [2, 4, 4, 6])");
  if (prev != t)
    fail("attrs." + name + " ends at " + str(prev) + " but inputs." + tensor + " has T = " + str(t) +
         " (the last cumulative end equals T)");
  return len;
}
}  // namespace

void check_absent(const Ctx& x) {
  for (const char* t : {"pse", "padding_mask", "drop_mask"})
    if (has(x.c, t))
      fail(std::string("inputs.") + t + " must be absent: flash_attention_var_len_score V3 takes no " +
           (std::string(t) == "pse"         ? "position shift"
            : std::string(t) == "drop_mask" ? "dropout"
                                            : "padding mask") +
           " (spec §2.4, the vendor's phase-1 check)");
  const std::string lay = attr_string(x.c, "input_layout");
  if (lay != "TND") fail("attrs.input_layout = '" + lay + "' is not supported (TND is the only layout of FA V3)");
  const double kp = attr_float(x.c, "keep_prob");
  if (kp != 1.0) fail("attrs.keep_prob = " + std::to_string(kp) + " must be 1 (dropout is not supported; spec §2.4)");
  const int64_t pt = attr_int(x.c, "pse_type");
  if (pt != 0 && pt != 1)
    fail("attrs.pse_type = " + str(pt) + " must be 0 or 1 (types 2 / 3 generate an alibi pse, which FA V3 forbids)");
}

void check_tensors(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const bool qr = has(x.c, "query_rope"), kr = has(x.c, "key_rope");
  if (qr != kr)
    fail(std::string("inputs.") + (qr ? "key_rope" : "query_rope") +
         " is missing: query_rope and key_rope come together (spec §2.4)");
  x.rope = qr;
  check_dtypes(x);
  const auto q = rank3(x.c, "query", "(T1, N1, D)"), k = rank3(x.c, "key", "(T2, N2, D)"),
             v = rank3(x.c, "value", "(T2, N2, Dv)");
  p.N = attr_int(x.c, "head_num");
  if (p.N < 1 || p.N > kMaxHeads)
    fail("attrs.head_num = " + str(p.N) + " must be in [1, 256] (spec §2.4: headNum > 0)");
  if (q[1] != p.N)
    fail("attrs.head_num = " + str(p.N) + " must equal the query's N1 = " + str(q[1]) + " (query " + dims(q) + ")");
  if (k[2] != q[2])
    fail("inputs.key head dim " + str(k[2]) + " must equal the query's D = " + str(q[2]) + " (spec §2.4: qD = kD)");
  if (k[1] < 1 || p.N % k[1])
    fail("inputs.key heads N2 = " + str(k[1]) + " must divide head_num = " + str(p.N) +
         " (q head n reads kv head n / (N1 / N2))");
  if (v[0] != k[0] || v[1] != k[1])
    fail("inputs.value has shape " + dims(v) + " but its T2, N2 must match the key's " + dims(k));
  for (int64_t t : {q[0], k[0]})
    if (t > kMaxTokens) fail("inputs.query / key T = " + str(t) + " exceeds 1048576 (spec §2.1 limits)");
  p.layout = p.out_layout = Layout::TND;
  p.kv = attn::KvStorage::Dense;
  p.in = p.out = single(x.c, "query").dtype;
  p.Sq = q[0], p.kv_s = k[0], p.D = q[2], p.Dv = v[2];
  p.KV_N = k[1], p.G = p.N / p.KV_N;
  check_head_dims(p);
  if (x.rope) check_rope(x, q, k);
}

void check_lengths(Ctx& x) {
  attn::AttnProblem& p = x.p;
  p.act_q = lengths(x.c, "actual_seq_qlen", p.Sq, "query");
  p.act_kv = lengths(x.c, "actual_seq_kvlen", p.kv_s, "key");
  if (p.act_q.size() != p.act_kv.size())
    fail("attrs.actual_seq_qlen lists " + str(int64_t(p.act_q.size())) + " batches but attrs.actual_seq_kvlen " +
         str(int64_t(p.act_kv.size())) + " (one cumulative end per batch in each)");
  p.B = int64_t(p.act_q.size());
  if (p.B > kMaxBatch) fail("attrs.actual_seq_qlen lists B = " + str(p.B) + " batches, more than 2048 (spec §2.1)");
  if (x.rope) check_rope_padding(x);
}

}  // namespace npusim::op::fa
