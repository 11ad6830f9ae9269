#pragma once
// Case parameters as an op declares them (ParamSpec, op.h): name checks and typed access to attrs with
// defaults. Every error names the parameter (attrs.X / inputs.X), the value and the rule.
#include <optional>
#include <string>
#include <vector>

#include "kernels/op/op.h"

namespace npusim::op {

// Rejects attrs / inputs not declared by the op and missing required ones (CaseError listing valid names).
void check_param_names(const Op& op, const CaseFile& c);
// Typed attribute access, errors naming the attribute. An absent attribute reads as the typed default of the case's
// op's ParamSpec (ParamSpec::value), so the default is declared once; reading an attribute the op does not declare,
// or one of another type, is a kernel bug (std::logic_error).
int64_t attr_int(const CaseFile& c, const std::string& name);
double attr_float(const CaseFile& c, const std::string& name);
bool attr_bool(const CaseFile& c, const std::string& name);
std::string attr_string(const CaseFile& c, const std::string& name);
// An attribute without a typed default (its ParamSpec says "none" or how the op derives it): nullopt when absent.
std::optional<double> attr_float_if(const CaseFile& c, const std::string& name);
std::optional<std::string> attr_string_if(const CaseFile& c, const std::string& name);
// The declaration of `name` among the params of the case's op (std::logic_error when there is none).
const ParamSpec& param_spec(const CaseFile& c, const std::string& name);
// An int_list attribute (a YAML list of integers; a single integer reads as a list of one). Absent: empty, and
// *given (if passed) is false -- an explicit [] gives an empty list with *given true.
std::vector<int64_t> attr_int_list(const CaseFile& c, const std::string& name, bool* given = nullptr);

}  // namespace npusim::op
