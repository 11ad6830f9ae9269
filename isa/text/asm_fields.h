#pragma once
// Internals of the text form (isa/asm.h). One field table per instruction kind names every field, its
// role and a reference to it; the printer and the parser both walk the same table, so they cannot
// disagree about which keys exist, their order or their value syntax.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "isa/instr/instr.h"

namespace npusim::isa::asm_detail {

// A reference to one field of an instruction; the pointee type selects the value syntax.
using ValueRef = std::variant<bool*, uint8_t*, int8_t*, uint16_t*, uint32_t*, uint64_t*, int64_t*, double*, DType*,
                              Pipe*, RoundMode*, Quant*, CmpOp*, Addr*, VecMask*>;

enum class Role : uint8_t {
  Suffix,   // a dtype written as .suffix after the mnemonic; required, in table order
  Operand,  // an address operand: a required key, always printed
  Always,   // an optional key that is always printed (registers, sync pipes / events / flags)
  Key,      // an optional key, printed only when it differs from the default-constructed struct
};

struct BoundField {
  std::string_view name;
  Role role;
  ValueRef ref;
};

// The fields of one instruction in canonical order, bound to that instruction's storage.
struct FieldList {
  static constexpr int kCapacity = 20;
  std::array<BoundField, kCapacity> items{};
  int size = 0;
  const BoundField* begin() const { return items.data(); }
  const BoundField* end() const { return items.data() + size; }
};
FieldList bind_fields(Instr& in);

// ---- values (asm_values.cpp) --------------------------------------------------------------------
// A value that does not parse: `offset` is the byte offset of the offending character inside the value.
struct ValueError {
  size_t offset;
  std::string msg;
};
void append_value(std::string& out, const ValueRef& v);      // canonical text
bool same_value(const ValueRef& a, const ValueRef& b);       // bit-exact (doubles compared by bits)
void parse_value(const ValueRef& v, std::string_view text);  // throws ValueError

// ---- mnemonics (asm_mnemonics.cpp) --------------------------------------------------------------
struct MnemonicEntry {
  std::string_view name;
  Instr prototype;  // default-constructed struct with the op the mnemonic selects
};
std::span<const MnemonicEntry> mnemonic_table();
const MnemonicEntry* find_mnemonic(std::string_view name);
// "did you mean ..." for a misspelt mnemonic, or the full list when nothing is close.
std::string mnemonic_suggestion(std::string_view name);
// The mnemonic, or a readable stand-in when the op enum holds a value outside its range.
std::string mnemonic_text(const Instr& in);

}  // namespace npusim::isa::asm_detail
