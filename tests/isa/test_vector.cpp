// Elementwise vector arithmetic, binary forms (vadd .. vmin), and the rules every lane-addressed instruction
// shares: lane addressing, masks, execution order, footprints, overlap and operand errors.
// Every run() also checks Reference == Fast.
#include <cmath>
#include <limits>

#include "isa/mathfn/mathfn.h"
#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {
namespace {

constexpr uint64_t kDst = 0, kSrc0 = 0x1000, kSrc1 = 0x2000;

VBinary bin(VBinOp op, DType t = DType::F16) {
  VBinary v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src0 = ub(kSrc0);
  v.src1 = ub(kSrc1);
  return v;
}

using VBinaryTest = VecTest;

TEST_F(VBinaryTest, AddF16AllLanesOfOneRepeat) {
  for (int i = 0; i < 128; ++i) put_f16(kSrc0 + 2 * i, float(i)), put_f16(kSrc1 + 2 * i, 0.5f);
  run(bin(VBinOp::Add));
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get_f16(kDst + 2 * i), i + 0.5f) << i;
  EXPECT_EQ(get16(kDst + 256), 0) << "lane 128 does not exist in one repeat";
}

TEST_F(VBinaryTest, F16AddRoundsOnceFromFp32ToNearestEven) {
  const uint16_t one = 0x3c00;
  // lane 0: 1 + 2^-11*(1 + 2^-10): above the tie -> 1 + 2^-10.  lane 1: 1 + 2^-11: tie -> even 1.0.
  // lane 2: 1 + 3*2^-11: tie -> even 1 + 2^-9.  lane 3: 60000 + 60000 overflows to +inf (IEEE, no saturation).
  put16s(kSrc0, {one, one, one, f16_round(60000.0f)});
  put16s(kSrc1, {f16_round(std::ldexp(1.0f + 1.0f / 1024, -11)), f16_round(std::ldexp(1.0f, -11)),
                 f16_round(3 * std::ldexp(1.0f, -11)), f16_round(60000.0f)});
  auto v = bin(VBinOp::Add);
  v.mask.lo = 0xf;
  v.mask.hi = 0;
  run(v);
  EXPECT_EQ(get16(kDst + 0), 0x3c01);
  EXPECT_EQ(get16(kDst + 2), 0x3c00);
  EXPECT_EQ(get16(kDst + 4), 0x3c02);
  EXPECT_EQ(get16(kDst + 6), kF16InfBits);
}

TEST_F(VBinaryTest, F16SubMulExactAndSubnormal) {
  put16s(kSrc0, {0x3c01, f16_round(std::ldexp(1.0f, -14)), f16_round(-3.0f)});
  put16s(kSrc1, {0x3c00, f16_round(std::ldexp(1.0f, -5)), f16_round(0.5f)});
  auto v = bin(VBinOp::Sub);
  v.mask.lo = 1;
  v.mask.hi = 0;
  run(v);
  EXPECT_EQ(get_f16(kDst), std::ldexp(1.0f, -10)) << "cancellation is exact";
  v.op = VBinOp::Mul;
  v.mask.lo = 6;
  run(v);
  EXPECT_EQ(get16(kDst + 2), 0x0020) << "2^-14 * 2^-5 = 2^-19, an fp16 subnormal";
  EXPECT_EQ(get_f16(kDst + 4), -1.5f);
}

TEST_F(VBinaryTest, DivUsesHwDivThenRoundsOnce) {
  const float a[] = {1.0f, 2.0f, -7.0f, 65504.0f, 1e-3f, 0.0f, 3.0f, 100.0f};
  const float b[] = {3.0f, 7.0f, 0.1f, 0.5f, 3e-5f, 0.0f, -0.0f, 1e-8f};
  for (int i = 0; i < 8; ++i) put_f16(kSrc0 + 2 * i, a[i]), put_f16(kSrc1 + 2 * i, b[i]);
  for (int i = 0; i < 8; ++i) put_f32(kSrc0 + 0x100 + 4 * i, a[i]), put_f32(kSrc1 + 0x100 + 4 * i, b[i]);
  run(bin(VBinOp::Div));
  auto v = bin(VBinOp::Div, DType::F32);
  v.dst = ub(kDst + 0x100), v.src0 = ub(kSrc0 + 0x100), v.src1 = ub(kSrc1 + 0x100);
  v.mask.lo = 0xff;
  run(v);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(get16(kDst + 2 * i), f16_round(hw_div(get_f16(kSrc0 + 2 * i), get_f16(kSrc1 + 2 * i)))) << i;
    EXPECT_EQ(get32(kDst + 0x100 + 4 * i), f32_bits(hw_div(a[i], b[i]))) << i;
  }
}

TEST_F(VBinaryTest, MaxMinSignedZerosAndNaNFollowIeee2019) {
  // lanes: (-0,+0) (+0,-0) (sNaN 0x7c01, 1) (1, -sNaN 0xfd00) (qNaN 0x7e05, sNaN 0x7c07) (2, -inf)
  put16s(kSrc0, {0x8000, 0x0000, 0x7c01, 0x3c00, 0x7e05, 0x4000});
  put16s(kSrc1, {0x0000, 0x8000, 0x3c00, 0xfd00, 0x7c07, 0xfc00});
  auto v = bin(VBinOp::Max);
  v.mask.lo = 0x3f;
  v.mask.hi = 0;
  run(v);
  const uint16_t want_max[] = {0x0000, 0x0000, 0x7e01, 0xff00, 0x7e05, 0x4000};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(get16(kDst + 2 * i), want_max[i]) << i;
  v.op = VBinOp::Min;
  run(v);
  const uint16_t want_min[] = {0x8000, 0x8000, 0x7e01, 0xff00, 0x7e05, 0xfc00};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(get16(kDst + 2 * i), want_min[i]) << i;
}

TEST_F(VBinaryTest, NaNOperandOfAddKeepsSrc0PayloadFirst) {
  put32(kSrc0, 0x7f800011), put32(kSrc1, 0x7fc00022);          // both NaN: src0's, quieted
  put32(kSrc0 + 4, 0x3f800000), put32(kSrc1 + 4, 0xff800033);  // src1's, quieted
  put32(kSrc0 + 8, 0x7f800000), put32(kSrc1 + 8, 0xff800000);  // inf - inf: the x86 default NaN
  auto v = bin(VBinOp::Add, DType::F32);
  v.mask.lo = 7;
  run(v);
  EXPECT_EQ(get32(kDst), 0x7fc00011u);
  EXPECT_EQ(get32(kDst + 4), 0xffc00033u);
  EXPECT_EQ(get32(kDst + 8), 0xffc00000u);
}

TEST_F(VBinaryTest, IntegerOpsWrapModulo2n) {
  put16s(kSrc0, {0x7fff, 300, 0x8000, 0xfffe});
  put16s(kSrc1, {1, 300, 1, 5});
  auto v = bin(VBinOp::Add, DType::I16);
  v.mask.lo = 0xf;
  v.mask.hi = 0;
  run(v);
  EXPECT_EQ(get16(kDst), 0x8000);
  v.op = VBinOp::Mul;
  run(v);
  EXPECT_EQ(get16(kDst + 2), uint16_t(90000 % 65536));
  v.op = VBinOp::Sub;
  run(v);
  EXPECT_EQ(get16(kDst + 4), 0x7fff);
  v.op = VBinOp::Max;
  run(v);
  EXPECT_EQ(get16(kDst + 6), 5);
  v.op = VBinOp::Min;
  run(v);
  EXPECT_EQ(get16(kDst + 6), 0xfffe);
  put32(kSrc0, 0x7fffffff), put32(kSrc1, 2);
  auto w = bin(VBinOp::Mul, DType::I32);
  w.mask.lo = 1;
  run(w);
  EXPECT_EQ(get32(kDst), 0xfffffffeu);
}

TEST_F(VBinaryTest, BlockStrideTwoSkipsEveryOtherBlock) {
  for (int i = 0; i < 512; ++i) put_f16(kSrc0 + 2 * i, float(i));
  auto v = bin(VBinOp::Add);
  v.src0_s = {2, 16};
  run(v);
  for (int l = 0; l < 128; ++l) EXPECT_EQ(get_f16(kDst + 2 * l), float((l / 16) * 32 + l % 16)) << l;
}

TEST_F(VBinaryTest, RepeatStrideZeroReusesTheSameSource) {
  for (int i = 0; i < 384; ++i) put_f16(kSrc0 + 2 * i, float(i % 1000));
  for (int i = 0; i < 128; ++i) put_f16(kSrc1 + 2 * i, 1000.0f);
  auto v = bin(VBinOp::Add);
  v.repeat = 3;
  v.src1_s.rep = 0;
  run(v);
  for (int i = 0; i < 384; ++i) EXPECT_EQ(get_f16(kDst + 2 * i), float(i + 1000)) << i;
}

TEST_F(VBinaryTest, RepeatStrideSixteenLeavesGaps) {
  fill16(kDst, 512, 0x1234);
  fill16(kSrc0, 512, f16_round(2.0f));
  fill16(kSrc1, 512, f16_round(3.0f));
  auto v = bin(VBinOp::Mul);
  v.repeat = 2;
  v.dst_s.rep = 16;
  run(v);
  for (int i = 0; i < 512; ++i) {
    const bool written = (i / 128) % 2 == 0;  // repeat 1 starts at byte 512 = element 256
    EXPECT_EQ(get16(kDst + 2 * i), written ? f16_round(6.0f) : 0x1234) << i;
  }
}

TEST_F(VBinaryTest, NormalMaskHiBitsSelectUpperF16Lanes) {
  fill16(kDst, 128, 0xaaaa);
  fill16(kSrc0, 128, f16_round(1.0f));
  auto v = bin(VBinOp::Add);
  v.mask = {false, 1ull << 3, 1ull << 5};  // lanes 3 and 69
  run(v);
  for (int l = 0; l < 128; ++l) EXPECT_EQ(get16(kDst + 2 * l), (l == 3 || l == 69) ? 0x3c00 : 0xaaaa) << l;
}

TEST_F(VBinaryTest, F32NormalMaskIgnoresHi) {
  fill32(kDst, 128, 0xdeadbeef);
  fill32(kSrc0, 128, f32_bits(2.0f));
  auto v = bin(VBinOp::Add, DType::F32);
  v.repeat = 2;
  v.mask = {false, 0x1, ~0ull};
  run(v);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get32(kDst + 4 * i), (i % 64 == 0) ? f32_bits(2.0f) : 0xdeadbeef) << i;
}

TEST_F(VBinaryTest, CounterMaskCoversElementsAcrossRepeatsIgnoringRepeatField) {
  fill16(kDst, 300, 0xaaaa);
  fill16(kSrc0, 300, f16_round(1.0f));
  auto v = bin(VBinOp::Add);
  v.repeat = 1;
  v.mask = {true, 130, 0};
  run(v);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(get16(kDst + 2 * i), i < 130 ? 0x3c00 : 0xaaaa) << i;
  // Strided (per-repeat path): counter 70 f32 elements = 2 repeats of 64 lanes, dst repeats 512 B apart.
  fill32(kDst, 256, 0xdeadbeef);
  auto w = bin(VBinOp::Add, DType::F32);
  w.mask = {true, 70, 0};
  w.dst_s.rep = 16;
  run(w);
  for (int i = 0; i < 256; ++i) {
    const bool written = i < 64 || (i >= 128 && i < 134);
    EXPECT_EQ(get32(kDst + 4 * i) != 0xdeadbeef, written) << i;
  }
}

TEST_F(VBinaryTest, CounterZeroAndRepeatZeroAreNoOps) {
  fill16(kDst, 256, 0xaaaa);
  auto v = bin(VBinOp::Add);
  v.repeat = 0;
  run(v);
  v.repeat = 4;
  v.mask = {true, 0, 0};
  run(v);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(get16(kDst + 2 * i), 0xaaaa);
}

TEST_F(VBinaryTest, CounterBeyond255RepeatsIsRejected) {
  auto v = bin(VBinOp::Add);
  v.mask = {true, 255 * 128 + 1, 0};
  expect_error(v, {"mask.lo", "counter"});
  v.mask.lo = 255 * 128;
  v.src0 = ub(0x10000), v.src1 = ub(0x20000);  // 255 repeats span 0xff00 bytes per operand
  run(v);                                      // exactly 255 repeats is fine
}

TEST_F(VBinaryTest, RepeatsRunInOrderReadingBeforeWriting) {
  // In place with overlapping repeats (rep 4 = half a repeat): repeat 1 reads what repeat 0 wrote.
  fill16(kDst, 192, f16_round(0.0f));
  VScalar v;
  v.scalar = 1.0;
  v.dst = v.src = ub(kDst);
  v.repeat = 2;
  v.dst_s.rep = v.src_s.rep = 4;
  run(v);
  for (int i = 0; i < 192; ++i) EXPECT_EQ(get_f16(kDst + 2 * i), (i >= 64 && i < 128) ? 2.0f : 1.0f) << i;
}

TEST_F(VBinaryTest, ExactInPlaceIsAllowed) {
  for (int i = 0; i < 128; ++i) put_f16(kSrc0 + 2 * i, float(i));
  auto v = bin(VBinOp::Add);
  v.dst = v.src0 = v.src1 = ub(kSrc0);
  run(v);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get_f16(kSrc0 + 2 * i), float(2 * i));
}

TEST_F(VBinaryTest, PartialOverlapWithDestinationIsRejected) {
  auto v = bin(VBinOp::Add);
  v.src1 = ub(kDst + 32);
  expect_error(v, {"src1", "dst", "overlap"});
  auto w = bin(VBinOp::Add);
  w.src0 = ub(kDst);
  w.repeat = 2;
  w.src0_s.rep = 16;  // same address, different repeat stride: repeat 1 of src0 is not repeat 1 of dst
  expect_error(w, {"src0", "dst"});
}

TEST_F(VBinaryTest, InterleavedBlocksDoNotOverlap) {
  // dst uses the even blocks and src0 the odd blocks of the same 512 bytes: spans overlap, bytes do not.
  for (int i = 0; i < 256; ++i) put_f16(kDst + 2 * i, float(i));
  auto v = bin(VBinOp::Add);
  v.dst_s = {2, 16};
  v.src0 = ub(kDst + 32);
  v.src0_s = {2, 16};
  run(v);
  for (int l = 0; l < 128; ++l)
    EXPECT_EQ(get_f16(kDst + 64 * (l / 16) + 2 * (l % 16)), float((l / 16) * 32 + 16 + l % 16));
}

TEST_F(VBinaryTest, OperandErrorsNameTheOperandAndWriteNothing) {
  fill16(kDst, 128, 0x1111);
  auto v = bin(VBinOp::Add);
  v.src1 = ub(kUbBytes - 128);
  expect_error(v, {"src1", "exceeds"});
  v = bin(VBinOp::Add);
  v.src0 = ub(kSrc0 + 16);
  expect_error(v, {"src0", "aligned"});
  v = bin(VBinOp::Add);
  v.src0 = Addr{Buf::GM, 0};
  expect_error(v, {"src0", "gm", "not allowed"});
  v = bin(VBinOp::Add);
  v.dst_s.rep = 65535;
  v.repeat = 2;
  expect_error(v, {"dst", "exceeds"});
  ctx.mem[Buf::UB] = {};
  expect_error(bin(VBinOp::Add), {"does not exist"});
}

TEST_F(VBinaryTest, FootprintIsTheEnabledLanesOnly) {
  // src1 starts 224 bytes before the end of UB: lanes 0..111 fit, lanes 112..127 would not. With those
  // lanes disabled the instruction is in bounds (and must not read past the end).
  const uint64_t tail = kUbBytes - 224;
  for (int i = 0; i < 112; ++i) put_f16(tail + 2 * i, float(i));
  auto v = bin(VBinOp::Add);
  v.src1 = ub(tail);
  v.mask = {false, ~0ull, (1ull << 48) - 1};
  run(v);
  EXPECT_EQ(get_f16(kDst + 2 * 111), 111.0f);
  v.mask = {true, 112, 0};
  run(v);
  v.mask = {true, 113, 0};
  expect_error(v, {"src1", "exceeds"});
}

TEST_F(VBinaryTest, UnsupportedTypesAndFieldsAreRejected) {
  expect_error(bin(VBinOp::Add, DType::BF16), {"bf16", "vconv"});
  expect_error(bin(VBinOp::Div, DType::I16), {"dtype", "s16"});
  expect_error(bin(VBinOp::Add, DType::I8), {"dtype", "s8"});
  auto v = bin(VBinOp::Add);
  v.op = static_cast<VBinOp>(9);
  expect_error(v, {"field op"});
}

}  // namespace
}  // namespace npusim::isa::vtest
