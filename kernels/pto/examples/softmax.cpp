// A PTO row softmax written for npusim: y = softmax(x) over each row of an R x 256 fp32 matrix, on the vector
// cores. Rows go in blocks of 32 (one TLOAD each), dealt round-robin to the blocks; two UB slots let the next
// block load while this one computes and stores. The vector steps are the FA softmax's (pto-isa
// kernels/manual/common/flash_atten/pto_macro_fa_softmax.hpp): row max, subtract, exp, row sum, divide.
// -D SOFTMAX_DROP_BARRIER removes the pipe_barrier(PIPE_V) that orders TEXP after TROWEXPANDSUB: npusim reports
// the hazard (tests/op/test_pto.cpp).
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int kRows = 32, kCols = 256;
using RowsT = Tile<TileType::Vec, float, kRows, kCols>;
using PerRowT = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;
using Gm = GlobalTensor<float, TileShape2D<float, kRows, kCols>, BaseShape2D<float, DYNAMIC, kCols>>;
constexpr uint32_t kSlotBytes = kRows * kCols * sizeof(float);
}  // namespace

__global__ AICORE void pto_softmax(__gm__ float* y, __gm__ float* x, uint32_t rows) {
  RowsT slot[2], tmp;
  PerRowT row_max, row_sum;
  TASSIGN(slot[0], 0);
  TASSIGN(slot[1], kSlotBytes);
  TASSIGN(tmp, 2 * kSlotBytes);  // the reductions' scratch: 256 bytes per row
  TASSIGN(row_max, 3 * kSlotBytes);
  TASSIGN(row_sum, 3 * kSlotBytes + 128);
  for (int s = 0; s < 2; ++s) set_flag(PIPE_MTE3, PIPE_MTE2, s);
  int s = 0;
  for (uint32_t r0 = uint32_t(get_block_idx()) * kRows; r0 < rows; r0 += uint32_t(get_block_num()) * kRows, s ^= 1) {
    Gm in(x + r0 * kCols, {}, {rows, 0u + kCols}), out(y + r0 * kCols, {}, {rows, 0u + kCols});
    RowsT& t = slot[s];
    wait_flag(PIPE_MTE3, PIPE_MTE2, s);  // the slot's previous rows are stored
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, s);
    wait_flag(PIPE_MTE2, PIPE_V, s);
    TROWMAX(row_max, t, tmp);  // ends with a barrier of its own
    TROWEXPANDSUB(t, t, row_max);
#ifndef SOFTMAX_DROP_BARRIER
    pipe_barrier(PIPE_V);
#endif
    TEXP(t, t);
    pipe_barrier(PIPE_V);
    TROWSUM(row_sum, t, tmp);
    TROWEXPANDDIV(t, t, row_sum);
    set_flag(PIPE_V, PIPE_MTE3, s);
    wait_flag(PIPE_V, PIPE_MTE3, s);
    TSTORE(out, t);
    set_flag(PIPE_MTE3, PIPE_MTE2, s);
  }
  for (int i = 0; i < 2; ++i) wait_flag(PIPE_MTE3, PIPE_MTE2, i);
}

NPUSIM_PTO_ENTRY(softmax, pto_softmax);
