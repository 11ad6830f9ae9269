#pragma once
// The `inputs:` section of a case file (internal to case_file.cpp; separate to keep files small).
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "kernels/host/case_file.h"

namespace npusim::op {

struct CaseContext {
  std::string file;  // the case file, for messages
  std::string dir;   // its directory, for relative tensor paths
  bool fill_generated = true;
};

std::string where(const CaseContext& c, const YAML::Node& n);     // "FILE:LINE"
std::string key_of(const CaseContext& c, const YAML::Node& key);  // a map key's text; CaseError unless scalar
// One parameter: a tensor entry map, or a sequence of them for a tensor list (`is_list` is set then).
std::vector<TensorEntry> parse_input(const CaseContext& c, const std::string& name, const YAML::Node& n, bool& is_list);

}  // namespace npusim::op
