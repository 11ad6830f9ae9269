#pragma once
// Flat C-order indices as coordinates, and coordinates as text, for the accuracy and bit-comparison reports.
#include <cstdint>
#include <string>
#include <vector>

namespace npusim::op {

inline std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return idx;
}

inline std::string coords(const std::vector<int64_t>& idx) {  // "[1, 0, 5]"
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s.append(d ? ", " : "").append(std::to_string(idx[d]));
  return s + "]";
}

}  // namespace npusim::op
