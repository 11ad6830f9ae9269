// The matmul kernel end to end on the simulated chip: bit-exact against the independent golden model
// (tests/golden/matmul_golden.cpp) and within the accuracy policy, over odd shapes, both transposes, every
// dtype, bias, tiling overrides that force many chunks, split and coupled configs.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/accuracy/accuracy.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tests/golden/matmul_golden.h"
#include "tests/support/bits.h"
#include "tests/support/case_writer.h"
#include "tests/support/scratch.h"

namespace npusim::op {
namespace {

struct MmCase {
  const char* name;
  int64_t m, n, k;
  const char* dtype;
  bool ta, tb;
  const char* out;  // "" = default
  bool bias;
  const char* hw;
  const char* tiling;  // extra YAML for the tiling map, "" = chosen by the op
  const char* scale;   // "" = none
};

std::string write_case(const MmCase& p) {
  const bool i8 = std::string(p.dtype) == "int8";
  const std::string dist = i8 ? "dist: uniform, low: -128, high: 127.99, seed: " : "dist: normal, std: 1.0, seed: ";
  test::CaseWriter w(test::scratch_dir() / p.name, "matmul");
  w.attr("transpose_a", p.ta ? "true" : "false").attr("transpose_b", p.tb ? "true" : "false");
  if (*p.out) w.attr("out_dtype", p.out);
  if (*p.scale) w.attr("dequant_scale", p.scale);
  w.generated("a", p.ta ? std::vector<int64_t>{p.k, p.m} : std::vector<int64_t>{p.m, p.k}, p.dtype, dist + "1");
  w.generated("b", p.tb ? std::vector<int64_t>{p.n, p.k} : std::vector<int64_t>{p.k, p.n}, p.dtype, dist + "2");
  if (p.bias)
    w.generated("bias", {p.n}, i8 ? "int32" : "float32",
                i8 ? "dist: uniform, low: -1000, high: 1000, seed: 3" : "dist: normal, std: 4.0, seed: 3");
  if (*p.tiling) w.tiling(p.tiling);
  return w.write();
}

const TensorEntry& in(const CaseFile& c, const char* n) { return c.inputs.at(n)[0]; }

class MatmulKernel : public ::testing::TestWithParam<MmCase> {};

TEST_P(MatmulKernel, BitExactAgainstGoldenAndAccurate) {
  const MmCase& p = GetParam();
  const CaseFile c = load_case(write_case(p), {});
  const Op& op = find_op("matmul");
  sim::Machine m(sim::load_hw(p.hw), sim::SimMode::Full);
  const Prepared prep = op.prepare(c, m);
  const auto r = m.launch(prep.launch);
  ASSERT_TRUE(r.ok()) << r.faults[0].message;
  const HostTensor out = read_output(m, prep.outputs[0]);
  const ElemType out_t = prep.outputs[0].type;
  const HostTensor gold =
      golden::matmul_golden(in(c, "a").data, in(c, "b").data, p.bias ? &in(c, "bias").data : nullptr, p.ta, p.tb, out_t,
                            *p.scale ? std::stod(p.scale) : 1.0);
  test::expect_same_bits(out, gold, "c (row-major, N = " + std::to_string(p.n) + ")");
  for (const auto& ref : op.reference(c)) {
    const auto acc = compare_accuracy("c", out, ref.ref64, ref.naive, ref.working, ref.reduction_len, ref.gate_fa_rule);
    EXPECT_TRUE(acc.pass()) << format_report(acc);
  }
  EXPECT_GE(r.executed_flops, prep.flops);  // padded fractals: the cube executes at least the algorithmic flops
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Shapes, MatmulKernel, ::testing::Values(
    MmCase{"one", 1, 1, 1, "float16", false, false, "", false, "ascend910b2", "", ""},
    MmCase{"odd_15_17_255", 15, 17, 255, "float16", false, false, "", false, "ascend910b2", "", ""},
    MmCase{"ta_bias_17_15_1000", 17, 15, 1000, "float16", true, false, "float32", true, "ascend910b2", "", ""},
    MmCase{"bf16_tb_255_33_17", 255, 33, 17, "bfloat16", false, true, "float32", false, "ascend910b2", "", ""},
    MmCase{"ta_tb_1000_257_300", 1000, 257, 300, "float16", true, true, "bfloat16", false, "ascend910b1", "", ""},
    MmCase{"tall_4097_16_48", 4097, 16, 48, "float16", false, false, "", true, "ascend910b2", "", ""},
    MmCase{"wide_64_4097_40", 64, 4097, 40, "bfloat16", false, false, "bfloat16", false, "ascend910b3", "", ""},
    MmCase{"int8_s32_100_70_130", 100, 70, 130, "int8", false, true, "", true, "ascend910b2", "", ""},
    MmCase{"int8_dequant_33_300_64", 33, 300, 64, "int8", false, true, "float16", false, "ascend910b2", "",
           "0.001953125"},
    // int8 with an operand stored K-major: the 8-bit transposing load (32 x 32 squares; M / N tiles round to 32)
    MmCase{"int8_b_kn_bias_100_70_130", 100, 70, 130, "int8", false, false, "", true, "ascend910b2", "", ""},
    MmCase{"int8_ta_tb_dequant_45_300_77", 45, 300, 77, "int8", true, true, "float16", false, "ascend910b2", "",
           "0.001953125"},
    MmCase{"int8_ta_kn_17_33_1000", 17, 33, 1000, "int8", true, false, "", true, "ascend910b3", "", ""},
    MmCase{"int8_kn_small_tiles", 70, 90, 300, "int8", true, false, "", false, "ascend910b2",
           "base_m: 32, base_n: 64, base_k: 64, k_l1: 128, block_dim: 3", ""},
    MmCase{"int8_kn_coupled_100_200_96", 100, 200, 96, "int8", false, false, "", true, "ascend310p3", "", ""},
    MmCase{"small_tiles_many_chunks", 70, 90, 300, "float16", false, false, "", true, "ascend910b2",
           "base_m: 32, base_n: 48, base_k: 32, k_l1: 64, block_dim: 3", ""},
    MmCase{"b4_100_200_300", 100, 200, 300, "float16", true, false, "float16", true, "ascend910b4", "", ""},
    MmCase{"coupled_100_200_300", 100, 200, 300, "float16", false, false, "float32", true, "ascend310p3", "", ""}),
    [](const auto& info) { return std::string(info.param.name); });
// clang-format on

// The CaseError message of preparing case p (empty when it prepares).
std::string prepare_error(const MmCase& p) {
  const CaseFile c = load_case(write_case(p), {});
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Full);
  try {
    find_op("matmul").prepare(c, m);
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

TEST(MatmulTiling, Int8OperandStoredKMajorNeedsTileSidesOf32) {
  const std::string e = prepare_error(
      {"bad_int8_tile", 64, 64, 64, "int8", true, false, "", false, "ascend910b2", "base_m: 48, base_n: 48", ""});
  EXPECT_NE(e.find("tiling.base_m = 48, tiling.base_n = 48: must be multiples of 32 and 32"), std::string::npos) << e;
  EXPECT_NE(e.find("32 x 32 squares"), std::string::npos) << e;
}

TEST(MatmulTiling, OverrideThatDoesNotFitL0CNamesTheKeyAndCapacity) {
  const std::string e = prepare_error(
      {"bad_tiling", 64, 64, 64, "float16", false, false, "", false, "ascend910b2", "base_m: 256, base_n: 256", ""});
  EXPECT_NE(e.find("tiling.base_m x tiling.base_n"), std::string::npos) << e;
  EXPECT_NE(e.find("core.l0c_bytes = 131072"), std::string::npos) << e;
}

TEST(MatmulTiling, UnknownTilingKeyAndAttributeAreRejected) {
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Full);
  const auto error_of = [&](const MmCase& p, const std::vector<std::string>& sets) {
    try {
      find_op("matmul").prepare(load_case(write_case(p), sets), m);
    } catch (const CaseError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const MmCase key{"bad_key", 16, 16, 16, "float16", false, false, "", false, "ascend910b2", "s2_block: 512", ""};
  EXPECT_EQ(error_of(key, {}),
            "tiling.s2_block is not a matmul tiling key (valid: base_m, base_n, base_k, k_l1, block_dim)");
  const MmCase attr{"bad_attr", 16, 16, 16, "float16", false, false, "", false, "ascend910b2", "", ""};
  const std::string e = error_of(attr, {"attrs.transpose_c=true"});
  EXPECT_NE(e.find("attrs.transpose_c is not a parameter of matmul"), std::string::npos) << e;
  EXPECT_NE(e.find("valid attrs: transpose_a, transpose_b, out_dtype, dequant_scale"), std::string::npos) << e;
  EXPECT_EQ(error_of(attr, {"tiling.base_m=24"}), "tiling.base_m = 24 must be in [16, 4080], a multiple of 16");
}

}  // namespace
}  // namespace npusim::op
