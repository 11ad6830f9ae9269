#include "sim/config/yaml_keys.h"

#include <map>

namespace npusim::sim {

namespace {
std::optional<DuplicateKey> walk(const YAML::Node& n, const std::string& prefix) {
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i)
      if (auto d = walk(n[i], prefix + "[" + std::to_string(i) + "]")) return d;
    return std::nullopt;
  }
  if (!n.IsMap()) return std::nullopt;
  std::map<std::string, int> seen;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) continue;
    const std::string key = kv.first.Scalar(), path = prefix.empty() ? key : prefix + "." + key;
    const int line = kv.first.Mark().line + 1;
    if (const auto it = seen.find(key); it != seen.end()) return DuplicateKey{path, line, it->second};
    seen.emplace(key, line);
    if (auto d = walk(kv.second, path)) return d;
  }
  return std::nullopt;
}
}  // namespace

std::optional<DuplicateKey> find_duplicate_key(const YAML::Node& root) { return walk(root, ""); }

std::string duplicate_key_message(const std::string& file, const DuplicateKey& d) {
  return file + ":" + std::to_string(d.line) + ": key '" + d.path + "' appears twice (first at line " +
         std::to_string(d.first_line) + "); a key may be given once";
}

}  // namespace npusim::sim
