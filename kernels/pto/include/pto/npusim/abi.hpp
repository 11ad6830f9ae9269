#pragma once
// The binary interface between a PTO kernel library built by `npusim pto build` and the simulator that loads it.
// Both sides compile this header: the kernel's tile instructions become `Call`s to the `Runtime` the simulator
// binds when it loads the library, and the simulator lowers each call to its own instructions (kernels/pto/
// README.md). Plain structs and one abstract class only, so nothing of npusim is linked into a kernel library.
// Bump kAbiVersion whenever a struct, an enum or the Runtime interface changes: a stale library is refused.
#include <cstdint>

namespace npusim_pto {

inline constexpr int kAbiVersion = 1;

// GM pointers handed to a kernel are GM byte offsets plus this base: pointer arithmetic works as on the device;
// dereferencing one on the host is not supported (the kernel's scalar GM reads: kernels/pto/README.md).
inline constexpr uint64_t kGmBase = uint64_t{1} << 44;

// Tile storage classes (pto::TileType) and element types.
enum class Loc : uint8_t { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class Elem : uint8_t { F16, BF16, F32, I8, U8, I16, U16, I32, U32, I64, U64 };
enum class Layout2 : uint8_t { RowMajor, ColMajor };       // pto::BLayout
enum class Box : uint8_t { NoneBox, RowMajor, ColMajor };  // pto::SLayout

struct TileRef {
  Loc loc = Loc::Vec;
  Elem elem = Elem::F32;
  Layout2 blayout = Layout2::RowMajor;
  Box slayout = Box::NoneBox;
  int32_t rows = 0, cols = 0;              // capacity
  int32_t valid_rows = 0, valid_cols = 0;  // the valid region (static or set at run time)
  int32_t fractal_bytes = 512;
  uint64_t addr = 0;  // TASSIGN: byte offset in the tile's buffer
  bool assigned = false;
};

// pto::Layout of a GlobalTensor.
enum class GmLayout : uint8_t { ND, DN, NZ };
struct GmRef {
  uint64_t ptr = 0;  // kGmBase + GM byte offset
  Elem elem = Elem::F32;
  GmLayout layout = GmLayout::ND;
  int64_t shape[5] = {1, 1, 1, 1, 1};
  int64_t stride[5] = {1, 1, 1, 1, 1};  // elements
};

// Every tile instruction the front end supports (pto-inst.hpp). Operands: tiles t[0..] in the instruction's
// argument order, g for a GlobalTensor, s for a scalar, i0 / i1 for index operands, mode for an enum operand.
enum class Op : uint16_t {
  TLOAD,
  TSTORE,
  TEXTRACT,
  TMOV,
  TMATMUL,
  TMATMUL_ACC,
  TADD,
  TSUB,
  TMUL,
  TDIV,
  TMAX,
  TMIN,
  TADDS,
  TSUBS,
  TMULS,
  TDIVS,
  TMAXS,
  TMINS,
  TEXP,
  TLOG,
  TABS,
  TSQRT,
  TRSQRT,
  TRECIP,
  TRELU,
  TEXPANDS,
  TROWMAX,
  TROWSUM,
  TROWMIN,
  TROWEXPAND,
  TROWEXPANDADD,
  TROWEXPANDSUB,
  TROWEXPANDMUL,
  TROWEXPANDDIV,
  TCVT,
  TTRI,
};
const char* op_name(Op op);  // defined on the simulator side only

struct Call {
  Op op = Op::TLOAD;
  int ntiles = 0;
  TileRef t[4];
  GmRef g;
  double s = 0.0;
  int64_t i0 = 0, i1 = 0;
  int mode = 0;
  const char* file = "";  // where the kernel wrote the instruction (std::source_location), for messages and traces
  int line = 0;
};

// The kinds of synchronisation call: set_flag / wait_flag (src pipe, dst pipe, event), pipe_barrier (pipe),
// ffts_cross_core_sync (pipe, mode, flag id) and wait_flag_dev (flag id). Pipes are pipe_t values.
enum class Sync : uint8_t { SetFlag, WaitFlag, PipeBarrier, CrossSet, CrossWait };

class Runtime {
 public:
  virtual int block_idx() = 0;
  virtual int block_num() = 0;
  virtual int subblock_idx() = 0;
  virtual int subblock_num() = 0;
  virtual void sync(Sync kind, int src_pipe, int dst_pipe, int event, const char* file, int line) = 0;
  virtual void call(const Call& c) = 0;

 protected:
  ~Runtime() = default;
};

// One argument of a kernel entry: a GM pointer (kGmBase + offset) or a scalar.
struct Arg {
  uint64_t u = 0;  // pointer or integer bits
  double f = 0.0;  // floating-point scalars
};

// What a library exports (extern "C" npusim_pto_entries): its entries, each with its parameter signature, one
// character per parameter: p a GM pointer, i a signed integer, u an unsigned integer, f a floating-point value.
using EntryFn = void (*)(const Arg* args, int n);
struct EntryInfo {
  const char* name;
  const char* signature;
  const char* core;  // "cube" (built with __DAV_C220_CUBE__), "vector" (__DAV_C220_VEC__) or "any"
  EntryFn fn;
};
struct EntryTable {
  int abi_version;
  int count;
  const EntryInfo* entries;
};

}  // namespace npusim_pto
