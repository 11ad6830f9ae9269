// FIA parameter checks, stage 3: key and value -- one dense tensor, a tensor list (one batch-1 tensor per
// batch) or page attention through block_table (spec §1.1, §1.2, §1.8).
#include <algorithm>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

using attn::KvStorage;
using attn::Layout;

namespace {
constexpr int64_t kMaxListBatch = 256;
constexpr int64_t kBlockAlign = 128, kMinBlock = 128, kMaxBlock = 512;  // page blocks with query S > 1
constexpr int64_t kMaxDecodeBlock = 512;                                // query S = 1: any size in [1, 512]
constexpr int64_t kMaxPagedHidden = 65535;                              // KV_N * D, BnBsH paged layout

// K / V are in the query's dtype, or int8 / int4 with a float16 / bfloat16 query and antiquant parameters (KV
// antiquantisation); int4 is set by the first key tensor and the rest must follow it.
void check_kv_dtype(const Ctx& x, const std::string& label, ElemType t) {
  if (x.p.antiquant.on) {
    if (t == x.p.kv_in()) return;
    if (t == ElemType::I8 || t == ElemType::I4)
      fail(label + " is " + elem_type_name(t) + " but inputs.key is " + elem_type_name(x.p.kv_in()) +
           ": key and value (and a shared prefix) are all int8 or all int4 (spec §1.6)");
    fail("inputs.antiquant_scale is given but " + label + " is " + elem_type_name(t) +
         ": KV antiquantisation needs int8 or int4 key and value (the vendor: \"KV antiquant is unenabled, but "
         "antiquant antiquantScale/antiquantOffset exist\"; spec §1.6)");
  }
  if (t == x.p.in) return;
  if (t == ElemType::I8 && x.p.in == ElemType::F16)
    fail(label +
         " dtype int8 with a float16 query is KV antiquantisation: it needs inputs.antiquant_scale or "
         "inputs.key_antiquant_scale / value_antiquant_scale (spec §1.6)");
  if (t == ElemType::I8 && x.p.in == ElemType::BF16)
    fail(label +
         " dtype int8 with a bfloat16 query is KV antiquantisation: it needs inputs.key_antiquant_scale and "
         "inputs.value_antiquant_scale (the vendor: \"The key's dequant scale and the value's dequant scale should not "
         "be null, when data type of query is bf16 and data type of key/value is int8\"; at query S = 1 also the "
         "combined inputs.antiquant_scale)");
  if (t == ElemType::I4)
    fail(label + " dtype int4 (or int32 packing 8 int4) with a " + elem_type_name(x.p.in) +
         " query is int4 KV antiquantisation: it needs inputs.key_antiquant_scale and inputs.value_antiquant_scale "
         "(spec §1.6)");
  fail(label + " dtype " + elem_type_name(t) + " must equal the query dtype " + elem_type_name(x.p.in));
}

std::string heads_text(const attn::AttnProblem& p) {
  return "KV_N = " + str(p.KV_N) + " (attrs.num_key_value_heads, 0 = num_heads) and D = " + str(p.D);
}

void check_dense(Ctx& x) {
  const TensorEntry& k = single(x.c, "key");
  const TensorEntry& v = single(x.c, "value");
  x.p.kv = KvStorage::Dense;
  x.p.kv_s = kv_layout_rows(x, "inputs.key", shape_of(k), x.p.B);
  same_shape("inputs.value", shape_of(v), "inputs.key", shape_of(k));
  x.kv_rows = x.p.kv_s;
}

void check_list(Ctx& x) {
  if (!x.c.tensor_is_list("key") || !x.c.tensor_is_list("value"))
    fail(std::string("inputs.key and inputs.value must both be tensor lists or both tensors (") +
         (x.c.tensor_is_list("key") ? "key" : "value") + " is a YAML list, the other is not)");
  const auto& ks = x.c.inputs.at("key");
  const auto& vs = x.c.inputs.at("value");
  const int64_t n = static_cast<int64_t>(ks.size());
  if (x.p.B > kMaxListBatch)
    fail("inputs.key is a tensor list but the query batch B = " + str(x.p.B) + " exceeds " + str(kMaxListBatch) +
         " (spec §1.8 tensor-list KV)");
  if (n != x.p.B)
    fail("inputs.key is a tensor list of " + str(n) + " tensors but the query batch B = " + str(x.p.B) +
         " (one batch-1 tensor per batch)");
  if (static_cast<int64_t>(vs.size()) != n)
    fail("inputs.value is a tensor list of " + str(static_cast<int64_t>(vs.size())) + " tensors but inputs.key has " +
         str(n));
  x.p.kv = KvStorage::List;
  for (int64_t b = 0; b < n; ++b) {
    const std::string kl = "inputs.key[" + str(b) + "]", vl = "inputs.value[" + str(b) + "]";
    const auto& k = ks[static_cast<size_t>(b)];
    x.p.list_s.push_back(kv_layout_rows(x, kl, shape_of(k), 1));
    same_shape(vl, shape_of(vs[static_cast<size_t>(b)]), kl, shape_of(k));
  }
  x.p.kv_s = x.p.list_s.empty() ? 0 : *std::max_element(x.p.list_s.begin(), x.p.list_s.end());
  x.kv_rows = x.p.kv_s;
}

void check_block_table(Ctx& x) {
  const TensorEntry& bt = single(x.c, "block_table");
  const auto s = shape_of(bt);
  if (bt.dtype != ElemType::I32) fail("inputs.block_table dtype " + elem_type_name(bt.dtype) + " must be int32");
  if (s.size() != 2 || s[0] != x.p.B || s[1] < 1)
    fail("inputs.block_table has shape " + dims(s) + " but must be (B = " + str(x.p.B) + ", max_blocks >= 1)");
  x.p.max_blocks = s[1];
  const int64_t bs = attr_int(x.c, "block_size");
  if (x.decode() && (bs < 1 || bs > kMaxDecodeBlock))  // spec §1.8: non-zero and <= 512 when Sq = 1
    fail("attrs.block_size = " + str(bs) + " must be in [1, " + str(kMaxDecodeBlock) +
         "] for page attention (inputs.block_table given) with query S = 1");
  if (!x.decode() && (bs % kBlockAlign != 0 || bs < kMinBlock || bs > kMaxBlock))
    fail("attrs.block_size = " + str(bs) + " must be a multiple of " + str(kBlockAlign) + " in [" + str(kMinBlock) +
         ", " + str(kMaxBlock) + "] for page attention (inputs.block_table given) with query S > 1");
  x.p.block_size = bs;
}

// (block_num, block_size, KV_N*D) any layout, or (block_num, KV_N, block_size, D) with a BNSD query.
void check_paged_key(Ctx& x, const std::vector<int64_t>& s) {
  attn::AttnProblem& p = x.p;
  const std::string got = "inputs.key has shape " + dims(s);
  if (s.size() == 3) {
    if (p.KV_N * p.D > kMaxPagedHidden)
      fail("inputs.key: paged (block_num, block_size, H) needs KV_N * D = " + str(p.KV_N * p.D) +
           " <= " + str(kMaxPagedHidden) + " (" + heads_text(p) + ")");
    if (s[1] != p.block_size || s[2] != p.KV_N * p.D)
      fail(got + " but paged K / V must be (block_num, block_size = " + str(p.block_size) +
           ", KV_N * D = " + str(p.KV_N * p.D) + ") with " + heads_text(p));
    p.kv = KvStorage::PagedBsH;
  } else if (s.size() == 4) {
    // The vendor accepts the 4-D page layout with a BNSD query; BNSD_BSND reads its input as BNSD.
    if (p.layout != Layout::BNSD && p.layout != Layout::BNSD_BSND)
      fail(got + ": the 4-D paged layout (block_num, KV_N, block_size, D) needs input_layout BNSD, not " +
           attn::layout_name(p.layout));
    if (s[1] != p.KV_N || s[2] != p.block_size || s[3] != p.D)
      fail(got + " but paged K / V must be (block_num, KV_N = " + str(p.KV_N) + ", block_size = " + str(p.block_size) +
           ", D = " + str(p.D) + ") with " + heads_text(p));
    p.kv = KvStorage::PagedNBsD;
  } else {
    fail(got +
         " but paged K / V must be 3-D (block_num, block_size, KV_N * D) or 4-D (block_num, KV_N, block_size, D)");
  }
  p.block_num = s[0];
}

void check_paged(Ctx& x) {
  if (x.c.tensor_is_list("key") || x.c.tensor_is_list("value"))
    fail(
        "inputs.key / inputs.value: a tensor list cannot be combined with page attention (inputs.block_table; spec "
        "§1.8)");
  check_block_table(x);
  const TensorEntry& k = single(x.c, "key");
  const TensorEntry& v = single(x.c, "value");
  check_paged_key(x, shape_of(k));
  same_shape("inputs.value", shape_of(v), "inputs.key", shape_of(k));
  x.p.kv_s = x.p.max_blocks * x.p.block_size;  // unused by the paged addressing; the longest a batch can address
  x.kv_rows = x.p.kv_s;
}
}  // namespace

int64_t kv_layout_rows(const Ctx& x, const std::string& label, const std::vector<int64_t>& s, int64_t batch) {
  const attn::AttnProblem& p = x.p;
  const std::string lay = attn::layout_name(p.layout);
  const std::string b = "B = " + str(batch);
  std::string want;
  int64_t rows = 0;
  bool ok = false;
  if (p.layout == Layout::BSH) {
    want = "(" + b + ", S, H = KV_N * D = " + str(p.KV_N * p.D) + ")";
    ok = s.size() == 3 && s[0] == batch && s[2] == p.KV_N * p.D;
    rows = ok ? s[1] : 0;
  } else if (p.layout == Layout::BSND) {
    want = "(" + b + ", S, KV_N = " + str(p.KV_N) + ", D = " + str(p.D) + ")";
    ok = s.size() == 4 && s[0] == batch && s[2] == p.KV_N && s[3] == p.D;
    rows = ok ? s[1] : 0;
  } else {
    want = "(" + b + ", KV_N = " + str(p.KV_N) + ", S, D = " + str(p.D) + ")";
    ok = s.size() == 4 && s[0] == batch && s[1] == p.KV_N && s[3] == p.D;
    rows = ok ? s[2] : 0;
  }
  if (!ok)
    fail(label + " has shape " + dims(s) + " but input_layout " + lay + " with " + heads_text(p) + " needs " + want);
  return rows;
}

void same_shape(const std::string& other_label, const std::vector<int64_t>& other, const std::string& ref_label,
                const std::vector<int64_t>& ref) {
  if (other != ref)
    fail(other_label + " has shape " + dims(other) + " but must equal " + ref_label + "'s " + dims(ref) +
         " (K and V shapes must be identical)");
}

void check_kv(Ctx& x) {
  x.p.antiquant.int4 = x.p.antiquant.on && int4_key(x.c);
  for (const char* name : {"key", "value"})
    for (size_t i = 0; i < x.c.inputs.at(name).size(); ++i) {
      std::string label = std::string("inputs.") + name;
      if (x.c.tensor_is_list(name)) label.append("[").append(str(static_cast<int64_t>(i))).append("]");
      check_kv_dtype(x, label, x.c.inputs.at(name)[i].dtype);
    }
  if (has(x.c, "block_table")) {
    check_paged(x);
    return;
  }
  if (const int64_t bs = attr_int(x.c, "block_size"); bs != 0)
    fail("attrs.block_size = " + str(bs) +
         " is given without inputs.block_table (block_size is the page-attention block; without a block table K and V "
         "are dense)");
  if (x.c.tensor_is_list("key") || x.c.tensor_is_list("value")) check_list(x);
  else check_dense(x);
}

}  // namespace npusim::op::fia
