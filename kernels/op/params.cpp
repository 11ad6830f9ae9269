#include "kernels/op/params.h"

#include <map>
#include <set>
#include <stdexcept>

#include "kernels/op/registry.h"

namespace npusim::op {

void check_param_names(const Op& op, const CaseFile& c) {
  std::set<std::string> attrs, tensors;
  std::string valid_attrs, valid_tensors;
  for (const auto& p : op.params()) {
    const bool tensor = p.is_tensor();
    (tensor ? tensors : attrs).insert(p.name);
    (tensor ? valid_tensors : valid_attrs) += (((tensor ? valid_tensors : valid_attrs).empty()) ? "" : ", ") + p.name;
  }
  if (c.attrs && c.attrs.IsMap())
    for (const auto& kv : c.attrs) {
      if (!kv.first.IsScalar())
        throw CaseError(c.path + ":" + std::to_string(kv.first.Mark().line + 1) + ": attrs keys must be names");
      const auto k = kv.first.as<std::string>();
      if (!attrs.count(k))
        throw CaseError(c.where("attrs." + k, kv.first) + ": attrs." + k + " is not a parameter of " + op.name() +
                        (tensors.count(k) ? " (it is a tensor: put it under inputs)" : "") +
                        " (valid attrs: " + valid_attrs + ")");
    }
  for (const auto& [k, v] : c.inputs)
    if (!tensors.count(k))
      throw CaseError(c.path + ": inputs." + k + " is not a tensor parameter of " + op.name() +
                      (attrs.count(k) ? " (it is an attribute: put it under attrs)" : "") +
                      " (valid inputs: " + valid_tensors + ")");
  for (const auto& p : op.params()) {
    if (!p.required) continue;
    if (p.is_tensor() ? !c.inputs.count(p.name) : !(c.attrs && c.attrs[p.name]))
      throw CaseError(c.path + ": required parameter " + p.name + " of " + op.name() + " is missing (" + p.doc + ")");
  }
}

const ParamSpec& param_spec(const CaseFile& c, const std::string& name) {
  // An op's params() builds its list on each call: keep each op's list once (ops register at start-up and live on).
  static thread_local std::map<const Op*, std::vector<ParamSpec>> lists;
  const Op& op = find_op(c.op);
  auto it = lists.find(&op);
  if (it == lists.end()) it = lists.emplace(&op, op.params()).first;
  for (const ParamSpec& p : it->second)
    if (p.name == name && !p.is_tensor()) return p;
  throw std::logic_error("op " + c.op + " reads attrs." + name + " without declaring it");
}

namespace {
template <class T>
std::optional<T> attr_given(const CaseFile& c, const std::string& name, const char* what) {
  if (!c.attrs || !c.attrs.IsMap() || !c.attrs[name]) return std::nullopt;
  const YAML::Node n = c.attrs[name];
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw CaseError(c.where("attrs." + name, n) + ": attrs." + name + " = '" +
                    (n.IsScalar() ? n.Scalar() : std::string("<non-scalar>")) + "' must be " + what);
  }
}

template <class T>
T attr_as(const CaseFile& c, const std::string& name, const char* what) {
  const ParamSpec& spec = param_spec(c, name);
  if (const auto v = attr_given<T>(c, name, what)) return *v;
  if (const T* def = std::get_if<T>(&spec.value)) return *def;
  if (spec.required) throw CaseError(c.path + ": required parameter " + name + " of " + c.op + " is missing");
  throw std::logic_error("attrs." + name + " of " + c.op + " has no default of the type it is read as");
}
}  // namespace

int64_t attr_int(const CaseFile& c, const std::string& name) { return attr_as<int64_t>(c, name, "an integer"); }
double attr_float(const CaseFile& c, const std::string& name) { return attr_as<double>(c, name, "a number"); }
bool attr_bool(const CaseFile& c, const std::string& name) { return attr_as<bool>(c, name, "true or false"); }
std::string attr_string(const CaseFile& c, const std::string& name) {
  return attr_as<std::string>(c, name, "a string");
}
std::optional<double> attr_float_if(const CaseFile& c, const std::string& name) {
  param_spec(c, name);
  return attr_given<double>(c, name, "a number");
}
std::optional<std::string> attr_string_if(const CaseFile& c, const std::string& name) {
  param_spec(c, name);
  return attr_given<std::string>(c, name, "a string");
}

std::vector<int64_t> attr_int_list(const CaseFile& c, const std::string& name, bool* given) {
  if (given) *given = false;
  if (!c.attrs || !c.attrs.IsMap() || !c.attrs[name]) return {};
  const YAML::Node n = c.attrs[name];
  if (given) *given = true;
  const std::string at = c.where("attrs." + name, n) + ": attrs." + name;
  if (n.IsScalar()) return {*attr_given<int64_t>(c, name, "an integer or a list of integers")};
  if (!n.IsSequence()) throw CaseError(at + " must be a list of integers such as [128, 256]");
  std::vector<int64_t> v;
  for (size_t i = 0; i < n.size(); ++i) {
    int64_t x = 0;
    if (!n[i].IsScalar() || !YAML::convert<int64_t>::decode(n[i], x))
      throw CaseError(at + "[" + std::to_string(i) + "] = '" +
                      (n[i].IsScalar() ? n[i].Scalar() : std::string("<non-scalar>")) + "' must be an integer");
    v.push_back(x);
  }
  return v;
}

}  // namespace npusim::op
