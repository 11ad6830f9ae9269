#pragma once
// Operand validation shared by the instruction semantics: every buffer access goes through here so that
// bounds, buffer kind and alignment errors read the same everywhere.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "isa/instr/exec_context.h"

namespace npusim::isa {

[[noreturn]] void isa_fail(const std::string& msg);

// Required alignment in bytes of an operand in buffer b (GM: 1; L1 / UB: 32; L0A / L0B: 512; L0C / BT / FB: 64).
uint64_t buf_alignment(Buf b);

// Checks that `a` is in one of `allowed`, aligned to `align` bytes (0 = the buffer's own rule) and that
// [a.off, a.off + len) lies inside the buffer; returns a pointer to its first byte.
uint8_t* operand_bytes(const ExecContext& ctx, const char* operand, Addr a, uint64_t len,
                       std::initializer_list<Buf> allowed, uint64_t align = 0);

// Checks a value against an inclusive range, naming the field.
void check_field(const char* field, int64_t value, int64_t lo, int64_t hi);

std::string hex(uint64_t v);

}  // namespace npusim::isa
