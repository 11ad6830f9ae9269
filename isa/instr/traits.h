#pragma once
// One description row per instruction kind: its mnemonic, the pipe whose queue executes it, how the machine
// treats it (side) and which cost function times it (cost class). Everything that dispatches on the kind of
// an instruction reads these rows: pipe_of / mnemonic (instr.cpp), the scalar unit's issue rules and the cost
// model (sim/), the text form (text/), the semantics (semantics/) and the footprints (footprint.cpp).
//
// Adding an instruction kind (isa/README.md "How to add an instruction"): a struct in instr.h, an alternative
// in isa::Instr, a row here, a field table (text/asm_fields.cpp), semantics (impl::exec), a footprint and a
// cost (sim/machine/cost.cpp). A kind without any of them does not compile: the static_asserts below (row,
// semantics) and in footprint.cpp / sim cost.cpp (footprint, cost) check every alternative of Instr.
#include <string_view>
#include <type_traits>
#include <variant>

#include "isa/instr/instr.h"

namespace npusim::isa {

// How the machine runs an instruction.
enum class Side : uint8_t {
  Pipe,       // queued to its pipe, executed (arithmetic + cost + checks) when that pipe reaches it
  ScalarAlu,  // executed at once on the scalar unit's registers (smov, salu)
  ScalarMem,  // a scalar GM access: the scalar unit syncs with simulated time, then executes it (sld, sst)
  Sync,       // an ordering instruction whose meaning is the machine's (flags, barriers, cross-core, SyncAll)
};

// Which cost function times it (sim/README.md "Cost model").
enum class CostClass : uint8_t {
  Dma,      // copy / nd2nz: memory system for GM sides, on-chip rates otherwise
  Load2d,   // MTE1 L1 -> L0A / L0B
  Mmad,     // cube fractal steps
  Fixpipe,  // L0C -> GM / L1 (FIX) or -> UB (coupled, V)
  Vector,   // repeats x beats with the UB bank rule
  Scalar,   // issue cycles only (scalar loads add the DCache / GM latency)
  Sync,     // no cost of its own; its waits are the machine's
};

// The row of kind T. No primary definition: a kind without a row is a compile error.
template <class T>
struct InstrRow;

#define NPUSIM_ROW(T, NAME, SIDE, COST)                 \
  template <>                                           \
  struct InstrRow<T> {                                  \
    static constexpr std::string_view mnemonics = NAME; \
    static constexpr Side side = Side::SIDE;            \
    static constexpr CostClass cost = CostClass::COST;  \
    static Pipe pipe(const T& x);                       \
    static std::string_view mnemonic(const T& x);       \
  }

NPUSIM_ROW(DataCopy, "copy", Pipe, Dma);
NPUSIM_ROW(Nd2Nz, "nd2nz", Pipe, Dma);
NPUSIM_ROW(Load2d, "load2d", Pipe, Load2d);
NPUSIM_ROW(Mmad, "mmad", Pipe, Mmad);
NPUSIM_ROW(Fixpipe, "fixpipe", Pipe, Fixpipe);
NPUSIM_ROW(VBinary, "vadd|vsub|vmul|vdiv|vmax|vmin", Pipe, Vector);
NPUSIM_ROW(VScalar, "vadds|vmuls|vmaxs|vmins", Pipe, Vector);
NPUSIM_ROW(VUnary, "vexp|vln|vabs|vrec|vsqrt|vrsqrt|vrelu", Pipe, Vector);
NPUSIM_ROW(VReduce, "vcmax|vcmin|vcadd", Pipe, Vector);
NPUSIM_ROW(VBlockReduce, "vcgmax|vcgmin|vcgadd", Pipe, Vector);
NPUSIM_ROW(VPairAdd, "vcpadd", Pipe, Vector);
NPUSIM_ROW(VBrcb, "vbrcb", Pipe, Vector);
NPUSIM_ROW(VDup, "vdup", Pipe, Vector);
NPUSIM_ROW(VCast, "vconv", Pipe, Vector);
NPUSIM_ROW(VCmp, "vcmp", Pipe, Vector);
NPUSIM_ROW(VSel, "vsel", Pipe, Vector);
NPUSIM_ROW(VCopy, "vcopy", Pipe, Vector);
NPUSIM_ROW(SMov, "smov", ScalarAlu, Scalar);
NPUSIM_ROW(SAlu, "sadd|ssub|smul|sdiv|srem|smin|smax|sand|sor|sxor|sshl|sshr", ScalarAlu, Scalar);
NPUSIM_ROW(SLoad, "sld", ScalarMem, Scalar);
NPUSIM_ROW(SStore, "sst", ScalarMem, Scalar);
NPUSIM_ROW(Dcci, "dcci", ScalarMem, Scalar);
NPUSIM_ROW(SetFlag, "set_flag", Sync, Sync);
NPUSIM_ROW(WaitFlag, "wait_flag", Sync, Sync);
NPUSIM_ROW(PipeBarrier, "pipe_barrier", Sync, Sync);
NPUSIM_ROW(CrossSet, "cross_set", Sync, Sync);
NPUSIM_ROW(CrossWait, "cross_wait", Sync, Sync);
NPUSIM_ROW(SyncAll, "sync_all", Sync, Sync);
#undef NPUSIM_ROW

template <class T>
concept DescribedInstr = requires(const T& x) {
  { InstrRow<T>::mnemonics } -> std::convertible_to<std::string_view>;
  InstrRow<T>::side;
  InstrRow<T>::cost;
  { InstrRow<T>::pipe(x) } -> std::same_as<Pipe>;
  { InstrRow<T>::mnemonic(x) } -> std::same_as<std::string_view>;
};

// True when every alternative of the variant V satisfies Check (used by the per-concern static_asserts).
template <class V, template <class> class Check>
struct EveryAlternative;
template <class... T, template <class> class Check>
struct EveryAlternative<std::variant<T...>, Check> : std::bool_constant<(Check<T>::value && ...)> {};

template <class T>
struct HasRow : std::bool_constant<DescribedInstr<T>> {};
static_assert(EveryAlternative<Instr, HasRow>::value, "every instruction kind needs an InstrRow");

// The row's fields of any instruction: a table indexed by the variant's alternative, inline, because the
// simulator asks for every instruction it issues and executes (an out-of-line std::visit was 2% of a launch).
template <class V>
struct RowTable;
template <class... T>
struct RowTable<std::variant<T...>> {
  static constexpr Side side[] = {InstrRow<T>::side...};
  static constexpr CostClass cost[] = {InstrRow<T>::cost...};
};
inline Side side_of(const Instr& in) { return RowTable<Instr>::side[in.index()]; }
inline CostClass cost_class_of(const Instr& in) { return RowTable<Instr>::cost[in.index()]; }
inline bool is_sync(const Instr& in) { return side_of(in) == Side::Sync; }

}  // namespace npusim::isa
