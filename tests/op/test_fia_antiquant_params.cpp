// FIA KV antiquantisation with the combined parameters (int8 key / value, float16 query, antiquant_scale /
// antiquant_offset; spec §1.6): what the problem carries, and every rule with exit-2 text naming the parameter,
// the value and the rule. The kernel against the golden model: test_fia_kernel.cpp "Antiquant*".
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;

const std::string kN4 = "num_heads: 4";  // BSH (2, 64, 256): N 4, KV_N 4, D 64

std::string i8_kv(const std::string& q = "float16") {
  return tensor("query", {2, 64, 256}, q) + tensor("key", {2, 128, 256}, "int8") + tensor("value", {2, 128, 256}, "int8");
}
std::string scale(std::vector<int64_t> shape = {2, 256}, const std::string& dtype = "float16") {
  return tensor("antiquant_scale", shape, dtype);
}

TEST(FiaAntiquant, ProblemCarriesTheModeAndKeepsTheFloatQuery) {
  attn::AttnProblem p = parse(kN4, i8_kv() + scale());
  EXPECT_TRUE(p.antiquant.on);
  EXPECT_FALSE(p.antiquant.per_tensor);
  EXPECT_FALSE(p.antiquant.offset);
  EXPECT_EQ(p.in, ElemType::F16);
  EXPECT_EQ(p.kv_in(), ElemType::I8);
  EXPECT_EQ(p.out, ElemType::F16);
  EXPECT_EQ(p.antiquant_index(true, 2, 5), 256 + 2 * 64 + 5);  // V's part follows K's
  p = parse(kN4, i8_kv() + scale({2}) + tensor("antiquant_offset", {2}));
  EXPECT_TRUE(p.antiquant.per_tensor);
  EXPECT_TRUE(p.antiquant.offset);
  EXPECT_EQ(p.antiquant_index(true, 3, 7), 1);
}

TEST(FiaAntiquant, PerChannelShapeFollowsTheLayout) {
  const std::string bnsd = tensor("query", {2, 4, 64, 64}) + tensor("key", {2, 4, 128, 64}, "int8") +
                           tensor("value", {2, 4, 128, 64}, "int8");
  EXPECT_TRUE(parse(kN4 + ", input_layout: BNSD", bnsd + scale({2, 4, 1, 64})).antiquant.on);
  expect_parts(parse_error(kN4 + ", input_layout: BNSD", bnsd + scale({2, 256})),
               {"inputs.antiquant_scale has shape [2, 256]", "[2] (per-tensor) or [2, 4, 1, 64]", "input_layout BNSD"});
  const std::string bsnd = tensor("query", {2, 64, 4, 64}) + tensor("key", {2, 128, 4, 64}, "int8") +
                           tensor("value", {2, 128, 4, 64}, "int8");
  EXPECT_TRUE(parse(kN4 + ", input_layout: BSND", bsnd + scale({2, 4, 64})).antiquant.on);
  expect_parts(parse_error(kN4, i8_kv() + scale({1, 256})), {"inputs.antiquant_scale has shape [1, 256]", "[2, 256]"});
}

TEST(FiaAntiquant, DtypesAndTheOffsetFollowTheScale) {
  expect_parts(parse_error(kN4, i8_kv() + scale({2, 256}, "float32")),
               {"inputs.antiquant_scale dtype float32 must be float16 with a float16 query"});
  expect_parts(parse_error(kN4, i8_kv() + tensor("antiquant_offset", {2, 256})),
               {"inputs.antiquant_offset is given without inputs.antiquant_scale"});
  expect_parts(parse_error(kN4, i8_kv() + scale() + tensor("antiquant_offset", {2, 256}, "float32")),
               {"inputs.antiquant_offset dtype float32 must equal inputs.antiquant_scale's float16"});
  expect_parts(parse_error(kN4, i8_kv() + scale() + tensor("antiquant_offset", {2})),
               {"inputs.antiquant_offset has shape [2]", "[2, 256]"});
}

TEST(FiaAntiquant, KeyAndValueMustBeInt8) {
  expect_parts(parse_error(kN4, bsh_qkv() + scale()),
               {"inputs.antiquant_scale is given but inputs.key is float16", "needs int8 key and value",
                "KV antiquant is unenabled"});
  const std::string mixed = tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 256}, "int8") +
                            tensor("value", {2, 128, 256}, "float16");
  expect_parts(parse_error(kN4, mixed + scale()), {"inputs.value is float16", "needs int8 key and value"});
}

TEST(FiaAntiquant, OtherQueryTypesAndTheDecodeBranchAreRejected) {
  expect_parts(parse_error(kN4, i8_kv("bfloat16") + scale({2, 256}, "bfloat16")),
               {"inputs.antiquant_scale (bfloat16 [2, 256]) with a bfloat16 query", "key_antiquant_scale", "not supported yet"});
  const std::string decode = tensor("query", {2, 1, 256}) + tensor("key", {2, 128, 256}, "int8") +
                             tensor("value", {2, 128, 256}, "int8");
  expect_parts(parse_error(kN4, decode + scale()), {"with query S = 1", "MSD", "not supported yet"});
}

TEST(FiaAntiquant, StorageAndDRules) {
  const std::string d16 = tensor("query", {2, 64, 64}) + tensor("key", {2, 128, 64}, "int8") +
                          tensor("value", {2, 128, 64}, "int8");
  expect_parts(parse_error(kN4, d16 + scale({2, 64})), {"inputs.key is int8", "D = 16", "multiple of 32"});
  const std::string list =
      tensor("query", {2, 64, 256}) + "  key: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n" +
      "  value: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n";
  expect_parts(parse_error(kN4, list + scale()), {"tensor list", "not supported yet"});
}

// Page attention (the vendor's CheckAntiquantParamsShape / CheckPAAntiquantSupportScenarios): the separated
// per-channel parameters, inner_precise 1, sparse_mode 3 with a mask, no pse, BSH / BSND.
const std::string kPaged = tensor("query", {2, 64, 256}) + tensor("key", {4, 128, 256}, "int8") +
                           tensor("value", {4, 128, 256}, "int8") + tensor("block_table", {2, 2}, "int32") +
                           tensor("atten_mask", {2048, 2048}, "bool");
const std::string kPagedAttrs = kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 1, sparse_mode: 3";
std::string separated(const std::string& dtype = "float16", std::vector<int64_t> shape = {1, 256}) {
  return tensor("key_antiquant_scale", shape, dtype) + tensor("value_antiquant_scale", shape, dtype);
}

TEST(FiaAntiquant, PageAttentionTakesTheSeparatedPerChannelParameters) {
  const attn::AttnProblem p = parse(kPagedAttrs, kPaged + separated() + tensor("key_antiquant_offset", {1, 256}) +
                                                     tensor("value_antiquant_offset", {1, 256}));
  EXPECT_TRUE(p.antiquant.on && p.antiquant.separated && p.antiquant.offset && !p.antiquant.per_tensor);
  EXPECT_EQ(p.antiquant_index(true, 1, 3), 64 + 3);  // V's own tensor
  EXPECT_EQ(p.antiquant_tensor(true, true), "value_antiquant_offset");
  expect_parts(parse_error(kPagedAttrs, kPaged + scale()), {"with page attention", "separated key_antiquant_scale"});
  expect_parts(parse_error(kPagedAttrs, kPaged + scale({2})), {"not support antiquant when blockTable is not null"});
  expect_parts(parse_error(kPagedAttrs, kPaged + separated("float16", {2, 256})),
               {"inputs.key_antiquant_scale has shape [2, 256]", "[1, 256]"});
  expect_parts(parse_error(kPagedAttrs, kPaged + tensor("key_antiquant_scale", {1, 256})),
               {"inputs.value_antiquant_scale is missing"});
  expect_parts(parse_error(kPagedAttrs, kPaged + separated() + tensor("key_antiquant_offset", {1, 256})),
               {"key_antiquant_offset and inputs.value_antiquant_offset go together"});
  expect_parts(parse_error(kPagedAttrs, kPaged + separated("float32")), {"inputs.key_antiquant_scale dtype float32 must be float16"});
}

TEST(FiaAntiquant, PageAttentionRulesOfTheVendor) {
  const std::string in = kPaged + separated();
  expect_parts(parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 0, sparse_mode: 3", in),
               {"attrs.inner_precise = 0", "only support high performance"});
  expect_parts(parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 1, sparse_mode: 2", in),
               {"attrs.sparse_mode = 2", "only support sparse mode 3"});
  expect_parts(parse_error(kPagedAttrs, in + tensor("pse_shift", {1, 4, 64, 256})), {"pse_shift", "not support PSE"});
  // Without page attention the vendor's float16 path reads the combined antiquant_scale; S <= 16 runs MSD.
  expect_parts(parse_error(kN4, i8_kv() + separated()), {"only with page attention", "antiquant scale is nullptr"});
  const std::string short_q = tensor("query", {2, 16, 256}) + tensor("key", {2, 128, 256}, "int8") +
                              tensor("value", {2, 128, 256}, "int8");
  expect_parts(parse_error(kN4, short_q + separated()), {"query S = 16", "MSD", "not supported yet"});
  expect_parts(parse_error(kN4, i8_kv() + separated() + scale()), {"both given", "not supported yet"});
  expect_parts(parse_error(kN4, i8_kv() + separated("int8")), {"inputs.key_antiquant_scale dtype int8 is not allowed"});
}

}  // namespace
}  // namespace npusim::op
