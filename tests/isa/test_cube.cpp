// Mmad: the documented accumulation order on hand-computed cases, and every error rule (isa/README.md section 3).
// Each semantic test runs on both execution paths.
#include <cmath>
#include <limits>

#include "tests/isa/cube_fixture.h"

namespace npusim::isa {
namespace {

using testing::Core;
using testing::expect_isa_error;
using testing::h;
using testing::l0c_index;
using testing::zn_index;
using testing::zz_index;

class MmadTest : public ::testing::TestWithParam<ExecPath> {
 protected:
  void SetUp() override { set_exec_path(GetParam()); }
  void TearDown() override { set_exec_path(ExecPath::Fast); }

  // Writes A (m x k) / B (k x n) elements of 16-bit type at their ZZ / ZN positions for an mmad of these sizes.
  void put_a16(int kb, int i, int kk, uint16_t v) { core.put<uint16_t>(Buf::L0A, zz_index(kb, 16, i, kk) * 2, v); }
  void put_b16(int nb, int kk, int j, uint16_t v) { core.put<uint16_t>(Buf::L0B, zn_index(nb, 16, kk, j) * 2, v); }
  float c_at(int mp, int i, int j) { return core.get<float>(Buf::L0C, l0c_index(mp, i, j) * 4); }
  uint32_t c_bits(int mp, int i, int j) { return f32_bits(c_at(mp, i, j)); }

  static Mmad mmad(uint16_t m, uint16_t n, uint16_t k, DType t = DType::F16) {
    Mmad x;
    x.c = {Buf::L0C, 0}, x.a = {Buf::L0A, 0}, x.b = {Buf::L0B, 0};
    x.a_dtype = t, x.m = m, x.n = n, x.k = k;
    return x;
  }
  Core core;
};

TEST_P(MmadTest, HandComputed2x2) {
  put_a16(1, 0, 0, h(1)), put_a16(1, 0, 1, h(2)), put_a16(1, 1, 0, h(3)), put_a16(1, 1, 1, h(4));
  put_b16(1, 0, 0, h(5)), put_b16(1, 0, 1, h(6)), put_b16(1, 1, 0, h(7)), put_b16(1, 1, 1, h(8));
  core.run(mmad(2, 2, 2));
  EXPECT_EQ(c_at(16, 0, 0), 19.0f);
  EXPECT_EQ(c_at(16, 0, 1), 22.0f);
  EXPECT_EQ(c_at(16, 1, 0), 43.0f);
  EXPECT_EQ(c_at(16, 1, 1), 50.0f);
}

TEST_P(MmadTest, WholeFractalsAreWrittenFromThePaddingRowsAndColumns) {
  core.fill(Buf::L0C, 0xff);
  put_a16(1, 5, 0, h(2));  // row 5 > m: lives in the padding of the fractal
  put_b16(1, 0, 9, h(3));  // column 9 > n
  core.run(mmad(1, 1, 1));
  EXPECT_EQ(c_at(16, 5, 9), 6.0f);
  EXPECT_EQ(c_bits(16, 15, 15), 0u);                           // +0: every output of the 16 x 16 fractal is written
  EXPECT_EQ(core.get<uint32_t>(Buf::L0C, 1024), 0xffffffffu);  // nothing beyond it
}

TEST_P(MmadTest, LanesBeyondKAreNotRead) {
  const uint16_t nan = 0x7e00;
  for (int kk = 0; kk < 16; ++kk) put_a16(1, 0, kk, kk < 3 ? h(1) : nan), put_b16(1, kk, 0, kk < 3 ? h(kk) : nan);
  core.run(mmad(1, 1, 3));
  EXPECT_EQ(c_at(16, 0, 0), 3.0f);
}

TEST_P(MmadTest, MaskedLanesContributePlusZero) {
  // All 16 products are -0 (+0 * -1). Accumulating onto C = -0: with k = 16 the tree gives -0 and -0 + -0 = -0;
  // with k = 15 lane 15 contributes +0, the tree gives +0 and the result is +0.
  for (int kk = 0; kk < 16; ++kk) put_a16(1, 0, kk, 0), put_b16(1, kk, 0, h(-1));
  Mmad x = mmad(1, 1, 16);
  x.init = false;
  core.put<uint32_t>(Buf::L0C, 0, 0x80000000u);
  core.run(x);
  EXPECT_EQ(c_bits(16, 0, 0), 0x80000000u);
  x.k = 15;
  core.run(x);
  EXPECT_EQ(c_bits(16, 0, 0), 0u);
}

TEST_P(MmadTest, ProductsOfAKBlockArePairwiseTreeSummed) {
  // p0 = 2^24, p1 = 1, p2 = 1, p3 = -2^24: (p0+p1) + (p2+p3) = 2^24 + (1 - 2^24) = 1; a sequential sum gives 0.
  const float a[4] = {4096, 1, 1, -4096}, b[4] = {4096, 1, 1, 4096};
  for (int kk = 0; kk < 4; ++kk) put_a16(1, 0, kk, h(a[kk])), put_b16(1, kk, 0, h(b[kk]));
  core.run(mmad(1, 1, 4));
  EXPECT_EQ(c_at(16, 0, 0), 1.0f);
}

TEST_P(MmadTest, KBlocksAreAddedSequentiallyToTheAccumulator) {
  // One product per K block: 2^24, 1, 1, -2^24. acc = ((2^24 + 1) + 1) - 2^24 = 0 in fp32 (a tree would give 1).
  const float a[4] = {4096, 1, 1, -4096}, b[4] = {4096, 1, 1, 4096};
  for (int q = 0; q < 4; ++q) put_a16(4, 0, q * 16, h(a[q])), put_b16(1, q * 16, 0, h(b[q]));
  core.run(mmad(1, 1, 64));
  EXPECT_EQ(c_at(16, 0, 0), 0.0f);
}

TEST_P(MmadTest, AccumulateBiasAndInit) {
  put_a16(1, 0, 0, h(2)), put_b16(1, 0, 0, h(3));
  core.put<float>(Buf::L0C, 0, 10.0f);
  Mmad x = mmad(1, 1, 1);
  x.init = false;
  core.run(x);
  EXPECT_EQ(c_at(16, 0, 0), 16.0f);
  core.put<float>(Buf::BT, 64, 100.0f);
  x.bias = true, x.bias_addr = {Buf::BT, 64}, x.init = true;  // bias wins over init
  core.run(x);
  EXPECT_EQ(c_at(16, 0, 0), 106.0f);
  x.bias = false;
  core.run(x);
  EXPECT_EQ(c_at(16, 0, 0), 6.0f);
}

TEST_P(MmadTest, Bf16ProductsMayOverflowFp32) {
  const uint16_t big = f32_to_bf16(1e30f);
  core.put<uint16_t>(Buf::L0A, 0, big), core.put<uint16_t>(Buf::L0B, 0, big);
  core.run(mmad(1, 1, 1, DType::BF16));
  EXPECT_EQ(c_at(16, 0, 0), std::numeric_limits<float>::infinity());
}

TEST_P(MmadTest, F32ProductsAreRoundedOnce) {
  const float x = 1.0f + std::ldexp(1.0f, -12);  // x*x = 1 + 2^-11 + 2^-24: a tie, rounded to even
  core.put<float>(Buf::L0A, 0, x), core.put<float>(Buf::L0B, 0, x);
  core.run(mmad(1, 1, 1, DType::F32));
  EXPECT_EQ(c_at(16, 0, 0), 1.0f + std::ldexp(1.0f, -11));
}

TEST_P(MmadTest, NanResultsAreCanonical) {
  core.put<uint16_t>(Buf::L0A, 0, 0xfd55);  // negative NaN with a payload
  core.put<uint16_t>(Buf::L0B, 0, h(1));
  core.run(mmad(1, 1, 1));
  EXPECT_EQ(c_bits(16, 0, 0), 0x7fc00000u);
}

TEST_P(MmadTest, S8SumsWrapAroundInInt32) {
  core.l0a[0] = uint8_t(int8_t(-128)), core.l0b[0] = uint8_t(int8_t(-128));  // product 16384
  core.l0a[1] = 1, core.l0b[1] = 1;                                          // k index 1 of both
  core.put<int32_t>(Buf::L0C, 0, std::numeric_limits<int32_t>::max() - 16384);
  Mmad x = mmad(1, 1, 2, DType::I8);
  x.init = false;
  core.run(x);
  EXPECT_EQ(core.get<int32_t>(Buf::L0C, 0), std::numeric_limits<int32_t>::min());
}

TEST_P(MmadTest, S4OperandsArePackedNibbles) {
  // A row 0 = (-8, 7, 3), B column 1 = (2, -1, -5): -16 - 7 - 15 = -38. Column 1 of B is n-row 1 of the fractal.
  const int8_t a[3] = {-8, 7, 3}, b[3] = {2, -1, -5};
  for (int kk = 0; kk < 3; ++kk) s4_set(core.at(Buf::L0A, 0), kk, a[kk]), s4_set(core.at(Buf::L0B, 0), 64 + kk, b[kk]);
  Mmad x = mmad(1, 2, 3, DType::I4);
  x.bias = true, x.bias_addr = {Buf::BT, 0};
  core.put<int32_t>(Buf::BT, 4, 1000);
  core.run(x);
  EXPECT_EQ(core.get<int32_t>(Buf::L0C, 4), 1000 - 38);
}

TEST_P(MmadTest, ZeroSizeIsNoOp) {
  put_a16(1, 0, 0, h(1)), put_b16(1, 0, 0, h(1));
  core.run(mmad(0, 16, 16));
  core.run(mmad(16, 16, 0));
  EXPECT_EQ(c_at(16, 0, 0), 0.0f);
}

TEST_P(MmadTest, UnitFlagIsATimingHintAndMayAccumulate) {
  put_a16(1, 0, 0, h(2)), put_b16(1, 0, 0, h(3));
  core.put<float>(Buf::L0C, 0, 1.0f);
  Mmad x = mmad(1, 1, 1);
  x.init = false, x.unit_flag = 2;
  core.run(x);
  x.unit_flag = 3;
  core.run(x);
  EXPECT_EQ(c_at(16, 0, 0), 13.0f);
}

INSTANTIATE_TEST_SUITE_P(BothPaths, MmadTest, ::testing::Values(ExecPath::Reference, ExecPath::Fast),
                         [](const auto& info) { return info.param == ExecPath::Fast ? "Fast" : "Reference"; });

// ---- errors ----------------------------------------------------------------------------------------

Mmad plain(uint16_t m = 16, uint16_t n = 16, uint16_t k = 16) {
  Mmad x;
  x.c = {Buf::L0C, 0}, x.a = {Buf::L0A, 0}, x.b = {Buf::L0B, 0}, x.m = m, x.n = n, x.k = k;
  return x;
}

TEST(MmadErrors, FieldValues) {
  Core c;
  expect_isa_error(c, plain(4096), "field m = 4096");
  expect_isa_error(c, plain(16, 4096), "field n");
  expect_isa_error(c, plain(16, 16, 4096), "field k");
  Mmad x = plain();
  x.unit_flag = 1;
  expect_isa_error(c, x, "field unit_flag");
  x = plain();
  x.a_dtype = DType::U8;
  expect_isa_error(c, x, "field a_dtype");
  x.a_dtype = DType::I16;
  expect_isa_error(c, x, "field a_dtype");
}

TEST(MmadErrors, OperandBuffersAlignmentAndBounds) {
  Core c;
  Mmad x = plain();
  x.a.buf = Buf::L0B;
  expect_isa_error(c, x, "operand a: buffer l0b is not allowed");
  x = plain(), x.b.buf = Buf::L1;
  expect_isa_error(c, x, "operand b: buffer l1");
  x = plain(), x.c.buf = Buf::UB;
  expect_isa_error(c, x, "operand c: buffer ub");
  x = plain(), x.a.off = 256;
  expect_isa_error(c, x, "operand a: address 0x100 in l0a is not aligned to 512");
  x = plain(), x.c.off = 32;
  expect_isa_error(c, x, "operand c: address 0x20 in l0c is not aligned to 64");
  x = plain(256, 16, 128);  // A = 16 x 8 fractals = 64 KiB fits; one more row block does not
  c.run(x);
  x.m = 257;
  expect_isa_error(c, x, "operand a: l0a range");
  x = plain(16, 48, 16), x.b.off = 63 << 10;  // 3 fractals from 63 KiB
  expect_isa_error(c, x, "operand b: l0b range");
  x = plain(256, 512, 16);  // C = 16 x 32 fractals of 1 KiB = 512 KiB
  expect_isa_error(c, x, "operand c: l0c range");
}

TEST(MmadErrors, BiasOperand) {
  Core c;
  Mmad x = plain(16, 32, 16);
  x.bias = true, x.bias_addr = {Buf::L0C, 0};
  expect_isa_error(c, x, "operand bias_addr: buffer l0c is not allowed");
  x.bias_addr = {Buf::BT, 1024 - 64};  // two column blocks need 128 bytes
  expect_isa_error(c, x, "operand bias_addr: bt range");
  x.bias_addr = {Buf::BT, 32};
  expect_isa_error(c, x, "not aligned to 64");
}

TEST(MmadErrors, NoOpStillChecksBuffers) {
  Core c;
  Mmad x = plain(0);
  x.a.buf = Buf::GM;
  expect_isa_error(c, x, "operand a");
}

}  // namespace
}  // namespace npusim::isa
