// Reductions: vcmax / vcmin / vcadd (whole repeat), vcgmax / vcgmin / vcgadd (per block), vcpadd (pairs).
#include <cmath>

#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {
namespace {

constexpr uint64_t kDst = 0, kSrc = 0x1000;

VReduce whole(VRedOp op, DType t = DType::F16) {
  VReduce v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src = ub(kSrc);
  return v;
}

VBlockReduce block(VRedOp op, DType t = DType::F16) {
  VBlockReduce v;
  v.op = op;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src = ub(kSrc);
  return v;
}

VPairAdd pair(DType t = DType::F16) {
  VPairAdd v;
  v.dtype = t;
  v.dst = ub(kDst);
  v.src = ub(kSrc);
  return v;
}

using VReduceTest = VecTest;

TEST_F(VReduceTest, SumIsABalancedPairwiseTree) {
  // Tree: (2^24 + 1) -> 2^24, (1 - 2^24) exact, then 2^24 - (2^24 - 1) = 1. Left to right would give 0.
  const float two24 = 16777216.0f;
  put_f32(kSrc, two24), put_f32(kSrc + 4, 1), put_f32(kSrc + 8, 1), put_f32(kSrc + 12, -two24);
  run(whole(VRedOp::Sum, DType::F32));
  EXPECT_EQ(get_f32(kDst), 1.0f);
}

TEST_F(VReduceTest, F16RoundsEveryTreeNode) {
  // (2048 + 1) rounds to 2048 at level 1 and again at level 2: 2048. One final rounding would give 2050.
  put_f16(kSrc, 2048), put_f16(kSrc + 2, 1), put_f16(kSrc + 4, 1);
  run(whole(VRedOp::Sum));
  EXPECT_EQ(get_f16(kDst), 2048.0f);
}

TEST_F(VReduceTest, MaxMinOverLanesWithHiMask) {
  for (int i = 0; i < 128; ++i) put_f16(kSrc + 2 * i, float(i % 50) - 20);
  put_f16(kSrc + 2 * 100, 500), put_f16(kSrc + 2 * 7, -600);
  auto v = whole(VRedOp::Max);
  run(v);
  EXPECT_EQ(get_f16(kDst), 500.0f);
  v.mask = {false, ~0ull, 0};  // lane 100 disabled
  run(v);
  EXPECT_EQ(get_f16(kDst), 29.0f);
  v.op = VRedOp::Min;
  v.mask = {false, 0, ~0ull};  // lanes 64..127 only: lane 100 holds 500, lane 101 the minimum -19
  run(v);
  EXPECT_EQ(get_f16(kDst), -19.0f);
}

TEST_F(VReduceTest, LeftmostNaNWinsMaxQuieted) {
  fill32(kSrc, 64, f32_bits(1.0f));
  put32(kSrc + 4 * 5, 0x7f800005), put32(kSrc + 4 * 40, 0x7fc00040);
  run(whole(VRedOp::Max, DType::F32));
  EXPECT_EQ(get32(kDst), 0x7fc00005u);
}

TEST_F(VReduceTest, NoEnabledLaneWritesTheIdentity) {
  fill16(kSrc, 128, f16_round(3.0f));
  fill16(kDst, 16, 0x1111);
  auto v = whole(VRedOp::Max);
  v.mask = {false, 0, 0};
  run(v);
  EXPECT_EQ(get16(kDst), 0xfc00) << "-inf";
  v.op = VRedOp::Min;
  run(v);
  EXPECT_EQ(get16(kDst), 0x7c00) << "+inf";
  v.op = VRedOp::Sum;
  run(v);
  EXPECT_EQ(get16(kDst), 0x0000) << "+0";
  put16(kSrc, 0x8000);
  v.mask = {false, 1, 0};  // the only lane is -0; the +0 of the disabled lanes makes the sum +0
  run(v);
  EXPECT_EQ(get16(kDst), 0x0000);
}

TEST_F(VReduceTest, DstRepSpacesTheResultsInElements) {
  for (int i = 0; i < 3 * 64; ++i) put_f32(kSrc + 4 * i, float(i / 64 + 1));
  fill32(kDst, 8, 0xdeadbeef);
  auto v = whole(VRedOp::Sum, DType::F32);
  v.repeat = 3;
  v.dst_rep = 2;
  run(v);
  EXPECT_EQ(get_f32(kDst), 64.0f);
  EXPECT_EQ(get32(kDst + 4), 0xdeadbeefu);
  EXPECT_EQ(get_f32(kDst + 8), 128.0f);
  EXPECT_EQ(get_f32(kDst + 16), 192.0f);
  v.dst_rep = 0;  // every repeat writes element 0: the last one wins
  run(v);
  EXPECT_EQ(get_f32(kDst), 192.0f);
}

TEST_F(VReduceTest, CounterModeReducesThePartialLastRepeat) {
  for (int i = 0; i < 256; ++i) put_f16(kSrc + 2 * i, 1.0f);
  auto v = whole(VRedOp::Sum);
  v.mask = {true, 130, 0};
  run(v);
  EXPECT_EQ(get_f16(kDst), 128.0f);
  EXPECT_EQ(get_f16(kDst + 2), 2.0f);
}

TEST_F(VReduceTest, InPlaceAllowedOtherOverlapRejected) {
  for (int i = 0; i < 256; ++i) put_f16(kSrc + 2 * i, 2.0f);
  auto v = whole(VRedOp::Sum);
  v.dst = ub(kSrc);
  v.repeat = 2;
  run(v);
  EXPECT_EQ(get_f16(kSrc), 256.0f);
  EXPECT_EQ(get_f16(kSrc + 2), 256.0f);
  v.dst = ub(kSrc + 64);
  expect_error(v, {"src", "dst", "overlap"});
}

TEST_F(VReduceTest, PartialMaskAtTheEndOfUbReadsOnlyEnabledLanes) {
  const uint64_t tail = kUbBytes - 224;  // 112 f16 lanes fit
  for (int i = 0; i < 112; ++i) put_f16(tail + 2 * i, 1.0f);
  auto v = whole(VRedOp::Sum);
  v.src = ub(tail);
  v.mask = {false, ~0ull, (1ull << 48) - 1};
  run(v);
  EXPECT_EQ(get_f16(kDst), 112.0f);
  auto p = pair();
  p.src = ub(tail);
  p.mask = v.mask;
  run(p);
  EXPECT_EQ(get_f16(kDst + 2 * 55), 2.0f);
}

TEST_F(VReduceTest, ErrorsNameTheOperandOrField) {
  expect_error(whole(VRedOp::Sum, DType::I16), {"dtype", "s16"});
  expect_error(whole(VRedOp::Max, DType::BF16), {"bf16"});
  auto v = whole(VRedOp::Sum);
  v.dst = ub(kUbBytes - 32);
  v.repeat = 20;
  v.dst_rep = 16;
  expect_error(v, {"dst", "exceeds"});
  v = whole(VRedOp::Sum);
  v.src = Addr{Buf::GM, 0};
  expect_error(v, {"src", "gm"});
  v = whole(VRedOp::Sum);
  v.op = static_cast<VRedOp>(3);
  expect_error(v, {"field op"});
}

using VBlockReduceTest = VecTest;

TEST_F(VBlockReduceTest, EightResultsPerRepeatOneForEachBlock) {
  for (int i = 0; i < 256; ++i) put_f16(kSrc + 2 * i, float(i % 16 + (i / 16) * 100));
  fill16(kDst, 32, 0x1111);
  auto v = block(VRedOp::Max);
  v.repeat = 2;
  v.dst_rep = 2;                                   // repeat 1's 8 results start at element 16
  v.mask = {false, 0x000000ffffffffffull, ~0ull};  // block 2: lanes 32..39 only; block 3 none
  run(v);
  for (int b = 0; b < 8; ++b) {
    const float want = b == 2 ? 207.0f : b == 3 ? -INFINITY : float(b * 100 + 15);
    EXPECT_EQ(get_f16(kDst + 2 * b), want) << b;
    EXPECT_EQ(get_f16(kDst + 32 + 2 * b), (b == 2   ? 1007.0f
                                           : b == 3 ? -INFINITY
                                                    : float((b + 8) * 100 + 15)))
        << "repeat 1 block " << b;
  }
  EXPECT_EQ(get16(kDst + 16), 0x1111) << "elements 8..15 are the dst_rep gap";
}

TEST_F(VBlockReduceTest, F32SumPerBlockOfEightLanes) {
  for (int i = 0; i < 64; ++i) put_f32(kSrc + 4 * i, float(i));
  run(block(VRedOp::Sum, DType::F32));
  for (int b = 0; b < 8; ++b) EXPECT_EQ(get_f32(kDst + 4 * b), float(64 * b + 28)) << b;
}

TEST_F(VBlockReduceTest, MinAndOverlapRule) {
  for (int i = 0; i < 128; ++i) put_f16(kSrc + 2 * i, float(-i));
  auto v = block(VRedOp::Min);
  v.dst = ub(kSrc);
  run(v);  // in place
  for (int b = 0; b < 8; ++b) EXPECT_EQ(get_f16(kSrc + 2 * b), float(-(16 * b + 15)));
  v.dst = ub(kSrc + 32);
  expect_error(v, {"overlap"});
}

using VPairAddTest = VecTest;

TEST_F(VPairAddTest, AddsAdjacentLanesDisabledLanesAddZero) {
  for (int i = 0; i < 256; ++i) put_f16(kSrc + 2 * i, float(i));
  fill16(kDst, 256, 0x1111);
  auto v = pair();
  v.repeat = 2;
  v.dst_rep = 8;                                   // 256 bytes apart
  v.mask = {false, 0x5555555555555555ull, ~0ull};  // odd lanes below 64 disabled
  run(v);
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 64; ++j) {
      const int x0 = r * 128 + 2 * j;
      const float want = j < 32 ? float(x0) : float(2 * x0 + 1);
      EXPECT_EQ(get_f16(kDst + r * 256 + 2 * j), want) << r << " " << j;
    }
  EXPECT_EQ(get16(kDst + 128), 0x1111) << "only 64 results per repeat";
}

TEST_F(VPairAddTest, F32ContiguousAndErrors) {
  for (int i = 0; i < 128; ++i) put_f32(kSrc + 4 * i, 0.5f * i);
  auto v = pair(DType::F32);
  v.repeat = 2;
  run(v);  // dst_rep 4 blocks = 128 bytes: the two repeats' 32 results are contiguous
  for (int j = 0; j < 64; ++j) EXPECT_EQ(get_f32(kDst + 4 * j), 0.5f * (4 * j + 1)) << j;
  expect_error(pair(DType::I32), {"dtype"});
  v.dst = ub(kSrc + 256);
  expect_error(v, {"overlap"});
  v.dst = ub(kSrc);
  run(v);
}

}  // namespace
}  // namespace npusim::isa::vtest
