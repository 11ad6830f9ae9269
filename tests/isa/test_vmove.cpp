// vcopy, vdup, vbrcb (bit moves) and vcmp, vsel (bit masks).
#include <cmath>

#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {
namespace {

constexpr uint64_t kDst = 0, kSrc0 = 0x1000, kSrc1 = 0x2000, kSel = 0x3000;

using VCopyTest = VecTest;

TEST_F(VCopyTest, CopiesBitsUnchangedUnderMaskAndStrides) {
  for (int i = 0; i < 256; ++i) put16(kSrc0 + 2 * i, uint16_t(0x7c01 + i));  // signalling NaNs stay signalling
  fill16(kDst, 256, 0x1111);
  VCopy v;
  v.dtype = DType::BF16;
  v.dst = ub(kDst), v.src = ub(kSrc0);
  v.src_s = {2, 16};
  v.mask = {false, ~0ull, 0xffff};
  run(v);
  for (int l = 0; l < 128; ++l)
    EXPECT_EQ(get16(kDst + 2 * l), l < 80 ? uint16_t(0x7c01 + (l / 16) * 32 + l % 16) : 0x1111) << l;
  v.dtype = DType::I8;
  expect_error(v, {"dtype", "s8"});
  v.dtype = DType::F32;
  v.src = ub(kDst + 32);
  v.src_s = {1, 8};
  expect_error(v, {"src", "dst", "overlap"});
}

using VDupTest = VecTest;

TEST_F(VDupTest, ValueIsRoundedToTheDtype) {
  VDup v;
  v.dst = ub(kDst);
  v.value = 0.1;
  v.mask = {true, 3, 0};
  struct Case {
    DType t;
    double value;
    uint32_t bits;
  };
  const Case cases[] = {{DType::F16, 0.1, 0x2e66},
                        {DType::BF16, 0.1, 0x3dcd},
                        {DType::F32, 0.1, 0x3dcccccd},
                        {DType::F16, 1e6, 0x7c00},
                        {DType::F16, NAN, 0x7e00},
                        {DType::I16, -5, 0xfffb},
                        {DType::I32, 2147483647.0, 0x7fffffff}};
  for (const auto& c : cases) {
    v.dtype = c.t;
    v.value = c.value;
    run(v);
    const uint32_t got = bytes_of(c.t) == 2 ? get16(kDst + 2 * 2) : get32(kDst + 4 * 2);
    EXPECT_EQ(got, c.bits) << dtype_name(c.t) << " " << c.value;
  }
}

TEST_F(VDupTest, WritesEnabledLanesWithStrides) {
  fill32(kDst, 256, 0x11111111);
  VDup v;
  v.dtype = DType::F32;
  v.dst = ub(kDst);
  v.value = 2;
  v.repeat = 2;
  v.dst_s = {2, 16};
  v.mask = {false, 0xff00ff, 0};
  run(v);
  for (int i = 0; i < 256; ++i) {
    const int r = i / 128, b = (i % 128) / 8;  // 512-byte repeats, 32-byte blocks
    const bool written = b % 2 == 0 && (b / 2 == 0 || b / 2 == 2);
    EXPECT_EQ(get32(kDst + 4 * i), written ? f32_bits(2.0f) : 0x11111111u) << r << " " << i;
  }
}

TEST_F(VDupTest, IntegerValueMustBeIntegralAndInRange) {
  VDup v;
  v.dtype = DType::I32;
  v.dst = ub(kDst);
  v.value = 0.5;
  expect_error(v, {"value", "not an integer"});
  v.value = 3e9;
  expect_error(v, {"value", "range"});
  v.dtype = DType::I8;
  v.value = 1;
  expect_error(v, {"dtype"});
}

using VBrcbTest = VecTest;

TEST_F(VBrcbTest, EachSourceElementFillsOneBlock) {
  for (int i = 0; i < 16; ++i) put_f32(kSrc0 + 4 * i, float(i));
  VBrcb v;
  v.dst = ub(kDst), v.src = ub(kSrc0);
  v.repeat = 2;
  run(v);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get_f32(kDst + 4 * i), float(i / 8)) << i;
}

TEST_F(VBrcbTest, F16WithDestinationStridesAndOverlapRule) {
  for (int i = 0; i < 8; ++i) put16(kSrc0 + 2 * i, uint16_t(0x100 + i));
  fill16(kDst, 512, 0);
  VBrcb v;
  v.dtype = DType::F16;
  v.dst = ub(kDst), v.src = ub(kSrc0);
  v.dst_s = {2, 0};
  run(v);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(get16(kDst + 2 * i), (i / 16) % 2 == 0 ? 0x100 + i / 32 : 0) << i;
  v.dst = ub(kSrc0 - 32);  // dst blocks at -32, +32, ...: interleaved with the 16 source bytes, no overlap
  run(v);
  v.dst = ub(kSrc0 - 64);  // dst block 1 is the source block
  expect_error(v, {"src", "dst", "overlap"});
  v.dst = ub(kSrc0);
  v.dst_s = {1, 8};
  run(v);  // in place: the 8 elements are read before the repeat writes
  for (int i = 0; i < 128; ++i) EXPECT_EQ(get16(kSrc0 + 2 * i), 0x100 + i / 16) << i;
  v.dtype = DType::U8;
  expect_error(v, {"dtype"});
}

using VCmpTest = VecTest;

VCmp cmp(CmpOp op, DType t = DType::F16) {
  VCmp v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kSel), v.src0 = ub(kSrc0), v.src1 = ub(kSrc1);
  return v;
}

TEST_F(VCmpTest, IeeeRelationsWithNaNAndSignedZero) {
  // lanes: (1,2) (2,2) (NaN,1) (3,NaN) (-0,+0) (inf,1)
  put16s(kSrc0, {0x3c00, 0x4000, 0x7e00, 0x4200, 0x8000, 0x7c00});
  put16s(kSrc1, {0x4000, 0x4000, 0x3c00, 0x7c01, 0x0000, 0x3c00});
  struct Want {
    CmpOp op;
    uint8_t bits;
  };
  const Want wants[] = {{CmpOp::LT, 0b000001}, {CmpOp::GT, 0b100000}, {CmpOp::EQ, 0b010010},
                        {CmpOp::LE, 0b010011}, {CmpOp::GE, 0b110010}, {CmpOp::NE, 0b101101}};
  for (const auto& w : wants) {
    auto v = cmp(w.op);
    v.mask = {false, 0x3f, 0};
    run(v);
    EXPECT_EQ(ubuf[kSel], w.bits) << int(w.op);
    for (int i = 1; i < 16; ++i) EXPECT_EQ(ubuf[kSel + i], 0) << "disabled lanes write 0";
  }
}

TEST_F(VCmpTest, BitsFollowRepeatsAndCounterMode) {
  for (int i = 0; i < 200; ++i) put_f32(kSrc0 + 4 * i, float(i)), put_f32(kSrc1 + 4 * i, 100.0f);
  std::fill(ubuf.begin() + kSel, ubuf.begin() + kSel + 64, 0xee);
  auto v = cmp(CmpOp::GE, DType::F32);
  v.mask = {true, 150, 0};  // 3 repeats of 64 lanes: bits 0..191 = 24 bytes
  run(v);
  for (int k = 0; k < 192; ++k) EXPECT_EQ((ubuf[kSel + k / 8] >> (k % 8)) & 1, (k >= 100 && k < 150) ? 1 : 0) << k;
  EXPECT_EQ(ubuf[kSel + 24], 0xee) << "nothing past the bit string";
  auto s = cmp(CmpOp::LT, DType::F32);
  s.src0_s.rep = 0;  // repeat 1 compares the same source lanes again
  s.repeat = 2;
  s.mask = {false, 0x8000000000000001ull, ~0ull};  // hi ignored for f32
  run(s);
  EXPECT_EQ(ubuf[kSel], 1);
  EXPECT_EQ(ubuf[kSel + 7], 0x80);
  EXPECT_EQ(ubuf[kSel + 8], 1);
  EXPECT_EQ(ubuf[kSel + 15], 0x80);
}

TEST_F(VCmpTest, DestinationMayNotOverlapSourcesAndMustBeAligned) {
  auto v = cmp(CmpOp::EQ);
  v.dst = ub(kSrc1 + 64);
  expect_error(v, {"dst", "src1", "overlap"});
  v.dst = ub(kSel + 8);
  expect_error(v, {"dst", "aligned"});
  expect_error(cmp(CmpOp::EQ, DType::I32), {"dtype"});
  auto w = cmp(CmpOp::EQ);
  w.op = static_cast<CmpOp>(6);
  expect_error(w, {"field op"});
}

TEST_F(VCmpTest, PartialMaskAtTheEndOfUbReadsOnlyEnabledLanes) {
  const uint64_t tail = kUbBytes - 224;  // 112 f16 lanes fit
  auto v = cmp(CmpOp::LT);
  v.src1 = ub(tail);
  v.mask = {true, 112, 0};
  run(v);
  v.mask = {false, ~0ull, ~0ull};
  expect_error(v, {"src1", "exceeds"});
}

using VSelTest = VecTest;

VSel sel(DType t = DType::F16) {
  VSel v;
  v.dtype = t;
  v.dst = ub(kDst), v.src0 = ub(kSrc0), v.src1 = ub(kSrc1), v.sel = ub(kSel);
  return v;
}

TEST_F(VSelTest, SelectsSrc0WhereTheBitIsSet) {
  for (int i = 0; i < 256; ++i) put16(kSrc0 + 2 * i, uint16_t(i)), put16(kSrc1 + 2 * i, uint16_t(1000 + i));
  for (int k = 0; k < 32; ++k) ubuf[kSel + k] = uint8_t(0x5a + k);
  auto v = sel();
  v.repeat = 2;
  run(v);
  for (int e = 0; e < 256; ++e) {
    const bool bit = (ubuf[kSel + e / 8] >> (e % 8)) & 1;
    EXPECT_EQ(get16(kDst + 2 * e), bit ? e : 1000 + e) << e;
  }
}

TEST_F(VSelTest, ScalarModeMaskAndIgnoredSrc1) {
  for (int i = 0; i < 64; ++i) put_f32(kSrc0 + 4 * i, float(i));
  fill32(kDst, 64, 0x11111111);
  ubuf[kSel] = 0x0f;
  auto v = sel(DType::F32);
  v.scalar_mode = true;
  v.scalar = -1.5;
  v.src1 = Addr{Buf::GM, 0};  // ignored in scalar mode
  v.mask = {false, 0xff, 0};
  run(v);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(get32(kDst + 4 * i), i < 4 ? f32_bits(float(i)) : i < 8 ? f32_bits(-1.5f) : 0x11111111u) << i;
  v.dtype = DType::I32;
  expect_error(v, {"scalar", "not an integer"});
}

TEST_F(VSelTest, SelectorMayNotOverlapTheDestination) {
  auto v = sel();
  v.sel = ub(kDst + 224);
  expect_error(v, {"sel", "dst", "overlap"});
  v = sel();
  v.sel = ub(kUbBytes - 8);
  expect_error(v, {"sel"});
  v = sel(DType::I8);
  expect_error(v, {"dtype"});
}

}  // namespace
}  // namespace npusim::isa::vtest
