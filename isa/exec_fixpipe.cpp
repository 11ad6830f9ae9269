// PLACEHOLDER: replaced by the real semantics.
#include "isa/exec_impl.h"
#include "isa/operand.h"
namespace npusim::isa::impl {
void exec(const Fixpipe&, ExecContext&) { isa_fail("not implemented yet"); }
}
