#pragma once
// Per-instruction semantics, one function each, implemented in exec_*.cpp beside this header.
// Internal to isa/: callers use execute() from exec.h.
#include "isa/semantics/exec.h"

namespace npusim::isa::impl {

// exec_mte.cpp
void exec(const DataCopy& in, ExecContext& ctx);
void exec(const Nd2Nz& in, ExecContext& ctx);
void exec(const Load2d& in, ExecContext& ctx);
// exec_cube.cpp
void exec(const Mmad& in, ExecContext& ctx);
// exec_fixpipe.cpp
void exec(const Fixpipe& in, ExecContext& ctx);
// exec_vector*.cpp
void exec(const VBinary& in, ExecContext& ctx);
void exec(const VScalar& in, ExecContext& ctx);
void exec(const VUnary& in, ExecContext& ctx);
void exec(const VReduce& in, ExecContext& ctx);
void exec(const VBlockReduce& in, ExecContext& ctx);
void exec(const VPairAdd& in, ExecContext& ctx);
void exec(const VBrcb& in, ExecContext& ctx);
void exec(const VDup& in, ExecContext& ctx);
void exec(const VCast& in, ExecContext& ctx);
void exec(const VCmp& in, ExecContext& ctx);
void exec(const VSel& in, ExecContext& ctx);
void exec(const VCopy& in, ExecContext& ctx);
// exec_scalar.cpp
void exec(const SMov& in, ExecContext& ctx);
void exec(const SAlu& in, ExecContext& ctx);
void exec(const SLoad& in, ExecContext& ctx);
void exec(const Dcci& in, ExecContext& ctx);
void exec(const SStore& in, ExecContext& ctx);
// exec_sync.cpp: field validation only; the machine model gives them their meaning.
void exec(const SetFlag& in, ExecContext& ctx);
void exec(const WaitFlag& in, ExecContext& ctx);
void exec(const PipeBarrier& in, ExecContext& ctx);
void exec(const CrossSet& in, ExecContext& ctx);
void exec(const CrossWait& in, ExecContext& ctx);
void exec(const SyncAll& in, ExecContext& ctx);

}  // namespace npusim::isa::impl
