#include "tests/sim/json_schema_check.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace npusim::test {
namespace {

using nlohmann::json;

const std::set<std::string> kAnnotations = {"$schema", "$id", "$defs", "title", "description", "$comment"};
const std::set<std::string> kKeywords = {"type",  "const", "enum",    "required", "properties", "additionalProperties",
                                         "items", "oneOf", "minimum", "maximum",  "minLength",  "$ref"};

bool has_type(const json& doc, const std::string& type) {
  if (type == "object") return doc.is_object();
  if (type == "array") return doc.is_array();
  if (type == "string") return doc.is_string();
  if (type == "boolean") return doc.is_boolean();
  if (type == "null") return doc.is_null();
  if (type == "number") return doc.is_number();
  if (type == "integer")
    return doc.is_number_integer() || (doc.is_number_float() && std::floor(doc.get<double>()) == doc.get<double>());
  throw std::invalid_argument("schema type '" + type + "' is not a JSON Schema type");
}

class Checker {
 public:
  Checker(const json& root, std::vector<std::string>& errors) : root_(root), errors_(errors) {}

  void check(const json& schema, const json& doc, const std::string& path) {
    for (const auto& [key, value] : schema.items()) {
      if (kAnnotations.count(key)) continue;
      if (!kKeywords.count(key)) throw std::invalid_argument("schema keyword '" + key + "' is not supported");
    }
    if (schema.contains("$ref")) check(resolve(schema["$ref"].get<std::string>()), doc, path);
    if (schema.contains("type") && !type_matches(schema["type"], doc))
      return fail(path, "has type " + std::string(doc.type_name()) + ", expected " + schema["type"].dump());
    if (schema.contains("const") && doc != schema["const"])
      fail(path, "is " + doc.dump() + ", expected " + schema["const"].dump());
    if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), doc) == schema["enum"].end())
      fail(path, "is " + doc.dump() + ", not one of " + schema["enum"].dump());
    check_number(schema, doc, path);
    if (schema.contains("minLength") && doc.is_string() &&
        doc.get<std::string>().size() < schema["minLength"].get<size_t>())
      fail(path, "is shorter than " + schema["minLength"].dump());
    if (doc.is_object()) check_object(schema, doc, path);
    if (doc.is_array() && schema.contains("items"))
      for (size_t i = 0; i < doc.size(); ++i) check(schema["items"], doc[i], path + "/" + std::to_string(i));
    if (schema.contains("oneOf")) check_one_of(schema["oneOf"], doc, path);
  }

 private:
  const json& resolve(const std::string& ref) const {
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0) throw std::invalid_argument("only local #/$defs/ references: " + ref);
    std::string name = ref.substr(prefix.size());
    if (!root_.contains("$defs") || !root_["$defs"].contains(name))
      throw std::invalid_argument("unresolved schema reference " + ref);
    return root_["$defs"][name];
  }

  bool type_matches(const json& type, const json& doc) const {
    if (type.is_string()) return has_type(doc, type.get<std::string>());
    for (const auto& t : type)
      if (has_type(doc, t.get<std::string>())) return true;
    return false;
  }

  void check_number(const json& schema, const json& doc, const std::string& path) {
    if (!doc.is_number()) return;
    if (schema.contains("minimum") && doc.get<double>() < schema["minimum"].get<double>())
      fail(path, doc.dump() + " is below the minimum " + schema["minimum"].dump());
    if (schema.contains("maximum") && doc.get<double>() > schema["maximum"].get<double>())
      fail(path, doc.dump() + " is above the maximum " + schema["maximum"].dump());
  }

  void check_object(const json& schema, const json& doc, const std::string& path) {
    if (schema.contains("required"))
      for (const auto& key : schema["required"])
        if (!doc.contains(key.get<std::string>())) fail(path, "lacks required key " + key.dump());
    const json no_properties = json::object();
    const json& properties = schema.contains("properties") ? schema["properties"] : no_properties;
    for (const auto& [key, value] : doc.items()) {
      if (properties.contains(key)) {
        check(properties[key], value, path + "/" + key);
      } else if (schema.contains("additionalProperties")) {
        if (schema["additionalProperties"] != false)
          throw std::invalid_argument("only additionalProperties: false is supported");
        fail(path, "has unexpected key \"" + key + "\"");
      }
    }
  }

  // Exactly one branch must match; when none does, report the branch that came closest.
  void check_one_of(const json& branches, const json& doc, const std::string& path) {
    int matches = 0;
    std::vector<std::string> closest;
    for (const auto& branch : branches) {
      std::vector<std::string> branch_errors;
      Checker(root_, branch_errors).check(branch, doc, path);
      if (branch_errors.empty()) ++matches;
      if (closest.empty() || branch_errors.size() < closest.size()) closest = branch_errors;
    }
    if (matches == 1) return;
    fail(path, "matches " + std::to_string(matches) + " oneOf branches, expected 1");
    if (matches == 0) errors_.insert(errors_.end(), closest.begin(), closest.end());
  }

  void fail(const std::string& path, const std::string& problem) {
    errors_.push_back((path.empty() ? "/" : path) + ": " + problem);
  }

  const json& root_;
  std::vector<std::string>& errors_;
};

}  // namespace

std::vector<std::string> schema_violations(const nlohmann::json& schema, const nlohmann::json& doc) {
  std::vector<std::string> errors;
  Checker(schema, errors).check(schema, doc, "");
  return errors;
}

}  // namespace npusim::test
