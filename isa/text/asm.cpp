// Text form of the instruction set (isa/asm.h): the error type and the program reader. The printer is in
// asm_print.cpp, the line parser in asm_parse.cpp, the per-kind field tables in asm_fields.cpp, value
// syntax in asm_values.cpp and the mnemonic table in asm_mnemonics.cpp.
#include "isa/text/asm.h"

namespace npusim::isa {

AsmError::AsmError(int line, int column, const std::string& msg)
    : std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + msg),
      line_(line),
      column_(column) {}

// Lines are split on '\n'; a '#' ends the line's instruction text. Columns stay those of the original
// line because only the tail is cut.
std::vector<Instr> parse_program(std::string_view text) {
  std::vector<Instr> program;
  int line = 0;
  size_t start = 0;
  while (start <= text.size()) {
    ++line;
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view code = text.substr(start, end - start);
    code = code.substr(0, code.find('#'));
    if (code.find_first_not_of(" \t\r") != std::string_view::npos) program.push_back(parse_instr(code, line));
    start = end + 1;
  }
  return program;
}

}  // namespace npusim::isa
