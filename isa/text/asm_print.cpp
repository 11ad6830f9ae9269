// Printer of the text form: mnemonic[.dtype[.dtype]] then key=value fields in the canonical order of the
// kind's field table. A field equal to its default-constructed value is left out unless its role says
// it is always printed (address operands, registers, sync fields).
#include "isa/text/asm.h"
#include "isa/text/asm_fields.h"

namespace npusim::isa {

using asm_detail::FieldList;
using asm_detail::Role;

namespace {
Instr default_of_same_kind(const Instr& in) {
  return std::visit([]<class S>(const S&) { return Instr{S{}}; }, in);
}
}  // namespace

std::string to_asm(const Instr& in) {
  // bind_fields needs mutable storage; the copies are a few dozen bytes each.
  Instr value = in;
  Instr defaults = default_of_same_kind(in);
  const FieldList fields = asm_detail::bind_fields(value);
  const FieldList default_fields = asm_detail::bind_fields(defaults);

  std::string out = asm_detail::mnemonic_text(in);
  out.reserve(96);
  for (const auto& f : fields) {
    if (f.role != Role::Suffix) continue;
    out += '.';
    asm_detail::append_value(out, f.ref);
  }
  for (int i = 0; i < fields.size; ++i) {
    const auto& f = fields.items[i];
    if (f.role == Role::Suffix) continue;
    if (f.role == Role::Key && asm_detail::same_value(f.ref, default_fields.items[i].ref)) continue;
    out += ' ';
    out += f.name;
    out += '=';
    asm_detail::append_value(out, f.ref);
  }
  return out;
}

}  // namespace npusim::isa
