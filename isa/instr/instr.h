#pragma once
// The npusim instruction set: one plain struct per instruction kind, grouped by the pipe that executes it.
// Field units are part of each field's name or comment; isa/README.md is the full reference.
// Every struct (Addr aside: its constructor checks the offset) is an aggregate whose default-constructed
// fields are the defaults of the text form, compared field by field (the pipes memoise what depends only on
// the instruction: sim/machine/instr_memo.h).
#include <array>
#include <cstdint>
#include <string_view>
#include <variant>

#include "isa/numeric/dtype.h"
#include "isa/numeric/numeric.h"

namespace npusim::isa {

// ---- buffers and addresses ---------------------------------------------------------------------
enum class Buf : uint8_t { GM, L1, L0A, L0B, L0C, UB, BT, FB };
inline constexpr int kNumBufs = 8;
std::string_view buf_name(Buf b);  // gm l1 l0a l0b l0c ub bt fb

// Packed in 8 bytes (offsets below 2^56, 64 PiB): an instruction names up to four, and the simulator copies
// every instruction through its queues, so its size is host cache traffic (sim/README.md "Simulator speed").
// Built only through the constructor, which refuses a larger offset (a kernel's address arithmetic that
// wrapped) instead of cutting it to 56 bits.
struct Addr {
  static constexpr unsigned kOffBits = 56;
  static constexpr uint64_t kMaxOff = (uint64_t{1} << kOffBits) - 1;
  Buf buf : 8 = Buf::GM;
  uint64_t off : kOffBits = 0;  // bytes from the start of the buffer (GM: of the GM byte store)
  constexpr Addr() = default;
  constexpr Addr(Buf b, uint64_t offset) : buf(b), off(offset) {
    if (offset > kMaxOff) offset_too_large(b, offset);
  }
  bool operator==(const Addr&) const = default;

 private:
  [[noreturn]] static void offset_too_large(Buf b, uint64_t offset);  // throws std::out_of_range
};
static_assert(sizeof(Addr) == 8);

// ---- pipes -------------------------------------------------------------------------------------
enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, ALL };
inline constexpr int kNumPipes = 8;
std::string_view pipe_name(Pipe p);  // s v m mte1 mte2 mte3 fix all

inline constexpr int kBlockBytes = 32;     // vector block, UB / L1 alignment unit
inline constexpr int kRepeatBlocks = 8;    // blocks per vector repeat (256 bytes)
inline constexpr int kFractalBytes = 512;  // L0A / L0B fractal
inline constexpr int kFractalRows = 16;    // rows of every fractal; L0C fractals are 16 x 16
inline constexpr int kMaxRepeat = 255;
inline constexpr int kRepeatBytes = kBlockBytes * kRepeatBlocks;  // one vector repeat: 256 bytes
inline constexpr int kL0cFractalBytes = 1024;                     // 16 x 16 fp32 / s32 accumulators
inline constexpr int kL0cElemBytes = 4;

// K elements of one 16-row L0A / L0B fractal (512 bytes): f16 / bf16 16, s8 32, s4 64, f32 8.
constexpr int fractal_k(DType t) { return t == DType::I8 ? 32 : t == DType::I4 ? 64 : t == DType::F32 ? 8 : 16; }
// Elements of one 32-byte block (the NZ column-group width c0): f16 16, f32 8, s8 32, s4 64.
constexpr int block_elems(DType t) { return kBlockBytes * 8 / bits_of(t); }

// ---- MTE2 / MTE3: bursts between GM, UB and L1 -------------------------------------------------
// Moves nburst bursts of burst_bytes. The GM side advances by burst_bytes + gap bytes per burst; a local
// side (UB, L1) starts each burst on a 32-byte block and advances by ceil(burst_bytes / 32) + gap blocks.
// With pad, the rest of a local destination's last block of each burst is filled with pad_value (as
// pad_dtype). Pipe: GM->UB and GM->L1 MTE2; UB->GM MTE3; L1->BT and L1->FB MTE1; UB->L1 (coupled cores
// only) MTE3.
struct DataCopy {
  Addr dst, src;
  uint16_t nburst = 1;
  uint32_t burst_bytes = 32;
  uint32_t src_gap = 0;  // bytes if src is GM, else 32-byte blocks
  uint32_t dst_gap = 0;  // bytes if dst is GM, else 32-byte blocks
  bool pad = false;
  DType pad_dtype = DType::F16;
  double pad_value = 0.0;
  bool operator==(const DataCopy&) const = default;
};

// MTE2: GM (ND, row-major) -> L1 (NZ). For matrix i < nd_num, row r < n_value, column c < d_value:
//   src element  i*src_nd_matrix_stride + r*src_d_value + c
//   dst element  i*dst_nz_matrix_stride + (c/c0)*dst_nz_c0_stride*c0 + r*dst_nz_n_stride*c0 + c%c0
// where c0 = 32 bytes / element size. The tail of a partly filled 32-byte destination block is zeroed.
struct Nd2Nz {
  Addr dst, src;
  DType dtype = DType::F16;
  uint16_t nd_num = 1;
  uint16_t n_value = 16;              // rows
  uint32_t d_value = 16;              // columns (elements)
  uint32_t src_nd_matrix_stride = 0;  // elements
  uint32_t src_d_value = 16;          // source row stride, elements
  uint16_t dst_nz_c0_stride = 16;     // 32-byte blocks between column groups
  uint16_t dst_nz_n_stride = 1;       // 32-byte blocks between rows
  uint32_t dst_nz_matrix_stride = 0;  // elements
  bool operator==(const Nd2Nz&) const = default;
};

// ---- MTE1: L1 -> L0A / L0B ---------------------------------------------------------------------
// Copies `repeat` 512-byte fractals: fractal j is read from src + (start_index + j*src_stride)*512 and
// written to dst + j*(1 + dst_gap)*512. transpose: 16-bit types transpose each 16x16 fractal, 8-bit types each
// 32x32 square of two fractals (below).
struct Load2d {
  Addr dst, src;
  DType dtype = DType::F16;
  uint16_t start_index = 0;  // fractals
  uint8_t repeat = 1;
  uint16_t src_stride = 1;  // fractals
  uint16_t dst_gap = 0;     // fractals
  bool transpose = false;
  // 8-bit / 4-bit transpose only: a repeat transposes a 32 x 32-byte square (two consecutive source fractals; s4:
  // a 64 x 64-nibble square of four) into two (four) destination fractals, each (1 + dst_frac_gap) fractals after
  // the one before (isa/README.md "Load2d").
  uint16_t dst_frac_gap = 0;
  bool operator==(const Load2d&) const = default;
};
// Source fractals one load2d repeat reads, and destination fractals it writes: 2 for an 8-bit transpose, 4 for a
// 4-bit one, else 1.
constexpr int load2d_fractals(const Load2d& l) {
  return !l.transpose ? 1 : bits_of(l.dtype) == 8 ? 2 : bits_of(l.dtype) == 4 ? 4 : 1;
}

// ---- M: cube -----------------------------------------------------------------------------------
// C (m x n, L0C, 16x16 fp32 / s32 fractals, column-block-major) (+)= A (m x k, L0A, ZZ) * B (k x n, L0B, ZN).
// a_dtype: f16 bf16 f32 s8 s4 (B has the same type). Accumulation order: isa/README.md "mmad".
struct Mmad {
  Addr c, a, b;
  DType a_dtype = DType::F16;
  uint16_t m = 16, n = 16, k = 16;  // each <= 4095; 0 makes the instruction a no-op
  bool init = true;                 // start from zero instead of accumulating onto C
  uint8_t unit_flag = 0;            // 0, 2 or 3: a timing hint with no functional effect (README section 3)
  bool bias = false;                // start from bias_addr's fp32 / s32 row vector (BT) instead
  Addr bias_addr{Buf::BT, 0};
  bool operator==(const Mmad&) const = default;
};

// ---- FIX: L0C -> GM / L1 (split) or L0C -> UB (coupled; executed by the V pipe) ------------------
// Reads the m x n result at L0C element ((c/16)*src_m_stride + r)*16 + c%16, converts it and writes
//   ND (nz2nd):  dst element r*dst_stride + c
//   NZ:          dst element ((c/c0)*dst_stride + r)*c0 + c%c0,  c0 = 32 bytes / dst element size.
// Per element: v = src (s32 is converted to fp32 RINT); v *= quant scale; relu; convert to dst_dtype.
enum class Quant : uint8_t { None, Scalar, Vector };
struct Fixpipe {
  Addr dst, src;
  DType src_dtype = DType::F32;  // f32 or s32
  DType dst_dtype = DType::F16;  // f32 f16 bf16 s8 (from f32); s32 f16 s8 (from s32)
  uint16_t m = 16, n = 16;
  uint16_t src_m_stride = 16;  // rows per column block in L0C; multiple of 16, >= m
  uint32_t dst_stride = 16;    // ND: elements between rows; NZ: rows per column group
  bool nz2nd = true;
  Quant quant = Quant::None;
  double quant_scale = 1.0;     // Quant::Scalar: fp32 scale
  Addr quant_addr{Buf::FB, 0};  // Quant::Vector: n fp32 scales, one per column
  bool relu = false;
  bool sat = true;  // Overflow::Saturate (vendor default) or IEEE
  bool operator==(const Fixpipe&) const = default;
};

// ---- V: vector unit (UB operands) --------------------------------------------------------------
// A repeat covers 8 blocks of 32 bytes. Lane l of repeat r of an operand lives at
//   base + r*rep*32 + (l / epb)*blk*32 + (l % epb)*size,   epb = 32 / size.
// Normal mask: bit l of {lo, hi} enables lane l. Counter mask: lo = number of elements, spread over as
// many full repeats as needed (the repeat field is ignored).
struct VecMask {
  bool counter = false;
  uint64_t lo = ~0ull, hi = ~0ull;
  bool operator==(const VecMask&) const = default;
};
struct VStride {  // block stride and repeat stride of one operand, in 32-byte blocks
  uint16_t blk = 1, rep = 8;
  bool operator==(const VStride&) const = default;
};

enum class VBinOp : uint8_t { Add, Sub, Mul, Div, Max, Min };
struct VBinary {
  VBinOp op = VBinOp::Add;
  DType dtype = DType::F16;  // f16 f32 s16 s32 (integers: add sub mul max min)
  Addr dst, src0, src1;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src0_s, src1_s;
  bool operator==(const VBinary&) const = default;
};

enum class VScalarOp : uint8_t { Adds, Muls, Maxs, Mins };
struct VScalar {
  VScalarOp op = VScalarOp::Adds;
  DType dtype = DType::F16;
  Addr dst, src;
  double scalar = 0.0;  // rounded to dtype before use
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src_s;
  bool operator==(const VScalar&) const = default;
};

enum class VUnaryOp : uint8_t { Exp, Ln, Abs, Rec, Sqrt, Rsqrt, Relu };
struct VUnary {
  VUnaryOp op = VUnaryOp::Exp;
  DType dtype = DType::F16;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src_s;
  bool operator==(const VUnary&) const = default;
};

enum class VRedOp : uint8_t { Max, Min, Sum };
// Whole reduce (vcmax / vcmin / vcadd): the enabled lanes of each repeat -> one element at
// dst + r*dst_rep elements.
struct VReduce {
  VRedOp op = VRedOp::Sum;
  DType dtype = DType::F16;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride src_s;
  uint16_t dst_rep = 1;  // elements
  bool operator==(const VReduce&) const = default;
};
// Block reduce (vcgmax / vcgmin / vcgadd): the enabled lanes of each of a repeat's 8 blocks -> one
// element; the 8 results of repeat r are contiguous at dst + r*dst_rep*8 elements.
struct VBlockReduce {
  VRedOp op = VRedOp::Sum;
  DType dtype = DType::F16;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride src_s;
  uint16_t dst_rep = 1;  // groups of 8 elements
  bool operator==(const VBlockReduce&) const = default;
};
// Pairwise add (vcpadd): lanes 2j and 2j+1 -> element j; repeat r writes its lanes/2 results
// contiguously at dst + r*dst_rep*32 bytes. A disabled lane contributes +0.
struct VPairAdd {
  DType dtype = DType::F16;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride src_s;
  uint16_t dst_rep = 4;  // 32-byte blocks
  bool operator==(const VPairAdd&) const = default;
};
// Brcb: element b of src + r*8 elements fills block b of repeat r of dst.
struct VBrcb {
  DType dtype = DType::F32;  // any 16- or 32-bit type
  Addr dst, src;
  uint8_t repeat = 1;
  VStride dst_s;
  bool operator==(const VBrcb&) const = default;
};
struct VDup {
  DType dtype = DType::F16;
  Addr dst;
  double value = 0.0;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s;
  bool operator==(const VDup&) const = default;
};
// Cast: lanes per repeat = 256 / max(src size, dst size); each operand is addressed with its own size.
struct VCast {
  DType dst_dtype = DType::F16, src_dtype = DType::F32;
  RoundMode round = RoundMode::RINT;
  bool sat = true;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src_s;
  bool operator==(const VCast&) const = default;
};
enum class CmpOp : uint8_t { LT, GT, EQ, LE, GE, NE };
// Compare: lane l of repeat r sets bit (r*lanes + l) of the bit mask at dst (disabled lanes give 0).
struct VCmp {
  CmpOp op = CmpOp::LT;
  DType dtype = DType::F16;
  Addr dst, src0, src1;
  uint8_t repeat = 1;
  VecMask mask;
  VStride src0_s, src1_s;
  bool operator==(const VCmp&) const = default;
};
// Select: dst lane = bit (r*lanes + l) of sel ? src0 : (scalar_mode ? scalar : src1).
struct VSel {
  DType dtype = DType::F16;
  Addr dst, src0, src1, sel;
  bool scalar_mode = false;
  double scalar = 0.0;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src0_s, src1_s;
  bool operator==(const VSel&) const = default;
};
// UB -> UB copy on the vector pipe (16- or 32-bit lanes).
struct VCopy {
  DType dtype = DType::F16;
  Addr dst, src;
  uint8_t repeat = 1;
  VecMask mask;
  VStride dst_s, src_s;
  bool operator==(const VCopy&) const = default;
};

// ---- S: scalar unit ----------------------------------------------------------------------------
inline constexpr int kNumScalarRegs = 32;
struct SMov {
  uint8_t rd = 0;
  int64_t imm = 0;
  bool operator==(const SMov&) const = default;
};
enum class SAluOp : uint8_t { Add, Sub, Mul, Div, Rem, Min, Max, And, Or, Xor, Shl, Shr };
struct SAlu {
  SAluOp op = SAluOp::Add;
  uint8_t rd = 0, ra = 0, rb = 0;
  bool use_imm = false;  // second operand is imm instead of rb
  int64_t imm = 0;
  bool operator==(const SAlu&) const = default;
};
// GM scalar load / store: effective address = addr.off + (index_reg >= 0 ? r[index_reg] : 0).
struct SLoad {
  DType dtype = DType::I32;
  uint8_t rd = 0;
  Addr addr;
  int8_t index_reg = -1;
  bool operator==(const SLoad&) const = default;
};
struct SStore {
  DType dtype = DType::I32;
  uint8_t rs = 0;
  Addr addr;
  int8_t index_reg = -1;
  bool operator==(const SStore&) const = default;
};
// DataCacheCleanAndInvalid: writes back and drops the scalar data cache's line holding GM byte `addr` (or every
// line, `all`), so the next scalar load of it reads GM again -- what a scalar read of GM that a DMA (MTE3,
// FixPipe) wrote needs after the writer's completion (isa/README.md section 6; Ascend C 缓存一致性).
struct Dcci {
  Addr addr{Buf::GM, 0};
  bool all = false;
  bool operator==(const Dcci&) const = default;
};

// ---- sync --------------------------------------------------------------------------------------
inline constexpr int kNumEventIds = 8;
inline constexpr int kNumCrossFlags = 11;  // ids 0-10 (hardware.md §1)
struct SetFlag {
  Pipe src = Pipe::MTE2, dst = Pipe::V;
  uint8_t event = 0;
  bool operator==(const SetFlag&) const = default;
};
struct WaitFlag {
  Pipe src = Pipe::MTE2, dst = Pipe::V;
  uint8_t event = 0;
  bool operator==(const WaitFlag&) const = default;
};
struct PipeBarrier {
  Pipe pipe = Pipe::ALL;
  bool operator==(const PipeBarrier&) const = default;
};
// Cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag): mode 0 all cores of a kind, 1 the two AIVs of
// a core, 2 AIC <-> its AIV pair. The set runs on `pipe` after that pipe's earlier work.
struct CrossSet {
  uint8_t mode = 2;
  uint8_t flag_id = 0;
  Pipe pipe = Pipe::S;
  bool operator==(const CrossSet&) const = default;
};
struct CrossWait {
  uint8_t flag_id = 0;
  bool operator==(const CrossWait&) const = default;
};
struct SyncAll {
  bool operator==(const SyncAll&) const = default;
};

using Instr = std::variant<DataCopy, Nd2Nz, Load2d, Mmad, Fixpipe, VBinary, VScalar, VUnary, VReduce, VBlockReduce,
                           VPairAdd, VBrcb, VDup, VCast, VCmp, VSel, VCopy, SMov, SAlu, SLoad, SStore, Dcci, SetFlag,
                           WaitFlag, PipeBarrier, CrossSet, CrossWait, SyncAll>;

// The pipe whose queue executes the instruction (SetFlag: its src pipe; WaitFlag: its dst pipe).
Pipe pipe_of(const Instr& in);
// Mnemonic without dtype suffix (e.g. "vadd", "mmad"); used by traces and the text form.
std::string_view mnemonic(const Instr& in);

}  // namespace npusim::isa
