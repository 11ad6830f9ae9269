// FIA parameter checks, stage 2: quantisation parameters (spec §1.6, §1.7). Each is validated for its basic
// dtype / mode range -- so a malformed case gets the precise rule -- and then rejected: the quantised kernels
// (full quant, post-quant, KV antiquant) are not implemented, and silently ignoring them would compute a
// different operator.
#include <set>

#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {
const char* const kNotYet = " is not supported yet (quantised FIA kernels are not implemented)";

struct QuantTensor {
  const char* name;
  std::set<ElemType> dtypes;
  const char* dtypes_text;
  const char* feature;
};

std::vector<QuantTensor> quant_tensors(ElemType query) {
  const std::set<ElemType> antiquant = {ElemType::F16, ElemType::BF16, ElemType::F32};
  std::set<ElemType> post = {ElemType::F32};
  if (query == ElemType::BF16) post.insert(ElemType::BF16);  // spec §1.1: BF16 also allowed with a BF16 query
  // dequant scales may also be UINT64 in the vendor API; uint64 is not a case-file dtype.
  return {
      {"dequant_scale1", {ElemType::F32}, "float32", "full quantisation (int8 Q, K, V)"},
      {"quant_scale1", {ElemType::F32}, "float32", "full quantisation (int8 Q, K, V)"},
      {"dequant_scale2", {ElemType::F32}, "float32", "full quantisation (int8 Q, K, V)"},
      {"quant_scale2", post, "float32, or bfloat16 with a bfloat16 query", "post-quantisation (int8 attention_out)"},
      {"quant_offset2", post, "float32, or bfloat16 with a bfloat16 query", "post-quantisation (int8 attention_out)"},
      {"antiquant_scale", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"},
      {"antiquant_offset", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"},
      {"key_antiquant_scale", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"},
      {"key_antiquant_offset", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"},
      {"value_antiquant_scale", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"},
      {"value_antiquant_offset", antiquant, "float16, bfloat16 or float32", "KV antiquantisation (int8 / int4 K, V)"}};
}

void check_quant_tensor(const Ctx& x, const QuantTensor& q) {
  if (!has(x.c, q.name)) return;
  const TensorEntry& t = single(x.c, q.name);
  const std::string label = std::string("inputs.") + q.name;
  if (!q.dtypes.count(t.dtype))
    fail(label + " dtype " + elem_type_name(t.dtype) + " is not allowed (" + q.dtypes_text + "; query " +
         elem_type_name(x.p.in) + ")");
  fail(label + " (" + elem_type_name(t.dtype) + " " + dims(shape_of(t)) + ") is given: " + q.feature + kNotYet);
}

// antiquant_mode 0..1 (legacy); key/value_antiquant_mode 0..5 (6 = per-token-group is not on A2), only 0 and 1
// with query S > 1 (all of 0-5 with S = 1), equal except K per-channel (0) + V per-token (1) (spec §1.6).
void check_modes(const Ctx& x) {
  const int64_t legacy = attr_int(x.c, "antiquant_mode", 0);
  if (legacy < 0 || legacy > 1)
    fail("attrs.antiquant_mode = " + str(legacy) + " must be 0 (per-channel) or 1 (per-token)");
  const int64_t km = attr_int(x.c, "key_antiquant_mode", 0), vm = attr_int(x.c, "value_antiquant_mode", 0);
  for (const auto& [name, m] :
       {std::pair<const char*, int64_t>{"key_antiquant_mode", km}, {"value_antiquant_mode", vm}}) {
    if (m < 0 || m > 5)
      fail(std::string("attrs.") + name + " = " + str(m) + " must be in [0, 5] (spec §1.6; 6 is not on A2)");
    if (m > 1 && x.p.Sq != 1)
      fail(std::string("attrs.") + name + " = " + str(m) + " must be 0 or 1 when query S > 1 (spec §1.6)");
  }
  if (km != vm && !(km == 0 && vm == 1))
    fail("attrs.key_antiquant_mode = " + str(km) + " and attrs.value_antiquant_mode = " + str(vm) +
         " must be equal, or 0 and 1 (spec §1.6)");
  if (legacy != 0) fail("attrs.antiquant_mode = " + str(legacy) + ": KV antiquantisation" + kNotYet);
  if (km != 0) fail("attrs.key_antiquant_mode = " + str(km) + ": KV antiquantisation" + kNotYet);
  if (vm != 0) fail("attrs.value_antiquant_mode = " + str(vm) + ": KV antiquantisation" + kNotYet);
}
}  // namespace

void check_quant(Ctx& x) {
  for (const auto& q : quant_tensors(x.p.in)) check_quant_tensor(x, q);
  check_modes(x);
}

}  // namespace npusim::op::fia
