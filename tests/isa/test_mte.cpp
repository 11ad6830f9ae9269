// DataCopy, Nd2Nz and Load2d: semantics on hand-computed cases and every error rule (isa/README.md section 2).
#include <cmath>

#include "tests/isa/cube_fixture.h"

namespace npusim::isa {
namespace {

using testing::Core;
using testing::expect_isa_error;

// ---- DataCopy ------------------------------------------------------------------------------------

DataCopy copy(Addr dst, Addr src, uint16_t nburst, uint32_t bytes, uint32_t src_gap = 0, uint32_t dst_gap = 0) {
  DataCopy d;
  d.dst = dst, d.src = src, d.nburst = nburst, d.burst_bytes = bytes, d.src_gap = src_gap, d.dst_gap = dst_gap;
  return d;
}

TEST(DataCopy, GmSideAdvancesBytesLocalSideAdvancesBlocks) {
  Core c;
  for (int i = 0; i < 400; ++i) c.gm[7 + i] = uint8_t(i);
  c.fill(Buf::UB, 0xee);
  // 3 bursts of 40 bytes: GM stride 40 + 5 bytes from offset 7; UB stride ceil(40/32) + 1 = 3 blocks.
  c.run(copy({Buf::UB, 64}, {Buf::GM, 7}, 3, 40, 5, 1));
  for (int b = 0; b < 3; ++b) {
    for (int x = 0; x < 40; ++x) EXPECT_EQ(c.ub[64 + b * 96 + x], uint8_t(b * 45 + x)) << b << " " << x;
    for (int x = 40; x < 96; ++x) EXPECT_EQ(c.ub[64 + b * 96 + x], 0xee) << "untouched tail " << b << " " << x;
  }
  EXPECT_EQ(c.ub[63], 0xee);
}

TEST(DataCopy, UbToGmWritesExactlyTheBurstBytes) {
  Core c;
  for (int i = 0; i < 256; ++i) c.ub[i] = uint8_t(i + 1);
  c.run(copy({Buf::GM, 3}, {Buf::UB, 0}, 2, 33, 2, 4));  // UB stride (2 + 2) blocks; GM stride 37 bytes
  for (int x = 0; x < 33; ++x) {
    EXPECT_EQ(c.gm[3 + x], uint8_t(x + 1));
    EXPECT_EQ(c.gm[3 + 37 + x], uint8_t(128 + x + 1));
  }
  EXPECT_EQ(c.gm[3 + 33], 0);  // gap bytes untouched
  EXPECT_EQ(c.gm[3 + 37 + 33], 0);
}

TEST(DataCopy, GmToL1Copies) {
  Core c;
  c.gm[100] = 9;
  c.run(copy({Buf::L1, 32}, {Buf::GM, 100}, 1, 1));
  EXPECT_EQ(c.l1[32], 9);
}

TEST(DataCopy, PadFillsRestOfLastBlockWithF16Value) {
  Core c;
  c.fill(Buf::GM, 0x11);
  DataCopy d = copy({Buf::UB, 0}, {Buf::GM, 0}, 2, 10, 0, 0);
  d.pad = true, d.pad_dtype = DType::F16, d.pad_value = 1.5;
  c.run(d);
  for (int b = 0; b < 2; ++b) {
    for (int x = 0; x < 10; ++x) EXPECT_EQ(c.ub[b * 32 + x], 0x11);
    for (int x = 10; x < 32; x += 2) EXPECT_EQ(c.get<uint16_t>(Buf::UB, b * 32 + x), 0x3e00);
  }
}

TEST(DataCopy, PadValueIsRoundedRintToF16AndBf16) {
  Core c;
  DataCopy d = copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 2);
  d.pad = true, d.pad_dtype = DType::F16, d.pad_value = 1.0 + std::ldexp(1.0, -11);  // tie -> even (1.0)
  c.run(d);
  EXPECT_EQ(c.get<uint16_t>(Buf::UB, 2), 0x3c00);
  d.pad_value = 1.0 + 3 * std::ldexp(1.0, -11);  // tie -> even (1 + 2^-9)
  c.run(d);
  EXPECT_EQ(c.get<uint16_t>(Buf::UB, 2), 0x3c02);
  d.pad_dtype = DType::BF16, d.pad_value = -2.0;
  c.run(d);
  EXPECT_EQ(c.get<uint16_t>(Buf::UB, 30), 0xc000);
  d.pad_value = 1e300;  // beyond every binary format: IEEE overflow gives inf
  c.run(d);
  EXPECT_EQ(c.get<uint16_t>(Buf::UB, 30), 0x7f80);
}

TEST(DataCopy, PadF32AndIntegerTypes) {
  Core c;
  DataCopy d = copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 4);
  d.pad = true, d.pad_dtype = DType::F32, d.pad_value = 0.1;
  c.run(d);
  EXPECT_EQ(c.get<float>(Buf::UB, 28), 0.1f);
  d.pad_dtype = DType::I32, d.pad_value = -7;
  c.run(d);
  EXPECT_EQ(c.get<int32_t>(Buf::UB, 4), -7);
  d.pad_dtype = DType::I8, d.pad_value = -128, d.burst_bytes = 3;
  c.run(d);
  EXPECT_EQ(c.ub[3], 0x80);
  d.pad_dtype = DType::I4, d.pad_value = -3;  // both nibbles of each pad byte
  c.run(d);
  EXPECT_EQ(c.ub[31], 0xdd);
  d.pad_dtype = DType::U8, d.pad_value = 255;
  c.run(d);
  EXPECT_EQ(c.ub[31], 0xff);
}

TEST(DataCopy, PadValueMustBeRepresentableInIntegerType) {
  Core c;
  DataCopy d = copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 4);
  d.pad = true, d.pad_dtype = DType::I8, d.pad_value = 1.5;
  expect_isa_error(c, d, "pad_value");
  d.pad_value = 128;
  expect_isa_error(c, d, "pad_value");
  d.pad_dtype = DType::I4, d.pad_value = 8;
  expect_isa_error(c, d, "pad_value");
  d.pad_dtype = DType::U8, d.pad_value = -1;
  expect_isa_error(c, d, "pad_value");
}

TEST(DataCopy, PadNeedsLocalDestinationAndWholeElements) {
  Core c;
  DataCopy d = copy({Buf::GM, 0}, {Buf::UB, 0}, 1, 4);
  d.pad = true;
  expect_isa_error(c, d, "field pad");
  d = copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 3);
  d.pad = true, d.pad_dtype = DType::F16;
  expect_isa_error(c, d, "field burst_bytes");
}

TEST(DataCopy, UbToL1ExistsOnCoupledCoresOnly) {
  Core split;
  expect_isa_error(split, copy({Buf::L1, 0}, {Buf::UB, 0}, 1, 32), "UB->L1 exists on coupled cores only");
  Core coupled(true);
  coupled.ub[5] = 42;
  coupled.run(copy({Buf::L1, 0}, {Buf::UB, 0}, 1, 32));
  EXPECT_EQ(coupled.l1[5], 42);
}

TEST(DataCopy, OtherPathsAreRejected) {
  Core c(true);
  expect_isa_error(c, copy({Buf::GM, 0}, {Buf::GM, 64}, 1, 32), "gm->gm is not a DataCopy path");
  expect_isa_error(c, copy({Buf::GM, 0}, {Buf::L1, 0}, 1, 32), "l1->gm is not a DataCopy path");
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::UB, 64}, 1, 32), "ub->ub is not a DataCopy path");
  expect_isa_error(c, copy({Buf::L0A, 0}, {Buf::GM, 0}, 1, 32), "gm->l0a is not a DataCopy path");
}

TEST(DataCopy, FieldRanges) {
  Core c;
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, 0}, 0, 32), "field nburst");
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, 0}, 4096, 32), "field nburst");
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 0), "field burst_bytes");
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, 0}, 1, (1u << 21) + 1), "field burst_bytes");
}

TEST(DataCopy, BoundsAlignmentAndMissingBuffers) {
  Core c;
  c.ub[0] = 1;
  expect_isa_error(c, copy({Buf::UB, (192 << 10) - 32}, {Buf::GM, 0}, 2, 32), "operand dst: ub range");
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, (1 << 20) - 16}, 1, 32), "operand src: gm range");
  expect_isa_error(c, copy({Buf::UB, 16}, {Buf::GM, 0}, 1, 32), "not aligned to 32");
  expect_isa_error(c, copy({Buf::GM, 0}, {Buf::UB, 8}, 1, 32), "operand src: address 0x8");
  EXPECT_EQ(c.ub[0], 1);
  c.ctx.mem[Buf::UB] = {};
  expect_isa_error(c, copy({Buf::UB, 0}, {Buf::GM, 0}, 1, 32), "does not exist on this core");
}

// ---- Nd2Nz ---------------------------------------------------------------------------------------

Nd2Nz nd2nz(DType t, uint16_t n, uint32_t d, uint32_t src_d, uint16_t c0_stride, uint16_t n_stride = 1) {
  Nd2Nz x;
  x.dst = {Buf::L1, 0}, x.src = {Buf::GM, 0};
  x.dtype = t, x.n_value = n, x.d_value = d, x.src_d_value = src_d, x.dst_nz_c0_stride = c0_stride;
  x.dst_nz_n_stride = n_stride;
  return x;
}

TEST(Nd2Nz, F16RowsSplitIntoColumnGroupsWithZeroedTail) {
  Core c;
  c.fill(Buf::L1, 0xee);
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 24; ++col) c.put<uint16_t>(Buf::GM, (r * 24 + col) * 2, uint16_t(r * 100 + col));
  c.run(nd2nz(DType::F16, 3, 20, 24, 4));  // group g of row r at block g*4 + r
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 20; ++col)
      EXPECT_EQ(c.get<uint16_t>(Buf::L1, ((col / 16) * 4 + r) * 32 + (col % 16) * 2), r * 100 + col);
    for (int col = 20; col < 32; ++col) EXPECT_EQ(c.get<uint16_t>(Buf::L1, (4 + r) * 32 + (col % 16) * 2), 0) << col;
  }
  EXPECT_EQ(c.l1[3 * 32], 0xee);  // block 3 (row 3 of group 0) is not part of the copy
  EXPECT_EQ(c.l1[7 * 32], 0xee);
}

TEST(Nd2Nz, SeveralMatricesAndNStride) {
  Core c;
  for (int i = 0; i < 64; ++i) c.put<float>(Buf::GM, i * 4, float(i));
  Nd2Nz x = nd2nz(DType::F32, 2, 8, 8, 1, 2);                              // c0 = 8: one group; rows 2 blocks apart
  x.nd_num = 2, x.src_nd_matrix_stride = 20, x.dst_nz_matrix_stride = 48;  // 48 f32 = 6 blocks
  c.run(x);
  for (int i = 0; i < 2; ++i)
    for (int r = 0; r < 2; ++r)
      for (int col = 0; col < 8; ++col)
        EXPECT_EQ(c.get<float>(Buf::L1, (i * 6 + r * 2) * 32 + col * 4), float(i * 20 + r * 8 + col));
}

TEST(Nd2Nz, S8UsesC0Of32) {
  Core c;
  for (int i = 0; i < 40; ++i) c.gm[i] = uint8_t(i + 1);
  c.run(nd2nz(DType::I8, 1, 40, 40, 3));
  EXPECT_EQ(c.l1[31], 32);
  EXPECT_EQ(c.l1[3 * 32 + 7], 40);
  EXPECT_EQ(c.l1[3 * 32 + 8], 0);
}

TEST(Nd2Nz, OverlappingSourceRowsAreLegalReads) {
  Core c;
  for (int i = 0; i < 32; ++i) c.gm[i] = uint8_t(i);
  c.run(nd2nz(DType::I8, 2, 32, 1, 1));  // row 1 starts one element after row 0
  EXPECT_EQ(c.l1[32], 1);
  EXPECT_EQ(c.l1[63], 0);  // element 32 of GM
}

TEST(Nd2Nz, ZeroSizesMoveNothing) {
  Core c;
  c.fill(Buf::L1, 0xee);
  Nd2Nz x = nd2nz(DType::F16, 0, 16, 16, 1);
  c.run(x);
  x.n_value = 4, x.nd_num = 0;
  c.run(x);
  EXPECT_EQ(c.l1[0], 0xee);
  x.dst.buf = Buf::UB;
  expect_isa_error(c, x, "operand dst: buffer ub is not allowed");
}

TEST(Nd2Nz, S4IsRejected) {
  Core c;
  expect_isa_error(c, nd2nz(DType::I4, 1, 64, 64, 1), "s4 is not supported by nd2nz");
}

TEST(Nd2Nz, FieldRanges) {
  Core c;
  Nd2Nz x = nd2nz(DType::F16, 1, 16, 0, 1);
  expect_isa_error(c, x, "field src_d_value");
  x = nd2nz(DType::F16, 16385, 16, 16, 1);
  expect_isa_error(c, x, "field n_value");
  x = nd2nz(DType::F16, 1, 16, 16, 0);
  expect_isa_error(c, x, "field dst_nz_c0_stride");
  x = nd2nz(DType::F16, 1, 16, 16, 1, 0);
  expect_isa_error(c, x, "field dst_nz_n_stride");
  x = nd2nz(DType::F16, 1, 16, 16, 1);
  x.nd_num = 4096;
  expect_isa_error(c, x, "field nd_num");
  x.nd_num = 2, x.dst_nz_matrix_stride = 8;  // 16 bytes: the second matrix would start inside a block
  expect_isa_error(c, x, "field dst_nz_matrix_stride");
}

TEST(Nd2Nz, DestinationBlocksMustNotCollide) {
  Core c;
  c.fill(Buf::L1, 0xee);
  expect_isa_error(c, nd2nz(DType::F16, 3, 32, 32, 2), "destination block 2");  // group 1 row 0 == group 0 row 2
  EXPECT_EQ(c.l1[0], 0xee);                                                     // rejected before any byte moved
  Nd2Nz x = nd2nz(DType::F16, 2, 16, 16, 1);
  x.nd_num = 2, x.dst_nz_matrix_stride = 16;  // matrix 1 row 0 == matrix 0 row 1
  expect_isa_error(c, x, "written twice");
}

TEST(Nd2Nz, BoundsAndBuffers) {
  Core c;
  Nd2Nz x = nd2nz(DType::F16, 2, 16, 16, 1);
  x.src.off = (1 << 20) - 48;
  expect_isa_error(c, x, "operand src: gm range");
  x = nd2nz(DType::F16, 2, 16, 16, 1);
  x.dst.off = (512 << 10) - 32;
  expect_isa_error(c, x, "operand dst: l1 range");
  x.dst.off = 16;
  expect_isa_error(c, x, "not aligned to 32");
  x = nd2nz(DType::F16, 2, 16, 16, 1);
  x.src.buf = Buf::UB;
  expect_isa_error(c, x, "operand src: buffer ub is not allowed");
}

// ---- Load2d --------------------------------------------------------------------------------------

Load2d load(Addr dst, Addr src, uint8_t repeat, uint16_t start = 0, uint16_t stride = 1, uint16_t gap = 0) {
  Load2d l;
  l.dst = dst, l.src = src, l.repeat = repeat, l.start_index = start, l.src_stride = stride, l.dst_gap = gap;
  return l;
}

TEST(Load2d, FractalsFromStartIndexWithStrideAndGap) {
  Core c;
  for (int f = 0; f < 8; ++f) std::memset(c.at(Buf::L1, 32 + f * 512), f + 1, 512);
  c.fill(Buf::L0B, 0xee);
  c.run(load({Buf::L0B, 512}, {Buf::L1, 32}, 3, 1, 2, 1));  // fractals 1, 3, 5 -> dst fractals 0, 2, 4
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(c.l0b[512 + j * 1024], 2 + 2 * j);
    EXPECT_EQ(c.l0b[512 + j * 1024 + 511], 2 + 2 * j);
    if (j < 2) {
      EXPECT_EQ(c.l0b[512 + j * 1024 + 512], 0xee);  // the gap fractal is untouched
    }
  }
}

TEST(Load2d, TransposeSwapsRowsAndColumnsOf16BitFractals) {
  Core c;
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 16; ++col) c.put<uint16_t>(Buf::L1, 512 + (r * 16 + col) * 2, uint16_t(r * 16 + col));
  Load2d l = load({Buf::L0A, 0}, {Buf::L1, 0}, 1, 1);
  l.transpose = true, l.dtype = DType::BF16;
  c.run(l);
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 16; ++col) EXPECT_EQ(c.get<uint16_t>(Buf::L0A, (r * 16 + col) * 2), col * 16 + r);
}

TEST(Load2d, TransposeIsFor16BitFractalsAnd8BitAnd4BitSquaresOnly) {
  Core c;
  Load2d l = load({Buf::L0A, 0}, {Buf::L1, 0}, 1);
  l.transpose = true, l.dtype = DType::F32;
  expect_isa_error(c, l, "field transpose");
  l.dtype = DType::I4;
  expect_isa_error(c, l, "field dst: an s4 transpose writes L0B only");
  l.dtype = DType::F16, l.dst_frac_gap = 1;
  expect_isa_error(c, l, "field dst_frac_gap = 1: only an 8-bit or 4-bit transpose");
  l.transpose = false, l.dtype = DType::I8;
  expect_isa_error(c, l, "field dst_frac_gap");
}

// The vendor's b8 LoadDataWithTranspose: two 16 x 32 source fractals form a 32 x 32 square, transposed, split
// into two fractals placed (1 + dst_frac_gap) apart; repeats advance src_stride fractals and (1 + dst_gap).
TEST(Load2d, EightBitTransposeTurnsTwoFractalsIntoATransposedSquare) {
  Core c;
  auto src_byte = [](int sq, int r, int col) { return uint8_t((sq * 97 + r * 32 + col) & 0xff); };
  for (int sq = 0; sq < 2; ++sq)  // squares at source fractals 1-2 and 4-5 (start 1, stride 3)
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < 32; ++col) c.l1[size_t((1 + 3 * sq) * 512 + r * 32 + col)] = src_byte(sq, r, col);
  c.fill(Buf::L0B, 0xee);
  for (const auto& [frac_gap, gap] : {std::pair<int, int>{0, 1}, {2, 0}, {1, 5}}) {
    c.fill(Buf::L0B, 0xee);
    Load2d l = load({Buf::L0B, 0}, {Buf::L1, 0}, 2, 1, 3, uint16_t(gap));
    l.transpose = true, l.dtype = DType::I8, l.dst_frac_gap = uint16_t(frac_gap);
    c.run(l);
    for (int sq = 0; sq < 2; ++sq)
      for (int half = 0; half < 2; ++half) {
        const int frac = sq * (1 + gap) + half * (1 + frac_gap);
        for (int r = 0; r < 16; ++r)  // row r of the half is column 16 * half + r of the source square
          for (int col = 0; col < 32; ++col)
            ASSERT_EQ(c.l0b[size_t(frac * 512 + r * 32 + col)], src_byte(sq, col, 16 * half + r))
                << "gap " << gap << " frac_gap " << frac_gap << " square " << sq << " half " << half;
      }
    if (frac_gap == 2 && gap == 0) {
      EXPECT_EQ(c.l0b[1 * 512], src_byte(1, 0, 0));  // repeat 1's first fractal lands between repeat 0's two
    }
    if (frac_gap == 1 && gap == 5) {
      EXPECT_EQ(c.l0b[1 * 512], 0xee);  // the gaps stay untouched
    }
  }
  // The square's second source fractal and the second destination fractal are inside the buffers.
  Load2d l = load({Buf::L0B, 0}, {Buf::L1, 0}, 1, 1023);
  l.transpose = true, l.dtype = DType::U8;
  expect_isa_error(c, l, "operand src: l1 range");
  l = load({Buf::L0B, 63 << 10}, {Buf::L1, 0}, 1);
  l.transpose = true, l.dtype = DType::I8, l.dst_frac_gap = 1;
  expect_isa_error(c, l, "operand dst: l0b range");
}

// The vendor's int4b_t LoadDataWithTranspose (L0B only): four 16 x 64-nibble source fractals form a 64 x 64 square
// (the low nibble of a byte is the lower-index element), transposed, split into four fractals (1 + dst_frac_gap)
// apart.
TEST(Load2d, FourBitTransposeTurnsFourFractalsIntoATransposedSquare) {
  Core c;
  auto nib = [](int sq, int r, int col) { return uint8_t((sq * 5 + r * 3 + col * 7 + (r * col) / 5) & 0xf); };
  for (int sq = 0; sq < 2; ++sq)  // squares at source fractals 1-4 and 6-9 (start 1, stride 5)
    for (int r = 0; r < 64; ++r)
      for (int col = 0; col < 64; ++col) {
        uint8_t& b = c.l1[size_t((1 + 5 * sq) * 512 + r * 32 + col / 2)];
        b = uint8_t(col % 2 ? (b & 0x0f) | (nib(sq, r, col) << 4) : (b & 0xf0) | nib(sq, r, col));
      }
  for (const auto& [frac_gap, gap] : {std::pair<int, int>{0, 3}, {1, 0}}) {
    c.fill(Buf::L0B, 0xee);
    Load2d l = load({Buf::L0B, 0}, {Buf::L1, 0}, 2, 1, 5, uint16_t(gap));
    l.transpose = true, l.dtype = DType::I4, l.dst_frac_gap = uint16_t(frac_gap);
    c.run(l);
    for (int sq = 0; sq < 2; ++sq)
      for (int q = 0; q < 4; ++q) {
        const int frac = sq * (1 + gap) + q * (1 + frac_gap);
        for (int r = 0; r < 16; ++r)  // row r of quarter q is column 16 q + r of the source square
          for (int col = 0; col < 64; ++col) {
            const uint8_t b = c.l0b[size_t(frac * 512 + r * 32 + col / 2)];
            ASSERT_EQ((b >> (4 * (col % 2))) & 0xf, nib(sq, col, 16 * q + r))
                << "gap " << gap << " frac_gap " << frac_gap << " square " << sq << " quarter " << q;
          }
      }
  }
  Load2d l = load({Buf::L0B, 0}, {Buf::L1, 0}, 1, 1021);  // the square's fourth fractal is outside L1
  l.transpose = true, l.dtype = DType::I4;
  expect_isa_error(c, l, "operand src: l1 range");
}

TEST(Load2d, RepeatZeroIsNoOp) {
  Core c;
  c.l1[0] = 5;
  c.run(load({Buf::L0A, 0}, {Buf::L1, 0}, 0));
  EXPECT_EQ(c.l0a[0], 0);
}

TEST(Load2d, BuffersAlignmentAndBounds) {
  Core c;
  expect_isa_error(c, load({Buf::UB, 0}, {Buf::L1, 0}, 1), "operand dst: buffer ub is not allowed");
  expect_isa_error(c, load({Buf::L0A, 0}, {Buf::GM, 0}, 1), "operand src: buffer gm is not allowed");
  expect_isa_error(c, load({Buf::L0A, 256}, {Buf::L1, 0}, 1), "not aligned to 512");
  expect_isa_error(c, load({Buf::L0A, 0}, {Buf::L1, 16}, 1), "not aligned to 32");
  expect_isa_error(c, load({Buf::L0A, 63 << 10}, {Buf::L1, 0}, 3), "operand dst: l0a range");
  expect_isa_error(c, load({Buf::L0A, 0}, {Buf::L1, 0}, 2, 1023, 1), "operand src: l1 range");
  c.l1[32] = 3;
  c.run(load({Buf::L0A, 0}, {Buf::L1, 32}, 1));  // L1 needs 32-byte alignment only
  EXPECT_EQ(c.l0a[0], 3);
}

}  // namespace
}  // namespace npusim::isa
