#pragma once
// Case parameters as an op declares them (ParamSpec, op.h): name checks and typed access to attrs with
// defaults. Every error names the parameter (attrs.X / inputs.X), the value and the rule.
#include <string>
#include <vector>

#include "kernels/op/op.h"

namespace npusim::op {

// Rejects attrs / inputs not declared by the op and missing required ones (CaseError listing valid names).
void check_param_names(const Op& op, const CaseFile& c);
// Typed attribute access with defaults and errors naming the attribute.
int64_t attr_int(const CaseFile& c, const std::string& name, int64_t def);
double attr_float(const CaseFile& c, const std::string& name, double def, bool* given = nullptr);
bool attr_bool(const CaseFile& c, const std::string& name, bool def);
std::string attr_string(const CaseFile& c, const std::string& name, const std::string& def);
// An int_list attribute (a YAML list of integers; a single integer reads as a list of one). Absent: empty, and
// *given (if passed) is false -- an explicit [] gives an empty list with *given true.
std::vector<int64_t> attr_int_list(const CaseFile& c, const std::string& name, bool* given = nullptr);

}  // namespace npusim::op
