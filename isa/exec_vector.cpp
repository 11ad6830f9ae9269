// PLACEHOLDER: replaced by the real semantics.
#include "isa/exec_impl.h"
#include "isa/operand.h"
namespace npusim::isa::impl {
void exec(const VBinary&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VScalar&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VUnary&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VReduce&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VBlockReduce&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VPairAdd&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VBrcb&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VDup&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VCast&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VCmp&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VSel&, ExecContext&) { isa_fail("not implemented yet"); }
void exec(const VCopy&, ExecContext&) { isa_fail("not implemented yet"); }
}
