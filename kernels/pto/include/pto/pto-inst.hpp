#pragma once
// npusim's PTO tile API for the A2 / A3 (dav-c220) target. A kernel written against pto-isa's
// `#include <pto/pto-inst.hpp>` compiles against this header with the system g++ (`npusim pto build`); each tile
// instruction becomes a call into the simulator, which lowers it to npusim instructions on the calling core
// (kernels/pto/README.md: the supported subset, what differs from the device toolchain, how to name an entry).
// Names, template parameters and semantics follow pto-isa's docs/PTO-Virtual-ISA-Manual.md and docs/isa/*.md.
#include <source_location>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "pto/npusim/types.hpp"

namespace pto {
struct RecordEvent {};  // what every tile instruction returns (pto-isa's event handle; empty)
}  // namespace pto

namespace pto::npusim_detail {
using RecordEventFwd = RecordEvent;

inline npusim_pto::Runtime*& runtime_slot() {
  static npusim_pto::Runtime* rt = nullptr;
  return rt;
}
inline npusim_pto::Runtime& rt() {
  npusim_pto::Runtime* r = runtime_slot();
  if (!r) throw std::logic_error("npusim PTO: a tile instruction ran outside an npusim launch");
  return *r;
}

inline void emit(npusim_pto::Call& c, const std::source_location& loc) {
  c.file = loc.file_name(), c.line = int(loc.line());
  rt().call(c);
}
template <class... T>
npusim_pto::Call tiles(npusim_pto::Op op, const T&... t) {
  npusim_pto::Call c;
  c.op = op;
  c.ntiles = int(sizeof...(T));
  int i = 0;
  ((c.t[i++] = t.npusim_ref()), ...);
  return c;
}
// A tile instruction of tile operands and, for the `s` forms, one scalar.
template <class... T>
RecordEventFwd run(npusim_pto::Op op, const std::source_location& loc, const T&... t) {
  auto c = tiles(op, t...);
  emit(c, loc);
  return {};
}
template <class... T>
RecordEventFwd run_s(npusim_pto::Op op, double s, const std::source_location& loc, const T&... t) {
  auto c = tiles(op, t...);
  c.s = s;
  emit(c, loc);
  return {};
}
inline void sync(npusim_pto::Sync kind, pipe_t a, pipe_t b, int event, const std::source_location& loc) {
  rt().sync(kind, a, b, event, loc.file_name(), int(loc.line()));
}

}  // namespace pto::npusim_detail

// ---- intrinsics of the device compiler (global namespace, as there) ----------------------------------------------
inline void set_flag(pipe_t src, pipe_t dst, event_t id, std::source_location loc = std::source_location::current()) {
  pto::npusim_detail::sync(npusim_pto::Sync::SetFlag, src, dst, id, loc);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id, std::source_location loc = std::source_location::current()) {
  pto::npusim_detail::sync(npusim_pto::Sync::WaitFlag, src, dst, id, loc);
}
inline void pipe_barrier(pipe_t pipe, std::source_location loc = std::source_location::current()) {
  pto::npusim_detail::sync(npusim_pto::Sync::PipeBarrier, pipe, pipe, 0, loc);
}
// Cross-core flags (AIC <-> AIV; pto-isa docs/isa/scalar/ops/pipeline-sync/set-cross-core.md, wait-flag-dev.md): the
// message packs base (bits 0-3), mode (4-5) and flag id (8-11).
inline void ffts_cross_core_sync(pipe_t pipe, uint64_t msg,
                                 std::source_location loc = std::source_location::current()) {
  pto::npusim_detail::sync(npusim_pto::Sync::CrossSet, pipe, int((msg >> 4) & 0x3), int((msg >> 8) & 0xf), loc);
}
inline void wait_flag_dev(int64_t flag_id, std::source_location loc = std::source_location::current()) {
  pto::npusim_detail::sync(npusim_pto::Sync::CrossWait, PIPE_S, PIPE_S, int(flag_id), loc);
}
// The FFTS block's address and the scalar data cache: nothing to do on npusim (its cross-core flags need no
// address; scalar GM accesses from PTO kernels are not supported, kernels/pto/README.md).
inline void set_ffts_base_addr(uint64_t) {}
template <class... A>
inline void dcci(A...) {}
template <class... A>
inline void dsb(A...) {}
inline int64_t get_block_idx() { return pto::npusim_detail::rt().block_idx(); }
inline int64_t get_block_num() { return pto::npusim_detail::rt().block_num(); }
inline int64_t get_subblockid() { return pto::npusim_detail::rt().subblock_idx(); }
inline int64_t get_subblockdim() { return pto::npusim_detail::rt().subblock_num(); }
inline int64_t get_coreid() { return pto::npusim_detail::rt().block_idx(); }  // a core id: the block's, on npusim
inline uint64_t get_sys_cnt() { return 0; }  // profiling counters are not modelled: read the trace instead

namespace pto {

using SrcLoc = std::source_location;  // where a kernel wrote an instruction (messages, trace stages)
using npusim_pto::Op;
namespace d = npusim_detail;

// ---- TASSIGN: bind a tile to a buffer address, or a GlobalTensor to a GM pointer -------------------------------
template <class T, class AddrType>
inline void TASSIGN(T& obj, AddrType addr) {
  if constexpr (is_tile<T>::value) {
    static_assert(std::is_integral_v<AddrType>, "TASSIGN: a tile's address is an integer byte offset");
    obj.npusim_assign(uint64_t(addr));
  } else {
    static_assert(is_global_tensor<T>::value, "TASSIGN: a Tile or a GlobalTensor");
    obj.SetAddr(addr);
  }
}
template <std::size_t Addr, TileT T>
inline void TASSIGN(T& obj) {
  static_assert(Addr % 32 == 0, "TASSIGN: tile addresses are 32-byte aligned");
  obj.npusim_assign(Addr);
}

// ---- data movement ------------------------------------------------------------------------------------------------
template <TileT T, GlobalT G>
inline RecordEvent TLOAD(T& dst, G& src, SrcLoc loc = SrcLoc::current()) {
  static_assert(sizeof(typename T::DType) == sizeof(typename G::RawDType), "TLOAD: element sizes differ");
  auto c = d::tiles(Op::TLOAD, dst);
  c.g = src.npusim_ref();
  d::emit(c, loc);
  return {};
}
namespace npusim_detail {
// phase: the unit-flag hint of TSTORE<STPhase> / TMATMUL<AccPhase> (npusim orders what it orders on the device:
// kernels/pto/README.md "Unit flags").
template <GlobalT G, TileT T>
inline RecordEvent store(G& dst, T& src, int phase, const std::source_location& loc) {
  auto c = tiles(Op::TSTORE, src);
  c.g = dst.npusim_ref();
  c.mode = phase;
  emit(c, loc);
  return {};
}
}  // namespace npusim_detail
template <GlobalT G, TileT T>
inline RecordEvent TSTORE(G& dst, T& src, SrcLoc loc = SrcLoc::current()) {
  return d::store(dst, src, 0, loc);
}
template <STPhase Phase, GlobalT G, TileT T>
inline RecordEvent TSTORE(G& dst, T& src, SrcLoc loc = SrcLoc::current()) {
  return d::store(dst, src, int(Phase), loc);
}
template <TileT D, TileT S>
inline RecordEvent TEXTRACT(D& dst, S& src, uint16_t indexRow = 0, uint16_t indexCol = 0,
                            SrcLoc loc = SrcLoc::current()) {
  auto c = d::tiles(Op::TEXTRACT, dst, src);
  c.i0 = indexRow, c.i1 = indexCol;
  d::emit(c, loc);
  return {};
}
template <TileT D, TileT S>
inline RecordEvent TMOV(D& dst, S& src, SrcLoc loc = SrcLoc::current()) {
  return d::run(Op::TMOV, loc, dst, src);
}
// A view of the same bytes with another shape (no data moves on A2 / A3).
template <TileT D, TileT S>
inline RecordEvent TRESHAPE(D& dst, S& src) {
  static_assert(D::Loc == S::Loc, "TRESHAPE: same tile type");
  static_assert(sizeof(typename D::DType) * D::Numel == sizeof(typename S::DType) * S::Numel, "TRESHAPE: same bytes");
  static_assert(D::isBoxedLayout == S::isBoxedLayout, "TRESHAPE: boxed and unboxed layouts do not mix");
  dst.npusim_assign(src.data());
  return {};
}

// ---- cube -------------------------------------------------------------------------------------------------------
namespace npusim_detail {
template <TileT C, TileT CI, TileT A, TileT B>
inline RecordEvent mmad(Op op, C& c, CI& c_in, A& a, B& b, int phase, const std::source_location& loc) {
  auto k = op == Op::TMATMUL ? tiles(op, c, a, b) : tiles(op, c, c_in, a, b);
  k.mode = phase;
  emit(k, loc);
  return {};
}
}  // namespace npusim_detail
template <TileT C, TileT A, TileT B>
inline RecordEvent TMATMUL(C& c, A& a, B& b, SrcLoc loc = SrcLoc::current()) {
  return d::mmad(Op::TMATMUL, c, c, a, b, 0, loc);
}
template <AccPhase Phase, TileT C, TileT A, TileT B>
inline RecordEvent TMATMUL(C& c, A& a, B& b, SrcLoc loc = SrcLoc::current()) {
  return d::mmad(Op::TMATMUL, c, c, a, b, int(Phase), loc);
}
// As on A2 / A3 the accumulation is in place at c_out (c_in names the same accumulator).
template <TileT C, TileT CI, TileT A, TileT B>
inline RecordEvent TMATMUL_ACC(C& c_out, CI& c_in, A& a, B& b, SrcLoc loc = SrcLoc::current()) {
  return d::mmad(Op::TMATMUL_ACC, c_out, c_in, a, b, 0, loc);
}
template <AccPhase Phase, TileT C, TileT CI, TileT A, TileT B>
inline RecordEvent TMATMUL_ACC(C& c_out, CI& c_in, A& a, B& b, SrcLoc loc = SrcLoc::current()) {
  return d::mmad(Op::TMATMUL_ACC, c_out, c_in, a, b, int(Phase), loc);
}
template <AccPhase Phase = AccPhase::Unspecified, TileT C, TileT A, TileT B>
inline RecordEvent TMATMUL_ACC(C& c, A& a, B& b, SrcLoc loc = SrcLoc::current()) {
  return d::mmad(Op::TMATMUL_ACC, c, c, a, b, int(Phase), loc);
}

// ---- vector: elementwise, scalar, unary ------------------------------------------------------------------------
#define NPUSIM_PTO_BINARY(NAME)                                                                          \
  template <TileT D, TileT S0, TileT S1>                                                                 \
  inline RecordEvent NAME(D& dst, S0& src0, S1& src1, SrcLoc loc = SrcLoc::current()) {                  \
    static_assert(D::isRowMajor && S0::isRowMajor && S1::isRowMajor, #NAME ": tiles must be row-major"); \
    return d::run(Op::NAME, loc, dst, src0, src1);                                                       \
  }
NPUSIM_PTO_BINARY(TADD)
NPUSIM_PTO_BINARY(TSUB)
NPUSIM_PTO_BINARY(TMUL)
NPUSIM_PTO_BINARY(TMAX)
NPUSIM_PTO_BINARY(TMIN)
#undef NPUSIM_PTO_BINARY
template <auto Precision = DivAlgorithm::DEFAULT, TileT D, TileT S0, TileT S1>
inline RecordEvent TDIV(D& dst, S0& src0, S1& src1, SrcLoc loc = SrcLoc::current()) {
  static_assert(D::isRowMajor && S0::isRowMajor && S1::isRowMajor, "TDIV: tiles must be row-major");
  return d::run(Op::TDIV, loc, dst, src0, src1);
}

#define NPUSIM_PTO_SCALAR(NAME)                                                                       \
  template <TileT D, TileT S>                                                                         \
  inline RecordEvent NAME(D& dst, S& src, typename S::DType scalar, SrcLoc loc = SrcLoc::current()) { \
    return d::run_s(Op::NAME, double(scalar), loc, dst, src);                                         \
  }
NPUSIM_PTO_SCALAR(TADDS)
NPUSIM_PTO_SCALAR(TSUBS)
NPUSIM_PTO_SCALAR(TMULS)
NPUSIM_PTO_SCALAR(TMAXS)
NPUSIM_PTO_SCALAR(TMINS)
#undef NPUSIM_PTO_SCALAR
template <auto Precision = DivAlgorithm::DEFAULT, TileT D, TileT S>
inline RecordEvent TDIVS(D& dst, S& src, typename S::DType scalar, SrcLoc loc = SrcLoc::current()) {
  return d::run_s(Op::TDIVS, double(scalar), loc, dst, src);
}

#define NPUSIM_PTO_UNARY(NAME)                                                        \
  template <TileT D, TileT S>                                                         \
  inline RecordEvent NAME(D& dst, S& src, SrcLoc loc = SrcLoc::current()) {           \
    static_assert(D::isRowMajor && S::isRowMajor, #NAME ": tiles must be row-major"); \
    return d::run(Op::NAME, loc, dst, src);                                           \
  }
NPUSIM_PTO_UNARY(TLOG)
NPUSIM_PTO_UNARY(TABS)
NPUSIM_PTO_UNARY(TSQRT)
NPUSIM_PTO_UNARY(TRSQRT)
NPUSIM_PTO_UNARY(TRELU)
#undef NPUSIM_PTO_UNARY
template <auto Precision = ExpAlgorithm::DEFAULT, TileT D, TileT S>
inline RecordEvent TEXP(D& dst, S& src, SrcLoc loc = SrcLoc::current()) {
  static_assert(D::isRowMajor && S::isRowMajor, "TEXP: tiles must be row-major");
  return d::run(Op::TEXP, loc, dst, src);
}
template <TileT D>
inline RecordEvent TEXPANDS(D& dst, typename D::DType scalar, SrcLoc loc = SrcLoc::current()) {
  return d::run_s(Op::TEXPANDS, double(scalar), loc, dst);
}

// ---- vector: row reductions and row broadcasts -----------------------------------------------------------------
#define NPUSIM_PTO_ROW_REDUCE(NAME)                                                 \
  template <TileT D, TileT S, TileT T>                                              \
  inline RecordEvent NAME(D& dst, S& src, T& tmp, SrcLoc loc = SrcLoc::current()) { \
    return d::run(Op::NAME, loc, dst, src, tmp);                                    \
  }
NPUSIM_PTO_ROW_REDUCE(TROWMAX)
NPUSIM_PTO_ROW_REDUCE(TROWSUM)
NPUSIM_PTO_ROW_REDUCE(TROWMIN)
#undef NPUSIM_PTO_ROW_REDUCE
template <TileT D, TileT S>
inline RecordEvent TROWEXPAND(D& dst, S& src, SrcLoc loc = SrcLoc::current()) {
  return d::run(Op::TROWEXPAND, loc, dst, src);
}
#define NPUSIM_PTO_ROW_EXPAND(NAME)                                                     \
  template <TileT D, TileT S0, TileT S1>                                                \
  inline RecordEvent NAME(D& dst, S0& src0, S1& src1, SrcLoc loc = SrcLoc::current()) { \
    return d::run(Op::NAME, loc, dst, src0, src1);                                      \
  }
NPUSIM_PTO_ROW_EXPAND(TROWEXPANDADD)
NPUSIM_PTO_ROW_EXPAND(TROWEXPANDSUB)
NPUSIM_PTO_ROW_EXPAND(TROWEXPANDMUL)
#undef NPUSIM_PTO_ROW_EXPAND
template <auto Precision = DivAlgorithm::DEFAULT, TileT D, TileT S0, TileT S1>
inline RecordEvent TROWEXPANDDIV(D& dst, S0& src0, S1& src1, SrcLoc loc = SrcLoc::current()) {
  return d::run(Op::TROWEXPANDDIV, loc, dst, src0, src1);
}

// ---- vector: conversion ------------------------------------------------------------------------------------------
template <bool NeedSetCtrl = true, TileT D, TileT S>
inline RecordEvent TCVT(D& dst, S& src, RoundMode mode, SrcLoc loc = SrcLoc::current()) {
  auto c = d::tiles(Op::TCVT, dst, src);
  c.mode = int(mode);
  d::emit(c, loc);
  return {};
}
template <bool NeedSetCtrl = true, TileT D, TileT S>
inline RecordEvent TCVT(D& dst, S& src, RoundMode mode, SaturationMode sat, SrcLoc loc = SrcLoc::current()) {
  auto c = d::tiles(Op::TCVT, dst, src);
  c.mode = int(mode);
  c.i0 = sat == SaturationMode::OFF;
  d::emit(c, loc);
  return {};
}

// ---- vector: triangular masks --------------------------------------------------------------------------------------
// isUpperOrLower 0 (lower): dst(i, j) = 1 where j <= i + diagonal, else 0; 1 (upper): dst(i, j) = 0 where
// j < i + diagonal, else 1 (pto-isa docs/isa/TTRI.md).
template <TileT D, int isUpperOrLower>
inline RecordEvent TTRI(D& dst, int diagonal, SrcLoc loc = SrcLoc::current()) {
  static_assert(D::isRowMajor, "TTRI: the tile must be row-major");
  auto c = d::tiles(Op::TTRI, dst);
  c.i0 = diagonal, c.mode = isUpperOrLower;
  d::emit(c, loc);
  return {};
}

// ---- kernel entries ------------------------------------------------------------------------------------------------
namespace npusim_detail {
template <class P>
constexpr char sig_char() {
  if constexpr (std::is_pointer_v<P>) return 'p';
  else if constexpr (std::is_floating_point_v<P>) return 'f';
  else if constexpr (std::is_integral_v<P> && std::is_signed_v<P>) return 'i';
  else if constexpr (std::is_integral_v<P> || std::is_enum_v<P>) return 'u';
  else static_assert(sizeof(P) == 0, "npusim PTO entry: parameters are GM pointers, integers or floating-point values");
}
template <class P>
P from_arg(const npusim_pto::Arg& a) {
  if constexpr (std::is_pointer_v<P>) return reinterpret_cast<P>(a.u);
  else if constexpr (std::is_floating_point_v<P>) return P(a.f);
  else return static_cast<P>(a.u);
}
template <class F>
struct EntryTraits;
template <class... P>
struct EntryTraits<void (*)(P...)> {
  static constexpr char signature[] = {sig_char<P>()..., '\0'};
  template <auto F, std::size_t... I>
  static void call(const npusim_pto::Arg* a, std::index_sequence<I...>) {
    F(from_arg<P>(a[I])...);
  }
  template <auto F>
  static void thunk(const npusim_pto::Arg* a, int) {
    call<F>(a, std::index_sequence_for<P...>{});
  }
};
inline std::vector<npusim_pto::EntryInfo>& entries() {
  static std::vector<npusim_pto::EntryInfo> e;
  return e;
}
#if defined(__DAV_C220_CUBE__)
inline constexpr const char* kBuildCore = "cube";
#elif defined(__DAV_C220_VEC__)
inline constexpr const char* kBuildCore = "vector";
#else
inline constexpr const char* kBuildCore = "any";
#endif
template <auto F>
int add_entry(const char* name) {
  using Traits = EntryTraits<decltype(F)>;
  entries().push_back({name, Traits::signature, kBuildCore, &Traits::template thunk<F>});
  return 0;
}
}  // namespace npusim_detail
}  // namespace pto

// NPUSIM_PTO_ENTRY(name, function): makes `function` (a __global__ kernel, e.g. an explicit template
// instantiation `GemmPerformance<float, 24, ...>`) runnable by op `pto` as attrs.entry = name. This line replaces
// the host launch code (`kernel<<<blocks, nullptr, stream>>>(...)`) of a device kernel.
#define NPUSIM_PTO_ENTRY(name, ...) \
  [[maybe_unused]] static const int npusim_pto_entry_##name = ::pto::npusim_detail::add_entry<&__VA_ARGS__>(#name)

// What the simulator reads from a kernel library (weak: every translation unit may define them).
extern "C" __attribute__((weak, visibility("default"))) const npusim_pto::EntryTable* npusim_pto_entries() {
  static npusim_pto::EntryTable t;
  t = {npusim_pto::kAbiVersion, int(pto::npusim_detail::entries().size()), pto::npusim_detail::entries().data()};
  return &t;
}
extern "C" __attribute__((weak, visibility("default"))) void npusim_pto_bind(npusim_pto::Runtime* rt) {
  pto::npusim_detail::runtime_slot() = rt;
}
