#include "kernels/op/tiling.h"

#include <algorithm>
#include <stdexcept>

namespace npusim::op {

namespace {
std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}
}  // namespace

std::string TilingKey::rule_text(const sim::HwConfig& hw) const {
  if (!values.empty()) return "one of {" + join(values) + "}";
  std::string s = "in [" + std::to_string(lo) + ", " + std::to_string(upper(hw)) + "]";
  if (multiple_of > 1) s += ", a multiple of " + std::to_string(multiple_of);
  return s;
}

bool TilingKey::legal(int64_t v, const sim::HwConfig& hw) const {
  if (!values.empty()) return std::find(values.begin(), values.end(), v) != values.end();
  return v >= lo && v <= upper(hw) && v % multiple_of == 0;
}

std::vector<int64_t> TilingKey::enumerate(const sim::HwConfig& hw, size_t cap) const {
  if (!values.empty()) return values;
  std::vector<int64_t> v;
  for (int64_t x = (lo + multiple_of - 1) / multiple_of * multiple_of; x <= upper(hw); x += multiple_of) {
    if (v.size() == cap) return {};
    v.push_back(x);
  }
  return v;
}

TilingSpace::TilingSpace(std::string op, std::vector<TilingKey> keys) : op_(std::move(op)), keys_(std::move(keys)) {
  for (const auto& k : keys_)
    for (const auto& f : k.follows) key(f);  // a typo in a declaration is a kernel bug, caught at start-up
}

const TilingKey& TilingSpace::key(const std::string& name) const {
  for (const auto& k : keys_)
    if (k.name == name) return k;
  throw std::logic_error("op " + op_ + " uses tiling key '" + name + "' without declaring it");
}

std::string TilingSpace::valid_names() const {
  std::string s;
  for (const auto& k : keys_) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

void TilingSpace::check_case(const CaseFile& c) const {
  if (!c.tiling || !c.tiling.IsMap()) return;
  for (const auto& kv : c.tiling) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string("<non-scalar>");
    const bool known = std::any_of(keys_.begin(), keys_.end(), [&](const TilingKey& k) { return k.name == name; });
    if (!known) throw CaseError("tiling." + name + " is not a " + op_ + " tiling key (valid: " + valid_names() + ")");
    int64_t v = 0;
    if (!kv.second.IsScalar() || !YAML::convert<int64_t>::decode(kv.second, v))
      throw CaseError("tiling." + name + " = '" + (kv.second.IsScalar() ? kv.second.Scalar() : std::string("?")) +
                      "' must be an integer");
  }
}

nlohmann::json TilingSpace::to_json(const sim::HwConfig& hw) const {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& k : keys_) {
    nlohmann::json j{{"name", k.name},
                     {"lo", k.lo},
                     {"hi", k.upper(hw)},
                     {"multiple_of", k.multiple_of},
                     {"default", k.default_rule},
                     {"doc", k.doc},
                     {"rule", k.rule_text(hw)},
                     {"follows", k.follows}};
    j["values"] = k.enumerate(hw);
    keys.push_back(j);
  }
  return {{"op", op_}, {"hw", hw.name}, {"keys", keys}};
}

Tiling::Tiling(const TilingSpace& space, const CaseFile& c, const sim::HwConfig& hw)
    : space_(space), case_(c), hw_(hw) {
  space_.check_case(c);
}

bool Tiling::overridden(KeyName handle) const {
  const std::string key = handle;
  space_.key(key);
  return case_.tiling && case_.tiling.IsMap() && case_.tiling[key];
}

std::optional<int64_t> Tiling::fixed(KeyName handle) const {
  const std::string key = handle;
  const TilingKey& k = space_.key(key);
  if (!overridden(handle)) return std::nullopt;
  const int64_t v = case_.tiling[key].as<int64_t>();  // an integer: check_case ran in the constructor
  if (!k.legal(v, hw_)) throw CaseError("tiling." + key + " = " + std::to_string(v) + " must be " + k.rule_text(hw_));
  return v;
}

bool Tiling::pin(KeyName key, int64_t& v) const {
  const auto f = fixed(key);
  if (f) v = *f;
  return f.has_value();
}

int64_t Tiling::choose(KeyName handle, int64_t chosen) {
  const std::string key = handle;
  const TilingKey& k = space_.key(key);
  int64_t v = chosen;
  if (const auto f = fixed(handle)) {
    v = *f;
  } else if (!k.legal(v, hw_)) {
    throw std::logic_error("op " + space_.op() + " chose tiling." + key + " = " + std::to_string(v) +
                           " outside its declaration (" + k.rule_text(hw_) + ")");
  }
  for (auto& [name, val] : values_)
    if (name == key) return val = v;
  values_.emplace_back(key, v);
  return v;
}

std::vector<std::pair<std::string, int64_t>> Tiling::used() const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& k : space_.keys())
    for (const auto& [name, v] : values_)
      if (name == k.name) out.emplace_back(name, v);
  return out;
}

}  // namespace npusim::op
