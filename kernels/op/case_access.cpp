#include "kernels/op/case_access.h"

namespace npusim::op {

void fail(const std::string& msg) { throw CaseError(msg); }

std::string str(int64_t v) { return std::to_string(v); }

std::string dims(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + str(shape[i]);
  return s + "]";
}

bool has(const CaseFile& c, const std::string& name) { return c.inputs.count(name) != 0; }

const TensorEntry& single(const CaseFile& c, const std::string& name, const std::string& lists_note) {
  const auto& v = c.inputs.at(name);
  if (c.tensor_is_list(name) || v.size() != 1)
    fail("inputs." + name + " must be one tensor, not a tensor list of " + str(static_cast<int64_t>(v.size())) +
         lists_note);
  return v[0];
}

std::vector<int64_t> shape_of(const TensorEntry& e) { return e.data.shape.empty() ? e.shape : e.data.shape; }

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t first_value(const TensorEntry& e) {
  if (!e.data.bytes.empty()) return static_cast<int64_t>(e.data.get(0));
  // Timing mode leaves generated tensors empty; a file-backed tensor is always loaded.
  return static_cast<int64_t>(generate(e.dtype, shape_of(e), e.init).get(0));
}

double first_number(const TensorEntry& e) {
  if (!e.data.bytes.empty()) return e.data.get(0);
  return generate(e.dtype, shape_of(e), e.init).get(0);
}

}  // namespace npusim::op
