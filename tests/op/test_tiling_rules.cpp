// The default-rule texts of the tiling keys (`npusim ops OP --tiling`) tested against the rules they describe
// (issue 39 item 7: the preload text once said 1 where the code chose 2). Each row names a shipped case, the
// overrides, and the values the text promises for it; a rule changed without its text fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"

namespace npusim::op {
namespace {

namespace fs = std::filesystem;

std::map<std::string, int64_t> default_tiling(const std::string& name, const std::vector<std::string>& sets = {}) {
  const CaseFile c = load_case((fs::path(NPUSIM_CONFIG_DIR) / "cases" / (name + ".yaml")).string(), sets, false);
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Timing);
  const Prepared p = find_op(c.op).prepare(c, m);
  return {p.tiling.begin(), p.tiling.end()};
}

struct Claim {
  const char* text;  // the words of the rule this row checks
  const char* name;
  std::vector<std::string> sets;
  std::map<std::string, int64_t> want;
};

class TilingRuleText : public ::testing::TestWithParam<Claim> {};

TEST_P(TilingRuleText, TheRuleDoesWhatItsTextSays) {
  const Claim& c = GetParam();
  const auto got = default_tiling(c.name, c.sets);
  for (const auto& [key, value] : c.want) {
    ASSERT_TRUE(got.count(key)) << c.name << ": no tiling key " << key;
    EXPECT_EQ(got.at(key), value) << c.name << " tiling." << key << ", rule text: " << c.text;
  }
}

const Claim kClaims[] = {
    // fused_infer_attention_score
    {"preload: 2 at query S > 1", "fia_perf_s2048_mode3", {}, {{"preload", 2}}},
    {"preload: 1 at query S = 1", "fia_decode_bsh_f16", {}, {{"preload", 1}}},
    {"preload: 1 with MSD", "fia_decode_antiquant_per_channel", {}, {{"preload", 1}}},
    {"kv_buffers: 2 when the preload is 1 and both K / V slots fit L1, else 1",
     "fia_perf_s2048_mode3",
     {},
     {{"kv_buffers", 1}}},
    {"kv_buffers: 2 when the preload is 1 (the case sets it)",
     "fia_perf_s2048_mode3",
     {"tiling.preload=1"},
     {{"kv_buffers", 2}}},
    {"s1_block: 128 at query S > 1 (work units fill the cores)", "fia_perf_s2048_mode3", {}, {{"s1_block", 128}}},
    {"s1_block: lowered by 16 while the work units are fewer than the AI cores", "fia_bsh_f16", {}, {{"s1_block", 48}}},
    {"s1_block: query S = 1: the G heads of a KV head rounded up to 16", "fia_decode_bsnd_gqa", {}, {{"s1_block", 16}}},
    {"s2_block: [128, 256] for an fp32 softmax at query S > 1", "fia_perf_s2048_mode3", {}, {{"s2_block", 256}}},
    {"s2_block: [128, 896] with full quantisation at query S > 1", "fia_perf_s8192_int8", {}, {{"s2_block", 896}}},
    {"s2_block: at most half the longest KV rounded up to 128 (two score blocks per unit)",
     "fia_bsh_f16",
     {},
     {{"s2_block", 128}}},
    {"s2_block: query S = 1: the smallest block that gives a KV split no more blocks",
     "fia_decode_flash_decoding",
     {},
     {{"s2_block", 256}, {"kv_splits", 8}}},
    {"s2_block: lowered by 128 until L1 fits (adapts to s1_block)",
     "fia_inner_precise_hp",
     {"tiling.s1_block=512"},
     {{"s2_block", 128}}},
    {"block_dim: min(AI cores, work units) (s1_block 128: 4 heads x 2 row blocks)",
     "fia_inner_precise_hp",
     {"tiling.s1_block=128"},
     {{"block_dim", 8}}},
    {"kv_splits: cores / (B x KV_N) lowered while a split holds < 512 KV",
     "fia_decode_flash_decoding",
     {},
     {{"kv_splits", 8}}},
    {"kv_l2_bypass: 0 at query S > 1", "fia_perf_s2048_mode3", {}, {{"kv_l2_bypass", 0}}},
    {"kv_l2_bypass: 1 at query S = 1 when key + value bytes >= 1.2 x l2.bytes",
     "fia_decode_bw_b64_kv32768",
     {},
     {{"kv_l2_bypass", 1}}},
    {"l0_n_sub: at most 128; l0_k_step at most 256",
     "fia_perf_s2048_mode3",
     {},
     {{"l0_n_sub", 128}, {"l0_k_step", 128}}},
    // flash_attention_var_len_score
    {"s1_block: 256 where its work units are at least twice the AI cores",
     "fa_varlen_perf_mla_t8192",
     {},
     {{"s1_block", 256}}},
    {"s1_block: else 128 (the vendor's S1 base)", "fa_varlen_rope_s1024", {}, {{"s1_block", 128}}},
    {"s1_block: lowered by 16 while the work units are fewer than the AI cores",
     "fa_varlen_rope_causal",
     {},
     {{"s1_block", 64}}},
    {"preload: 2 with two K / V slots", "fa_varlen_rope_s1024", {}, {{"preload", 2}, {"kv_buffers", 2}}},
    {"preload: else 1 (one slot fits L1 at s1_block 256)", "fa_varlen_perf_mla_t8192", {}, {{"preload", 1}}},
    {"preload: else 1 (the case sets one slot)", "fa_varlen_rope_s1024", {"tiling.kv_buffers=1"}, {{"preload", 1}}},
    {"s2_block: the longest KV rounded up to 128, clamped to [128, 256]; with two K / V slots if they fit L1",
     "fa_varlen_rope_s1024",
     {},
     {{"s2_block", 256}, {"kv_buffers", 2}}},
    {"s2_block: ... else one slot", "fa_varlen_perf_mla_t8192", {}, {{"s2_block", 256}, {"kv_buffers", 1}}},
    // matmul
    {"base_m: min(128, M rounded up to 16); base_n: min(256, N rounded up to 16)",
     "matmul_f16_4096",
     {},
     {{"base_m", 128}, {"base_n", 256}, {"block_dim", 24}}},
    {"block_dim: min(AI cores, output tiles) (M 300 x N 700 in 128 x 256 tiles: 3 x 3)",
     "matmul_bf16_bias_ta",
     {},
     {{"base_m", 128}, {"base_n", 256}, {"block_dim", 9}}},
};

INSTANTIATE_TEST_SUITE_P(Claims, TilingRuleText, ::testing::ValuesIn(kClaims),
                         [](const auto& info) { return std::to_string(info.index) + "_" + info.param.name; });

}  // namespace
}  // namespace npusim::op
