// PLACEHOLDER: replaced by the real printer / parser.
#include "isa/asm.h"
namespace npusim::isa {
AsmError::AsmError(int line, int column, const std::string& msg)
    : std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + msg),
      line_(line), column_(column) {}
std::string to_asm(const Instr& in) { return std::string(mnemonic(in)); }
Instr parse_instr(std::string_view, int line) { throw AsmError(line, 1, "not implemented yet"); }
std::vector<Instr> parse_program(std::string_view) { return {}; }
}  // namespace npusim::isa
