// The per-kind parts of the description rows (traits.h): pipe and mnemonic of each instruction kind.
#include "isa/instr/traits.h"

namespace npusim::isa {

namespace {
template <class E, size_t N>
std::string_view pick(const std::string_view (&names)[N], E op) {
  const auto i = static_cast<size_t>(op);
  return i < N ? names[i] : std::string_view("?");
}
constexpr std::string_view kVBin[] = {"vadd", "vsub", "vmul", "vdiv", "vmax", "vmin"};
constexpr std::string_view kVScalar[] = {"vadds", "vmuls", "vmaxs", "vmins"};
constexpr std::string_view kVUnary[] = {"vexp", "vln", "vabs", "vrec", "vsqrt", "vrsqrt", "vrelu"};
constexpr std::string_view kVReduce[] = {"vcmax", "vcmin", "vcadd"};
constexpr std::string_view kVBlockReduce[] = {"vcgmax", "vcgmin", "vcgadd"};
constexpr std::string_view kSAlu[] = {"sadd", "ssub", "smul", "sdiv", "srem", "smin",
                                      "smax", "sand", "sor",  "sxor", "sshl", "sshr"};
}  // namespace

// A DataCopy runs on the engine of its source side: GM -> UB / L1 on MTE2, L1 -> BT / FB on MTE1,
// UB -> GM / L1 on MTE3. A Fixpipe to UB (coupled cores) is executed by the vector pipe.
Pipe InstrRow<DataCopy>::pipe(const DataCopy& d) {
  if (d.src.buf == Buf::GM) return Pipe::MTE2;
  return d.src.buf == Buf::L1 ? Pipe::MTE1 : Pipe::MTE3;
}
Pipe InstrRow<Nd2Nz>::pipe(const Nd2Nz&) { return Pipe::MTE2; }
Pipe InstrRow<Load2d>::pipe(const Load2d&) { return Pipe::MTE1; }
Pipe InstrRow<Mmad>::pipe(const Mmad&) { return Pipe::M; }
Pipe InstrRow<Fixpipe>::pipe(const Fixpipe& f) { return f.dst.buf == Buf::UB ? Pipe::V : Pipe::FIX; }
Pipe InstrRow<VBinary>::pipe(const VBinary&) { return Pipe::V; }
Pipe InstrRow<VScalar>::pipe(const VScalar&) { return Pipe::V; }
Pipe InstrRow<VUnary>::pipe(const VUnary&) { return Pipe::V; }
Pipe InstrRow<VReduce>::pipe(const VReduce&) { return Pipe::V; }
Pipe InstrRow<VBlockReduce>::pipe(const VBlockReduce&) { return Pipe::V; }
Pipe InstrRow<VPairAdd>::pipe(const VPairAdd&) { return Pipe::V; }
Pipe InstrRow<VBrcb>::pipe(const VBrcb&) { return Pipe::V; }
Pipe InstrRow<VDup>::pipe(const VDup&) { return Pipe::V; }
Pipe InstrRow<VCast>::pipe(const VCast&) { return Pipe::V; }
Pipe InstrRow<VCmp>::pipe(const VCmp&) { return Pipe::V; }
Pipe InstrRow<VSel>::pipe(const VSel&) { return Pipe::V; }
Pipe InstrRow<VCopy>::pipe(const VCopy&) { return Pipe::V; }
Pipe InstrRow<SMov>::pipe(const SMov&) { return Pipe::S; }
Pipe InstrRow<SAlu>::pipe(const SAlu&) { return Pipe::S; }
Pipe InstrRow<SLoad>::pipe(const SLoad&) { return Pipe::S; }
Pipe InstrRow<SStore>::pipe(const SStore&) { return Pipe::S; }
Pipe InstrRow<Dcci>::pipe(const Dcci&) { return Pipe::S; }
// A set runs on its source pipe, a wait on its destination pipe (the one it holds).
Pipe InstrRow<SetFlag>::pipe(const SetFlag& f) { return f.src; }
Pipe InstrRow<WaitFlag>::pipe(const WaitFlag& f) { return f.dst; }
Pipe InstrRow<PipeBarrier>::pipe(const PipeBarrier& b) { return b.pipe; }
Pipe InstrRow<CrossSet>::pipe(const CrossSet& c) { return c.pipe; }
Pipe InstrRow<CrossWait>::pipe(const CrossWait&) { return Pipe::S; }
Pipe InstrRow<SyncAll>::pipe(const SyncAll&) { return Pipe::ALL; }

std::string_view InstrRow<DataCopy>::mnemonic(const DataCopy&) { return mnemonics; }
std::string_view InstrRow<Nd2Nz>::mnemonic(const Nd2Nz&) { return mnemonics; }
std::string_view InstrRow<Load2d>::mnemonic(const Load2d&) { return mnemonics; }
std::string_view InstrRow<Mmad>::mnemonic(const Mmad&) { return mnemonics; }
std::string_view InstrRow<Fixpipe>::mnemonic(const Fixpipe&) { return mnemonics; }
std::string_view InstrRow<VBinary>::mnemonic(const VBinary& v) { return pick(kVBin, v.op); }
std::string_view InstrRow<VScalar>::mnemonic(const VScalar& v) { return pick(kVScalar, v.op); }
std::string_view InstrRow<VUnary>::mnemonic(const VUnary& v) { return pick(kVUnary, v.op); }
std::string_view InstrRow<VReduce>::mnemonic(const VReduce& v) { return pick(kVReduce, v.op); }
std::string_view InstrRow<VBlockReduce>::mnemonic(const VBlockReduce& v) { return pick(kVBlockReduce, v.op); }
std::string_view InstrRow<VPairAdd>::mnemonic(const VPairAdd&) { return mnemonics; }
std::string_view InstrRow<VBrcb>::mnemonic(const VBrcb&) { return mnemonics; }
std::string_view InstrRow<VDup>::mnemonic(const VDup&) { return mnemonics; }
std::string_view InstrRow<VCast>::mnemonic(const VCast&) { return mnemonics; }
std::string_view InstrRow<VCmp>::mnemonic(const VCmp&) { return mnemonics; }
std::string_view InstrRow<VSel>::mnemonic(const VSel&) { return mnemonics; }
std::string_view InstrRow<VCopy>::mnemonic(const VCopy&) { return mnemonics; }
std::string_view InstrRow<SMov>::mnemonic(const SMov&) { return mnemonics; }
std::string_view InstrRow<SAlu>::mnemonic(const SAlu& s) { return pick(kSAlu, s.op); }
std::string_view InstrRow<SLoad>::mnemonic(const SLoad&) { return mnemonics; }
std::string_view InstrRow<SStore>::mnemonic(const SStore&) { return mnemonics; }
std::string_view InstrRow<Dcci>::mnemonic(const Dcci&) { return mnemonics; }
std::string_view InstrRow<SetFlag>::mnemonic(const SetFlag&) { return mnemonics; }
std::string_view InstrRow<WaitFlag>::mnemonic(const WaitFlag&) { return mnemonics; }
std::string_view InstrRow<PipeBarrier>::mnemonic(const PipeBarrier&) { return mnemonics; }
std::string_view InstrRow<CrossSet>::mnemonic(const CrossSet&) { return mnemonics; }
std::string_view InstrRow<CrossWait>::mnemonic(const CrossWait&) { return mnemonics; }
std::string_view InstrRow<SyncAll>::mnemonic(const SyncAll&) { return mnemonics; }

Pipe pipe_of(const Instr& in) {
  return std::visit([](const auto& x) { return InstrRow<std::decay_t<decltype(x)>>::pipe(x); }, in);
}
std::string_view mnemonic(const Instr& in) {
  return std::visit([](const auto& x) { return InstrRow<std::decay_t<decltype(x)>>::mnemonic(x); }, in);
}

}  // namespace npusim::isa
