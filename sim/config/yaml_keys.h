#pragma once
// yaml-cpp keeps every entry of a map with a repeated key and answers lookups with the first, so a case, sweep
// or hardware file that names a key twice would run with one value while resolved.yaml writes both. Every
// loader rejects that with the key and both lines.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace npusim::sim {

struct DuplicateKey {
  std::string path;              // dotted, e.g. "attrs.scale"
  int line = 0, first_line = 0;  // 1-based: the repeat and the first occurrence
};

// The first repeated scalar key in any map of `root` (depth first), if any.
std::optional<DuplicateKey> find_duplicate_key(const YAML::Node& root);

// "FILE:LINE: key 'PATH' appears twice (first at line N); a key may be given once"
std::string duplicate_key_message(const std::string& file, const DuplicateKey& d);

}  // namespace npusim::sim
