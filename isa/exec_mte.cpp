// PLACEHOLDER: replaced by the real semantics.
#include "isa/exec_impl.h"
#include "isa/operand.h"
namespace npusim::isa::impl {
void exec(const DataCopy&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const Nd2Nz&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const Load2d&, ExecContext&) { isa_fail("not implemented yet"); }
}
