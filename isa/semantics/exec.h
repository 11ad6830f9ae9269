#pragma once
// Functional execution of one instruction over a view of the buffers. Pure with respect to host state:
// the same instruction on the same bytes gives the same bytes on every x86-64 host.
#include "isa/instr/exec_context.h"
#include "isa/instr/instr.h"

namespace npusim::isa {

// Which implementation runs the arithmetic. Both give identical bits (tests prove it); Reference is the
// plain scalar definition, Fast the vectorised one used by default.
enum class ExecPath : uint8_t { Reference, Fast };
void set_exec_path(ExecPath p);
ExecPath exec_path();

// Executes `in` on `ctx`. Sync instructions are no-ops here (the machine model implements them).
// Throws IsaError prefixed with the instruction's assembly text.
void execute(const Instr& in, ExecContext& ctx);

}  // namespace npusim::isa
