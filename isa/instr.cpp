#include "isa/instr.h"

namespace npusim::isa {

namespace {
constexpr std::string_view kBufNames[] = {"gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"};
constexpr std::string_view kPipeNames[] = {"s", "v", "m", "mte1", "mte2", "mte3", "fix", "all"};

template <class... F> struct Overloaded : F... { using F::operator()...; };

Pipe data_copy_pipe(const DataCopy& d) {
  if (d.src.buf == Buf::GM) return Pipe::MTE2;
  return d.src.buf == Buf::L1 ? Pipe::MTE1 : Pipe::MTE3;  // L1 -> BT / FB on MTE1; UB -> GM / L1 on MTE3
}
Pipe fixpipe_pipe(const Fixpipe& f) { return f.dst.buf == Buf::UB ? Pipe::V : Pipe::FIX; }

std::string_view vbin_name(VBinOp o) {
  constexpr std::string_view n[] = {"vadd", "vsub", "vmul", "vdiv", "vmax", "vmin"};
  return n[static_cast<int>(o)];
}
std::string_view vscalar_name(VScalarOp o) {
  constexpr std::string_view n[] = {"vadds", "vmuls", "vmaxs", "vmins"};
  return n[static_cast<int>(o)];
}
std::string_view vunary_name(VUnaryOp o) {
  constexpr std::string_view n[] = {"vexp", "vln", "vabs", "vrec", "vsqrt", "vrsqrt", "vrelu"};
  return n[static_cast<int>(o)];
}
std::string_view vreduce_name(VRedOp o, bool block) {
  constexpr std::string_view whole[] = {"vcmax", "vcmin", "vcadd"};
  constexpr std::string_view blk[] = {"vcgmax", "vcgmin", "vcgadd"};
  return block ? blk[static_cast<int>(o)] : whole[static_cast<int>(o)];
}
std::string_view salu_name(SAluOp o) {
  constexpr std::string_view n[] = {"sadd", "ssub", "smul", "sdiv", "srem", "smin",
                                    "smax", "sand", "sor",  "sxor", "sshl", "sshr"};
  return n[static_cast<int>(o)];
}
}  // namespace

std::string_view buf_name(Buf b) { return kBufNames[static_cast<int>(b)]; }
std::string_view pipe_name(Pipe p) { return kPipeNames[static_cast<int>(p)]; }

Pipe pipe_of(const Instr& in) {
  return std::visit(
      Overloaded{[](const DataCopy& d) { return data_copy_pipe(d); },
                 [](const Nd2Nz&) { return Pipe::MTE2; },
                 [](const Load2d&) { return Pipe::MTE1; },
                 [](const Mmad&) { return Pipe::M; },
                 [](const Fixpipe& f) { return fixpipe_pipe(f); },
                 [](const SMov&) { return Pipe::S; },
                 [](const SAlu&) { return Pipe::S; },
                 [](const SLoad&) { return Pipe::S; },
                 [](const SStore&) { return Pipe::S; },
                 [](const SetFlag& f) { return f.src; },
                 [](const WaitFlag& f) { return f.dst; },
                 [](const PipeBarrier& b) { return b.pipe; },
                 [](const CrossSet& c) { return c.pipe; },
                 [](const CrossWait&) { return Pipe::S; },
                 [](const SyncAll&) { return Pipe::ALL; },
                 [](const auto&) { return Pipe::V; }},
      in);
}

std::string_view mnemonic(const Instr& in) {
  return std::visit(
      Overloaded{[](const DataCopy&) -> std::string_view { return "copy"; },
                 [](const Nd2Nz&) -> std::string_view { return "nd2nz"; },
                 [](const Load2d&) -> std::string_view { return "load2d"; },
                 [](const Mmad&) -> std::string_view { return "mmad"; },
                 [](const Fixpipe&) -> std::string_view { return "fixpipe"; },
                 [](const VBinary& v) { return vbin_name(v.op); },
                 [](const VScalar& v) { return vscalar_name(v.op); },
                 [](const VUnary& v) { return vunary_name(v.op); },
                 [](const VReduce& v) { return vreduce_name(v.op, false); },
                 [](const VBlockReduce& v) { return vreduce_name(v.op, true); },
                 [](const VPairAdd&) -> std::string_view { return "vcpadd"; },
                 [](const VBrcb&) -> std::string_view { return "vbrcb"; },
                 [](const VDup&) -> std::string_view { return "vdup"; },
                 [](const VCast&) -> std::string_view { return "vconv"; },
                 [](const VCmp&) -> std::string_view { return "vcmp"; },
                 [](const VSel&) -> std::string_view { return "vsel"; },
                 [](const VCopy&) -> std::string_view { return "vcopy"; },
                 [](const SMov&) -> std::string_view { return "smov"; },
                 [](const SAlu& s) { return salu_name(s.op); },
                 [](const SLoad&) -> std::string_view { return "sld"; },
                 [](const SStore&) -> std::string_view { return "sst"; },
                 [](const SetFlag&) -> std::string_view { return "set_flag"; },
                 [](const WaitFlag&) -> std::string_view { return "wait_flag"; },
                 [](const PipeBarrier&) -> std::string_view { return "pipe_barrier"; },
                 [](const CrossSet&) -> std::string_view { return "cross_set"; },
                 [](const CrossWait&) -> std::string_view { return "cross_wait"; },
                 [](const SyncAll&) -> std::string_view { return "sync_all"; }},
      in);
}

}  // namespace npusim::isa
