// A PTO GEMM written for npusim: C (M x N, fp32) = A (M x K, fp16, row-major) . B, with B given as N x K row-major
// (a DN GlobalTensor of the K x N matrix), the operand order of the GEMM behind calibration.md §1
// (pto-isa kernels/manual/a2a3/gemm_performance). Its schedule: 128 x 256 output tiles dealt round-robin to the
// blocks; per tile, K in 256-column chunks loaded GM -> L1 into two L1 slots (TLOAD), each chunk cut into four
// 64-deep slices L1 -> L0A / L0B into two L0 slots (TEXTRACT), multiplied into one L0C accumulator (TMATMUL /
// TMATMUL_ACC), then stored L0C -> GM (TSTORE). M must be a multiple of 128, N of 256, K of 256.
// Build: npusim pto build gemm.cpp --core cube --out gemm.so (or name gemm.cpp as attrs.library).
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
#ifndef GEMM_BASE_K
#define GEMM_BASE_K 64  // K of one TEXTRACT slice (16, 32 or 64: two slots of L0A / L0B); -D GEMM_BASE_K=32 to sweep it
#endif
constexpr int kBaseM = 128, kBaseN = 256, kBaseK = GEMM_BASE_K, kChunkK = 256, kSlices = kChunkK / kBaseK;
constexpr uint32_t kL0Slot = kBaseK * kBaseN * sizeof(half);  // the larger of the Left / Right slices
static_assert(kChunkK % kBaseK == 0 && 2 * kL0Slot <= 64 * 1024, "GEMM_BASE_K: 16, 32 or 64 (two slices per L0B)");

using MatA = Tile<TileType::Mat, half, kBaseM, kChunkK, BLayout::ColMajor, kBaseM, kChunkK, SLayout::RowMajor>;  // NZ
using MatB = Tile<TileType::Mat, half, kChunkK, kBaseN, BLayout::RowMajor, kChunkK, kBaseN, SLayout::ColMajor>;  // ZN
using LeftT = TileLeft<half, kBaseM, kBaseK>;
using RightT = TileRight<half, kBaseK, kBaseN>;
using AccT = TileAcc<float, kBaseM, kBaseN>;
using GmA = GlobalTensor<half, TileShape2D<half, kBaseM, kChunkK>, BaseShape2D<half, DYNAMIC, DYNAMIC>>;
using GmB = GlobalTensor<half, TileShape2D<half, kChunkK, kBaseN, Layout::DN>,
                         BaseShape2D<half, DYNAMIC, DYNAMIC, Layout::DN>, Layout::DN>;
using GmC = GlobalTensor<float, TileShape2D<float, kBaseM, kBaseN>, BaseShape2D<float, DYNAMIC, DYNAMIC>>;

struct Buffers {
  MatA a[2];
  MatB b[2];
  LeftT l[2];
  RightT r[2];
  AccT c;
};

void bind(Buffers& x) {
  constexpr uint32_t a_bytes = kBaseM * kChunkK * sizeof(half), b_bytes = kChunkK * kBaseN * sizeof(half);
  for (int s = 0; s < 2; ++s) {
    TASSIGN(x.a[s], s * a_bytes);
    TASSIGN(x.b[s], 2 * a_bytes + s * b_bytes);
    TASSIGN(x.l[s], s * kL0Slot);  // L0A / L0B ping-pong slots
    TASSIGN(x.r[s], s * kL0Slot);
  }
  TASSIGN(x.c, 0);
}

// One K chunk of one output tile: GM -> L1 into slot `s`, then four slices through the L0 ping-pong.
void chunk(Buffers& x, const half* a, const half* b, uint32_t m, uint32_t k, uint32_t kc, int s, int& l0, bool first) {
  GmA ga(const_cast<half*>(a) + kc * kChunkK, {}, {m, k});
  GmB gb(const_cast<half*>(b) + kc * kChunkK, {}, {k, 0u + kBaseN});
  wait_flag(PIPE_MTE1, PIPE_MTE2, s);  // slot s free (its last TEXTRACT done)
  TLOAD(x.a[s], ga);
  TLOAD(x.b[s], gb);
  set_flag(PIPE_MTE2, PIPE_MTE1, s);
  wait_flag(PIPE_MTE2, PIPE_MTE1, s);
  for (int i = 0; i < kSlices; ++i, l0 ^= 1) {
    wait_flag(PIPE_M, PIPE_MTE1, l0);  // L0 slot free (its TMATMUL done)
    TEXTRACT(x.l[l0], x.a[s], 0, i * kBaseK);
    TEXTRACT(x.r[l0], x.b[s], i * kBaseK, 0);
    if (i == kSlices - 1) set_flag(PIPE_MTE1, PIPE_MTE2, s);
    set_flag(PIPE_MTE1, PIPE_M, l0);
    wait_flag(PIPE_MTE1, PIPE_M, l0);
    if (first && i == 0) TMATMUL(x.c, x.l[l0], x.r[l0]);
    else TMATMUL_ACC(x.c, x.c, x.l[l0], x.r[l0]);
    set_flag(PIPE_M, PIPE_MTE1, l0);
  }
}
}  // namespace

__global__ AICORE void pto_gemm(__gm__ float* c, __gm__ half* a, __gm__ half* b, uint32_t m, uint32_t n, uint32_t k) {
  Buffers x;
  bind(x);
  for (int s = 0; s < 2; ++s) set_flag(PIPE_MTE1, PIPE_MTE2, s), set_flag(PIPE_M, PIPE_MTE1, s);
  const uint32_t tiles_n = n / kBaseN, tiles = (m / kBaseM) * tiles_n, chunks = k / kChunkK;
  int s = 0, l0 = 0;
  for (uint32_t t = uint32_t(get_block_idx()); t < tiles; t += uint32_t(get_block_num())) {
    const uint32_t m0 = (t / tiles_n) * kBaseM, n0 = (t % tiles_n) * kBaseN;
    for (uint32_t kc = 0; kc < chunks; ++kc, s ^= 1) chunk(x, a + m0 * k, b + n0 * k, m, k, kc, s, l0, kc == 0);
    set_flag(PIPE_M, PIPE_FIX, 0);  // the accumulator is complete
    wait_flag(PIPE_M, PIPE_FIX, 0);
    GmC gc(c + m0 * n + n0, {}, {m, n});
    TSTORE(gc, x.c);
    set_flag(PIPE_FIX, PIPE_M, 0);  // L0C free for the next tile
    wait_flag(PIPE_FIX, PIPE_M, 0);
  }
  for (int s2 = 0; s2 < 2; ++s2) wait_flag(PIPE_MTE1, PIPE_MTE2, s2), wait_flag(PIPE_M, PIPE_MTE1, s2);
}

NPUSIM_PTO_ENTRY(gemm, pto_gemm);
