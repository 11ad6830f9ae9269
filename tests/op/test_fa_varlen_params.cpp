// FA V3 parameter checks (kernels/fa_varlen/fa_check_*.cpp): each rule rejects a broken case with a CaseError
// naming the parameter, the offending value and the rule; valid cases parse into the expected problem.
#include <cfloat>

#include "kernels/fa_varlen/fa_params.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using attn::MaskKind;
using fiatest::expect_parts;
using fiatest::tensor;

// Base: 2 batches (cumulative q [64, 160], kv [96, 224]), N1 4, N2 2, D 64 + Dr 32, bf16, compressed mask, mode 3.
struct FaCaseText {
  std::string attrs =
      "head_num: 4, input_layout: TND, sparse_mode: 3, actual_seq_qlen: [64, 160], actual_seq_kvlen: [96, 224]";
  std::string q = tensor("query", {160, 4, 64}, "bfloat16"), k = tensor("key", {224, 2, 64}, "bfloat16"),
              v = tensor("value", {224, 2, 64}, "bfloat16"), qr = tensor("query_rope", {160, 4, 32}, "bfloat16"),
              kr = tensor("key_rope", {224, 2, 32}, "bfloat16"), mask = tensor("atten_mask", {2048, 2048}, "bool");
  std::string extra;
  std::string inputs() const { return q + k + v + qr + kr + mask + extra; }
};

CaseFile load_fa(const FaCaseText& t) {
  const auto dir = casetest::scratch_dir();
  const std::string p = casetest::write_text(
      dir / "fa.yaml", "op: flash_attention_var_len_score\nattrs: {" + t.attrs + "}\ninputs:\n" + t.inputs());
  return load_case(p, {}, false);
}
attn::AttnProblem parse(const FaCaseText& t) { return parse_fa_varlen(load_fa(t)); }
std::string error(const FaCaseText& t) {
  return casetest::error_of([&] { parse_fa_varlen(load_fa(t)); });
}
FaCaseText with_attrs(const std::string& a) {
  FaCaseText t;
  t.attrs = a;
  return t;
}
const std::string kLens = "actual_seq_qlen: [64, 160], actual_seq_kvlen: [96, 224]";
const std::string kBase = "head_num: 4, input_layout: TND, " + kLens;

TEST(FaVarLenParse, TheBaseCaseIsTndWithRopeStatisticsAndCastRound) {
  const attn::AttnProblem p = parse(FaCaseText{});
  EXPECT_EQ(p.B, 2);
  EXPECT_EQ(p.N, 4);
  EXPECT_EQ(p.KV_N, 2);
  EXPECT_EQ(p.G, 2);
  EXPECT_EQ(p.Sq, 160);
  EXPECT_EQ(p.kv_s, 224);
  EXPECT_EQ(p.D, 64);
  EXPECT_EQ(p.Dr, 32);
  EXPECT_EQ(p.qk_dim(), 96);
  EXPECT_EQ(p.act_q, (std::vector<int64_t>{64, 96}));
  EXPECT_EQ(p.act_kv, (std::vector<int64_t>{96, 128}));
  EXPECT_EQ(p.q_start(1), 64);
  EXPECT_EQ(p.kv_start(1), 96);
  EXPECT_EQ(p.mask, MaskKind::Compressed);
  EXPECT_TRUE(p.max_sum);
  EXPECT_TRUE(p.cast_round);
  EXPECT_FALSE(p.incremental());
  EXPECT_EQ(p.scale, 1.0);  // torch_npu's default, not 1 / sqrt(D)
}

TEST(FaVarLenParse, MasksAreLocalGlobalOrCompressed) {
  FaCaseText t = with_attrs(kBase + ", sparse_mode: 1");
  t.mask = tensor("atten_mask", {96, 128}, "uint8");  // (maxSq, maxSkv)
  attn::AttnProblem p = parse(t);
  EXPECT_EQ(p.mask, MaskKind::Full);
  EXPECT_FALSE(p.mask_global);
  t.mask = tensor("atten_mask", {160, 224}, "bool");  // (T1, T2)
  p = parse(t);
  EXPECT_TRUE(p.mask_global);
  EXPECT_EQ(p.mask_row(1, 5), 69);
  EXPECT_EQ(p.mask_col(1, 7), 103);
}

TEST(FaVarLenParse, Modes7And8PickTheirBandBatchByQueryLength) {
  FaCaseText t = with_attrs(
      "head_num: 4, input_layout: TND, sparse_mode: 7, pre_tokens: 1000, next_tokens: 0, actual_seq_qlen: [64, 160, "
      "160], actual_seq_kvlen: [96, 224, 224]");
  EXPECT_EQ(parse(t).band_batch, 1);  // the last batch with Sq != 0
  t.attrs =
      "head_num: 4, input_layout: TND, sparse_mode: 8, pre_tokens: 1000, next_tokens: 0, actual_seq_qlen: [0, 64, "
      "160], actual_seq_kvlen: [10, 96, 224]";
  EXPECT_EQ(parse(t).band_batch, 1);  // the first batch with Sq != 0
}

TEST(FaVarLenParse, WithoutRopeFloat16AndNoMaskAreAllowed) {
  FaCaseText t = with_attrs(kBase + ", sparse_mode: 0");
  t.q = tensor("query", {160, 4, 72}), t.k = tensor("key", {224, 2, 72}), t.v = tensor("value", {224, 2, 72});
  t.qr = t.kr = t.mask = "";
  const attn::AttnProblem p = parse(t);
  EXPECT_EQ(p.Dr, 0);
  EXPECT_EQ(p.mask, MaskKind::None);
  EXPECT_EQ(p.in, ElemType::F16);
}

TEST(FaVarLenReject, ForbiddenInputsAreNamed) {
  for (const char* name : {"pse", "padding_mask", "drop_mask"}) {
    FaCaseText t;
    t.extra = tensor(name, {1, 4, 160, 224}, "bfloat16");
    expect_parts(error(t), {std::string("inputs.") + name, "must be absent"});
  }
  FaCaseText t;
  t.extra = tensor("pse_shift", {1}, "bfloat16");
  // not a parameter of this op: the declared names reject it
  expect_parts(casetest::error_of([&] { check_param_names(find_op("flash_attention_var_len_score"), load_fa(t)); }),
               {"pse_shift"});
}

TEST(FaVarLenReject, HostValuesOutOfTheirRules) {
  const std::string b = "head_num: 4, sparse_mode: 3, " + kLens;
  expect_parts(error(with_attrs(b + ", input_layout: BSND")), {"attrs.input_layout", "'BSND'", "TND"});
  expect_parts(error(with_attrs(b)), {"attrs.input_layout", "required"});
  expect_parts(error(with_attrs(b + ", input_layout: TND, keep_prob: 0.9")), {"attrs.keep_prob", "must be 1"});
  expect_parts(error(with_attrs(b + ", input_layout: TND, pse_type: 2")), {"attrs.pse_type = 2", "0 or 1"});
  expect_parts(error(with_attrs(b + ", input_layout: TND, inner_precise: 3")),
               {"attrs.inner_precise = 3", "0, 1 or 2"});
  expect_parts(error(with_attrs(b + ", input_layout: TND, q_start_idx: [1, 2]")), {"attrs.q_start_idx", "exactly one"});
  expect_parts(error(with_attrs(b + ", input_layout: TND, prefix: [1]")), {"attrs.prefix", "B = 2"});
  expect_parts(error(with_attrs("input_layout: TND, sparse_mode: 3, " + kLens)), {"attrs.head_num", "required"});
  expect_parts(error(with_attrs("head_num: 0, input_layout: TND, sparse_mode: 3, " + kLens)),
               {"attrs.head_num = 0", "[1, 256]"});
  expect_parts(error(with_attrs("head_num: 8, input_layout: TND, sparse_mode: 3, " + kLens)),
               {"attrs.head_num = 8", "N1 = 4"});
}

TEST(FaVarLenReject, SparseModes5And6AndOutOfRange) {
  expect_parts(error(with_attrs(kBase + ", sparse_mode: 5")), {"attrs.sparse_mode = 5", "variable-length"});
  expect_parts(error(with_attrs(kBase + ", sparse_mode: 6")), {"attrs.sparse_mode = 6", "rejected"});
  expect_parts(error(with_attrs(kBase + ", sparse_mode: 9")), {"attrs.sparse_mode = 9", "invalid"});
  expect_parts(error(with_attrs(kBase + ", sparse_mode: -1")), {"attrs.sparse_mode = -1", "invalid"});
}

TEST(FaVarLenReject, SequenceLengths) {
  const std::string h = "head_num: 4, input_layout: TND, sparse_mode: 3, ";
  expect_parts(error(with_attrs(h + "actual_seq_qlen: [64, 60], actual_seq_kvlen: [96, 224]")),
               {"attrs.actual_seq_qlen[1] = 60", "previous value 64", "never decrease"});
  expect_parts(error(with_attrs(h + "actual_seq_qlen: [-1, 160], actual_seq_kvlen: [96, 224]")),
               {"attrs.actual_seq_qlen[0] = -1"});
  expect_parts(error(with_attrs(h + "actual_seq_qlen: [64, 150], actual_seq_kvlen: [96, 224]")),
               {"attrs.actual_seq_qlen", "ends at 150", "T = 160"});
  expect_parts(error(with_attrs(h + "actual_seq_qlen: [64, 160], actual_seq_kvlen: [224]")),
               {"attrs.actual_seq_qlen lists 2", "actual_seq_kvlen 1"});
  expect_parts(error(with_attrs(h + "actual_seq_qlen: [], actual_seq_kvlen: []")),
               {"attrs.actual_seq_qlen", "at least one"});
  expect_parts(error(with_attrs("head_num: 4, input_layout: TND, actual_seq_kvlen: [96, 224]")),
               {"attrs.actual_seq_qlen", "required"});
}

TEST(FaVarLenReject, TensorShapesAndDtypes) {
  FaCaseText t;
  t.q = tensor("query", {160, 4, 64}, "float16");
  expect_parts(error(t), {"inputs.key", "dtype bfloat16", "must equal the query's (float16)"});
  t = FaCaseText{};
  t.q = tensor("query", {160, 4, 64}, "float32"), t.k = tensor("key", {224, 2, 64}, "float32"),
  t.v = tensor("value", {224, 2, 64}, "float32"), t.qr = tensor("query_rope", {160, 4, 32}, "float32"),
  t.kr = tensor("key_rope", {224, 2, 32}, "float32");
  expect_parts(error(t), {"inputs.query dtype float32", "not supported"});
  t = FaCaseText{};
  t.q = tensor("query", {160, 4, 64}, "float16"), t.k = tensor("key", {224, 2, 64}, "float16"),
  t.v = tensor("value", {224, 2, 64}, "float16"), t.qr = tensor("query_rope", {160, 4, 32}, "float16"),
  t.kr = tensor("key_rope", {224, 2, 32}, "float16");
  expect_parts(error(t), {"inputs.query dtype float16", "not allowed with query_rope"});
  t = FaCaseText{};
  t.q = tensor("query", {160, 4, 1, 64}, "bfloat16");
  expect_parts(error(t), {"inputs.query", "rank 4", "(T1, N1, D)"});
  t = FaCaseText{};
  t.k = tensor("key", {224, 3, 64}, "bfloat16"), t.v = tensor("value", {224, 3, 64}, "bfloat16"),
  t.kr = tensor("key_rope", {224, 3, 32}, "bfloat16");
  expect_parts(error(t), {"inputs.key heads N2 = 3", "divide head_num = 4"});
  t = FaCaseText{};
  t.k = tensor("key", {224, 2, 48}, "bfloat16");
  expect_parts(error(t), {"inputs.key head dim 48", "D = 64"});
  t = FaCaseText{};
  t.v = tensor("value", {224, 2, 80}, "bfloat16");
  expect_parts(error(t), {"inputs.value head dim Dv = 80", "D = 64"});
  t = FaCaseText{};
  t.v = tensor("value", {200, 2, 64}, "bfloat16");
  expect_parts(error(t), {"inputs.value", "T2, N2 must match the key's"});
}

TEST(FaVarLenReject, HeadDimRules) {
  FaCaseText t;
  t.q = tensor("query", {160, 4, 776}, "bfloat16"), t.k = tensor("key", {224, 2, 776}, "bfloat16");
  expect_parts(error(t), {"D = 776", "multiple of 8 in [8, 768]"});
  t = FaCaseText{};
  t.q = tensor("query", {160, 4, 60}, "bfloat16"), t.k = tensor("key", {224, 2, 60}, "bfloat16"),
  t.v = tensor("value", {224, 2, 60}, "bfloat16");
  expect_parts(error(t), {"D = 60", "multiple of 8"});
  t = FaCaseText{};  // rope: the vendor's pad rule (D % 16 for D < 196), not waived for D >= 96
  t.attrs = "head_num: 4, input_layout: TND, sparse_mode: 3, actual_seq_qlen: [64, 160], actual_seq_kvlen: [96, 224]";
  t.q = tensor("query", {160, 4, 104}, "bfloat16"), t.k = tensor("key", {224, 2, 104}, "bfloat16"),
  t.v = tensor("value", {224, 2, 104}, "bfloat16");
  expect_parts(error(t), {"D = 104", "would need padding", "multiples of 16"});
  t = FaCaseText{};  // D = 64 with Dv != D needs padding; the waiver (D < 96, short sequences) lets it pass
  t.v = tensor("value", {224, 2, 32}, "bfloat16");
  EXPECT_EQ(parse(t).Dv, 32);
  t = FaCaseText{};
  t.qr = tensor("query_rope", {160, 4, 72}, "bfloat16"), t.kr = tensor("key_rope", {224, 2, 72}, "bfloat16");
  expect_parts(error(t), {"inputs.query_rope head dim Dr = 72", "[8, D = 64]"});
  t = FaCaseText{};
  t.kr = tensor("key_rope", {224, 2, 16}, "bfloat16");
  expect_parts(error(t), {"inputs.key_rope head dim 16", "Dr = 32"});
  t = FaCaseText{};
  t.kr = "";
  expect_parts(error(t), {"inputs.key_rope is missing", "come together"});
  t = FaCaseText{};
  t.qr = tensor("query_rope", {150, 4, 32}, "bfloat16");
  expect_parts(error(t), {"inputs.query_rope", "must match the query's"});
}

TEST(FaVarLenReject, MaskFormsAndDtypes) {
  FaCaseText t;
  t.mask = "";
  expect_parts(error(t), {"inputs.atten_mask is required with query_rope"});
  t.qr = t.kr = "";
  expect_parts(error(t), {"inputs.atten_mask is required with sparse_mode 3"});
  t = FaCaseText{};
  t.mask = tensor("atten_mask", {2048, 2048}, "int8");
  expect_parts(error(t), {"inputs.atten_mask dtype int8", "bool or uint8"});
  t.mask = tensor("atten_mask", {1024, 1024}, "bool");
  expect_parts(error(t), {"inputs.atten_mask", "[1024, 1024]", "sparse_mode 3", "[2048, 2048]"});
  t.mask = tensor("atten_mask", {2, 4, 96, 128}, "bool");
  t.attrs = kBase + ", sparse_mode: 1";
  expect_parts(error(t), {"inputs.atten_mask", "4-D forms are not supported"});
  t.mask = tensor("atten_mask", {100, 128}, "bool");
  expect_parts(error(t), {"inputs.atten_mask", "[100, 128]", "[96, 128] (per batch)", "[160, 224] (global)"});
}

TEST(FaVarLenReject, BandRulesOfEachSparseMode) {
  const std::string h = "head_num: 4, input_layout: TND, ";
  // mode 3: Sq > Skv in some batch
  expect_parts(error(with_attrs(h + "sparse_mode: 3, actual_seq_qlen: [64, 160], actual_seq_kvlen: [32, 224]")),
               {"attrs.sparse_mode = 3", "batch 0 (Sq = 64, Skv = 32)", "Sq > Skv"});
  // mode 4: pre < 0, pre + next < 0, Sq - next > Skv
  expect_parts(error(with_attrs(h + "sparse_mode: 4, pre_tokens: -1, next_tokens: 10, " + kLens)),
               {"attrs.pre_tokens = -1", ">= 0 in sparse_mode 4"});
  expect_parts(error(with_attrs(h + "sparse_mode: 4, pre_tokens: 5, next_tokens: -10, " + kLens)),
               {"attrs.next_tokens", "pre_tokens + next_tokens must be >= 0"});
  expect_parts(error(with_attrs(h + "sparse_mode: 4, pre_tokens: 100, next_tokens: -50, " + kLens)),
               {"attrs.next_tokens", "Sq - next_tokens <= Skv"});
  // mode 7: next > 0, pre < Skv of the band batch
  expect_parts(error(with_attrs(h + "sparse_mode: 7, pre_tokens: 1000, next_tokens: 1, " + kLens)),
               {"attrs.next_tokens = 1", "<= 0 in sparse_mode 7"});
  expect_parts(error(with_attrs(h + "sparse_mode: 7, pre_tokens: 100, next_tokens: 0, " + kLens)),
               {"attrs.pre_tokens = 100", "Skv = 128", "band batch 1"});
  // mode 8: pre < Skv of the first batch with Sq != 0
  expect_parts(error(with_attrs(h + "sparse_mode: 8, pre_tokens: 50, next_tokens: 0, " + kLens)),
               {"attrs.pre_tokens = 50", "Skv = 96", "band batch 0"});
  // mode 0 with a mask: next < 0, Skv + pre < Sq
  FaCaseText t = with_attrs(h + "sparse_mode: 0, pre_tokens: 100, next_tokens: -1, " + kLens);
  t.mask = tensor("atten_mask", {96, 128}, "bool");
  expect_parts(error(t), {"attrs.next_tokens = -1", ">= 0 in sparse_mode 0"});
  t.attrs = h + "sparse_mode: 0, pre_tokens: -40, next_tokens: 10, " + kLens;
  expect_parts(error(t), {"attrs.pre_tokens", "Skv + pre_tokens >= Sq"});
}

}  // namespace
}  // namespace npusim::op
