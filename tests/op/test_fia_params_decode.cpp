// FIA V2 parameter checks at query S = 1, the incremental branch (kernels/fia/fia_check_decode.cpp and the S = 1
// cases of the other stages): accepted shapes fill the problem as spec'd, broken ones name parameter, value and
// rule, and the prompt-branch parameters (sparse_mode, pre / next tokens) are ignored.
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;
using attn::KvStorage;
using attn::MaskKind;
using V = std::vector<int64_t>;

const std::string kN4 = "num_heads: 4";
// BSH float16, B 2, Sq 1, N 4, D 64 (H 256), dense K / V with S 128.
std::string decode_qkv(int64_t B = 2, int64_t kv_s = 128) {
  return tensor("query", {B, 1, 256}) + tensor("key", {B, kv_s, 256}) + tensor("value", {B, kv_s, 256});
}
// int64 [1] padding input holding v (uniform [v, v+1) floors to v).
std::string pad(const std::string& name, int64_t v, const std::string& dtype = "int64") {
  return tensor(name, {1}, dtype, "dist: uniform, low: " + std::to_string(v) + ", high: " + std::to_string(v + 1));
}
std::string shape_text(const V& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}
// Paged BSH K / V (block_num, block_size, 256) and a (B, max_blocks) block table.
std::string paged(int64_t B, int64_t block_num, int64_t block_size, int64_t max_blocks) {
  return tensor("query", {B, 1, 256}) + tensor("key", {block_num, block_size, 256}) +
         tensor("value", {block_num, block_size, 256}) + tensor("block_table", {B, max_blocks}, "int32");
}

TEST(FiaDecode, DefaultsOneQueryRowUnboundedBand) {
  const attn::AttnProblem p = parse(kN4, decode_qkv());
  EXPECT_EQ(std::vector<int64_t>({p.B, p.N, p.Sq, p.kv_s, p.D}), (V{2, 4, 1, 128, 64}));
  EXPECT_EQ(p.act_q, (V{1, 1}));
  EXPECT_EQ(p.act_kv, (V{128, 128}));
  EXPECT_EQ(p.sparse_mode, 0);
  EXPECT_EQ(p.pre_tokens, 2147483647);
  EXPECT_EQ(p.next_tokens, 2147483647);
  EXPECT_EQ(p.mask, MaskKind::None);
  EXPECT_EQ(p.mask_value(), -1e12f);  // the IFA masking value (spec §1.3)
  EXPECT_EQ(p.visible_cols(1, 0), (std::pair<int64_t, int64_t>{0, 128}));
}

TEST(FiaDecode, AnyHeadDimUpTo512) {
  for (int64_t d : {1, 59, 72, 80, 512}) {
    const std::string in =
        tensor("query", {1, 1, 2, d}) + tensor("key", {1, 64, 2, d}) + tensor("value", {1, 64, 2, d});
    EXPECT_EQ(parse("num_heads: 2, input_layout: BSND", in).D, d);
  }
  const std::string in =
      tensor("query", {1, 1, 1, 513}) + tensor("key", {1, 64, 1, 513}) + tensor("value", {1, 64, 1, 513});
  expect_parts(parse_error("num_heads: 1, input_layout: BSND", in), {"inputs.query", "D = 513", "[1, 512]", "S = 1"});
}

TEST(FiaDecode, LayoutsBshBsndBnsdAndGqa) {
  const std::string bnsd = tensor("query", {2, 8, 1, 64}, "bfloat16") + tensor("key", {2, 2, 100, 64}, "bfloat16") +
                           tensor("value", {2, 2, 100, 64}, "bfloat16");
  const attn::AttnProblem p = parse("num_heads: 8, num_key_value_heads: 2, input_layout: BNSD", bnsd);
  EXPECT_EQ(std::vector<int64_t>({p.N, p.KV_N, p.G, p.Sq, p.kv_s}), (V{8, 2, 4, 1, 100}));
  EXPECT_EQ(p.in, ElemType::BF16);
}

TEST(FiaDecode, BnsdBsndIsRejected) {
  const std::string in =
      tensor("query", {2, 4, 1, 64}) + tensor("key", {2, 4, 128, 64}) + tensor("value", {2, 4, 128, 64});
  expect_parts(parse_error(kN4 + ", input_layout: BNSD_BSND", in),
               {"attrs.input_layout = 'BNSD_BSND'", "not supported with query S = 1", "BSH, BSND or BNSD"});
  EXPECT_NO_THROW(parse(kN4 + ", input_layout: BNSD", in));
}

TEST(FiaDecode, SparseModeAndPreNextTokensAreIgnored) {
  // Each of these is an error with query S > 1 (test_fia_params_more.cpp).
  for (const char* attrs : {", sparse_mode: 9", ", sparse_mode: 5", ", sparse_mode: 1", ", sparse_mode: 3",
                            ", pre_tokens: -1, next_tokens: -1", ", pre_tokens: 2, next_tokens: -5",
                            ", sparse_mode: 4, pre_tokens: -64, next_tokens: 100",
                            ", pre_tokens: 4611686018427387904, next_tokens: -4611686018427387904"}) {
    const attn::AttnProblem p = parse(kN4 + attrs, decode_qkv());
    EXPECT_EQ(p.sparse_mode, 0) << attrs;
    EXPECT_EQ(p.pre_tokens, 2147483647) << attrs;
    EXPECT_EQ(p.next_tokens, 2147483647) << attrs;
    EXPECT_EQ(p.visible_cols(0, 0), (std::pair<int64_t, int64_t>{0, 128})) << attrs;
    EXPECT_FALSE(p.row_fix) << attrs;
  }
}

TEST(FiaDecode, MaskShapesBatchThenPaddedKv) {
  for (const V& shape : std::vector<V>{{2, 128}, {2, 1, 160}, {2, 1, 1, 256}}) {
    const attn::AttnProblem p = parse(kN4 + ", sparse_mode: 2", decode_qkv() + tensor("atten_mask", shape, "uint8"));
    EXPECT_EQ(p.mask, MaskKind::Full);
    EXPECT_TRUE(p.uses_mask_tensor());
    EXPECT_TRUE(p.mask_per_batch);
    EXPECT_EQ(p.mask_sq, 1);
    EXPECT_EQ(p.mask_skv, shape.back());
    EXPECT_EQ(p.mask_dtype, ElemType::U8);
  }
  const attn::AttnProblem p1 = parse(kN4, decode_qkv(1) + tensor("atten_mask", {1, 1, 130}, "bool"));
  EXPECT_FALSE(p1.mask_per_batch);
  EXPECT_EQ(p1.mask_skv, 130);
}

TEST(FiaDecode, MaskShapeErrors) {
  const std::string want = "(B, Skv), (B, 1, Skv) or (B, 1, 1, Skv) with B = 2, Skv >= 128";
  expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", {1, 128}, "bool")),
               {"inputs.atten_mask has shape [1, 128]", "first dim must be the batch B", want});
  expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", {2, 127}, "bool")),
               {"inputs.atten_mask has shape [2, 127]", "last dim is too small", want});
  expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", {2, 2, 128}, "bool")),
               {"inputs.atten_mask has shape [2, 2, 128]", "middle dims must be 1"});
  expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", {2, 1, 2, 128}, "bool")), {"middle dims"});
  for (const V& shape : std::vector<V>{{128}, {2, 1, 1, 1, 128}})
    expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", shape, "bool")), {"2-D, 3-D or 4-D", want});
  expect_parts(parse_error(kN4 + ", sparse_mode: 3", decode_qkv() + tensor("atten_mask", {2048, 2048}, "bool")),
               {"inputs.atten_mask has shape [2048, 2048]", "compressed 2048 x 2048 mask does not apply"});
  expect_parts(parse_error(kN4, decode_qkv() + tensor("atten_mask", {2, 128}, "float16")),
               {"inputs.atten_mask dtype float16", "bool, int8 or uint8"});
}

TEST(FiaDecode, MaskCoversPrefixAndPages) {
  const std::string pre = tensor("key_shared_prefix", {1, 32, 256}) + tensor("value_shared_prefix", {1, 32, 256});
  expect_parts(parse_error(kN4 + ", actual_shared_prefix_len: [20]",
                           decode_qkv() + pre + tensor("atten_mask", {2, 147}, "bool")),
               {"inputs.atten_mask has shape [2, 147]", "Skv >= 148 = prefix + key S"});
  EXPECT_EQ(parse(kN4 + ", actual_shared_prefix_len: [20]", decode_qkv() + pre + tensor("atten_mask", {2, 148}, "bool"))
                .mask_skv,
            148);
  const std::string attrs = kN4 + ", block_size: 16, actual_seq_lengths_kv: [40, 20]";
  expect_parts(parse_error(attrs, paged(2, 8, 16, 4) + tensor("atten_mask", {2, 63}, "bool")),
               {"inputs.atten_mask has shape [2, 63]", "Skv >= 64 = max_blocks * block_size = 4 * 16"});
  EXPECT_EQ(parse(attrs, paged(2, 8, 16, 4) + tensor("atten_mask", {2, 64}, "bool")).mask_skv, 64);
}

TEST(FiaDecode, PseShiftHasOneQueryRow) {
  attn::AttnProblem p = parse(kN4, decode_qkv() + tensor("pse_shift", {2, 4, 1, 128}));
  EXPECT_TRUE(p.pse);
  EXPECT_EQ(std::vector<int64_t>({p.pse_b, p.pse_sq, p.pse_skv}), (V{2, 1, 128}));
  p = parse(kN4, decode_qkv() + tensor("pse_shift", {1, 4, 1, 200}));
  EXPECT_EQ(std::vector<int64_t>({p.pse_b, p.pse_sq, p.pse_skv}), (V{1, 1, 200}));
  for (const V& bad : std::vector<V>{{2, 4, 2, 128}, {2, 4, 1, 127}, {3, 4, 1, 128}, {2, 2, 1, 128}, {2, 4, 128}})
    expect_parts(
        parse_error(kN4, decode_qkv() + tensor("pse_shift", bad)),
        {"inputs.pse_shift has shape " + shape_text(bad), "(B = 2 or 1, N = 4, 1 (query S = 1), >= Skv = 128"});
}

TEST(FiaDecode, PagedBlockSizeIsAnyValueFrom1To512) {
  attn::AttnProblem p = parse(kN4 + ", block_size: 1, actual_seq_lengths_kv: [3, 2]", paged(2, 5, 1, 4));
  EXPECT_EQ(p.kv, KvStorage::PagedBsH);
  EXPECT_EQ(p.block_size, 1);
  EXPECT_EQ(p.kv_s, 4);
  p = parse(kN4 + ", block_size: 512, actual_seq_lengths_kv: [600, 0]", paged(2, 2, 512, 2));
  EXPECT_EQ(p.block_size, 512);
  EXPECT_EQ(p.act_kv, (V{600, 0}));
  EXPECT_EQ(parse(kN4 + ", block_size: 16, actual_seq_lengths_kv: [64]", paged(2, 8, 16, 4)).block_size, 16);
  const std::string bnbsd = tensor("query", {1, 4, 1, 64}) + tensor("key", {4, 4, 48, 64}) +
                            tensor("value", {4, 4, 48, 64}) + tensor("block_table", {1, 4}, "int32");
  p = parse(kN4 + ", input_layout: BNSD, block_size: 48, actual_seq_lengths_kv: [150]", bnbsd);
  EXPECT_EQ(p.kv, KvStorage::PagedNBsD);
  for (int64_t bs : {0, 513, -16})
    expect_parts(
        parse_error(kN4 + ", block_size: " + std::to_string(bs) + ", actual_seq_lengths_kv: [4]", paged(2, 8, 16, 4)),
        {"attrs.block_size = " + std::to_string(bs), "[1, 512]", "query S = 1"});
  // Query S > 1 keeps the multiple-of-128 rule.
  const std::string prompt = tensor("query", {2, 64, 256}) + tensor("key", {8, 16, 256}) +
                             tensor("value", {8, 16, 256}) + tensor("block_table", {2, 4}, "int32");
  expect_parts(parse_error(kN4 + ", block_size: 16, actual_seq_lengths_kv: [64]", prompt),
               {"attrs.block_size = 16", "multiple of 128 in [128, 512]", "query S > 1"});
}

TEST(FiaDecode, PagedKvLengthsStayWithinTheCache) {
  expect_parts(parse_error(kN4 + ", block_size: 16, actual_seq_lengths_kv: [65, 1]", paged(2, 8, 16, 4)),
               {"attrs.actual_seq_lengths_kv[0] = 65", "[0, 64]", "max_blocks * block_size = 4 * 16"});
  expect_parts(parse_error(kN4 + ", block_size: 16, actual_seq_lengths_kv: [64, 64]", paged(2, 7, 16, 4)),
               {"block_num = 7", "needs sum(ceil(act_kv / block_size = 16)) = 8"});
  expect_parts(parse_error(kN4 + ", block_size: 16", paged(2, 8, 16, 4)),
               {"attrs.actual_seq_lengths_kv is required with page attention"});
}

TEST(FiaDecode, ActualSeqLengthsOfTheQueryAreNotUsed) {
  EXPECT_EQ(parse(kN4 + ", actual_seq_lengths: [0, 7]", decode_qkv()).act_q, (V{1, 1}));
  const attn::AttnProblem p = parse(kN4 + ", actual_seq_lengths_kv: [0, 5]", decode_qkv());
  EXPECT_EQ(p.act_kv, (V{0, 5}));  // an empty KV batch is valid: output 0, softmax_lse -3.4e38 (spec Decisions)
}

TEST(FiaDecode, KvLeftPaddingAloneRightAlignsTheKvRows) {
  const attn::AttnProblem p =
      parse(kN4 + ", actual_seq_lengths_kv: [100, 120]", decode_qkv() + pad("kv_padding_size", 8));
  EXPECT_TRUE(p.left_pad);
  EXPECT_EQ(p.q_pad, 0);
  EXPECT_EQ(p.kv_pad, 8);
  EXPECT_EQ(p.act_kv, (V{100, 120}));
  EXPECT_EQ(p.q_start(0), 0);
  EXPECT_EQ(p.q_start(1), 0);
  EXPECT_EQ(p.kv_start(0), 128 - 8 - 100);
  EXPECT_EQ(p.kv_start(1), 0);
  // A query padding value is not used at S = 1 (q_start stays 0), and needs no actual_seq_lengths.
  const attn::AttnProblem q = parse(kN4 + ", actual_seq_lengths_kv: [100, 120]",
                                    decode_qkv() + pad("query_padding_size", 5) + pad("kv_padding_size", 8));
  EXPECT_EQ(q.q_pad, 0);
  EXPECT_EQ(q.q_start(1), 0);
  EXPECT_EQ(q.kv_start(0), 20);
  // query_padding_size alone leaves the KV rows where they are.
  const attn::AttnProblem r =
      parse(kN4 + ", actual_seq_lengths_kv: [100, 120]", decode_qkv() + pad("query_padding_size", 3));
  EXPECT_FALSE(r.left_pad);
  EXPECT_EQ(r.kv_start(0), 0);
}

TEST(FiaDecode, KvStartBeforeRowZeroGivesAnEmptyKv) {
  // Spec §1.8 "Sq = 1: if start or end < 0, output is all zero": 128 - 8 - 121 < 0 -> act_kv 0, not an error.
  attn::AttnProblem p = parse(kN4 + ", actual_seq_lengths_kv: [120, 121]", decode_qkv() + pad("kv_padding_size", 8));
  EXPECT_EQ(p.act_kv, (V{120, 0}));
  EXPECT_EQ(p.kv_start(0), 0);
  EXPECT_TRUE(p.row_fix);  // batch 1 certainly sees no column
  p = parse(kN4 + ", actual_seq_lengths_kv: [0, 1]", decode_qkv() + pad("kv_padding_size", 200));  // end < 0 too
  EXPECT_EQ(p.act_kv, (V{0, 0}));
}

TEST(FiaDecode, LeftPaddingFormAndCombinations) {
  expect_parts(parse_error(kN4, decode_qkv() + pad("kv_padding_size", 8)),
               {"inputs.kv_padding_size needs attrs.actual_seq_lengths_kv"});
  expect_parts(parse_error(kN4 + ", actual_seq_lengths_kv: [1]", decode_qkv() + pad("kv_padding_size", 8, "int32")),
               {"inputs.kv_padding_size dtype int32", "int64"});
  expect_parts(parse_error(kN4, decode_qkv() + pad("query_padding_size", 8, "int32")),
               {"inputs.query_padding_size dtype int32", "int64"});
  expect_parts(
      parse_error(kN4 + ", block_size: 16, actual_seq_lengths_kv: [4]", paged(2, 8, 16, 4) + pad("kv_padding_size", 0)),
      {"inputs.kv_padding_size", "page attention"});
}

TEST(FiaDecode, NeverHighPerformance) {
  attn::AttnProblem p = parse(kN4 + ", inner_precise: 1", decode_qkv());
  EXPECT_EQ(p.inner_precise, 1);
  EXPECT_FALSE(p.high_perf);  // the IFA softmax runs in fp32 (kernels/fia/README.md, decisions)
  EXPECT_EQ(p.mask_value(), -1e12f);
  p = parse(kN4 + ", inner_precise: 3", decode_qkv());
  EXPECT_FALSE(p.high_perf);
  EXPECT_TRUE(p.row_fix);
  EXPECT_TRUE(parse(kN4 + ", inner_precise: 1", bsh_qkv()).high_perf);  // the prompt branch still does
}

TEST(FiaDecode, AntiquantModesUpTo5AreInRangeAndIgnoredWithoutAntiquant) {
  EXPECT_FALSE(parse(kN4 + ", key_antiquant_mode: 3, value_antiquant_mode: 3", decode_qkv()).antiquant.on);
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 6", decode_qkv()), {"attrs.key_antiquant_mode = 6", "[0, 5]"});
}

}  // namespace
}  // namespace npusim::op
