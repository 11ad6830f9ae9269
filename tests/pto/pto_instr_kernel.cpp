// PTO test kernels for tests/pto/test_pto.cpp: one entry per instruction family, each loading its operands from GM,
// applying one tile instruction and storing the result, on tiles whose valid region is narrower than the tile
// (72 of 96 fp32 columns: a full 64-lane chunk plus a masked one, rows 384 bytes apart) unless a path needs whole
// rows.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int R = 16, C = 96, V = 72;
using Part = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, R, V>;
using PartH = Tile<TileType::Vec, half, R, C, BLayout::RowMajor, R, V>;
using Wide = Tile<TileType::Vec, float, R, 256>;
using Narrow = Tile<TileType::Vec, float, R, 64, BLayout::RowMajor, R, 40>;
using PerRow = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
template <class T, int Cols>
using Gm = GlobalTensor<T, TileShape2D<T, R, Cols>, BaseShape2D<T, R, Cols>>;
using GmCol =
    GlobalTensor<float, TileShape2D<float, R, 1, Layout::DN>, BaseShape2D<float, R, 1, Layout::DN>, Layout::DN>;

template <class T>
T at(uint64_t addr) {
  T t;
  TASSIGN(t, addr);
  return t;
}
void loaded() { set_flag(PIPE_MTE2, PIPE_V, 0), wait_flag(PIPE_MTE2, PIPE_V, 0); }
void computed() { set_flag(PIPE_V, PIPE_MTE3, 0), wait_flag(PIPE_V, PIPE_MTE3, 0); }
}  // namespace

// op: 0 TADD, 1 TSUB, 2 TMUL, 3 TDIV, 4 TMAX, 5 TMIN
__global__ AICORE void binary(__gm__ float* out, __gm__ float* x, __gm__ float* y, uint32_t op) {
  auto a = at<Part>(0), b = at<Part>(0x4000), d = at<Part>(0x8000);
  Gm<float, V> gx(x), gy(y), go(out);
  TLOAD(a, gx), TLOAD(b, gy), loaded();
  switch (op) {
    case 0: TADD(d, a, b); break;
    case 1: TSUB(d, a, b); break;
    case 2: TMUL(d, a, b); break;
    case 3: TDIV(d, a, b); break;
    case 4: TMAX(d, a, b); break;
    default: TMIN(d, a, b); break;
  }
  computed(), TSTORE(go, d);
}

// op: 0 TADDS, 1 TSUBS, 2 TMULS, 3 TDIVS in place, 4 TMAXS, 5 TMINS, 6 TDIVS into another tile, 7 TEXPANDS
__global__ AICORE void scalar(__gm__ float* out, __gm__ float* x, float s, uint32_t op) {
  auto a = at<Part>(0), d = at<Part>(0x8000);
  Gm<float, V> gx(x), go(out);
  TLOAD(a, gx), loaded();
  switch (op) {
    case 0: TADDS(d, a, s); break;
    case 1: TSUBS(d, a, s); break;
    case 2: TMULS(d, a, s); break;
    case 3:
      TDIVS(a, a, s);
      d = a;
      break;
    case 4: TMAXS(d, a, s); break;
    case 5: TMINS(d, a, s); break;
    case 6: TDIVS(d, a, s); break;
    default: TEXPANDS(d, s); break;
  }
  computed(), TSTORE(go, d);
}

// op: 0 TEXP, 1 TLOG, 2 TABS, 3 TSQRT, 4 TRSQRT, 5 TRELU, 6 TMOV
__global__ AICORE void unary(__gm__ float* out, __gm__ float* x, uint32_t op) {
  auto a = at<Part>(0), d = at<Part>(0x8000);
  Gm<float, V> gx(x), go(out);
  TLOAD(a, gx), loaded();
  switch (op) {
    case 0: TEXP(d, a); break;
    case 1: TLOG(d, a); break;
    case 2: TABS(d, a); break;
    case 3: TSQRT(d, a); break;
    case 4: TRSQRT(d, a); break;
    case 5: TRELU(d, a); break;
    default: TMOV(d, a); break;
  }
  computed(), TSTORE(go, d);
}

// fp32 -> fp16 with pto::RoundMode `mode`, over a partial region (rows apart) or whole rows (one contiguous run:
// each side advances by its own element size).
__global__ AICORE void convert(__gm__ half* out, __gm__ float* x, uint32_t mode, uint32_t whole) {
  if (whole) {
    auto a = at<Wide>(0);
    auto d = at<Tile<TileType::Vec, half, R, 256>>(0x8000);
    Gm<float, 256> gx(x);
    Gm<half, 256> go(out);
    TLOAD(a, gx), loaded(), TCVT(d, a, RoundMode(mode)), computed(), TSTORE(go, d);
    return;
  }
  auto a = at<Part>(0);
  auto d = at<PartH>(0x8000);
  Gm<float, V> gx(x);
  Gm<half, V> go(out);
  TLOAD(a, gx), loaded();
  TCVT(d, a, RoundMode(mode));
  computed(), TSTORE(go, d);
}

// op: 0 TROWMAX, 1 TROWSUM, 2 TROWMIN over whole 256-column rows (folds + reduce) or 40 of 64 (one masked repeat).
__global__ AICORE void row_reduce(__gm__ float* out, __gm__ float* x, uint32_t op, uint32_t wide) {
  auto d = at<PerRow>(0x10000);
  auto tmp = at<Wide>(0x8000);
  GmCol go(out);
  auto run = [&](auto& src) {
    if (op == 0) TROWMAX(d, src, tmp);
    else if (op == 1) TROWSUM(d, src, tmp);
    else TROWMIN(d, src, tmp);
  };
  if (wide) {
    auto a = at<Wide>(0);
    Gm<float, 256> gx(x);
    TLOAD(a, gx), loaded(), run(a);
  } else {
    auto a = at<Narrow>(0);
    Gm<float, 40> gx(x);
    TLOAD(a, gx), loaded(), run(a);
  }
  computed(), TSTORE(go, d);
}

// op: 0 TROWEXPANDADD, 1 SUB, 2 MUL, 3 DIV (full operand first), 4 TROWEXPAND, 5 TROWEXPANDSUB with the per-row
// operand first (out = v - x)
__global__ AICORE void row_expand(__gm__ float* out, __gm__ float* x, __gm__ float* v, uint32_t op) {
  auto a = at<Part>(0), d = at<Part>(0x8000);
  auto pr = at<PerRow>(0x10000);
  Gm<float, V> gx(x), go(out);
  GmCol gv(v);
  TLOAD(a, gx), TLOAD(pr, gv), loaded();
  switch (op) {
    case 0: TROWEXPANDADD(d, a, pr); break;
    case 1: TROWEXPANDSUB(d, a, pr); break;
    case 2: TROWEXPANDMUL(d, a, pr); break;
    case 3: TROWEXPANDDIV(d, a, pr); break;
    case 4: TROWEXPAND(d, pr); break;
    default: TROWEXPANDSUB(d, pr, a); break;
  }
  computed(), TSTORE(go, d);
}

// C (32 x 32, fp32) = A (32 x 64) . B (64 x 32) in two K halves (TMATMUL, then TMATMUL_ACC), each half taken
// from the L1 tiles with TEXTRACT at a K offset. a_dn: A is given as K x M (a DN GlobalTensor into a ZN tile:
// the transposing Left extract); b_nd: B is given as K x N (an ND GlobalTensor into an NZ tile: the transposing
// Right extract); otherwise A is M x K (ND -> NZ) and B is N x K (DN -> ZN).
__global__ AICORE void matmul_halves(__gm__ float* c, __gm__ half* a, __gm__ half* b, uint32_t a_dn, uint32_t b_nd) {
  using MatNZ_A = Tile<TileType::Mat, half, 32, 64, BLayout::ColMajor, 32, 64, SLayout::RowMajor>;
  using MatZN_A = Tile<TileType::Mat, half, 32, 64, BLayout::RowMajor, 32, 64, SLayout::ColMajor>;
  using MatZN_B = Tile<TileType::Mat, half, 64, 32, BLayout::RowMajor, 64, 32, SLayout::ColMajor>;
  using MatNZ_B = Tile<TileType::Mat, half, 64, 32, BLayout::ColMajor, 64, 32, SLayout::RowMajor>;
  auto l = at<TileLeft<half, 32, 32>>(0);
  auto r = at<TileRight<half, 32, 32>>(0);
  auto acc = at<TileAcc<float, 32, 32>>(0);
  GlobalTensor<float, TileShape2D<float, 32, 32>, BaseShape2D<float, 32, 32>> gc(c);
  auto run = [&](auto& ma, auto& mb) {
    for (int h = 0; h < 2; ++h) {
      if (h) set_flag(PIPE_M, PIPE_MTE1, 0), wait_flag(PIPE_M, PIPE_MTE1, 0);
      TEXTRACT(l, ma, 0, h * 32);
      TEXTRACT(r, mb, h * 32, 0);
      set_flag(PIPE_MTE1, PIPE_M, 0), wait_flag(PIPE_MTE1, PIPE_M, 0);
      if (h == 0) TMATMUL(acc, l, r);
      else TMATMUL_ACC(acc, acc, l, r);
    }
  };
  auto with_b = [&](auto& ma) {
    if (b_nd) {
      auto mb = at<MatNZ_B>(0x8000);
      GlobalTensor<half, TileShape2D<half, 64, 32>, BaseShape2D<half, 64, 32>> gb(b);
      TLOAD(mb, gb), set_flag(PIPE_MTE2, PIPE_MTE1, 0), wait_flag(PIPE_MTE2, PIPE_MTE1, 0), run(ma, mb);
    } else {
      auto mb = at<MatZN_B>(0x8000);
      GlobalTensor<half, TileShape2D<half, 64, 32, Layout::DN>, BaseShape2D<half, 64, 32, Layout::DN>, Layout::DN> gb(
          b);
      TLOAD(mb, gb), set_flag(PIPE_MTE2, PIPE_MTE1, 0), wait_flag(PIPE_MTE2, PIPE_MTE1, 0), run(ma, mb);
    }
  };
  if (a_dn) {
    auto ma = at<MatZN_A>(0);
    GlobalTensor<half, TileShape2D<half, 32, 64, Layout::DN>, BaseShape2D<half, 32, 64, Layout::DN>, Layout::DN> ga(a);
    TLOAD(ma, ga), with_b(ma);
  } else {
    auto ma = at<MatNZ_A>(0);
    GlobalTensor<half, TileShape2D<half, 32, 64>, BaseShape2D<half, 32, 64>> ga(a);
    TLOAD(ma, ga), with_b(ma);
  }
  set_flag(PIPE_M, PIPE_FIX, 0), wait_flag(PIPE_M, PIPE_FIX, 0);
  TSTORE(gc, acc);
}

// Unit flags: C = A . B computed twice into one accumulator and stored after each, ordered only by the phases
// (TMATMUL<AccPhase::Final>, TSTORE<STPhase::Final>), no M <-> FIX flags; with phased = 0 the same program
// without phases races on L0C. c is 64 x 32: the two results one above the other.
__global__ AICORE void matmul_unit_flags(__gm__ float* c, __gm__ half* a, __gm__ half* b, uint32_t phased) {
  using MatA = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
  using MatB = Tile<TileType::Mat, half, 32, 32, BLayout::RowMajor, 32, 32, SLayout::ColMajor>;
  auto ma = at<MatA>(0);
  auto mb = at<MatB>(0x4000);
  auto l = at<TileLeft<half, 32, 32>>(0);
  auto r = at<TileRight<half, 32, 32>>(0);
  auto acc = at<TileAcc<float, 32, 32>>(0);
  GlobalTensor<half, TileShape2D<half, 32, 32>, BaseShape2D<half, 32, 32>> ga(a);
  GlobalTensor<half, TileShape2D<half, 32, 32, Layout::DN>, BaseShape2D<half, 32, 32, Layout::DN>, Layout::DN> gb(b);
  TLOAD(ma, ga), TLOAD(mb, gb);
  set_flag(PIPE_MTE2, PIPE_MTE1, 0), wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
  TEXTRACT(l, ma), TEXTRACT(r, mb);
  set_flag(PIPE_MTE1, PIPE_M, 0), wait_flag(PIPE_MTE1, PIPE_M, 0);
  for (int i = 0; i < 2; ++i) {
    GlobalTensor<float, TileShape2D<float, 32, 32>, BaseShape2D<float, 64, 32>> gc(c + i * 32 * 32);
    if (phased) {
      TMATMUL<AccPhase::Final>(acc, l, r);
      TSTORE<STPhase::Final>(gc, acc);
    } else {
      TMATMUL(acc, l, r);
      TSTORE(gc, acc);
    }
  }
}

// TTRI<upper>(out, diagonal) over the partial region.
__global__ AICORE void triangle(__gm__ float* out, int32_t diagonal, uint32_t upper) {
  auto d = at<Part>(0x8000);
  Gm<float, V> go(out);
  if (upper) TTRI<Part, 1>(d, diagonal);
  else TTRI<Part, 0>(d, diagonal);
  computed(), TSTORE(go, d);
}

NPUSIM_PTO_ENTRY(binary, binary);
NPUSIM_PTO_ENTRY(triangle, triangle);
NPUSIM_PTO_ENTRY(matmul_unit_flags, matmul_unit_flags);
NPUSIM_PTO_ENTRY(matmul_halves, matmul_halves);
NPUSIM_PTO_ENTRY(scalar, scalar);
NPUSIM_PTO_ENTRY(unary, unary);
NPUSIM_PTO_ENTRY(convert, convert);
NPUSIM_PTO_ENTRY(row_reduce, row_reduce);
NPUSIM_PTO_ENTRY(row_expand, row_expand);
