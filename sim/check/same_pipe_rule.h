#pragma once
// A pipe's same-pipe rule: which dependences between two of its own instructions the pipe does not order by
// itself, so that the kernel must put a pipe_barrier on that pipe between them (hardware config keys
// `hazards.<pipe>`, their sources in isa/README.md "Same-pipe ordering"). Written as a comma-separated list of
// raw (a read of what an earlier instruction writes), waw (a write over it), war (a write over what an earlier
// instruction reads), or `none`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace npusim::sim {

enum SamePipeRule : uint8_t { kHazardRaw = 1, kHazardWaw = 2, kHazardWar = 4 };

// The rule's bits, or nullopt when the text is not such a list.
inline std::optional<uint8_t> parse_same_pipe_rule(std::string_view text) {
  if (text == "none") return uint8_t{0};
  uint8_t bits = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view word = text.substr(0, comma);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    const uint8_t bit = word == "raw" ? kHazardRaw : word == "waw" ? kHazardWaw : word == "war" ? kHazardWar : 0;
    if (bit == 0 || (bits & bit)) return std::nullopt;
    bits |= bit;
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) return std::nullopt;  // a trailing comma
  }
  return bits == 0 ? std::nullopt : std::optional<uint8_t>(bits);
}

}  // namespace npusim::sim
