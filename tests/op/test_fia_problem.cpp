// FIA V2 parameters that parse: each layout, GQA, tensor lists, pages, prefix and left padding fill the
// AttnProblem as spec'd (lengths, dims the strides use, mask / pse forms, forced invalid-row correction, fp16
// high performance); every configs/cases/fia_*.yaml parses in timing mode; the parameter list itself.
#include <filesystem>
#include <optional>

#include "kernels/fia/fia_int4_view.h"
#include "kernels/op/op.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;
using attn::KvStorage;
using attn::Layout;
using attn::MaskKind;
using V = std::vector<int64_t>;

TEST(FiaProblem, BshDefaultsFollowTorchNpu) {
  const attn::AttnProblem p = parse("num_heads: 4", bsh_qkv());
  EXPECT_EQ(p.B, 2);
  EXPECT_EQ(p.N, 4);
  EXPECT_EQ(p.KV_N, 4);
  EXPECT_EQ(p.G, 1);
  EXPECT_EQ(p.Sq, 64);
  EXPECT_EQ(p.kv_s, 128);
  EXPECT_EQ(p.D, 64);
  EXPECT_EQ(p.Dv, 64);
  EXPECT_EQ(p.layout, Layout::BSH);
  EXPECT_EQ(p.out_layout, Layout::BSH);
  EXPECT_EQ(p.in, ElemType::F16);
  EXPECT_EQ(p.out, ElemType::F16);
  EXPECT_EQ(p.kv, KvStorage::Dense);
  EXPECT_EQ(p.act_q, (V{64, 64}));
  EXPECT_EQ(p.act_kv, (V{128, 128}));
  EXPECT_EQ(p.scale, 1.0);
  EXPECT_EQ(p.pre_tokens, 2147483647);
  EXPECT_EQ(p.next_tokens, 2147483647);
  EXPECT_EQ(p.sparse_mode, 0);
  EXPECT_EQ(p.mask, MaskKind::None);
  EXPECT_FALSE(p.pse || p.prefix || p.left_pad || p.high_perf || p.row_fix || p.lse);
  EXPECT_EQ(p.inner_precise, 0);
}

TEST(FiaProblem, BnsdBsndAndGqaLayouts) {
  const std::string bnsd = tensor("query", {1, 8, 32, 128}, "bfloat16") + tensor("key", {1, 2, 48, 128}, "bfloat16") +
                           tensor("value", {1, 2, 48, 128}, "bfloat16");
  attn::AttnProblem p = parse("num_heads: 8, num_key_value_heads: 2, input_layout: BNSD, scale: 0.125", bnsd);
  EXPECT_EQ(p.layout, Layout::BNSD);
  EXPECT_EQ(p.out_layout, Layout::BNSD);
  EXPECT_EQ(p.in, ElemType::BF16);
  EXPECT_EQ(p.out, ElemType::BF16);
  EXPECT_EQ(std::vector<int64_t>({p.N, p.KV_N, p.G, p.Sq, p.kv_s, p.D}), (V{8, 2, 4, 32, 48, 128}));
  EXPECT_EQ(p.scale, 0.125);
  p = parse("num_heads: 8, num_key_value_heads: 2, input_layout: BNSD_BSND", bnsd);
  EXPECT_EQ(p.layout, Layout::BNSD_BSND);
  EXPECT_EQ(p.out_layout, Layout::BSND);
  const std::string bsnd =
      tensor("query", {2, 32, 4, 64}) + tensor("key", {2, 40, 1, 64}) + tensor("value", {2, 40, 1, 64});
  p = parse("num_heads: 4, num_key_value_heads: 1, input_layout: BSND", bsnd);
  EXPECT_EQ(std::vector<int64_t>({p.B, p.N, p.KV_N, p.G, p.Sq, p.kv_s, p.D}), (V{2, 4, 1, 4, 32, 40, 64}));
  const std::string bsh_gqa =
      tensor("query", {2, 64, 256}) + tensor("key", {2, 128, 128}) + tensor("value", {2, 128, 128});
  p = parse("num_heads: 4, num_key_value_heads: 2", bsh_gqa);  // H_kv = KV_N * D
  EXPECT_EQ(std::vector<int64_t>({p.KV_N, p.G, p.D}), (V{2, 2, 64}));
}

TEST(FiaProblem, ActualLengthsBroadcastOrTakeTheFirstB) {
  attn::AttnProblem p = parse("num_heads: 4, actual_seq_lengths: 17, actual_seq_lengths_kv: [100, 0, 5]", bsh_qkv());
  EXPECT_EQ(p.act_q, (V{17, 17}));
  EXPECT_EQ(p.act_kv, (V{100, 0}));
  EXPECT_TRUE(p.row_fix);  // batch 1 has no KV: its rows certainly see nothing
}

TEST(FiaProblem, TensorListKeepsEachBatchS) {
  const std::string in = tensor("query", {2, 64, 256}) +
                         "  key: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n" +
                         "  value: [{shape: [1, 100, 256], dtype: float16}, {shape: [1, 80, 256], dtype: float16}]\n";
  attn::AttnProblem p = parse("num_heads: 4", in);
  EXPECT_EQ(p.kv, KvStorage::List);
  EXPECT_EQ(p.list_s, (V{100, 80}));
  EXPECT_EQ(p.kv_s, 100);
  EXPECT_EQ(p.act_kv, (V{100, 80}));
  p = parse("num_heads: 4, actual_seq_lengths_kv: [7, 80]", in);
  EXPECT_EQ(p.act_kv, (V{7, 80}));
}

TEST(FiaProblem, PagedBsHAndNBsD) {
  const std::string bsh = tensor("query", {2, 64, 256}) + tensor("key", {6, 256, 256}) +
                          tensor("value", {6, 256, 256}) + tensor("block_table", {2, 3}, "int32");
  attn::AttnProblem p = parse("num_heads: 4, block_size: 256, actual_seq_lengths_kv: [700, 300]", bsh);
  EXPECT_EQ(p.kv, KvStorage::PagedBsH);
  EXPECT_EQ(std::vector<int64_t>({p.block_size, p.block_num, p.max_blocks, p.kv_s}), (V{256, 6, 3, 768}));
  EXPECT_EQ(p.act_kv, (V{700, 300}));
  const std::string nbsd = tensor("query", {1, 4, 64, 128}) + tensor("key", {3, 2, 128, 128}) +
                           tensor("value", {3, 2, 128, 128}) + tensor("block_table", {1, 3}, "int32");
  p = parse("num_heads: 4, num_key_value_heads: 2, input_layout: BNSD, block_size: 128, actual_seq_lengths_kv: [300]",
            nbsd);
  EXPECT_EQ(p.kv, KvStorage::PagedNBsD);
  EXPECT_EQ(std::vector<int64_t>({p.block_size, p.block_num, p.max_blocks, p.KV_N, p.G}), (V{128, 3, 3, 2, 2}));
  // The mask of a paged case spans max_blocks * block_size columns.
  EXPECT_NO_THROW(parse("num_heads: 4, block_size: 256, actual_seq_lengths_kv: [700, 300]",
                        bsh + tensor("atten_mask", {64, 768}, "bool")));
  expect_parts(parse_error("num_heads: 4, block_size: 256, actual_seq_lengths_kv: [700, 300]",
                           bsh + tensor("atten_mask", {64, 767}, "bool")),
               {"Skv >= 768"});
}

TEST(FiaProblem, PrefixLengthDefaultsToItsS) {
  const std::string in =
      bsh_qkv() + tensor("key_shared_prefix", {1, 32, 256}) + tensor("value_shared_prefix", {1, 32, 256});
  attn::AttnProblem p = parse("num_heads: 4", in);
  EXPECT_TRUE(p.prefix);
  EXPECT_EQ(p.prefix_s, 32);
  EXPECT_EQ(p.prefix_len, 32);
  p = parse("num_heads: 4, actual_shared_prefix_len: [20]", in + tensor("atten_mask", {1, 1, 64, 148}, "uint8"));
  EXPECT_EQ(p.prefix_len, 20);
  EXPECT_EQ(p.skv_eff(0), 148);
  EXPECT_EQ(p.mask_skv, 148);  // P + key S
}

TEST(FiaProblem, LeftPaddingClampsNegativePadsAndReadsDataInBothModes) {
  auto pad = [](const std::string& n, int64_t v) {
    return tensor(n, {1}, "int64", "dist: uniform, low: " + std::to_string(v) + ", high: " + std::to_string(v + 1));
  };
  const std::string in = bsh_qkv() + pad("query_padding_size", 4) + pad("kv_padding_size", -3);
  const std::string attrs = "num_heads: 4, actual_seq_lengths: [50, 60], actual_seq_lengths_kv: [100, 128]";
  for (bool fill : {false, true}) {
    const attn::AttnProblem p = parse(attrs, in, fill);
    EXPECT_TRUE(p.left_pad);
    EXPECT_EQ(p.q_pad, 4);
    EXPECT_EQ(p.kv_pad, 0);
    EXPECT_EQ(p.act_q, (V{50, 60}));
    EXPECT_EQ(p.q_start(1), 0);  // 64 - 4 - 60
    EXPECT_FALSE(p.row_fix);     // left padding widens the mode-0 band
  }
}

TEST(FiaProblem, MaskForms) {
  attn::AttnProblem p = parse("num_heads: 4", bsh_qkv() + tensor("atten_mask", {2, 1, 80, 200}, "int8"));
  EXPECT_EQ(p.mask, MaskKind::Full);
  EXPECT_EQ(p.mask_dtype, ElemType::I8);
  EXPECT_TRUE(p.mask_per_batch);
  EXPECT_EQ(p.mask_sq, 80);
  EXPECT_EQ(p.mask_skv, 200);
  for (const V& shared : {V{64, 128}, V{1, 64, 128}, V{1, 1, 64, 128}}) {
    p = parse("num_heads: 4, sparse_mode: 1", bsh_qkv() + tensor("atten_mask", shared, "bool"));
    EXPECT_EQ(p.mask, MaskKind::Full);
    EXPECT_FALSE(p.mask_per_batch);
  }
  p = parse("num_heads: 4, sparse_mode: 2", bsh_qkv() + tensor("atten_mask", {1, 2048, 2048}, "bool"));
  EXPECT_EQ(p.mask, MaskKind::Compressed);
  EXPECT_EQ(p.mask_sq, 2048);
  EXPECT_EQ(p.mask_skv, 2048);
}

TEST(FiaProblem, PseAndHighPerformance) {
  attn::AttnProblem p = parse("num_heads: 4, inner_precise: 1", bsh_qkv());
  EXPECT_TRUE(p.high_perf);
  EXPECT_FALSE(p.row_fix);
  p = parse("num_heads: 4, inner_precise: 3", bsh_qkv());
  EXPECT_TRUE(p.high_perf && p.row_fix);
  p = parse("num_heads: 4, inner_precise: 1", bsh_qkv("bfloat16"));
  EXPECT_FALSE(p.high_perf);  // bit0 only matters for fp16
  p = parse("num_heads: 4, inner_precise: 1", bsh_qkv() + tensor("pse_shift", {2, 4, 70, 130}));
  EXPECT_FALSE(p.high_perf);  // a pse forces high precision
  EXPECT_TRUE(p.pse);
  EXPECT_EQ(std::vector<int64_t>({p.pse_b, p.pse_sq, p.pse_skv}), (V{2, 70, 130}));
}

TEST(FiaProblem, RowFixIsForcedWhereRowsCertainlySeeNothing) {
  const std::string c3 = tensor("atten_mask", {2048, 2048}, "bool");
  const std::string long_q =
      tensor("query", {1, 128, 256}) + tensor("key", {1, 64, 256}) + tensor("value", {1, 64, 256});
  EXPECT_TRUE(parse("num_heads: 4, sparse_mode: 3", long_q + c3).row_fix);      // act_q 128 > skv 64: delta < 0
  EXPECT_FALSE(parse("num_heads: 4, sparse_mode: 3", bsh_qkv() + c3).row_fix);  // Sq 64 <= Skv 128
  EXPECT_FALSE(parse("num_heads: 4, sparse_mode: 2", long_q + c3).row_fix);     // j <= i: row 0 sees column 0
  const std::string mask = tensor("atten_mask", {64, 128}, "bool");
  EXPECT_TRUE(parse("num_heads: 4, next_tokens: -5", bsh_qkv() + mask).row_fix);  // rows 0..4 see nothing
  EXPECT_FALSE(parse("num_heads: 4, next_tokens: -5", bsh_qkv()).row_fix);        // no mask: band forced open
  EXPECT_TRUE(
      parse("num_heads: 4, pre_tokens: 10, next_tokens: 0", long_q + tensor("atten_mask", {128, 64}, "bool")).row_fix);
  EXPECT_FALSE(parse("num_heads: 4, sparse_mode: 4, pre_tokens: 0, next_tokens: 0", bsh_qkv() + c3).row_fix);
}

TEST(FiaProblem, SoftmaxLseFlag) { EXPECT_TRUE(parse("num_heads: 4, softmax_lse_flag: true", bsh_qkv()).lse); }

TEST(FiaProblem, EmptyQueryAndEmptyKvParse) {
  const std::string q0 = tensor("query", {2, 0, 256}) + tensor("key", {2, 128, 256}) + tensor("value", {2, 128, 256});
  EXPECT_TRUE(fia_query_empty(load_fia("num_heads: 4", q0)));
  EXPECT_EQ(parse("num_heads: 4", q0).Sq, 0);
  const std::string b0 = tensor("query", {0, 64, 256}) + tensor("key", {0, 128, 256}) + tensor("value", {0, 128, 256});
  EXPECT_EQ(parse("num_heads: 4", b0).B, 0);
  EXPECT_FALSE(fia_query_empty(load_fia("num_heads: 4", bsh_qkv())));
  const std::string kv0 = tensor("query", {2, 64, 256}) + tensor("key", {2, 0, 256}) + tensor("value", {2, 0, 256});
  const attn::AttnProblem p = parse("num_heads: 4", kv0);
  EXPECT_EQ(p.kv_s, 0);
  EXPECT_EQ(p.act_kv, (V{0, 0}));
  EXPECT_TRUE(p.row_fix);  // out 0 for every row (spec §1.8: empty K / V -> zeros)
}

TEST(FiaOp, ParametersInSpecOrderWithKinds) {
  const Op& op = find_op("fused_infer_attention_score");
  const auto ps = op.params();
  ASSERT_EQ(ps.size(), 37u);
  EXPECT_EQ(ps[0].name, "query");
  EXPECT_EQ(ps[1].kind, "tensor_list");
  EXPECT_EQ(ps[2].kind, "tensor_list");
  EXPECT_EQ(ps[20].name, "value_shared_prefix");
  EXPECT_EQ(ps[21].name, "actual_seq_lengths");
  EXPECT_EQ(ps[21].kind, "int_list");
  EXPECT_EQ(ps[24].name, "num_heads");
  EXPECT_TRUE(ps[24].required);
  EXPECT_EQ(ps[36].name, "value_antiquant_mode");
  for (const auto& p : ps) EXPECT_FALSE(p.doc.empty()) << p.name;
  // check_param_names treats int_list as an attribute and rejects names FIA V2 does not have.
  EXPECT_NO_THROW(check_param_names(op, load_fia("num_heads: 4, actual_seq_lengths: [1, 2]", bsh_qkv())));
  expect_parts(
      casetest::error_of([&] { check_param_names(op, load_fia("num_heads: 4, input_layou: BSH", bsh_qkv())); }),
      {"attrs.input_layou is not a parameter of fused_infer_attention_score"});
}

TEST(FiaOp, AttrIntListReadsListsAndScalarsAndNamesTheAttr) {
  const CaseFile c = load_fia("a: [1, -2], b: 7, c: {x: 1}", "");
  bool given = false;
  EXPECT_EQ(attr_int_list(c, "a", &given), (V{1, -2}));
  EXPECT_TRUE(given);
  EXPECT_EQ(attr_int_list(c, "b"), (V{7}));
  EXPECT_EQ(attr_int_list(c, "none", &given), (V{}));
  EXPECT_FALSE(given);
  expect_parts(casetest::error_of([&] { attr_int_list(c, "c"); }), {"attrs.c", "list of integers"});
}

TEST(FiaCases, EveryBundledFiaCaseParsesInTimingMode) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(NPUSIM_CONFIG_DIR) / "cases")) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() != ".yaml" || stem.rfind("fia_", 0) != 0) continue;
    ++n;
    try {
      std::optional<CaseFile> view;  // as the op: int32-packed int4 K / V as int4
      parse_fia(fia::int4_view(load_case(e.path().string(), {}, false), view));
    } catch (const CaseError& err) {
      ADD_FAILURE() << stem << ": " << err.what();
    }
  }
  EXPECT_GE(n, 24);
}

CaseFile bundled(const std::string& name, bool fill) {
  return load_case((std::filesystem::path(NPUSIM_CONFIG_DIR) / "cases" / (name + ".yaml")).string(), {}, fill);
}

TEST(FiaCases, FullAndTimingLoadsGiveTheSameProblem) {
  for (const char* name :
       {"fia_left_padding", "fia_paged_bsh", "fia_row_fix", "fia_prefix", "fia_causal_sparse3_sq_ne_skv"}) {
    const attn::AttnProblem t = parse_fia(bundled(name, false)), f = parse_fia(bundled(name, true));
    EXPECT_EQ(t.act_q, f.act_q) << name;
    EXPECT_EQ(t.act_kv, f.act_kv) << name;
    EXPECT_EQ(std::vector<int64_t>({t.q_pad, t.kv_pad, t.prefix_len, t.block_num}),
              std::vector<int64_t>({f.q_pad, f.kv_pad, f.prefix_len, f.block_num}))
        << name;
    EXPECT_EQ(t.row_fix, f.row_fix) << name;
  }
  const attn::AttnProblem lp = parse_fia(bundled("fia_left_padding", false));
  EXPECT_EQ(std::vector<int64_t>({lp.q_pad, lp.kv_pad}), (V{16, 8}));
}

// The feature each case exists for is really in its generated data.
TEST(FiaCases, GeneratedMasksAndBlockTablesHaveTheirIntendedContent) {
  const CaseFile rf = bundled("fia_row_fix", true);
  const HostTensor& m = rf.inputs.at("atten_mask")[0].data;  // (128, 32)
  int full_rows = 0;
  for (int64_t i = 0; i < 128; ++i) {
    bool all = true;
    for (int64_t j = 0; j < 32; ++j) all = all && m.get(i * 32 + j) == 1;
    full_rows += all;
  }
  EXPECT_GE(full_rows, 10);   // ~0.95^32 = 19% of 128 rows
  EXPECT_LE(full_rows, 120);  // and not every row
  for (const char* name : {"fia_paged_bsh", "fia_paged_bnbsd"}) {
    const CaseFile pc = bundled(name, true);
    const HostTensor& bt = pc.inputs.at("block_table")[0].data;
    const int64_t blocks = pc.inputs.at("key")[0].shape[0];
    std::vector<int> seen(static_cast<size_t>(blocks), 0);
    for (int64_t i = 0; i < bt.numel(); ++i) {
      const auto id = static_cast<int64_t>(bt.get(i));
      ASSERT_TRUE(id >= 0 && id < blocks) << name << " " << id;
      EXPECT_EQ(++seen[static_cast<size_t>(id)], 1) << name << ": block id " << id << " twice";
    }
  }
  const HostTensor triu = bundled("fia_causal_sparse2", true).inputs.at("atten_mask")[0].data;
  EXPECT_EQ(triu.get(0 * 2048 + 1), 1);
  EXPECT_EQ(triu.get(1 * 2048 + 1), 0);
  EXPECT_EQ(triu.get(2047 * 2048 + 0), 0);
}

}  // namespace
}  // namespace npusim::op
