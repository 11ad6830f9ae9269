// FIA V2 parameter checks, continued: sparse_mode / pre / next, atten_mask, pse_shift, actual lengths, left
// padding, the system prefix, quantisation parameters and precision flags.
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;

const std::string kN4 = "num_heads: 4";
const std::string kMask = tensor("atten_mask", {64, 128}, "bool");  // (Sq, Skv) of the base case

TEST(FiaSparse, ModeIs0To4And5To8AreNotFiaV2) {
  expect_parts(parse_error(kN4 + ", sparse_mode: 5", bsh_qkv()), {"attrs.sparse_mode = 5", "not supported by FIA V2"});
  expect_parts(parse_error(kN4 + ", sparse_mode: 9", bsh_qkv()), {"attrs.sparse_mode = 9", "invalid"});
  expect_parts(parse_error(kN4 + ", sparse_mode: -1", bsh_qkv()), {"attrs.sparse_mode = -1", "invalid"});
}

TEST(FiaSparse, PreAndNextMayNotBothBeNegative) {
  for (const char* mode : {"0", "4"})
    expect_parts(parse_error(kN4 + ", pre_tokens: -1, next_tokens: -1, sparse_mode: " + mode,
                             bsh_qkv() + tensor("atten_mask", {2048, 2048}, "bool")),
                 {"attrs.pre_tokens = -1", "attrs.next_tokens = -1", "may not both be negative"});
}

TEST(FiaSparse, MinusNextMustNotExceedPre) {
  expect_parts(parse_error(kN4 + ", pre_tokens: 2, next_tokens: -5", bsh_qkv() + kMask),
               {"attrs.pre_tokens = 2", "attrs.next_tokens = -5", "-next_tokens must be <= pre_tokens"});
}

TEST(FiaSparse, Mode0BoundsNegativeNextByQueryAndNegativePreByKv) {
  expect_parts(parse_error(kN4 + ", pre_tokens: 100, next_tokens: -64", bsh_qkv() + kMask),
               {"attrs.next_tokens = -64", "|next_tokens| < the query S = 64"});
  expect_parts(parse_error(kN4 + ", pre_tokens: -128, next_tokens: 200", bsh_qkv() + kMask),
               {"attrs.pre_tokens = -128", "|pre_tokens| < the prefix + key S = 128"});
}

TEST(FiaSparse, Mode4BoundsNegativeNextByKvAndNegativePreByQuery) {
  const std::string in = bsh_qkv() + tensor("atten_mask", {2048, 2048}, "bool");
  expect_parts(parse_error(kN4 + ", sparse_mode: 4, pre_tokens: 200, next_tokens: -128", in),
               {"attrs.next_tokens = -128", "sparse_mode 4", "< the prefix + key S = 128"});
  expect_parts(parse_error(kN4 + ", sparse_mode: 4, pre_tokens: -64, next_tokens: 100", in),
               {"attrs.pre_tokens = -64", "< the query S = 64"});
}

TEST(FiaSparse, PreNextMagnitudeIsBounded) {
  expect_parts(parse_error(kN4 + ", pre_tokens: 4611686018427387904", bsh_qkv()),
               {"attrs.pre_tokens = 4611686018427387904", "within"});
}

TEST(FiaMask, DtypeIsBoolInt8OrUint8) {
  expect_parts(parse_error(kN4, bsh_qkv() + tensor("atten_mask", {64, 128}, "float16")),
               {"inputs.atten_mask dtype float16", "bool, int8 or uint8"});
}

TEST(FiaMask, FullMaskShapesInModes0And1) {
  for (const std::vector<int64_t>& bad : std::vector<std::vector<int64_t>>{
           {63, 128}, {64, 127}, {3, 64, 128}, {2, 2, 64, 128}, {128}, {1, 1, 1, 64, 128}}) {
    const std::string err = parse_error(kN4 + ", sparse_mode: 1", bsh_qkv() + tensor("atten_mask", bad, "bool"));
    expect_parts(err, {"inputs.atten_mask has shape", "sparse_mode 1", "Sq >= 64, Skv >= 128"});
  }
}

TEST(FiaMask, Mode1NeedsAMask) {
  expect_parts(parse_error(kN4 + ", sparse_mode: 1", bsh_qkv()), {"inputs.atten_mask is required with sparse_mode 1"});
}

TEST(FiaMask, Modes2To4NeedTheCompressed2048Mask) {
  for (const char* mode : {"2", "3", "4"}) {
    expect_parts(parse_error(kN4 + ", sparse_mode: " + mode, bsh_qkv()),
                 {"inputs.atten_mask is required with sparse_mode " + std::string(mode), "triu"});
    expect_parts(parse_error(kN4 + ", sparse_mode: " + mode, bsh_qkv() + kMask),
                 {"inputs.atten_mask has shape [64, 128]", "sparse_mode " + std::string(mode), "(2048, 2048)"});
  }
  expect_parts(parse_error(kN4 + ", sparse_mode: 3", bsh_qkv() + tensor("atten_mask", {2, 2048, 2048}, "bool")),
               {"inputs.atten_mask has shape [2, 2048, 2048]"});
}

TEST(FiaMask, KvExtentCoversThePrefix) {
  const std::string in =
      bsh_qkv() + tensor("key_shared_prefix", {1, 32, 256}) + tensor("value_shared_prefix", {1, 32, 256});
  expect_parts(parse_error(kN4, in + kMask), {"inputs.atten_mask has shape [64, 128]", "Skv >= 160"});
}

TEST(FiaPse, DtypeEqualsQueryAndShapeIsBatchHeadsRowsCols) {
  expect_parts(parse_error(kN4, bsh_qkv() + tensor("pse_shift", {1, 4, 64, 128}, "bfloat16")),
               {"inputs.pse_shift dtype bfloat16 must be float16 (query float16)"});
  for (const std::vector<int64_t>& bad :
       std::vector<std::vector<int64_t>>{{3, 4, 64, 128}, {1, 2, 64, 128}, {1, 4, 64, 100}, {4, 64, 128}})
    expect_parts(parse_error(kN4, bsh_qkv() + tensor("pse_shift", bad)),
                 {"inputs.pse_shift has shape", "(B = 2 or 1, N = 4, >= Sq = 64, >= Skv = 128"});
}

TEST(FiaLengths, OneValueOrAtLeastB) {
  expect_parts(parse_error(kN4 + ", actual_seq_lengths: []", bsh_qkv()),
               {"attrs.actual_seq_lengths = []", "1 (all batches) or >= B = 2"});
  const std::string q3 = tensor("query", {3, 64, 256}) + tensor("key", {3, 128, 256}) + tensor("value", {3, 128, 256});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [1, 2]", q3),
               {"attrs.actual_seq_lengths_kv = [1, 2]", ">= B = 3"});
}

TEST(FiaLengths, EachValueWithinItsS) {
  expect_parts(parse_error(kN4 + ", actual_seq_lengths: [3, 65]", bsh_qkv()),
               {"attrs.actual_seq_lengths[1] = 65", "[0, 64]", "query S"});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths: [-1]", bsh_qkv()),
               {"attrs.actual_seq_lengths[0] = -1", "[0, 64]"});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [129]", bsh_qkv()),
               {"attrs.actual_seq_lengths_kv[0] = 129", "[0, 128]"});
  const std::string list = tensor("query", {2, 64, 256}) +
                           "  key: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n" +
                           "  value: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [100, 81]", list),
               {"attrs.actual_seq_lengths_kv[1] = 81", "[0, 80]", "inputs.key[1]"});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths: [1, x]", bsh_qkv()),
               {"attrs.actual_seq_lengths[1] = 'x'", "integer"});
}

// Left padding: int64 [1] inputs holding the pad (generated: uniform [v, v+1) floors to v).
std::string pad(const std::string& name, int64_t v, const std::string& dtype = "int64",
                std::vector<int64_t> shape = {1}) {
  return tensor(name, shape, dtype, "dist: uniform, low: " + std::to_string(v) + ", high: " + std::to_string(v + 1));
}
const std::string kActs = ", actual_seq_lengths: [50, 60], actual_seq_lengths_kv: [100, 120]";

TEST(FiaLeftPad, Int64ShapeOneWithItsActualLengths) {
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pad("query_padding_size", 2, "int32") + pad("kv_padding_size", 0)),
               {"inputs.query_padding_size dtype int32", "int64"});
  expect_parts(
      parse_error(kN4 + kActs, bsh_qkv() + pad("query_padding_size", 2) + pad("kv_padding_size", 0, "int64", {2})),
      {"inputs.kv_padding_size has shape [2]", "[1]"});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [100, 120]",
                           bsh_qkv() + pad("query_padding_size", 2) + pad("kv_padding_size", 0)),
               {"inputs.query_padding_size needs attrs.actual_seq_lengths"});
}

TEST(FiaLeftPad, BothSidesTogether) {
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pad("query_padding_size", 2)),
               {"inputs.query_padding_size is given without inputs.kv_padding_size"});
}

TEST(FiaLeftPad, FirstRowMustNotBeNegative) {
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pad("query_padding_size", 10) + pad("kv_padding_size", 0)),
               {"inputs.query_padding_size = 10", "attrs.actual_seq_lengths = 60", "batch 1", "64 - 10 - 60 < 0"});
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pad("query_padding_size", 0) + pad("kv_padding_size", 9)),
               {"inputs.kv_padding_size = 9", "128 - 9 - 120 < 0"});
}

TEST(FiaLeftPad, NotWithPagesListsOrPrefix) {
  const std::string pads = pad("query_padding_size", 0) + pad("kv_padding_size", 0);
  const std::string pa = tensor("query", {2, 64, 256}) + tensor("key", {8, 128, 256}) + tensor("value", {8, 128, 256}) +
                         tensor("block_table", {2, 4}, "int32");
  expect_parts(parse_error(kN4 + ", block_size: 128" + kActs, pa + pads),
               {"inputs.query_padding_size", "page attention"});
  const std::string list =
      tensor("query", {2, 64, 256}) +
      "  key: [{shape: [1, 128, 256], dtype: float16}, {shape: [1, 128, 256], dtype: float16}]\n" +
      "  value: [{shape: [1, 128, 256], dtype: float16}, {shape: [1, 128, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4 + kActs, list + pads), {"inputs.query_padding_size", "tensor-list"});
  const std::string pre = tensor("key_shared_prefix", {1, 8, 256}) + tensor("value_shared_prefix", {1, 8, 256});
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pre + pads), {"inputs.query_padding_size", "prefix"});
}

TEST(FiaPrefix, BothOrNeitherSameDtypeBatchOneAndLengthWithinS) {
  expect_parts(
      parse_error(kN4, bsh_qkv() + tensor("key_shared_prefix", {1, 8, 256})),
      {"inputs.key_shared_prefix and inputs.value_shared_prefix must be given together", "only key_shared_prefix"});
  expect_parts(parse_error(kN4, bsh_qkv() + tensor("key_shared_prefix", {1, 8, 256}, "bfloat16") +
                                    tensor("value_shared_prefix", {1, 8, 256})),
               {"inputs.key_shared_prefix dtype bfloat16", "key dtype float16"});
  expect_parts(parse_error(kN4, bsh_qkv() + tensor("key_shared_prefix", {2, 8, 256}) +
                                    tensor("value_shared_prefix", {2, 8, 256})),
               {"inputs.key_shared_prefix has shape [2, 8, 256]", "B = 1"});
  expect_parts(parse_error(kN4, bsh_qkv() + tensor("key_shared_prefix", {1, 8, 256}) +
                                    tensor("value_shared_prefix", {1, 9, 256})),
               {"inputs.value_shared_prefix has shape [1, 9, 256]", "[1, 8, 256]"});
  const std::string pre =
      bsh_qkv() + tensor("key_shared_prefix", {1, 8, 256}) + tensor("value_shared_prefix", {1, 8, 256});
  expect_parts(parse_error(kN4 + ", actual_shared_prefix_len: [9]", pre),
               {"attrs.actual_shared_prefix_len = [9]", "[0, 8]"});
  expect_parts(parse_error(kN4 + ", actual_shared_prefix_len: [1, 2]", pre),
               {"attrs.actual_shared_prefix_len = [1, 2]", "one value"});
  expect_parts(parse_error(kN4 + ", actual_shared_prefix_len: [4]", bsh_qkv()),
               {"attrs.actual_shared_prefix_len = [4]", "without inputs.key_shared_prefix"});
}

TEST(FiaPrefix, NotWithPagesOrLists) {
  const std::string pre = tensor("key_shared_prefix", {1, 8, 256}) + tensor("value_shared_prefix", {1, 8, 256});
  const std::string pa = tensor("query", {2, 64, 256}) + tensor("key", {8, 128, 256}) + tensor("value", {8, 128, 256}) +
                         tensor("block_table", {2, 4}, "int32");
  expect_parts(parse_error(kN4 + ", block_size: 128" + kActs, pa + pre),
               {"inputs.key_shared_prefix", "page attention"});
  const std::string list =
      tensor("query", {2, 64, 256}) +
      "  key: [{shape: [1, 128, 256], dtype: float16}, {shape: [1, 128, 256], dtype: float16}]\n" +
      "  value: [{shape: [1, 128, 256], dtype: float16}, {shape: [1, 128, 256], dtype: float16}]\n";
  expect_parts(parse_error(kN4, list + pre), {"inputs.key_shared_prefix", "tensor-list"});
}

TEST(FiaQuant, SeparatedAntiquantTensorsAreCheckedThenRejected) {
  // The full rules: test_fia_antiquant_params.cpp. The prompt branch's bfloat16 separated form needs query S <= 16.
  for (const char* name :
       {"key_antiquant_scale", "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset"}) {
    expect_parts(parse_error(kN4, bsh_qkv("bfloat16") + tensor(name, {1}, "float32")),
                 {"query S = 64", "must be <= 16"});
    expect_parts(parse_error(kN4, bsh_qkv() + tensor(name, {1}, "int8")),
                 {std::string("inputs.") + name + " dtype int8", "is not allowed"});
  }
}

TEST(FiaQuant, FullQuantScalesAreAnErrorWithAFloatQuery) {
  for (const char* name : {"dequant_scale1", "quant_scale1", "dequant_scale2"})
    for (const char* dt : {"float32", "int8"}) {
      expect_parts(parse_error(kN4, bsh_qkv() + tensor(name, {1}, dt)),
                   {std::string("inputs.") + name, dt, "[1]", "must not be given with a float16 query"});
      expect_parts(parse_error(kN4, bsh_qkv("bfloat16") + tensor(name, {1}, dt)), {"with a bfloat16 query"});
    }
}

// Post-quantisation (spec §1.7): the output is int8 exactly when quant_scale2 is given.
TEST(FiaPostQuant, ScaleMakesTheOutputInt8PerTensorOrPerChannel) {
  const attn::AttnProblem t = parse(kN4, bsh_qkv() + tensor("quant_scale2", {1}, "float32"));
  EXPECT_EQ(t.out, ElemType::I8);
  EXPECT_TRUE(t.post_quant.on);
  EXPECT_FALSE(t.post_quant.per_channel);
  EXPECT_FALSE(t.post_quant.offset);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{256}, {4, 64}, {1, 4, 1, 64}, {1, 1, 256}}) {
    const attn::AttnProblem c =
        parse(kN4, bsh_qkv() + tensor("quant_scale2", shape, "float32") + tensor("quant_offset2", shape, "float32"));
    EXPECT_TRUE(c.post_quant.per_channel && c.post_quant.offset);
  }
  const attn::AttnProblem b = parse(kN4, bsh_qkv("bfloat16") + tensor("quant_scale2", {4, 64}, "bfloat16"));
  EXPECT_EQ(b.post_quant.dtype, ElemType::BF16);
  EXPECT_EQ(parse(kN4, bsh_qkv()).out, ElemType::F16);
}

TEST(FiaPostQuant, TensorRulesNameTheParameter) {
  const std::string qkv = bsh_qkv();
  expect_parts(parse_error(kN4, qkv + tensor("quant_offset2", {1}, "float32")),
               {"inputs.quant_offset2 is given without inputs.quant_scale2"});
  expect_parts(parse_error(kN4, qkv + tensor("quant_scale2", {1}, "bfloat16")),
               {"inputs.quant_scale2 dtype bfloat16", "bfloat16 needs a bfloat16 query"});
  expect_parts(parse_error(kN4, qkv + tensor("quant_scale2", {1}, "float16")), {"inputs.quant_scale2 dtype float16"});
  expect_parts(parse_error(kN4, qkv + tensor("quant_scale2", {3}, "float32")),
               {"inputs.quant_scale2 has shape [3]", "N * D = 4 * 64 = 256"});
  expect_parts(parse_error(kN4, qkv + tensor("quant_scale2", {0}, "float32")), {"inputs.quant_scale2 has shape [0]"});
  expect_parts(
      parse_error(kN4, qkv + tensor("quant_scale2", {256}, "float32") + tensor("quant_offset2", {1}, "float32")),
      {"inputs.quant_offset2 has shape [1]", "as many elements as inputs.quant_scale2 [256]"});
  expect_parts(parse_error("num_heads: 4", bsh_qkv("bfloat16") + tensor("quant_scale2", {1}, "float32") +
                                               tensor("quant_offset2", {1}, "bfloat16")),
               {"inputs.quant_offset2 dtype bfloat16 must equal", "float32"});
  // D = 48: int8 needs 32-element alignment
  const std::string d48 = tensor("query", {2, 64, 192}) + tensor("key", {2, 128, 192}) + tensor("value", {2, 128, 192});
  expect_parts(parse_error(kN4, d48 + tensor("quant_scale2", {1}, "float32")), {"D = 48", "multiple of 32"});
}

TEST(FiaPostQuant, PerChannelExcludesLseAndLeftPadding) {
  const std::string pc = tensor("quant_scale2", {256}, "float32");
  expect_parts(parse_error(kN4 + ", softmax_lse_flag: true", bsh_qkv() + pc), {"per-channel", "softmax_lse_flag"});
  EXPECT_NO_THROW(parse(kN4 + ", softmax_lse_flag: true", bsh_qkv() + tensor("quant_scale2", {1}, "float32")));
  const std::string pad = tensor("query_padding_size", {1}, "int64", "dist: zeros") +
                          tensor("kv_padding_size", {1}, "int64", "dist: zeros");
  expect_parts(parse_error(kN4 + kActs, bsh_qkv() + pad + pc), {"per-channel", "left padding"});
}

// With an offset the prompt kernel would leave skipped rows at 0, so the vendor rejects the cases that skip.
TEST(FiaPostQuant, OffsetRejectsSparseModesThatSkipRows) {
  const std::string q = bsh_qkv() + tensor("quant_scale2", {1}, "float32") + tensor("quant_offset2", {1}, "float32");
  const std::string sq_gt_skv = tensor("query", {2, 200, 256}) + tensor("key", {2, 128, 256}) +
                                tensor("value", {2, 128, 256}) + tensor("quant_scale2", {1}, "float32") +
                                tensor("quant_offset2", {1}, "float32") +
                                tensor("atten_mask", {2048, 2048}, "bool", "dist: triu");
  expect_parts(parse_error(kN4 + ", sparse_mode: 3", sq_gt_skv),
               {"inputs.quant_offset2", "sparse_mode = 3", "Skv + prefix - Sq < 0", "batch 0", "Sq 200, Skv 128"});
  EXPECT_NO_THROW(parse(kN4 + ", sparse_mode: 2", sq_gt_skv));  // left-up causal never skips a row
  const std::string mask = tensor("atten_mask", {64, 128}, "bool");
  expect_parts(parse_error(kN4 + ", next_tokens: -1", q + mask), {"sparse_mode = 0", "next_tokens < 0"});
  EXPECT_NO_THROW(parse(kN4 + ", next_tokens: -1", q));  // mode 0 without a mask ignores pre / next
  const std::string band = q + tensor("atten_mask", {2048, 2048}, "bool", "dist: triu");
  expect_parts(parse_error(kN4 + ", sparse_mode: 4, pre_tokens: -5, next_tokens: 100", band),
               {"sparse_mode = 4", "negative band edge"});
  expect_parts(parse_error(kN4 + ", sparse_mode: 4, pre_tokens: 100, next_tokens: -10",
                           bsh_qkv() + tensor("quant_scale2", {1}, "float32") +
                               tensor("atten_mask", {2048, 2048}, "bool", "dist: triu")),
               {"sparse_mode = 4", "negative band edge"});  // even without an offset
}

TEST(FiaQuant, AntiquantModesAreRangeCheckedThenRejected) {
  expect_parts(parse_error(kN4 + ", antiquant_mode: 2", bsh_qkv()),
               {"attrs.antiquant_mode = 2", "0 (per-channel) or 1"});
  expect_parts(parse_error(kN4 + ", antiquant_mode: 1", bsh_qkv()),
               {"attrs.antiquant_mode = 1 is not allowed with query S > 1", "antiquant_mode is not supported!"});
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 6", bsh_qkv()), {"attrs.key_antiquant_mode = 6", "[0, 5]"});
  expect_parts(parse_error(kN4 + ", value_antiquant_mode: 3", bsh_qkv()),
               {"attrs.value_antiquant_mode = 3", "0 or 1 when query S > 1"});
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 1", bsh_qkv()),
               {"attrs.key_antiquant_mode = 1", "attrs.value_antiquant_mode = 0", "equal"});
  expect_parts(parse_error(kN4 + ", value_antiquant_mode: 1", bsh_qkv()),
               {"attrs.value_antiquant_mode = 1 must be 0 with query S > 1 outside MSD", "only support"});
}

TEST(FiaPrecision, InnerPreciseIs0To3AndScaleIsFinite) {
  expect_parts(parse_error(kN4 + ", inner_precise: 4", bsh_qkv()), {"attrs.inner_precise = 4", "[0, 3]"});
  expect_parts(parse_error(kN4 + ", scale: .inf", bsh_qkv()), {"attrs.scale = inf", "finite"});
  expect_parts(parse_error(kN4 + ", softmax_lse_flag: maybe", bsh_qkv()),
               {"attrs.softmax_lse_flag = 'maybe'", "true or false"});
}

}  // namespace
}  // namespace npusim::op
