// FIA V2 parameter checks (kernels/fia/fia_check_*.cpp): every rule rejects a broken case with a CaseError
// naming the parameter, the offending value and the rule. Positive parses: test_fia_problem.cpp.
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;

const std::string kN4 = "num_heads: 4";

TEST(FiaQuery, LayoutMustBeOneFiaV2Supports) {
  expect_parts(parse_error(kN4 + ", input_layout: TND", bsh_qkv()),
               {"attrs.input_layout", "'TND'", "not supported by FIA V2"});
  expect_parts(parse_error(kN4 + ", input_layout: SH", bsh_qkv()), {"attrs.input_layout", "'SH'", "BNSD_BSND"});
}

TEST(FiaQuery, RankMustMatchTheLayout) {
  expect_parts(parse_error(kN4 + ", input_layout: BNSD", bsh_qkv()),
               {"inputs.query", "[2, 64, 256]", "rank 3", "BNSD needs rank 4 (B, N, S, D)"});
  const std::string q4 =
      tensor("query", {2, 64, 4, 64}) + tensor("key", {2, 128, 4, 64}) + tensor("value", {2, 128, 4, 64});
  expect_parts(parse_error(kN4, q4), {"inputs.query", "[2, 64, 4, 64]", "BSH needs rank 3 (B, S, H)"});
}

TEST(FiaQuery, DtypeIsFloat16Bfloat16OrInt8WithTheFullQuantScales) {
  expect_parts(parse_error(kN4, bsh_qkv("int8")), {"inputs.dequant_scale1 is required with an int8 query"});
  expect_parts(parse_error(kN4, bsh_qkv("float32")),
               {"inputs.query", "float32", "not allowed (float16, bfloat16, or int8 for full quantisation)"});
}

TEST(FiaQuery, NumHeadsIsRequiredAndInRange) {
  expect_parts(parse_error("", bsh_qkv()), {"attrs.num_heads", "required"});
  expect_parts(parse_error("num_heads: 0", bsh_qkv()), {"attrs.num_heads = 0", "[1, 256]"});
  expect_parts(parse_error("num_heads: 512", bsh_qkv()), {"attrs.num_heads = 512", "[1, 256]"});
}

TEST(FiaQuery, NumHeadsMustEqualTheQueryNForFourDimLayouts) {
  const std::string q =
      tensor("query", {2, 4, 64, 64}) + tensor("key", {2, 4, 128, 64}) + tensor("value", {2, 4, 128, 64});
  expect_parts(parse_error("num_heads: 8, input_layout: BNSD", q), {"attrs.num_heads = 8", "N dimension 4", "BNSD"});
}

TEST(FiaQuery, BshHiddenSizeMustBeAMultipleOfNumHeads) {
  expect_parts(parse_error("num_heads: 3", bsh_qkv()),
               {"inputs.query H = 256", "attrs.num_heads = 3", "D = H / num_heads"});
}

TEST(FiaQuery, HeadDimIsAMultipleOf16UpTo512) {
  const std::string d24 = tensor("query", {1, 64, 96}) + tensor("key", {1, 64, 96}) + tensor("value", {1, 64, 96});
  expect_parts(parse_error(kN4, d24), {"inputs.query", "D = 24", "multiple of 16", "512"});
  const std::string d528 =
      tensor("query", {1, 64, 1, 528}) + tensor("key", {1, 64, 1, 528}) + tensor("value", {1, 64, 1, 528});
  expect_parts(parse_error("num_heads: 1, input_layout: BSND", d528), {"D = 528", "[16, 512]"});
}

TEST(FiaQuery, BatchIsAtMost65536) {
  const std::string q =
      tensor("query", {65537, 2, 64}) + tensor("key", {65537, 2, 64}) + tensor("value", {65537, 2, 64});
  expect_parts(parse_error("num_heads: 1", q), {"inputs.query", "B = 65537", "65536"});
}

TEST(FiaQuery, KvHeadsDivideNumHeadsWithGroupAtMost64) {
  expect_parts(parse_error(kN4 + ", num_key_value_heads: 3", bsh_qkv()),
               {"attrs.num_key_value_heads = 3", "must divide", "= 4"});
  expect_parts(parse_error(kN4 + ", num_key_value_heads: -1", bsh_qkv()), {"attrs.num_key_value_heads = -1", ">= 0"});
  const std::string q =
      tensor("query", {1, 64, 128, 64}) + tensor("key", {1, 64, 1, 64}) + tensor("value", {1, 64, 1, 64});
  expect_parts(parse_error("num_heads: 128, num_key_value_heads: 1, input_layout: BSND", q), {"G = 128", "exceeds 64"});
}

TEST(FiaQuery, QueryMustBeOneTensor) {
  const std::string q = "  query: [{shape: [1, 64, 256], dtype: float16}]\n" + tensor("key", {1, 128, 256}) +
                        tensor("value", {1, 128, 256});
  expect_parts(parse_error(kN4, q), {"inputs.query must be one tensor", "tensor list of 1"});
}

TEST(FiaKv, DtypeMustEqualTheQueryAndInt8NeedsTheAntiquantScale) {
  const std::string bf =
      tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 256}, "bfloat16") + tensor("value", {2, 128, 256});
  expect_parts(parse_error(kN4, bf), {"inputs.key", "bfloat16", "must equal the query dtype float16"});
  const std::string i8 =
      tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 256}) + tensor("value", {2, 128, 256}, "int8");
  expect_parts(parse_error(kN4, i8),
               {"inputs.value dtype int8 with a float16 query is KV antiquantisation", "needs inputs.antiquant_scale"});
  const std::string bf_i8 = tensor("query", {2, 64, 256}, "bfloat16") + tensor("key", {2, 128, 256}, "int8") +
                            tensor("value", {2, 128, 256}, "int8");
  expect_parts(parse_error(kN4, bf_i8),
               {"inputs.key dtype int8 with a bfloat16 query", "needs inputs.key_antiquant_scale"});
}

TEST(FiaKv, KeyShapeMustHoldKvHeadsOfDInTheQueryLayout) {
  const std::string k = tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 128}) + tensor("value", {2, 128, 128});
  expect_parts(parse_error(kN4, k), {"inputs.key has shape [2, 128, 128]", "KV_N = 4", "H = KV_N * D = 256"});
  const std::string b = tensor("query", {2, 64, 256}) + tensor("key", {1, 128, 256}) + tensor("value", {1, 128, 256});
  expect_parts(parse_error(kN4, b), {"inputs.key has shape [1, 128, 256]", "B = 2"});
  const std::string n =
      tensor("query", {2, 4, 64, 64}) + tensor("key", {2, 2, 128, 64}) + tensor("value", {2, 2, 128, 64});
  expect_parts(parse_error(kN4 + ", input_layout: BNSD", n), {"inputs.key has shape [2, 2, 128, 64]", "KV_N = 4"});
}

TEST(FiaKv, ValueShapeMustEqualKeyShape) {
  const std::string v = tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 256}) + tensor("value", {2, 100, 256});
  expect_parts(parse_error(kN4, v), {"inputs.value has shape [2, 100, 256]", "[2, 128, 256]", "identical"});
}

TEST(FiaList, ExactlyBBatchOneTensorsWithEqualValueShapes) {
  const std::string q = tensor("query", {2, 64, 256});
  const std::string one =
      "  key: [{shape: [1, 100, 256], dtype: float16}]\n  value: [{shape: [1, 100, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4, q + one), {"inputs.key is a tensor list of 1 tensors", "B = 2"});
  const std::string k2 = "  key: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4, q + k2 + "  value: [{shape: [1, 100, 256], dtype: float16}]\n"),
               {"inputs.value is a tensor list of 1", "inputs.key has 2"});
  expect_parts(parse_error(kN4, q + k2 + tensor("value", {2, 100, 256})),
               {"both be tensor lists", "key is a YAML list"});
  expect_parts(
      parse_error(
          kN4, q + k2 + "  value: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 81, 256], dtype: float16}]\n"),
      {"inputs.value[1] has shape [1, 81, 256]", "inputs.key[1]", "[1, 80, 256]"});
  const std::string b2 = "  key: [{shape: [2, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n";
  expect_parts(
      parse_error(
          kN4, q + b2 + "  value: [{shape: [2, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n"),
      {"inputs.key[0] has shape [2, 100, 256]", "B = 1"});
}

TEST(FiaList, BatchIsAtMost256) {
  const std::string q = tensor("query", {257, 64, 256}) + "  key: [{shape: [1, 8, 256], dtype: float16}]\n" +
                        "  value: [{shape: [1, 8, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4, q), {"inputs.key is a tensor list", "B = 257", "exceeds 256"});
}

// Paged K / V (spec §1.8): block_table int32 (B, max_blocks), block_size 128..512 step 128, required act_kv.
std::string paged(const std::vector<int64_t>& key, const std::vector<int64_t>& table = {2, 4},
                  const std::string& table_dtype = "int32") {
  return tensor("query", {2, 64, 256}) + tensor("key", key) + tensor("value", key) +
         tensor("block_table", table, table_dtype);
}
const std::string kPa = kN4 + ", block_size: 128, actual_seq_lengths_kv: [300, 200]";

TEST(FiaPaged, BlockTableIsInt32OfBatchRows) {
  expect_parts(parse_error(kPa, paged({8, 128, 256}, {2, 4}, "int64")), {"inputs.block_table dtype int64", "int32"});
  expect_parts(parse_error(kPa, paged({8, 128, 256}, {3, 4})), {"inputs.block_table has shape [3, 4]", "B = 2"});
}

TEST(FiaPaged, BlockSizeIsAMultipleOf128In128To512) {
  for (const char* bad : {"100", "0", "640"})
    expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [300, 200], block_size: " + bad, paged({8, 128, 256})),
                 {std::string("attrs.block_size = ") + bad, "multiple of 128 in [128, 512]"});
  expect_parts(parse_error(kN4 + ", block_size: 128", bsh_qkv()),
               {"attrs.block_size = 128", "without inputs.block_table"});
}

TEST(FiaPaged, ActualKvLengthsAreRequiredAndFitTheTable) {
  expect_parts(parse_error(kN4 + ", block_size: 128", paged({8, 128, 256})),
               {"attrs.actual_seq_lengths_kv is required", "page attention"});
  expect_parts(parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [513, 2]", paged({8, 128, 256})),
               {"attrs.actual_seq_lengths_kv[0] = 513", "[0, 512]", "max_blocks * block_size = 4 * 128"});
  expect_parts(parse_error(kPa, paged({4, 128, 256})), {"block_num = 4", "[300, 200]", "= 5"});
}

TEST(FiaPaged, KeyIsBlockNumBlockSizeHiddenOrBnsdFourDim) {
  expect_parts(parse_error(kPa, paged({8, 64, 256})),
               {"inputs.key has shape [8, 64, 256]", "block_size = 128", "KV_N * D = 256"});
  expect_parts(parse_error(kPa, paged({8, 4, 128, 64})),
               {"inputs.key has shape [8, 4, 128, 64]", "needs input_layout BNSD", "BSH"});
  expect_parts(parse_error(kPa, paged({8, 128, 4, 64, 1})), {"inputs.key has shape [8, 128, 4, 64, 1]", "3-D", "4-D"});
  const std::string q4 = tensor("query", {2, 4, 64, 64}) + tensor("key", {8, 4, 64, 64}) +
                         tensor("value", {8, 4, 64, 64}) + tensor("block_table", {2, 4}, "int32");
  expect_parts(parse_error(kPa + ", input_layout: BNSD", q4),
               {"inputs.key has shape [8, 4, 64, 64]", "block_size = 128"});
}

TEST(FiaPaged, BsHPagesNeedKvHeadsTimesDAtMost65535) {
  const std::string q = tensor("query", {1, 2, 131072}) + tensor("key", {1, 128, 131072}) +
                        tensor("value", {1, 128, 131072}) + tensor("block_table", {1, 1}, "int32");
  expect_parts(parse_error("num_heads: 256, block_size: 128, actual_seq_lengths_kv: [1]", q),
               {"KV_N * D = 131072", "65535"});
}

TEST(FiaPaged, NoTensorListWithPages) {
  const std::string q = tensor("query", {1, 64, 256}) + "  key: [{shape: [8, 128, 256], dtype: float16}]\n" +
                        "  value: [{shape: [8, 128, 256], dtype: float16}]\n" + tensor("block_table", {1, 4}, "int32");
  expect_parts(parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [100]", q),
               {"tensor list", "page attention"});
}

}  // namespace
}  // namespace npusim::op
