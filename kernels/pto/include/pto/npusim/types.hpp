#pragma once
// The PTO tile types for npusim (pto-isa docs/coding/Tile.md, GlobalTensor.md; include/pto/common/type.hpp and
// pto_tile.hpp name the enums and template parameters this file follows). Written for npusim: a Tile is a handle
// (buffer address + valid region) whose copies alias the same storage, as on the device; a GlobalTensor is a GM
// pointer (npusim_pto::kGmBase + offset) with a 5-D shape and stride in elements.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pto/npusim/abi.hpp"

// Address-space and function qualifiers of the device compiler: nothing on npusim.
#define AICORE
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __biasbuf__
#define __in__
#define __out__
#define __tf__
#define PTO_INST inline
#define PTO_INTERNAL inline

typedef _Float16 half;
// bfloat16 storage (no arithmetic on the scalar side; tile instructions compute on it).
struct bfloat16_t {
  uint16_t bits;
};

// Pipes and events (numbered as pto-isa's include/pto/common/cpu_stub.hpp numbers them).
typedef int pipe_t;
inline constexpr pipe_t PIPE_S = 0, PIPE_V = 1, PIPE_MTE1 = 2, PIPE_MTE2 = 3, PIPE_MTE3 = 4, PIPE_M = 5, PIPE_ALL = 6,
                        PIPE_FIX = 7;
using event_t = int;
#define EVENT_ID0 0
#define EVENT_ID1 1
#define EVENT_ID2 2
#define EVENT_ID3 3
#define EVENT_ID4 4
#define EVENT_ID5 5
#define EVENT_ID6 6
#define EVENT_ID7 7

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight, Ctrl };
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue : uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3, CustomBase = 0x100000000ull };
enum class Layout { ND, DN, NZ };
enum class CompactMode { Null, Normal, RowPlusOne, RowAlignedPadding };
enum class AccPhase : uint8_t { Unspecified = 0, Unknown = Unspecified, Partial = 2, Final = 3 };
enum class STPhase : uint8_t { Unspecified = 0, Partial = 2, Final = 3 };
enum class AtomicType : uint8_t { AtomicNone = 0, AtomicAdd = 1 };
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
enum class SaturationMode { ON = 0, OFF = 1 };
enum class DivAlgorithm { DEFAULT, HIGH_PRECISION };
enum class ExpAlgorithm { DEFAULT, HIGH_PRECISION };

namespace GlobalTensorDim {
constexpr int DIM_0 = 0, DIM_1 = 1, DIM_2 = 2, DIM_3 = 3, DIM_4 = 4, TOTAL_DIM = 5;
}
constexpr int DYNAMIC = -1;
namespace TileConfig {
constexpr int alignedSize = 32, fixedRowSize = 16, fixedColSize = 16, fractalABSize = 512, fractalCSize = 1024;
}

namespace npusim_detail {
template <class T>
constexpr npusim_pto::Elem elem_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, half>) return npusim_pto::Elem::F16;
  else if constexpr (std::is_same_v<U, bfloat16_t>) return npusim_pto::Elem::BF16;
  else if constexpr (std::is_same_v<U, float>) return npusim_pto::Elem::F32;
  else if constexpr (std::is_same_v<U, int8_t>) return npusim_pto::Elem::I8;
  else if constexpr (std::is_same_v<U, uint8_t>) return npusim_pto::Elem::U8;
  else if constexpr (std::is_same_v<U, int16_t>) return npusim_pto::Elem::I16;
  else if constexpr (std::is_same_v<U, uint16_t>) return npusim_pto::Elem::U16;
  else if constexpr (std::is_same_v<U, int32_t>) return npusim_pto::Elem::I32;
  else if constexpr (std::is_same_v<U, uint32_t>) return npusim_pto::Elem::U32;
  else if constexpr (std::is_same_v<U, int64_t>) return npusim_pto::Elem::I64;
  else if constexpr (std::is_same_v<U, uint64_t>) return npusim_pto::Elem::U64;
  else static_assert(sizeof(U) == 0, "npusim PTO: unsupported tile element type");
}
}  // namespace npusim_detail

template <TileType Loc_, typename Element_, int Rows_, int Cols_, BLayout BFractal_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SFractal_ = SLayout::NoneBox,
          int SFractalSize_ = TileConfig::fractalABSize, auto PadVal_ = PadValue::Null,
          CompactMode Compact_ = CompactMode::Null>
struct Tile {
  using DType = Element_;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_, Cols = Cols_, ValidRow = RowValid_, ValidCol = ColValid_;
  static constexpr BLayout BFractal = BFractal_;
  static constexpr SLayout SFractal = SFractal_;
  static constexpr int SFractalSize = SFractalSize_;
  static constexpr auto PadVal = PadVal_;
  static constexpr CompactMode Compact = Compact_;
  static constexpr int Numel = Rows * Cols;
  static constexpr bool isRowMajor = BFractal == BLayout::RowMajor;
  static constexpr int RowStride = isRowMajor ? Cols : 1, ColStride = isRowMajor ? 1 : Rows;
  static constexpr bool isBoxedLayout = SFractal != SLayout::NoneBox;
  static constexpr bool isInnerRowMajor = SFractal == SLayout::RowMajor,
                        isInnerColMajor = SFractal == SLayout::ColMajor;
  static constexpr int InnerRows = !isBoxedLayout         ? 1
                                   : SFractalSize == 1024 ? 16
                                   : isInnerRowMajor      ? 16
                                                          : 32 / int(sizeof(DType));
  static constexpr int InnerCols = !isBoxedLayout         ? 1
                                   : SFractalSize == 1024 ? 16
                                   : isInnerRowMajor      ? 32 / int(sizeof(DType))
                                                          : 16;
  static constexpr int InnerNumel = InnerRows * InnerCols;

  static_assert(Rows > 0 && Cols > 0 && ValidRow <= Rows && ValidCol <= Cols,
                "Tile: valid region exceeds the capacity");
  static_assert(Loc == TileType::Vec || Rows == 1 || Rows % InnerRows == 0, "Tile: rows must be whole fractals");
  static_assert(Cols % InnerCols == 0, "Tile: columns must be whole fractals");
  static_assert((isRowMajor && !isBoxedLayout && Cols * sizeof(DType) % TileConfig::alignedSize == 0) ||
                    (!isRowMajor && !isBoxedLayout && Rows * sizeof(DType) % TileConfig::alignedSize == 0) ||
                    isBoxedLayout,
                "Tile: an unboxed row (row-major) or column (col-major) must be a multiple of 32 bytes");
  static_assert(SFractalSize == 512 || SFractalSize == 1024 || SFractalSize == 32,
                "Tile: fractal size 512, 1024 or 32");

  Tile() requires(ValidRow != DYNAMIC && ValidCol != DYNAMIC) = default;
  Tile(unsigned vr, unsigned vc) requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC) : vr_(int(vr)), vc_(int(vc)) {}
  explicit Tile(unsigned v) requires((ValidRow == DYNAMIC) != (ValidCol == DYNAMIC))
      : vr_(ValidRow == DYNAMIC ? int(v) : ValidRow), vc_(ValidCol == DYNAMIC ? int(v) : ValidCol) {}

  constexpr int GetValidRow() const { return ValidRow == DYNAMIC ? vr_ : ValidRow; }
  constexpr int GetValidCol() const { return ValidCol == DYNAMIC ? vc_ : ValidCol; }
  void SetValidRow(unsigned v) requires(ValidRow == DYNAMIC) { vr_ = int(v); }
  void SetValidCol(unsigned v) requires(ValidCol == DYNAMIC) { vc_ = int(v); }
  void SetValidShape(unsigned r, unsigned c) requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC) {
    vr_ = int(r), vc_ = int(c);
  }
  // The bound address: a byte offset in the tile's buffer (what TASSIGN gave). On the device data() is a pointer
  // into that buffer; kernels use it for sub-views: TASSIGN(view, (uint64_t)tile.data() + bytes).
  uint64_t data() const { return addr_; }

  // npusim: the handle the runtime reads.
  npusim_pto::TileRef npusim_ref() const {
    npusim_pto::TileRef r;
    r.loc = static_cast<npusim_pto::Loc>(int(Loc) <= int(TileType::Scaling) ? int(Loc) : int(TileType::Scaling));
    r.elem = npusim_detail::elem_of<DType>();
    r.blayout = isRowMajor ? npusim_pto::Layout2::RowMajor : npusim_pto::Layout2::ColMajor;
    r.slayout = static_cast<npusim_pto::Box>(int(SFractal));
    r.rows = Rows, r.cols = Cols, r.valid_rows = GetValidRow(), r.valid_cols = GetValidCol();
    r.fractal_bytes = SFractalSize;
    r.addr = addr_, r.assigned = assigned_;
    return r;
  }
  void npusim_assign(uint64_t addr) { addr_ = addr, assigned_ = true; }

 private:
  int vr_ = ValidRow, vc_ = ValidCol;
  uint64_t addr_ = 0;
  bool assigned_ = false;
};

// Matmul operand aliases as on A2 / A3 (dav-c220): Left ZZ, Right ZN, Acc NZ with 16 x 16 fractals.
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileLeft = Tile<TileType::Left, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                      SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileRight = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                       SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileAcc = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_, SLayout::RowMajor,
                     TileConfig::fractalCSize>;

template <class T>
struct is_tile : std::false_type {};
template <TileType L, typename E, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, auto P, CompactMode M>
struct is_tile<Tile<L, E, R, C, B, VR, VC, S, F, P, M>> : std::true_type {};
template <class T>
concept TileT = is_tile<std::remove_cv_t<T>>::value;

// ---- Shape / Stride: five dimensions, each static or DYNAMIC ----------------------------------------------------
namespace npusim_detail {
template <int64_t... V>
struct Dims {
  static constexpr int64_t statics[5] = {V...};
  static constexpr int dynamic_count = ((V == DYNAMIC ? 1 : 0) + ...);
  int64_t v[5] = {(V == DYNAMIC ? 1 : V)...};
  Dims() = default;
  template <class... I>
  requires(sizeof...(I) > 0 && (std::is_integral_v<I> && ...) && (sizeof...(I) == 5 || sizeof...(I) == dynamic_count))
      Dims(I... in) {
    const int64_t given[] = {int64_t(in)...};
    int next = 0;
    for (int d = 0; d < 5; ++d)
      if (statics[d] == DYNAMIC) v[d] = sizeof...(I) == 5 ? given[d] : given[next++];
  }
};
}  // namespace npusim_detail

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape : npusim_detail::Dims<N1, N2, N3, N4, N5> {
  using npusim_detail::Dims<N1, N2, N3, N4, N5>::Dims;
  static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
};
template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC, int64_t S5 = DYNAMIC>
struct Stride : npusim_detail::Dims<S1, S2, S3, S4, S5> {
  using npusim_detail::Dims<S1, S2, S3, S4, S5>::Dims;
  static constexpr int64_t staticStride[5] = {S1, S2, S3, S4, S5};
};

namespace npusim_detail {
constexpr int64_t mul_or_dynamic(int64_t a, int64_t b) { return a == DYNAMIC || b == DYNAMIC ? DYNAMIC : a * b; }
}  // namespace npusim_detail

// 2-D helpers: TileShape2D is the (rows, cols) shape of a view; BaseShape2D the strides of the whole matrix.
template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout L = Layout::ND>
struct TileShape2D : Shape<1, 1, 1, rows, cols> {
  static_assert(L == Layout::ND || L == Layout::DN, "npusim PTO: TileShape2D supports Layout::ND and Layout::DN");
  using Shape<1, 1, 1, rows, cols>::Shape;
};
template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout L = Layout::ND>
struct BaseShape2D
    : std::conditional_t<L == Layout::ND,
                         Stride<npusim_detail::mul_or_dynamic(rows, cols), npusim_detail::mul_or_dynamic(rows, cols),
                                npusim_detail::mul_or_dynamic(rows, cols), cols, 1>,
                         Stride<npusim_detail::mul_or_dynamic(rows, cols), npusim_detail::mul_or_dynamic(rows, cols),
                                npusim_detail::mul_or_dynamic(rows, cols), 1, rows>> {
  static_assert(L == Layout::ND || L == Layout::DN, "npusim PTO: BaseShape2D supports Layout::ND and Layout::DN");
  using Base =
      std::conditional_t<L == Layout::ND,
                         Stride<npusim_detail::mul_or_dynamic(rows, cols), npusim_detail::mul_or_dynamic(rows, cols),
                                npusim_detail::mul_or_dynamic(rows, cols), cols, 1>,
                         Stride<npusim_detail::mul_or_dynamic(rows, cols), npusim_detail::mul_or_dynamic(rows, cols),
                                npusim_detail::mul_or_dynamic(rows, cols), 1, rows>>;
  BaseShape2D() = default;
  BaseShape2D(int64_t r, int64_t c) {
    const int64_t full[5] = {r * c, r * c, r * c, L == Layout::ND ? c : 1, L == Layout::ND ? 1 : r};
    for (int d = 0; d < 5; ++d)
      if (Base::staticStride[d] == DYNAMIC) this->v[d] = full[d];
  }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
  using RawDType = std::remove_cv_t<Element_>;
  using DType = RawDType;
  using Shape = Shape_;
  using Stride = Stride_;
  static constexpr Layout layout = Layout_;

  GlobalTensor() = default;
  explicit GlobalTensor(DType* data, const Shape& shape = Shape(), const Stride& stride = Stride())
      : data_(data), shape_(shape), stride_(stride) {}
  DType* data() const { return data_; }
  int64_t GetShape(int dim) const { return shape_.v[dim]; }
  int64_t GetStride(int dim) const { return stride_.v[dim]; }
  template <int dim>
  static constexpr int64_t GetShape() {
    return Shape::staticShape[dim];
  }
  template <int dim>
  static constexpr int64_t GetStride() {
    return Stride::staticStride[dim];
  }
  void SetAddr(DType* p) { data_ = p; }

  npusim_pto::GmRef npusim_ref() const {
    npusim_pto::GmRef g;
    g.ptr = reinterpret_cast<uint64_t>(data_);
    g.elem = npusim_detail::elem_of<RawDType>();
    g.layout = static_cast<npusim_pto::GmLayout>(int(layout));
    for (int d = 0; d < 5; ++d) g.shape[d] = shape_.v[d], g.stride[d] = stride_.v[d];
    return g;
  }

 private:
  DType* data_ = nullptr;
  Shape shape_;
  Stride stride_;
};

template <class T>
struct is_global_tensor : std::false_type {};
template <typename E, typename S, typename St, Layout L>
struct is_global_tensor<GlobalTensor<E, S, St, L>> : std::true_type {};
template <class T>
concept GlobalT = is_global_tensor<std::remove_cv_t<T>>::value;

}  // namespace pto
