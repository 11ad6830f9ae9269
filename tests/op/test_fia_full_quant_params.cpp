// FIA full quantisation (int8 query, key and value; spec §1.7): the presence rules of dequant_scale1 /
// quant_scale1 / dequant_scale2 (and quant_scale2 for an int8 output), their dtypes, the effective FixPipe scales
// the problem carries, and the features the int8 prompt kernel rejects -- each with exit-2 text naming the
// parameter. The kernel against the golden model: test_fia_kernel.cpp "FullQuant*".
#include <cstring>

#include "isa/numeric/numeric.h"
#include "tests/op/fia_test_support.h"

namespace npusim::op {
namespace {
using namespace fiatest;

const std::string kN4 = "num_heads: 4";

std::string scale(const char* name, double v, const char* dtype = "float32") {
  char init[96];
  std::snprintf(init, sizeof init, "dist: uniform, low: %.17g, high: %.17g", v, std::nextafter(v, 1e300));
  return tensor(name, {1}, dtype, init);
}
std::string scales() {
  return scale("dequant_scale1", 0.001) + scale("quant_scale1", 127) + scale("dequant_scale2", 0.0003);
}

TEST(FiaFullQuant, Int8QueryNeedsAllThreeScales) {
  for (const char* missing : {"dequant_scale1", "quant_scale1", "dequant_scale2"}) {
    std::string in = bsh_qkv("int8");
    for (const char* name : {"dequant_scale1", "quant_scale1", "dequant_scale2"})
      if (std::strcmp(name, missing) != 0) in += scale(name, 0.5);
    expect_parts(parse_error(kN4, in), {std::string("inputs.") + missing + " is required with an int8 query"});
  }
}

TEST(FiaFullQuant, ScaleDtypes) {
  expect_parts(parse_error(kN4, bsh_qkv("int8") + tensor("dequant_scale1", {1}, "float16") + scale("quant_scale1", 1) +
                                    scale("dequant_scale2", 1)),
               {"inputs.dequant_scale1 dtype float16 is not allowed", "uint64"});
  expect_parts(parse_error(kN4, bsh_qkv("int8") + scale("dequant_scale1", 1) + tensor("quant_scale1", {1}, "uint64") +
                                    scale("dequant_scale2", 1)),
               {"inputs.quant_scale1 dtype uint64 is not allowed (float32"});
  expect_parts(parse_error(kN4, bsh_qkv("int8") + tensor("dequant_scale1", {0}, "float32") + scale("quant_scale1", 1) +
                                    scale("dequant_scale2", 1)),
               {"inputs.dequant_scale1 has shape [0]", "must not be empty"});
}

TEST(FiaFullQuant, ProblemCarriesTheFixPipeScalesAndComputesInFp16) {
  const attn::AttnProblem p = parse(kN4, bsh_qkv("int8") + scales());
  EXPECT_TRUE(p.full_quant.on);
  EXPECT_TRUE(p.high_perf);  // fp16 vector maths whatever inner_precise says
  EXPECT_EQ(p.in, ElemType::I8);
  EXPECT_EQ(p.out, ElemType::F16);
  // The FixPipe keeps bits [31:13]: the low 13 mantissa bits of the fp32 scale are cleared.
  EXPECT_EQ(isa::f32_bits(p.full_quant.deq1), isa::f32_bits(0.001f) & 0xFFFFE000u);
  EXPECT_EQ(isa::f32_bits(p.full_quant.deq2), isa::f32_bits(0.0003f) & 0xFFFFE000u);
  EXPECT_EQ(p.full_quant.qs1, 127.0f);
  EXPECT_EQ(p.full_quant.given_deq1, double(0.001f));
}

TEST(FiaFullQuant, Uint64ScalesAreReadAsTheirLow32Bits) {
  // aclnnTransQuantParam: (fp32 bits & 0xFFFFE000) | 1 << 46; bit 46 (and any offset field) never reaches the FixPipe.
  const uint64_t w = (uint64_t(isa::f32_bits(0.25f)) & 0xFFFFE000u) | (uint64_t(1) << 46);
  char init[96];
  std::snprintf(init, sizeof init, "dist: uniform, low: %llu, high: %llu", (unsigned long long)w,
                (unsigned long long)w + 1);
  const attn::AttnProblem p =
      parse(kN4, bsh_qkv("int8") + tensor("dequant_scale1", {1}, "uint64", init) + scale("quant_scale1", 127) +
                     tensor("dequant_scale2", {1}, "uint64", init));
  EXPECT_EQ(p.full_quant.deq1, 0.25f);
  EXPECT_EQ(p.full_quant.deq2, 0.25f);
}

TEST(FiaFullQuant, QuantScale2MakesTheOutputInt8AndItsOffsetNeedsIt) {
  const attn::AttnProblem p = parse(kN4, bsh_qkv("int8") + scales() + tensor("quant_scale2", {1}, "float32"));
  EXPECT_EQ(p.out, ElemType::I8);
  EXPECT_TRUE(p.post_quant.on);
  expect_parts(parse_error(kN4, bsh_qkv("int8") + scales() + tensor("quant_offset2", {1}, "float32")),
               {"inputs.quant_offset2 is given without inputs.quant_scale2"});
  expect_parts(parse_error(kN4, bsh_qkv("int8") + scales() + tensor("quant_scale2", {1}, "bfloat16")),
               {"inputs.quant_scale2 dtype bfloat16 is not allowed"});
}

TEST(FiaFullQuant, KeyAndValueMustBeInt8) {
  const std::string in = tensor("query", {2, 64, 256}, "int8") + tensor("key", {2, 128, 256}, "int8") +
                         tensor("value", {2, 128, 256}, "float16") + scales();
  expect_parts(parse_error(kN4, in), {"inputs.value dtype float16 must equal the query dtype int8"});
}

TEST(FiaFullQuant, QueryS1HasNoFullQuantKernel) {
  const std::string in = tensor("query", {2, 1, 256}, "int8") + tensor("key", {2, 128, 256}, "int8") +
                         tensor("value", {2, 128, 256}, "int8") + scales();
  expect_parts(parse_error(kN4, in), {"inputs.query dtype int8 needs query S > 1", "[2, 1, 256]"});
}

TEST(FiaFullQuant, HeadDimMustBeAMultipleOf32) {
  const std::string in = tensor("query", {2, 64, 4 * 48}, "int8") + tensor("key", {2, 128, 4 * 48}, "int8") +
                         tensor("value", {2, 128, 4 * 48}, "int8") + scales();
  expect_parts(parse_error(kN4, in), {"D = 48", "multiple of 32"});
}

TEST(FiaFullQuant, PagePrefixAndEmptyKvAreRejected) {
  const std::string paged = tensor("query", {2, 64, 256}, "int8") + tensor("key", {4, 128, 256}, "int8") +
                            tensor("value", {4, 128, 256}, "int8") +
                            tensor("block_table", {2, 2}, "int32", "dist: permutation") + scales();
  expect_parts(parse_error(kN4 + ", block_size: 128, actual_seq_lengths_kv: [128, 128]", paged),
               {"inputs.block_table (page attention) is not allowed with an int8 query"});
  const std::string prefix = bsh_qkv("int8") + tensor("key_shared_prefix", {1, 16, 256}, "int8") +
                             tensor("value_shared_prefix", {1, 16, 256}, "int8") + scales();
  expect_parts(parse_error(kN4, prefix), {"inputs.key_shared_prefix is not allowed with an int8 query"});
  const std::string empty = tensor("query", {2, 64, 256}, "int8") + tensor("key", {2, 0, 256}, "int8") +
                            tensor("value", {2, 0, 256}, "int8") + scales();
  expect_parts(parse_error(kN4, empty), {"inputs.key / inputs.value are empty", "int8 query"});
}

TEST(FiaFullQuant, PseIsFloat16) {
  const std::string in = bsh_qkv("int8") + scales();
  expect_parts(parse_error(kN4, in + tensor("pse_shift", {2, 4, 64, 128}, "int8")),
               {"inputs.pse_shift dtype int8 must be float16 (query int8)"});
  EXPECT_TRUE(parse(kN4, in + tensor("pse_shift", {2, 4, 64, 128}, "float16")).pse);
}

}  // namespace
}  // namespace npusim::op
