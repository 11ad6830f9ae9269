#pragma once
// Text form of the instruction set: every instruction prints as one line of assembly and parses back to
// an identical struct. Grammar and examples: isa/README.md "Text form".
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "isa/instr/instr.h"

namespace npusim::isa {

std::string to_asm(const Instr& in);

// A parse failure names the 1-based line and column of the offending token.
class AsmError : public std::runtime_error {
 public:
  AsmError(int line, int column, const std::string& msg);
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_, column_;
};

// Parses one instruction (no comment, no newline); `line` is used in error messages.
Instr parse_instr(std::string_view text, int line = 1);
// Parses a program: one instruction per line; '#' starts a comment; blank lines are skipped.
std::vector<Instr> parse_program(std::string_view text);

}  // namespace npusim::isa
