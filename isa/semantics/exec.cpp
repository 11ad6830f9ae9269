#include "isa/semantics/exec.h"

#include <atomic>

#include "isa/semantics/exec_impl.h"
#include "isa/text/asm.h"

namespace npusim::isa {

namespace {
std::atomic<ExecPath> g_path{ExecPath::Fast};
}

void set_exec_path(ExecPath p) { g_path = p; }
ExecPath exec_path() { return g_path; }

void execute(const Instr& in, ExecContext& ctx) {
  try {
    std::visit([&](const auto& x) { impl::exec(x, ctx); }, in);
  } catch (const IsaError& e) {
    throw IsaError(to_asm(in) + ": " + e.what());
  }
}

}  // namespace npusim::isa
