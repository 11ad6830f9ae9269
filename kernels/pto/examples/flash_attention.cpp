// A PTO FlashAttention forward written for npusim: O = softmax(scale * Q K^T) V for one head, fp16 Q / K / V
// (rows of 128), fp32 O, non-causal. The schedule of the kernels behind calibration.md §2-3 (pto-isa
// kernels/manual/common/flash_atten, demos/torch_jit/flash_atten; read, not copied): one block per 128 query rows,
// KV in tiles of 256 columns, four stages on two core kinds with S, P and PV passed through GM FIFOs:
//   cube:   QK (S tile, fp32) -> qk_fifo           PV (P V, fp32) -> pv_fifo
//   vector: softmax (online max / sum; P as fp16) -> p_fifo      GU (O = O * exp(m_old - m_new) + PV; O / l at the end)
// The cube runs QK `kPreload` tiles ahead of PV; the vector side keeps the same order (softmax of tile t, then
// the update of tile t - kPreload), so each FIFO slot is produced before it is awaited. Cross-core flags (mode 2,
// TSync_Custom): 0 / 1 S ready / slot free, 2 / 3 P, 4 / 5 PV. Each of the block's two AIVs owns 64 query rows,
// processed as two 32-row chunks.
// Args: o (Sq x 128 fp32), q (Sq x 128), k (Skv x 128), v (Skv x 128), the S / P / PV FIFOs (workspaces of at least
// blocks x kFifo x 128 KiB / 64 KiB / 64 KiB), sq, skv (multiples of 128 and 256), scale. 128-row query blocks are
// dealt round-robin to the launch's blocks.
#include <pto/npu/a2a3/custom/TSync_Custom.hpp>
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
#ifndef FA_PRELOAD
#define FA_PRELOAD 2  // QK tiles the cube computes ahead of PV (-D FA_PRELOAD=1..3)
#endif
constexpr int kD = 128, kS0 = 128, kS1 = 256, kHalf = 128, kRows = 32, kPreload = FA_PRELOAD, kFifo = kPreload + 2;
static_assert(kPreload >= 1 && kFifo <= 8, "FA_PRELOAD: 1 to 6");

// FIFO slots per block: S (128 x 256 fp32), P (128 x 256 fp16), PV (128 x 128 fp32).
constexpr uint64_t kSBytes = kS0 * kS1 * 4, kPBytes = kS0 * kS1 * 2, kPVBytes = kS0 * kD * 4;

using C2V = TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD>;
using V2C = TSync_Custom<SyncOpType::TSTORE_V2GM, SyncOpType::TLOAD>;
constexpr C2V kSReady{0};
constexpr V2C kPReady{2};
constexpr C2V kPVReady{4};

// ---------------------------------------------------------------- cube --------------------------------------------
using MatQ = Tile<TileType::Mat, half, kS0, kD, BLayout::ColMajor, kS0, kD, SLayout::RowMajor>;    // NZ
using MatKt = Tile<TileType::Mat, half, kD, kS1, BLayout::RowMajor, kD, kS1, SLayout::ColMajor>;   // ZN of K^T
using MatP = Tile<TileType::Mat, half, kS0, kS1, BLayout::ColMajor, kS0, kS1, SLayout::RowMajor>;  // NZ
using MatV = Tile<TileType::Mat, half, kS1, kD, BLayout::ColMajor, kS1, kD, SLayout::RowMajor>;    // NZ, K rows
using LeftT = TileLeft<half, kS0, kHalf>;
using RightT = TileRight<half, kHalf, kHalf>;
using AccT = TileAcc<float, kS0, kHalf>;
template <int R, int C, Layout L = Layout::ND>
using GmHalf = GlobalTensor<half, TileShape2D<half, R, C, L>, BaseShape2D<half, DYNAMIC, DYNAMIC, L>, L>;
template <int R, int C>
using GmFloat = GlobalTensor<float, TileShape2D<float, R, C>, BaseShape2D<float, DYNAMIC, DYNAMIC>>;

template <class T>
T at(uint64_t addr) {
  T t;
  TASSIGN(t, addr);
  return t;
}

struct Cube {
  MatQ q = at<MatQ>(0);
  MatKt kt[2] = {at<MatKt>(32 * 1024), at<MatKt>(96 * 1024)};
  MatP p[2] = {at<MatP>(160 * 1024), at<MatP>(224 * 1024)};
  MatV v[2] = {at<MatV>(288 * 1024), at<MatV>(352 * 1024)};
  LeftT lq = at<LeftT>(0), lp = at<LeftT>(32 * 1024);
  RightT r[2] = {at<RightT>(0), at<RightT>(32 * 1024)};
  AccT acc[2] = {at<AccT>(0), at<AccT>(64 * 1024)};
  int rs = 0;  // the next L0B slot
  int as = 0;  // the next accumulator: the two alternate, so one is stored while the other is computed
};

// Right slice (L0B slot rs) of `mat` at (row, col), then acc (+)= left . slice; L0B slots ping-pong on M -> MTE1.
template <class Mat>
void mma(Cube& x, AccT& acc, LeftT& left, Mat& mat, int row, int col, bool first) {
  RightT& r = x.r[x.rs];
  wait_flag(PIPE_M, PIPE_MTE1, x.rs);
  TEXTRACT(r, mat, row, col);
  set_flag(PIPE_MTE1, PIPE_M, x.rs);
  wait_flag(PIPE_MTE1, PIPE_M, x.rs);
  if (first) TMATMUL(acc, left, r);
  else TMATMUL_ACC(acc, acc, left, r);
  set_flag(PIPE_M, PIPE_MTE1, x.rs);
  x.rs ^= 1;
}

// The next accumulator, once its previous contents are stored (FIX -> M, per accumulator).
int acc_begin(Cube& x) {
  const int a = x.as;
  x.as ^= 1;
  wait_flag(PIPE_FIX, PIPE_M, a);
  return a;
}
// Accumulator a is complete (M -> FIX); FixPipe stores it to g and hands it back (FIX -> M).
template <class G>
void acc_store(Cube& x, int a, G& g) {
  set_flag(PIPE_M, PIPE_FIX, a);
  wait_flag(PIPE_M, PIPE_FIX, a);
  TSTORE(g, x.acc[a]);
  set_flag(PIPE_FIX, PIPE_M, a);
}

// S tile t = Q . K[t]^T, 128 x 256 as two 128-column halves, into qk_fifo slot t % kFifo.
void qk(Cube& x, __gm__ half* k, __gm__ float* s_fifo, int t) {
  const int b = t & 1;
  GmHalf<kD, kS1, Layout::DN> gk(k + uint64_t(t) * kS1 * kD, {}, {kD, kS1});
  wait_flag(PIPE_MTE1, PIPE_MTE2, b);
  TLOAD(x.kt[b], gk);
  set_flag(PIPE_MTE2, PIPE_MTE1, b);
  wait_flag(PIPE_MTE2, PIPE_MTE1, b);
  if (t >= kFifo) kSReady.allocate();  // the vector side has loaded slot t % kFifo
  for (int h = 0; h < 2; ++h) {
    const int a = acc_begin(x);
    mma(x, x.acc[a], x.lq, x.kt[b], 0, h * kHalf, true);
    GmFloat<kS0, kHalf> gs(s_fifo + (t % kFifo) * (kSBytes / 4) + h * kHalf, {}, {kS0, kS1});
    acc_store(x, a, gs);
  }
  set_flag(PIPE_MTE1, PIPE_MTE2, b);
  kSReady.record();  // on FIX, after both halves' stores
}

// PV tile t = P[t] . V[t] (K = 256 in two halves), into pv_fifo slot t % kFifo.
void pv(Cube& x, __gm__ half* v, __gm__ half* p_fifo, __gm__ float* pv_fifo, int t) {
  const int b = t & 1;
  GmHalf<kS0, kS1> gp(p_fifo + (t % kFifo) * (kPBytes / 2), {}, {kS0, kS1});
  GmHalf<kS1, kD> gv(v + uint64_t(t) * kS1 * kD, {}, {kS1, kD});
  kPReady.wait();
  wait_flag(PIPE_MTE1, PIPE_MTE2, 2 + b);
  TLOAD(x.p[b], gp);
  TLOAD(x.v[b], gv);
  kPReady.free();  // on MTE2, after the loads: the vector side may overwrite the slot
  set_flag(PIPE_MTE2, PIPE_MTE1, 2 + b);
  wait_flag(PIPE_MTE2, PIPE_MTE1, 2 + b);
  const int a = acc_begin(x);
  for (int kk = 0; kk < 2; ++kk) {
    set_flag(PIPE_M, PIPE_MTE1, 4), wait_flag(PIPE_M, PIPE_MTE1, 4);  // the mmads reading lp are done
    TEXTRACT(x.lp, x.p[b], 0, kk * kHalf);
    mma(x, x.acc[a], x.lp, x.v[b], kk * kHalf, 0, kk == 0);
  }
  set_flag(PIPE_MTE1, PIPE_MTE2, 2 + b);
  if (t >= kFifo) kPVReady.allocate();
  GmFloat<kS0, kD> go(pv_fifo + (t % kFifo) * (kPVBytes / 4), {}, {kS0, kD});
  acc_store(x, a, go);
  kPVReady.record();
}

void cube(__gm__ half* q, __gm__ half* k, __gm__ half* v, __gm__ float* s_fifo, __gm__ half* p_fifo,
          __gm__ float* pv_fifo, int tiles) {
  Cube x;
  for (int i = 0; i < 4; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, i);
  for (int i = 0; i < 2; ++i) set_flag(PIPE_M, PIPE_MTE1, i), set_flag(PIPE_FIX, PIPE_M, i);
  GmHalf<kS0, kD> gq(q, {}, {kS0, kD});
  TLOAD(x.q, gq);
  set_flag(PIPE_MTE2, PIPE_MTE1, 4);
  wait_flag(PIPE_MTE2, PIPE_MTE1, 4);
  TEXTRACT(x.lq, x.q, 0, 0);
  for (int t = 0; t < tiles + kPreload; ++t) {
    if (t < tiles) qk(x, k, s_fifo, t);
    if (t >= kPreload) pv(x, v, p_fifo, pv_fifo, t - kPreload);
  }
  // Every slot the vector side freed and nobody waited for is taken back, so no flag is left set.
  for (int t = std::max(tiles, kFifo); t < tiles + kFifo; ++t) kSReady.allocate(), kPVReady.allocate();
  for (int i = 0; i < 4; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, i);
  for (int i = 0; i < 2; ++i) wait_flag(PIPE_M, PIPE_MTE1, i), wait_flag(PIPE_FIX, PIPE_M, i);
}

// ---------------------------------------------------------------- vector ------------------------------------------
using STile = Tile<TileType::Vec, float, kRows, kS1>;
using PTile = Tile<TileType::Vec, half, kRows, kS1>;
using OTile = Tile<TileType::Vec, float, kRows, kD>;
using Col = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;  // one value per row
using Row = Tile<TileType::Vec, float, 1, kRows>;                     // the same bytes, for elementwise ops

struct RowState {  // per 32-row chunk
  Col m, l;        // running max and sum
  Col em[kFifo];   // exp(scale * (m_old - m_new)) of each tile not yet applied to O
};

// UB: two S / P buffers alternate between consecutive chunks, so one chunk's load and store overlap the previous
// one's vector work. Events: 0 / 1 the S / P buffers (V -> MTE2 free, MTE2 -> V loaded, V -> MTE3 computed,
// MTE3 -> V stored), 2 the PV buffer, 3 the O store.
struct Vec {
  STile s[2] = {at<STile>(0), at<STile>(32 * 1024)};
  PTile p[2] = {at<PTile>(64 * 1024), at<PTile>(80 * 1024)};
  OTile pv = at<OTile>(96 * 1024);
  OTile o[2] = {at<OTile>(112 * 1024), at<OTile>(128 * 1024)};
  STile tmp = at<STile>(144 * 1024);  // reduction scratch (8 KiB used)
  Col lm = at<Col>(152 * 1024), ls = at<Col>(152 * 1024 + 128);
  RowState st[2];
  int g = 0;  // chunks so far: the buffer is g % 2
  Vec() {
    uint64_t a = 153 * 1024;
    for (auto& r : st) {
      TASSIGN(r.m, a), TASSIGN(r.l, a + 128), a += 256;
      for (auto& e : r.em) TASSIGN(e, a), a += 128;
    }
  }
};

Row row(Col& c) {
  Row r;
  TRESHAPE(r, c);
  return r;
}

// Online softmax of one 32-row chunk of S tile t: m, l and em[t] updated, P (fp16) stored to p_fifo.
void softmax(Vec& x, RowState& st, __gm__ float* s_rows, __gm__ half* p_rows, int t, float scale) {
  const int b = x.g++ & 1;
  STile& sb = x.s[b];
  GmFloat<kRows, kS1> gs(s_rows, {}, {kS0, kS1});
  wait_flag(PIPE_V, PIPE_MTE2, b);  // the buffer's previous chunk is converted
  TLOAD(sb, gs);
  set_flag(PIPE_MTE2, PIPE_V, b);
  wait_flag(PIPE_MTE2, PIPE_V, b);
  Row m = row(st.m), l = row(st.l), lm = row(x.lm), ls = row(x.ls), em = row(st.em[t % kFifo]);
  TROWMAX(x.lm, sb, x.tmp);  // ends with a barrier
  if (t == 0) {
    TMOV(m, lm);
    TEXPANDS(em, 1.0f);
  } else {
    TMAX(lm, lm, m);  // the new max
    pipe_barrier(PIPE_V);
    TSUB(em, m, lm);
    pipe_barrier(PIPE_V);
    TMOV(m, lm);  // m is read by the TSUB above
    TMULS(em, em, scale);
    pipe_barrier(PIPE_V);
    TEXP(em, em);
  }
  TROWEXPANDSUB(sb, sb, x.lm);
  pipe_barrier(PIPE_V);
  TMULS(sb, sb, scale);
  pipe_barrier(PIPE_V);
  TEXP(sb, sb);
  pipe_barrier(PIPE_V);
  TROWSUM(x.ls, sb, x.tmp);
  wait_flag(PIPE_MTE3, PIPE_V, b);  // the P buffer's previous store is done
  TCVT(x.p[b], sb, RoundMode::CAST_RINT);
  set_flag(PIPE_V, PIPE_MTE2, b);
  if (t == 0) {
    TMOV(l, ls);
  } else {
    TMUL(l, l, em);
    pipe_barrier(PIPE_V);
    TADD(l, l, ls);
  }
  set_flag(PIPE_V, PIPE_MTE3, b);
  wait_flag(PIPE_V, PIPE_MTE3, b);
  GmHalf<kRows, kS1> gp(p_rows, {}, {kS0, kS1});
  TSTORE(gp, x.p[b]);
  set_flag(PIPE_MTE3, PIPE_V, b);
}

// O update of one 32-row chunk with PV tile t; the last tile divides by l and stores O.
void update(Vec& x, RowState& st, OTile& o, __gm__ float* pv_rows, __gm__ float* o_rows, int t, bool last) {
  GmFloat<kRows, kD> gpv(pv_rows, {}, {kS0, kD});
  wait_flag(PIPE_V, PIPE_MTE2, 2);
  TLOAD(t == 0 ? o : x.pv, gpv);
  set_flag(PIPE_MTE2, PIPE_V, 2);
  wait_flag(PIPE_MTE2, PIPE_V, 2);
  if (t > 0) {
    TROWEXPANDMUL(o, o, st.em[t % kFifo]);
    pipe_barrier(PIPE_V);
    TADD(o, o, x.pv);
  }
  set_flag(PIPE_V, PIPE_MTE2, 2);
  if (!last) return;
  pipe_barrier(PIPE_V);
  TROWEXPANDDIV(o, o, st.l);
  set_flag(PIPE_V, PIPE_MTE3, 3);
  wait_flag(PIPE_V, PIPE_MTE3, 3);
  GmFloat<kRows, kD> go(o_rows, {}, {1 << 20, kD});
  TSTORE(go, o);
}

void vector(__gm__ float* o, __gm__ float* s_fifo, __gm__ half* p_fifo, __gm__ float* pv_fifo, int tiles, float scale) {
  Vec x;
  for (int b = 0; b < 2; ++b) set_flag(PIPE_V, PIPE_MTE2, b), set_flag(PIPE_MTE3, PIPE_V, b);
  set_flag(PIPE_V, PIPE_MTE2, 2);
  const int row0 = int(get_subblockid()) * 2 * kRows;  // this AIV's 64 rows of the block's 128
  for (int t = 0; t < tiles + kPreload; ++t) {
    if (t < tiles) {
      kSReady.wait();
      if (t >= kFifo) kPReady.allocate();  // the cube has loaded P slot t % kFifo
      for (int c = 0; c < 2; ++c) {
        const int r = row0 + c * kRows;
        softmax(x, x.st[c], s_fifo + (t % kFifo) * (kSBytes / 4) + r * kS1,
                p_fifo + (t % kFifo) * (kPBytes / 2) + r * kS1, t, scale);
      }
      kSReady.free();
      kPReady.record();
    }
    if (t >= kPreload) {
      const int u = t - kPreload;
      kPVReady.wait();
      for (int c = 0; c < 2; ++c) {
        const int r = row0 + c * kRows;
        update(x, x.st[c], x.o[c], pv_fifo + (u % kFifo) * (kPVBytes / 4) + r * kD, o + r * kD, u, u == tiles - 1);
      }
      kPVReady.free();
    }
  }
  // The cube takes back every freed slot it did not wait for; the P slots likewise from this side.
  for (int t = std::max(tiles, kFifo); t < tiles + kFifo; ++t) kPReady.allocate();
  for (int b = 0; b < 2; ++b) wait_flag(PIPE_V, PIPE_MTE2, b), wait_flag(PIPE_MTE3, PIPE_V, b);
  wait_flag(PIPE_V, PIPE_MTE2, 2);
  pipe_barrier(PIPE_ALL);  // the O stores have landed before the kernel ends
}
}  // namespace

__global__ AICORE void pto_flash_attention(__gm__ float* o, __gm__ half* q, __gm__ half* k, __gm__ half* v,
                                           __gm__ float* s_fifo, __gm__ half* p_fifo, __gm__ float* pv_fifo,
                                           uint32_t sq, uint32_t skv, float scale) {
  const int b = int(get_block_idx()), tiles = int(skv / kS1);
  s_fifo += uint64_t(b) * kFifo * (kSBytes / 4);  // this block's FIFO slots
  p_fifo += uint64_t(b) * kFifo * (kPBytes / 2);
  pv_fifo += uint64_t(b) * kFifo * (kPVBytes / 4);
  // 128-row query blocks dealt round-robin (one each when the launch has as many blocks as query blocks).
  for (uint32_t qb = uint32_t(b); qb * kS0 < sq; qb += uint32_t(get_block_num())) {
#if defined(__DAV_C220_CUBE__)
    cube(q + uint64_t(qb) * kS0 * kD, k, v, s_fifo, p_fifo, pv_fifo, tiles);
#else
    vector(o + uint64_t(qb) * kS0 * kD, s_fifo, p_fifo, pv_fifo, tiles, scale);
#endif
  }
}

NPUSIM_PTO_ENTRY(flash_attention, pto_flash_attention);
