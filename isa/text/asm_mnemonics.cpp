// Mnemonic table of the text form, built from isa::mnemonic() so that traces and the parser use the
// same names: one entry per kind, and one per op for the kinds whose op is part of the mnemonic.
#include <algorithm>
#include <utility>
#include <vector>

#include "isa/text/asm_fields.h"

namespace npusim::isa::asm_detail {

namespace {

// Number of ops of the kinds whose op enum selects the mnemonic (vadd / vsub / ...); 0 for the others.
// VCmp's op is a key (op=lt), not part of the mnemonic.
template <class S>
constexpr int kMnemonicOps = 0;
template <>
constexpr int kMnemonicOps<VBinary> = 6;
template <>
constexpr int kMnemonicOps<VScalar> = 4;
template <>
constexpr int kMnemonicOps<VUnary> = 7;
template <>
constexpr int kMnemonicOps<VReduce> = 3;
template <>
constexpr int kMnemonicOps<VBlockReduce> = 3;
template <>
constexpr int kMnemonicOps<SAlu> = 12;

template <class S>
void add_kind(std::vector<MnemonicEntry>& table) {
  if constexpr (kMnemonicOps<S> == 0) {
    const Instr proto{S{}};
    table.push_back({mnemonic(proto), proto});
  } else {
    for (int op = 0; op < kMnemonicOps<S>; ++op) {
      S s{};
      s.op = static_cast<decltype(s.op)>(op);
      const Instr proto{s};
      table.push_back({mnemonic(proto), proto});
    }
  }
}

template <size_t... I>
std::vector<MnemonicEntry> build_table(std::index_sequence<I...>) {
  std::vector<MnemonicEntry> table;
  (add_kind<std::variant_alternative_t<I, Instr>>(table), ...);
  return table;
}

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitute = diagonal + (a[i - 1] != b[j - 1]);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

std::span<const MnemonicEntry> mnemonic_table() {
  static const std::vector<MnemonicEntry> table = build_table(std::make_index_sequence<std::variant_size_v<Instr>>{});
  return table;
}

const MnemonicEntry* find_mnemonic(std::string_view name) {
  for (const MnemonicEntry& e : mnemonic_table())
    if (e.name == name) return &e;
  return nullptr;
}

// The closest mnemonics within edit distance 2; otherwise every mnemonic.
std::string mnemonic_suggestion(std::string_view name) {
  int best = 3;
  for (const MnemonicEntry& e : mnemonic_table()) best = std::min(best, edit_distance(name, e.name));
  std::string names;
  for (const MnemonicEntry& e : mnemonic_table()) {
    if (best <= 2 && edit_distance(name, e.name) != best) continue;
    if (!names.empty()) names += ' ';
    names += e.name;
  }
  return (best <= 2 ? "did you mean: " : "valid mnemonics: ") + names;
}

std::string mnemonic_text(const Instr& in) {
  return std::visit(
      [&]<class S>(const S& s) -> std::string {
        if constexpr (kMnemonicOps<S> != 0) {
          const int op = static_cast<int>(s.op);
          if (op >= kMnemonicOps<S>) return "?op" + std::to_string(op);
        }
        return std::string(mnemonic(in));
      },
      in);
}

}  // namespace npusim::isa::asm_detail
