// PLACEHOLDER: replaced by the real semantics.
#include "isa/exec_impl.h"
#include "isa/operand.h"
namespace npusim::isa::impl {
void exec(const SMov&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const SAlu&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const SLoad&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const SStore&, ExecContext&) { isa_fail("not implemented yet"); }
}
