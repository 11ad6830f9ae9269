// FIA parameter checks, stages 4 and 5: the system prefix, the actual lengths, left padding and the page
// counts that depend on the lengths (spec §1.1, §1.8).
#include <algorithm>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

using attn::KvStorage;

namespace {
bool paged(const attn::AttnProblem& p) { return p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD; }

// attrs.<name>: 1 value (every batch) or >= B values (the first B used); each in [0, limit(b)].
template <class Limit>
std::vector<int64_t> per_batch(const Ctx& x, const std::string& name, const std::vector<int64_t>& v, Limit limit) {
  const int64_t B = x.p.B, n = static_cast<int64_t>(v.size());
  if (n != 1 && n < B)
    fail("attrs." + name + " = " + dims(v) + " has " + str(n) +
         " values but needs 1 (all batches) or >= B = " + str(B));
  std::vector<int64_t> out;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t a = v[static_cast<size_t>(n == 1 ? 0 : b)];
    const auto [hi, what] = limit(b);
    if (a < 0 || a > hi)
      fail("attrs." + name + "[" + str(n == 1 ? 0 : b) + "] = " + str(a) + " (batch " + str(b) + ") must be in [0, " +
           str(hi) + "] (" + what + ")");
    out.push_back(a);
  }
  return out;
}

std::pair<int64_t, std::string> kv_limit(const attn::AttnProblem& p, int64_t b) {
  if (p.kv == KvStorage::List) return {p.list_s[static_cast<size_t>(b)], "the S of inputs.key[" + str(b) + "]"};
  if (paged(p))
    return {p.max_blocks * p.block_size, "max_blocks * block_size = " + str(p.max_blocks) + " * " + str(p.block_size)};
  return {p.kv_s, "the S of inputs.key"};
}

void resolve_lengths(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const auto q = attr_int_list(x.c, "actual_seq_lengths", &x.act_q_given);
  const auto kv = attr_int_list(x.c, "actual_seq_lengths_kv", &x.act_kv_given);
  if (x.decode())  // query S = 1: the one query row always counts; actual_seq_lengths is not used (IFA branch)
    p.act_q.assign(static_cast<size_t>(p.B), 1);
  else if (x.act_q_given)
    p.act_q = per_batch(x, "actual_seq_lengths", q, [&](int64_t) {
      return std::pair<int64_t, std::string>{p.Sq, "the query S"};
    });
  else p.act_q.assign(static_cast<size_t>(p.B), p.Sq);
  if (paged(p) && !x.act_kv_given)
    fail("attrs.actual_seq_lengths_kv is required with page attention (inputs.block_table given; spec §1.8)");
  if (x.act_kv_given) {
    p.act_kv = per_batch(x, "actual_seq_lengths_kv", kv, [&](int64_t b) { return kv_limit(p, b); });
  } else {
    for (int64_t b = 0; b < p.B; ++b) p.act_kv.push_back(kv_limit(p, b).first);
  }
}

// blockNum >= sum over batches of ceil(act_kv / block_size) (spec §1.8): the table needs that many distinct blocks.
void check_block_count(const attn::AttnProblem& p) {
  int64_t need = 0;
  for (int64_t a : p.act_kv) need += (a + p.block_size - 1) / p.block_size;
  if (p.block_num < need)
    fail("inputs.key has block_num = " + str(p.block_num) + " blocks but attrs.actual_seq_lengths_kv " +
         dims(p.act_kv) + " needs sum(ceil(act_kv / block_size = " + str(p.block_size) + ")) = " + str(need));
}

// Valid rows of batch b are [S - pad - act[b], S - pad): the start must not be negative (spec §1.8).
void check_starts(const std::string& pad_name, int64_t pad, const std::string& act_name,
                  const std::vector<int64_t>& act, const std::string& s_text, int64_t s) {
  for (size_t b = 0; b < act.size(); ++b)
    if (s - pad - act[b] < 0)
      fail("inputs." + pad_name + " = " + str(pad) + " with attrs." + act_name + " = " + str(act[b]) + " (batch " +
           str(static_cast<int64_t>(b)) + ") puts the first row at " + s_text + " " + str(s) + " - " + str(pad) +
           " - " + str(act[b]) + " < 0");
}

void check_left_padding(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const bool qp = has(x.c, "query_padding_size"), kvp = has(x.c, "kv_padding_size");
  if (!qp && !kvp) return;
  const std::string given = qp ? "inputs.query_padding_size" : "inputs.kv_padding_size";
  if (paged(p)) fail(given + ": left padding cannot be combined with page attention (inputs.block_table; spec §1.8)");
  if (p.kv == KvStorage::List) fail(given + ": left padding cannot be combined with a tensor-list key / value");
  if (p.prefix) fail(given + ": left padding cannot be combined with the system prefix (inputs.key_shared_prefix)");
  if (x.decode()) {
    check_decode_padding(x);
    return;
  }
  // The vendor flags the two sides separately; AttnProblem has one left_pad flag that right-aligns both, so
  // a one-sided case would be addressed differently from the vendor: require both (either may be [0]).
  if (qp != kvp)
    fail(given + " is given without inputs." + (qp ? "kv_padding_size" : "query_padding_size") +
         ": npusim supports left padding of query and key / value together (give the other as [0] if it has none)");
  p.left_pad = true;
  p.q_pad = padding_value(x, "query_padding_size", x.act_q_given, "actual_seq_lengths");
  p.kv_pad = padding_value(x, "kv_padding_size", x.act_kv_given, "actual_seq_lengths_kv");
  check_starts("query_padding_size", p.q_pad, "actual_seq_lengths", p.act_q, "query S", p.Sq);
  check_starts("kv_padding_size", p.kv_pad, "actual_seq_lengths_kv", p.act_kv, "key S", p.kv_s);
}
}  // namespace

// One padding input: int64 [1], needs its actual lengths; returns max(value, 0) (the kernel clamps it).
int64_t padding_value(const Ctx& x, const std::string& name, bool act_given, const std::string& act_name) {
  const TensorEntry& t = single(x.c, name);
  const std::string label = "inputs." + name;
  if (t.dtype != ElemType::I64) fail(label + " dtype " + elem_type_name(t.dtype) + " must be int64");
  if (shape_of(t) != std::vector<int64_t>{1}) fail(label + " has shape " + dims(shape_of(t)) + " but must be [1]");
  if (!act_given)
    fail(label + " needs attrs." + act_name + " (left padding places the actual rows before the padding)");
  return std::max<int64_t>(first_value(t), 0);
}

void check_prefix(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const bool k = has(x.c, "key_shared_prefix"), v = has(x.c, "value_shared_prefix");
  bool len_given = false;
  const auto len = attr_int_list(x.c, "actual_shared_prefix_len", &len_given);
  if (!k && !v) {
    if (len_given)
      fail("attrs.actual_shared_prefix_len = " + dims(len) +
           " is given without inputs.key_shared_prefix / value_shared_prefix");
    return;
  }
  if (k != v)
    fail(std::string("inputs.key_shared_prefix and inputs.value_shared_prefix must be given together (only ") +
         (k ? "key" : "value") + "_shared_prefix is given)");
  if (paged(p)) fail("inputs.key_shared_prefix cannot be combined with page attention (inputs.block_table; spec §1.8)");
  if (p.kv == KvStorage::List)
    fail("inputs.key_shared_prefix cannot be combined with a tensor-list key / value (spec §1.8)");
  const TensorEntry& kp = single(x.c, "key_shared_prefix");
  const TensorEntry& vp = single(x.c, "value_shared_prefix");
  for (const TensorEntry* t : {&kp, &vp})
    if (t->dtype != p.kv_in())
      fail("inputs." + t->name + " dtype " + elem_type_name(t->dtype) + " must equal the key dtype " +
           elem_type_name(p.kv_in()));
  p.prefix_s = kv_layout_rows(x, "inputs.key_shared_prefix", shape_of(kp), 1);
  same_shape("inputs.value_shared_prefix", shape_of(vp), "inputs.key_shared_prefix", shape_of(kp));
  p.prefix = true;
  p.prefix_len = p.prefix_s;
  if (!len_given) return;
  if (len.size() != 1 || len[0] < 0 || len[0] > p.prefix_s)
    fail("attrs.actual_shared_prefix_len = " + dims(len) + " must be one value in [0, " + str(p.prefix_s) +
         "] (the S of inputs.key_shared_prefix)");
  p.prefix_len = len[0];
}

void check_lengths(Ctx& x) {
  resolve_lengths(x);
  if (paged(x.p)) check_block_count(x.p);
  check_left_padding(x);
}

}  // namespace npusim::op::fia
