#pragma once
// Reading a case's tensors while validating it, for every op's checks: presence, the one tensor of a
// non-list parameter, shapes with or without loaded data (timing mode), and error helpers whose messages name
// the parameter (CaseError, exit 2).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/host/case_file.h"

namespace npusim::op {

[[noreturn]] void fail(const std::string& msg);  // throws CaseError
std::string str(int64_t v);
std::string dims(const std::vector<int64_t>& shape);  // "[2, 64, 512]"
bool has(const CaseFile& c, const std::string& name);
// The one tensor of a parameter that is not a tensor list (a YAML list of entries is an error naming it;
// `lists_note` says which parameters may be lists, e.g. " (only key and value may be tensor lists)").
const TensorEntry& single(const CaseFile& c, const std::string& name, const std::string& lists_note);
// A tensor's shape whether or not its data was loaded (generated tensors keep an empty `data` in timing mode).
std::vector<int64_t> shape_of(const TensorEntry& e);
int64_t numel(const std::vector<int64_t>& shape);
// Element 0 of an integer tensor, generating the tensor when a timing-mode load left it empty.
int64_t first_value(const TensorEntry& e);
// Element 0 of any tensor as a double (a per-tensor scale), generating it like first_value.
double first_number(const TensorEntry& e);

}  // namespace npusim::op
