// Parser of one line of the text form. It starts from the default-constructed struct the mnemonic
// selects and fills in the dtype suffixes and key=value fields through the kind's field table (the one
// the printer uses). Every error names the 1-based column of the offending token.
#include <bitset>
#include <vector>

#include "isa/text/asm.h"
#include "isa/text/asm_fields.h"

namespace npusim::isa {

using asm_detail::BoundField;
using asm_detail::FieldList;
using asm_detail::Role;

namespace {

struct Token {
  std::string_view text;
  int column;  // 1-based
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    tokens.push_back({text.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return tokens;
}

// Built by appending: GCC 12 reports a false -Wrestrict on "'" + std::string(s).
std::string in_quotes(std::string_view s) {
  std::string q(1, '\'');
  q += s;
  q += '\'';
  return q;
}

class LineParser {
 public:
  LineParser(std::string_view text, int line) : text_(text), line_(line) {}

  Instr parse() {
    if (const size_t nl = text_.find('\n'); nl != std::string_view::npos)
      fail(static_cast<int>(nl) + 1, "newline inside one instruction (use parse_program for several lines)");
    const std::vector<Token> tokens = tokenize(text_);
    if (tokens.empty()) fail(1, "empty instruction");
    const Token head = tokens[0];
    const size_t dot = head.text.find('.');
    name_ = head.text.substr(0, dot);
    const asm_detail::MnemonicEntry* entry = asm_detail::find_mnemonic(name_);
    if (!entry)
      fail(head.column, "unknown mnemonic " + in_quotes(name_) + "; " + asm_detail::mnemonic_suggestion(name_));
    Instr result = entry->prototype;
    fields_ = asm_detail::bind_fields(result);
    parse_suffixes(head, dot);
    for (size_t t = 1; t < tokens.size(); ++t) parse_key_value(tokens[t]);
    check_operands(head);
    return result;
  }

 private:
  [[noreturn]] void fail(int column, const std::string& msg) const { throw AsmError(line_, column, msg); }

  int count_role(Role r) const {
    int n = 0;
    for (const BoundField& f : fields_) n += f.role == r;
    return n;
  }

  // head = mnemonic.dtype[.dtype]: exactly as many suffixes as the kind has Suffix fields.
  void parse_suffixes(const Token& head, size_t dot) {
    std::vector<Token> parts;
    while (dot != std::string_view::npos) {
      const size_t next = head.text.find('.', dot + 1);
      parts.push_back({head.text.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1),
                       head.column + static_cast<int>(dot) + 1});
      dot = next;
    }
    const int wanted = count_role(Role::Suffix);
    if (static_cast<int>(parts.size()) < wanted) fail(head.column, name_ + ": " + suffix_rule(wanted));
    if (static_cast<int>(parts.size()) > wanted) fail(parts[wanted].column, name_ + ": " + suffix_rule(wanted));
    size_t p = 0;
    for (const BoundField& f : fields_) {
      if (f.role != Role::Suffix) continue;
      parse_field_value(f, parts[p].text, parts[p].column);
      ++p;
    }
  }

  std::string suffix_rule(int wanted) const {
    if (wanted == 0) return "takes no dtype suffix";
    std::string form = name_;
    for (const BoundField& f : fields_)
      if (f.role == Role::Suffix) form += ".<" + std::string(f.name) + ">";
    return "needs " + std::to_string(wanted) + " dtype suffix" + (wanted > 1 ? "es" : "") + " (" + form + ")";
  }

  void parse_key_value(const Token& tok) {
    const size_t eq = tok.text.find('=');
    if (eq == std::string_view::npos)
      fail(tok.column, "expected key=value, got " + in_quotes(tok.text) + " (missing '=')");
    if (eq == 0) fail(tok.column, "missing key before '=' in " + in_quotes(tok.text));
    const std::string_view key = tok.text.substr(0, eq);
    const int index = find_key(key);
    if (index < 0) fail(tok.column, name_ + ": unknown key " + in_quotes(key) + " (valid keys: " + valid_keys() + ")");
    if (seen_[index]) fail(tok.column, name_ + ": duplicate key " + in_quotes(key));
    seen_[index] = true;
    parse_field_value(fields_.items[index], tok.text.substr(eq + 1), tok.column + static_cast<int>(eq) + 1);
  }

  void parse_field_value(const BoundField& f, std::string_view value, int column) const {
    try {
      asm_detail::parse_value(f.ref, value);
    } catch (const asm_detail::ValueError& e) {
      fail(column + static_cast<int>(e.offset), name_ + ": " + std::string(f.name) + ": " + e.msg);
    }
  }

  int find_key(std::string_view key) const {
    for (int i = 0; i < fields_.size; ++i)
      if (fields_.items[i].role != Role::Suffix && fields_.items[i].name == key) return i;
    return -1;
  }

  std::string valid_keys() const {
    std::string keys;
    for (const BoundField& f : fields_)
      if (f.role != Role::Suffix) {
        if (!keys.empty()) keys += ' ';
        keys += f.name;
      }
    return keys.empty() ? "none" : keys;
  }

  void check_operands(const Token& head) const {
    for (int i = 0; i < fields_.size; ++i)
      if (fields_.items[i].role == Role::Operand && !seen_[i])
        fail(head.column, name_ + ": missing operand " + in_quotes(fields_.items[i].name));
  }

  std::string_view text_;
  int line_;
  std::string name_;
  FieldList fields_;
  std::bitset<FieldList::kCapacity> seen_;
};

}  // namespace

Instr parse_instr(std::string_view text, int line) { return LineParser(text, line).parse(); }

}  // namespace npusim::isa
