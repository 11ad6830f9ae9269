#pragma once
// Internal: the key table behind load_hw(). Each entry knows how to reach its field in HwConfig.
#include <functional>
#include <vector>

#include "sim/config/hw_config.h"

namespace npusim::sim {

struct KeySpec {
  KeyInfo info;
  std::function<int64_t&(HwConfig&)> ref_int;         // set for int keys
  std::function<double&(HwConfig&)> ref_float;        // set for float keys
  std::function<std::string&(HwConfig&)> ref_string;  // set for string keys in a section (implementation names)
};
const std::vector<KeySpec>& hw_key_specs();

}  // namespace npusim::sim
