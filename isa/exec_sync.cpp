// PLACEHOLDER: replaced by the real semantics.
#include "isa/exec_impl.h"
#include "isa/operand.h"
namespace npusim::isa::impl {
void exec(const SetFlag&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const WaitFlag&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const PipeBarrier&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const CrossSet&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const CrossWait&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const SyncAll&, ExecContext&) { isa_fail("not implemented yet"); }
}
