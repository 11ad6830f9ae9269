// FIA KV antiquantisation (int8 key / value; spec §1.6): the prompt branch's combined / paged float16 parameters and
// the decode branch's MSD modes 0-5: what the problem carries, and every rule with exit-2 text naming the parameter,
// the value and the rule. The kernels against the golden model: test_fia_kernel.cpp "Antiquant*", test_fia_msd.cpp.
#include <optional>
#include <tuple>

#include "kernels/fia/fia_int4_view.h"
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;

const std::string kN4 = "num_heads: 4";  // BSH (2, 64, 256): N 4, KV_N 4, D 64

std::string i8_kv(const std::string& q = "float16") {
  return tensor("query", {2, 64, 256}, q) + tensor("key", {2, 128, 256}, "int8") +
         tensor("value", {2, 128, 256}, "int8");
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
               {"inputs.antiquant_scale is given but inputs.key is float16", "needs int8 or int4 key and value",
                "KV antiquant is unenabled"});
  const std::string mixed =
      tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 256}, "int8") + tensor("value", {2, 128, 256}, "float16");
  expect_parts(parse_error(kN4, mixed + scale()), {"inputs.value is float16", "needs int8 or int4 key and value"});
}

TEST(FiaAntiquant, ABfloat16PromptQueryIsRejectedTheDecodeBranchRunsMsd) {
  expect_parts(parse_error(kN4, i8_kv("bfloat16") + scale({2, 256}, "bfloat16")),
               {"inputs.antiquant_scale (bfloat16 [2, 256]) with a bfloat16 query", "takes key_antiquant_scale"});
  const std::string decode =
      tensor("query", {2, 1, 256}) + tensor("key", {2, 128, 256}, "int8") + tensor("value", {2, 128, 256}, "int8");
  const attn::AttnProblem p = parse(kN4, decode + scale());
  EXPECT_TRUE(p.antiquant.on && p.antiquant.msd && !p.antiquant.separated);
  EXPECT_EQ(p.antiquant.limbs, 3);  // inner_precise 0 (the case default here): 3 limbs
}

TEST(FiaAntiquant, StorageAndDRules) {
  const std::string d16 =
      tensor("query", {2, 64, 64}) + tensor("key", {2, 128, 64}, "int8") + tensor("value", {2, 128, 64}, "int8");
  expect_parts(parse_error(kN4, d16 + scale({2, 64})), {"inputs.key is int8", "D = 16", "multiple of 32"});
  const std::string list = tensor("query", {2, 64, 256}) +
                           "  key: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n" +
                           "  value: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n";
  // Tensor lists and a shared prefix take the combined parameters like dense K / V (issue 36: exit 2 before).
  const attn::AttnProblem l = parse(kN4, list + scale());
  EXPECT_TRUE(l.antiquant.on && l.kv == attn::KvStorage::List);
  const std::string prefix =
      tensor("key_shared_prefix", {1, 40, 256}, "int8") + tensor("value_shared_prefix", {1, 40, 256}, "int8");
  const attn::AttnProblem pre = parse(kN4, i8_kv() + prefix + scale({2}));
  EXPECT_TRUE(pre.antiquant.on && pre.antiquant.per_tensor && pre.prefix);
  EXPECT_EQ(pre.prefix_s, 40);
}

// Page attention (the vendor's CheckAntiquantParamsShape / CheckPAAntiquantSupportScenarios): the separated
// per-channel parameters, inner_precise 1, sparse_mode 3 with a mask, no pse, BSH / BSND.
const std::string kPaged = tensor("query", {2, 64, 256}) + tensor("key", {4, 128, 256}, "int8") +
                           tensor("value", {4, 128, 256}, "int8") + tensor("block_table", {2, 2}, "int32") +
                           tensor("atten_mask", {2048, 2048}, "bool");
const std::string kPagedAttrs =
    kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 1, sparse_mode: 3";
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
  expect_parts(parse_error(kPagedAttrs, kPaged + separated("float32")),
               {"inputs.key_antiquant_scale dtype float32 must be float16"});
}

TEST(FiaAntiquant, PageAttentionRulesOfTheVendor) {
  const std::string in = kPaged + separated();
  expect_parts(
      parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 0, sparse_mode: 3", in),
      {"attrs.inner_precise = 0", "only support high performance"});
  expect_parts(
      parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [200, 100], inner_precise: 1, sparse_mode: 2", in),
      {"attrs.sparse_mode = 2", "only support sparse mode 3"});
  expect_parts(parse_error(kPagedAttrs, in + tensor("pse_shift", {1, 4, 64, 256})), {"pse_shift", "not support PSE"});
  // Without page attention the vendor's float16 path reads the combined antiquant_scale; S <= 16 runs MSD.
  expect_parts(parse_error(kN4, i8_kv() + separated()), {"only with page attention", "antiquant scale is nullptr"});
  const std::string short_q =
      tensor("query", {2, 16, 256}) + tensor("key", {2, 128, 256}, "int8") + tensor("value", {2, 128, 256}, "int8");
  expect_parts(parse_error(kN4, short_q + separated()), {"query S = 16", "needs a bfloat16 query"});
  // The separated parameters win over the combined ones (spec §1.6): those are not read, so without a block table
  // the case fails as the separated ones alone do, and with one it runs them, whatever the combined ones hold.
  expect_parts(parse_error(kN4, i8_kv() + separated() + scale()), {"only with page attention"});
  const attn::AttnProblem both =
      parse(kPagedAttrs, kPaged + separated() + scale({7}, "int8") + tensor("antiquant_offset", {3}));
  EXPECT_TRUE(both.antiquant.on && both.antiquant.separated);
  EXPECT_FALSE(both.antiquant.offset) << "the offset comes from the separated parameters, which have none";
  EXPECT_EQ(both.antiquant_tensor(true, false), "value_antiquant_scale");
  expect_parts(parse_error(kN4, i8_kv() + separated("int8")), {"inputs.key_antiquant_scale dtype int8 is not allowed"});
}

// ---- query S = 1: MSD (fia_check_antiquant_msd.cpp) ----
const std::string kDec = "num_heads: 4, num_key_value_heads: 2, input_layout: BSND";  // D 64, KV_N 2, B 2, KV S 100
std::string dec_qkv(const std::string& q = "float16") {
  return tensor("query", {2, 1, 4, 64}, q) + tensor("key", {2, 100, 2, 64}, "int8") +
         tensor("value", {2, 100, 2, 64}, "int8");
}
std::string sep(std::vector<int64_t> ks, const std::string& kt, std::vector<int64_t> vs, const std::string& vt,
                bool offset = false) {
  std::string r = tensor("key_antiquant_scale", ks, kt) + tensor("value_antiquant_scale", vs, vt);
  if (offset) r += tensor("key_antiquant_offset", ks, kt) + tensor("value_antiquant_offset", vs, vt);
  return r;
}
std::string modes(int k, int v) {
  return kDec + ", key_antiquant_mode: " + std::to_string(k) + ", value_antiquant_mode: " + std::to_string(v);
}

TEST(FiaAntiquantMsd, EveryModeParsesWithItsShapeAndDtype) {
  struct M {
    int k, v;
    std::vector<int64_t> ks, vs;
    const char *kt, *vt;
  };
  const std::vector<M> ok = {
      {0, 0, {1, 2, 64}, {1, 2, 1, 64}, "float16", "float16"}, {0, 0, {1}, {1}, "float16", "float16"},
      {1, 1, {1, 2, 100}, {1, 2, 100}, "float32", "float32"},  {2, 2, {2}, {2}, "float16", "float16"},
      {3, 3, {2, 2, 120}, {2, 2, 120}, "float32", "float32"},  {0, 1, {1, 128}, {1, 2, 100}, "float16", "float32"}};
  for (const M& m : ok) {
    const attn::AttnProblem p =
        parse(modes(m.k, m.v) + ", inner_precise: 1", dec_qkv() + sep(m.ks, m.kt, m.vs, m.vt, true));
    EXPECT_TRUE(p.antiquant.msd && p.antiquant.separated && p.antiquant.offset) << m.k << m.v;
    EXPECT_EQ(p.antiquant.k_mode, m.k);
    EXPECT_EQ(p.antiquant.v_mode, m.v);
    EXPECT_EQ(p.antiquant.limbs, 2);
    EXPECT_EQ(p.antiquant.per_tensor, m.ks == std::vector<int64_t>{1});
    if (m.k == 3) {
      EXPECT_EQ(p.antiquant.token_s, 120);
      EXPECT_EQ(p.antiquant_index(false, 1, 1, 7, 0, 0), (1 * 2 + 1) * 120 + 7);
    }
  }
  // Combined: antiquant_mode for both, K's part first.
  attn::AttnProblem p =
      parse(kDec + ", antiquant_mode: 1", dec_qkv("bfloat16") + tensor("antiquant_scale", {2, 2, 100}, "float32"));
  EXPECT_TRUE(p.antiquant.msd && !p.antiquant.separated);
  EXPECT_EQ(p.antiquant.k_mode, 1);
  EXPECT_EQ(p.antiquant_index(true, 1, 0, 5, 0, 0), 2 * 100 + 100 + 5);
  // The separated parameters win over the combined ones.
  p = parse(modes(1, 1),
            dec_qkv() + tensor("antiquant_scale", {2, 128}) + sep({1, 2, 100}, "float32", {1, 2, 100}, "float32"));
  EXPECT_TRUE(p.antiquant.separated);
  EXPECT_EQ(p.antiquant.v_mode, 1);
}

TEST(FiaAntiquantMsd, PagedModesTakeTheCacheBlocks) {
  const std::string in = tensor("query", {2, 1, 4, 64}) + tensor("key", {6, 32, 128}, "int8") +
                         tensor("value", {6, 32, 128}, "int8") + tensor("block_table", {2, 3}, "int32");
  const std::string attrs = ", block_size: 32, actual_seq_lengths_kv: [70, 20]";
  const attn::AttnProblem p = parse(modes(5, 5) + attrs, in + sep({6, 2, 32}, "float32", {6, 2, 32}, "float32"));
  EXPECT_EQ(p.antiquant_index(false, 0, 1, 37, 4, 0), (4 * 2 + 1) * 32 + 5);
  EXPECT_TRUE(parse(modes(4, 4) + attrs, in + sep({6, 32}, "float32", {6, 32}, "float32")).antiquant.msd);
  expect_parts(parse_error(modes(4, 4) + attrs, in + sep({6, 2, 32}, "float32", {6, 2, 32}, "float32")),
               {"inputs.key_antiquant_scale has shape [6, 2, 32]", "[6, 32]", "mode 4"});
  expect_parts(parse_error(modes(4, 4), dec_qkv() + sep({6, 16}, "float32", {6, 16}, "float32")),
               {"attrs.key_antiquant_mode = 4", "must be used in page attention scene"});
  const std::string in16 = tensor("query", {2, 1, 4, 64}) + tensor("key", {6, 16, 128}, "int8") +
                           tensor("value", {6, 16, 128}, "int8") + tensor("block_table", {2, 3}, "int32");
  expect_parts(parse_error(modes(4, 4) + ", block_size: 16, actual_seq_lengths_kv: [40, 20]",
                           in16 + sep({6, 16}, "float32", {6, 16}, "float32")),
               {"attrs.block_size = 16", "multiple of 32", "should be 32 aligned"});
}

TEST(FiaAntiquantMsd, RulesOfTheDecodeKernel) {
  expect_parts(parse_error(modes(1, 1), dec_qkv() + sep({1, 2, 100}, "float16", {1, 2, 100}, "float16")),
               {"inputs.key_antiquant_scale dtype float16", "float32", "per-token mode is enabled"});
  expect_parts(parse_error(modes(0, 0), dec_qkv() + sep({1, 2, 64}, "float32", {1, 2, 64}, "float32")),
               {"inputs.key_antiquant_scale dtype float32", "the query's float16", "same with input qtype"});
  expect_parts(parse_error(modes(0, 0), dec_qkv("bfloat16") + sep({1, 2, 64}, "float16", {1, 2, 64}, "float16")),
               {"dtype float16 must be the query's bfloat16"});
  expect_parts(parse_error(modes(1, 1), dec_qkv() + sep({1, 2, 99}, "float32", {1, 2, 99}, "float32")),
               {"S = 99", "100 rows per batch"});
  expect_parts(parse_error(modes(0, 0), dec_qkv() + sep({1, 64}, "float16", {1, 64}, "float16")),
               {"inputs.key_antiquant_scale has shape [1, 64]", "[1, 2, 1, 64] or [1, 2, 64] or [1, 128] or [1]"});
  expect_parts(parse_error(modes(0, 0), dec_qkv() + sep({1}, "float16", {1, 2, 64}, "float16")),
               {"must both be per-tensor (1) or both per-channel"});
  expect_parts(parse_error(modes(0, 1), dec_qkv("bfloat16") + sep({1, 128}, "bfloat16", {1, 2, 100}, "float32")),
               {"key_antiquant_mode = 0 with attrs.value_antiquant_mode = 1", "float16 query"});
  expect_parts(parse_error(kDec + ", key_antiquant_mode: 0, value_antiquant_mode: 1",
                           dec_qkv() + tensor("antiquant_scale", {2, 128})),
               {"need the separated"});
  expect_parts(
      parse_error(modes(0, 0) + ", inner_precise: 2", dec_qkv() + sep({1, 128}, "float16", {1, 128}, "float16")),
      {"attrs.inner_precise = 2", "precision mode should be 0 or 1"});
  expect_parts(parse_error(modes(0, 0), dec_qkv() + tensor("key_antiquant_scale", {1, 128})),
               {"inputs.value_antiquant_scale is missing"});
  const std::string prefix =
      tensor("key_shared_prefix", {1, 30, 2, 64}, "int8") + tensor("value_shared_prefix", {1, 30, 2, 64}, "int8");
  EXPECT_TRUE(parse(modes(0, 0), dec_qkv() + prefix + sep({1, 128}, "float16", {1, 128}, "float16")).prefix);
  // Per-token parameters with a prefix: its 30 rows first, then the key's 100 (AttnProblem::token_param_at).
  EXPECT_EQ(
      parse(modes(1, 1), dec_qkv() + prefix + sep({1, 2, 130}, "float32", {1, 2, 130}, "float32")).antiquant.token_s,
      130);
  expect_parts(parse_error(modes(3, 3), dec_qkv() + prefix + sep({2, 2, 129}, "float32", {2, 2, 129}, "float32")),
               {"inputs.key_antiquant_scale has S = 129", "at least 130", "total kv S Size (with shared prefix)"});
  expect_parts(parse_error(modes(0, 0), dec_qkv() + sep({1, 128}, "float16", {1, 128}, "float16") +
                                            tensor("key_antiquant_offset", {1, 128}, "float32") +
                                            tensor("value_antiquant_offset", {1, 128})),
               {"inputs.key_antiquant_offset (float32 [1, 128])", "datatype of antiquant scale and antiquant offset"});
  expect_parts(parse_error(kDec, tensor("query", {2, 1, 4, 64}) + tensor("key", {2, 100, 2, 64}, "int8") +
                                     tensor("value", {2, 100, 2, 64}, "int8")),
               {"int8 with a float16 query is KV antiquantisation", "key_antiquant_scale"});
}

// ---- int4 K / V (spec §1.6 "INT4"; fia_check_antiquant_msd.cpp check_antiquant_int4_rules) ----
std::string i4_qkv(const std::string& q = "float16", const std::string& kv = "int4", int64_t d = 64) {
  const int64_t last = kv == "int32" ? d / 8 : d;
  return tensor("query", {2, 1, 4, d}, q) + tensor("key", {2, 100, 2, last}, kv) +
         tensor("value", {2, 100, 2, last}, kv);
}
attn::AttnProblem parse_view(const std::string& attrs,
                             const std::string& inputs) {  // as the op does: int32 -> int4 first
  const CaseFile c = load_fia(attrs, inputs);
  std::optional<CaseFile> view;
  return parse_fia(fia::int4_view(c, view));
}
std::string parse_view_error(const std::string& attrs, const std::string& inputs) {
  return casetest::error_of([&] { parse_view(attrs, inputs); });
}

TEST(FiaAntiquantInt4, ModesZeroOneThreeAndKChannelVTokenRunWithFourLimbs) {
  for (const auto& [k, v, ks, kt, vs, vt] :
       std::vector<std::tuple<int, int, std::vector<int64_t>, const char*, std::vector<int64_t>, const char*>>{
           {0, 0, {1, 2, 64}, "bfloat16", {1, 128}, "bfloat16"},
           {1, 1, {1, 2, 100}, "float32", {1, 2, 100}, "float32"},
           {3, 3, {2, 2, 100}, "float32", {2, 2, 100}, "float32"},
           {0, 1, {1, 128}, "bfloat16", {1, 2, 100}, "float32"}}) {
    const attn::AttnProblem p = parse_view(modes(k, v), i4_qkv("bfloat16") + sep(ks, kt, vs, vt, true));
    EXPECT_TRUE(p.antiquant.msd && p.antiquant.int4) << k << v;
    EXPECT_EQ(p.kv_in(), ElemType::I4);
    EXPECT_EQ(p.antiquant.limbs, 4);  // whatever inner_precise is (default 0 here)
    EXPECT_EQ(p.antiquant.coef, 7.49f);
    EXPECT_EQ(p.antiquant.expand, 14.98f);
  }
  // The int32 view: the last dim x 8, the same problem.
  const attn::AttnProblem w =
      parse_view(modes(0, 0), i4_qkv("float16", "int32") + sep({1, 128}, "float16", {1, 128}, "float16"));
  EXPECT_TRUE(w.antiquant.int4);
  EXPECT_EQ(w.D, 64);
  EXPECT_EQ(w.kv_s, 100);
}

TEST(FiaAntiquantInt4, WhatInt4ExcludesExitsNamingTheRule) {
  const std::string pc = sep({1, 128}, "float16", {1, 128}, "float16");
  expect_parts(parse_view_error(modes(2, 2), i4_qkv() + sep({2}, "float16", {2}, "float16")),
               {"key_antiquant_mode = 2", "int4 supports modes 0 / 0 (per-channel), 1 / 1, 3 / 3 and 0 / 1"});
  expect_parts(parse_view_error(modes(0, 0), i4_qkv() + sep({1}, "float16", {1}, "float16")),
               {"inputs.key_antiquant_scale of shape [1]", "per-channel only"});
  expect_parts(parse_view_error(kDec, i4_qkv() + tensor("antiquant_scale", {2, 128})),
               {"inputs.antiquant_scale (the combined parameters) with int4", "separated"});
  expect_parts(parse_view_error(modes(0, 0), tensor("query", {2, 1, 4, 96}) + tensor("key", {2, 100, 2, 96}, "int4") +
                                                 tensor("value", {2, 100, 2, 96}, "int4") +
                                                 sep({1, 192}, "float16", {1, 192}, "float16")),
               {"D = 96", "multiple of 64"});
  expect_parts(parse_view_error(modes(0, 0), i4_qkv() + pc + tensor("quant_scale2", {1}, "float32")),
               {"inputs.quant_scale2", "int4", "not supported"});
  const std::string paged = tensor("query", {2, 1, 4, 64}) + tensor("key", {6, 32, 128}, "int4") +
                            tensor("value", {6, 32, 128}, "int4") + tensor("block_table", {2, 3}, "int32");
  expect_parts(parse_view_error(modes(0, 0) + ", block_size: 32, actual_seq_lengths_kv: [70, 20]", paged + pc),
               {"inputs.block_table (page attention) with int4", "not supported"});
  expect_parts(parse_view_error(modes(0, 0) + ", actual_seq_lengths_kv: [70, 20]",
                                i4_qkv() + pc + tensor("kv_padding_size", {1}, "int64")),
               {"inputs.kv_padding_size (left padding) with int4", "not supported"});
  expect_parts(parse_view_error(modes(0, 0), tensor("query", {2, 1, 4, 64}) + tensor("key", {2, 100, 2, 64}, "int4") +
                                                 tensor("value", {2, 100, 2, 64}, "int8") + pc),
               {"inputs.value is int8 but inputs.key is int4", "all int8 or all int4"});
  expect_parts(parse_view_error(kDec, i4_qkv()), {"inputs.key dtype int4", "needs inputs.key_antiquant_scale"});
  expect_parts(
      parse_view_error("num_heads: 4, num_key_value_heads: 2, input_layout: BSND",
                       tensor("query", {2, 8, 4, 64}, "bfloat16") + tensor("key", {2, 100, 2, 64}, "int4") +
                           tensor("value", {2, 100, 2, 64}, "int4") + sep({2, 64}, "bfloat16", {2, 64}, "bfloat16")),
      {"int4 key / value with query S = 8", "query S = 1 only"});
}

// ---- query S in 2..16 with a bfloat16 query: the prompt kernel's MSD mode ----
std::string bf_prompt(int64_t sq = 8) {
  return tensor("query", {2, sq, 256}, "bfloat16") + tensor("key", {2, 128, 256}, "int8") +
         tensor("value", {2, 128, 256}, "int8");
}

TEST(FiaAntiquantMsd, ABfloat16PromptQueryTakesTheSeparatedParametersUpToS16) {
  attn::AttnProblem p = parse(kN4, bf_prompt() + sep({4, 1, 64}, "bfloat16", {4, 64}, "bfloat16", true));
  EXPECT_TRUE(p.antiquant.msd && p.antiquant.separated && p.antiquant.offset);
  EXPECT_EQ(p.antiquant.limbs, 2);
  EXPECT_EQ(p.antiquant.coef, 127.49f);
  EXPECT_EQ(p.antiquant.expand, 254.98f);
  p = parse(kN4 + ", key_antiquant_mode: 1, value_antiquant_mode: 1",
            bf_prompt(16) + sep({2, 128}, "float32", {2, 128}, "float32"));
  EXPECT_EQ(p.antiquant.k_mode, 1);
  EXPECT_EQ(p.antiquant.token_s, 128);
  expect_parts(parse_error(kN4, bf_prompt(17) + sep({4, 64}, "bfloat16", {4, 64}, "bfloat16")),
               {"query S = 17", "<= 16", "dequant scale is enabled"});
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 0, value_antiquant_mode: 1",
                           bf_prompt() + sep({4, 64}, "bfloat16", {2, 128}, "float32")),
               {"must both be 0", "only support per-token and per-channel"});
  expect_parts(parse_error(kN4, bf_prompt() + sep({4, 64}, "float16", {4, 64}, "float16")),
               {"dtype float16 must be bfloat16 in per-channel mode"});
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 1, value_antiquant_mode: 1",
                           bf_prompt() + sep({2, 127}, "float32", {2, 127}, "float32")),
               {"inputs.key_antiquant_scale has shape [2, 127]", "[2, 128]", "per-token mode"});
  expect_parts(parse_error(kN4, bf_prompt() + sep({1, 4, 64}, "bfloat16", {1, 4, 64}, "bfloat16")),
               {"has shape [1, 4, 64]", "[4, 64] or [4, 1, 64] or [256]"});
  expect_parts(parse_error(kN4, bf_prompt()), {"int8 with a bfloat16 query", "should not be null"});
  const std::string list = tensor("query", {2, 8, 256}, "bfloat16") +
                           "  key: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n" +
                           "  value: [{shape: [1, 128, 256], dtype: int8}, {shape: [1, 128, 256], dtype: int8}]\n";
  expect_parts(parse_error(kN4, list + sep({4, 64}, "bfloat16", {4, 64}, "bfloat16")), {"tensorlist is not supported"});
  // A shared prefix: per-channel parameters take it; per-token ones exit 2 (the vendor's kernel reads past each row).
  const std::string prefix =
      tensor("key_shared_prefix", {1, 40, 256}, "int8") + tensor("value_shared_prefix", {1, 40, 256}, "int8");
  EXPECT_TRUE(parse(kN4, bf_prompt() + prefix + sep({4, 64}, "bfloat16", {4, 64}, "bfloat16")).prefix);
  expect_parts(parse_error(kN4 + ", key_antiquant_mode: 1, value_antiquant_mode: 1",
                           bf_prompt() + prefix + sep({2, 128}, "float32", {2, 128}, "float32")),
               {"inputs.key_shared_prefix with per-token", "mode 1", "reads past each row"});
}

}  // namespace
}  // namespace npusim::op
