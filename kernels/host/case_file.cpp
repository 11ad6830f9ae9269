// Case files: top-level keys, attrs / tiling maps, --set overrides; `inputs:` is in case_inputs.cpp.
#include "kernels/host/case_file.h"

#include <filesystem>

#include "kernels/host/case_inputs.h"
#include "sim/config/yaml_keys.h"

namespace npusim::op {

namespace {
namespace fs = std::filesystem;
constexpr const char* kTopKeys = "op, attrs, inputs, tiling";

YAML::Node load_yaml(const std::string& path) {
  // LoadFile would also "open" a directory; reading one fails later with a less useful message.
  std::error_code ec;  // non-throwing: a name the OS rejects fails below as unreadable
  if (fs::is_directory(path, ec)) throw CaseError("cannot read case file '" + path + "' (it is a directory)");
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))  // /dev/zero would be read forever
    throw CaseError("cannot read case file '" + path + "' (not a regular file)");
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw CaseError(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  } catch (const YAML::BadFile&) {
    throw CaseError("cannot read case file '" + path + "'");
  }
}

// attrs / tiling: a map, or absent / empty (an empty map then, so --set can add keys).
YAML::Node section(const CaseContext& c, const YAML::Node& root, const std::string& key) {
  const YAML::Node n = root[key];
  if (!n || n.IsNull()) return YAML::Node(YAML::NodeType::Map);
  if (!n.IsMap()) throw CaseError(where(c, n) + ": '" + key + "' must be a map of name: value");
  return n;
}

void check_top(const CaseContext& c, const YAML::Node& root) {
  if (!root.IsMap()) throw CaseError(c.file + ": a case file is a YAML map with keys " + kTopKeys);
  for (const auto& kv : root) {
    const std::string k = key_of(c, kv.first);
    if (k != "op" && k != "attrs" && k != "inputs" && k != "tiling")
      throw CaseError(where(c, kv.first) + ": unknown top-level key '" + k + "' (valid: " + kTopKeys + ")");
  }
  if (!root["op"])
    throw CaseError(c.file + ": missing required key 'op' (the registered op name; `npusim ops` lists them)");
  if (!root["op"].IsScalar() || root["op"].Scalar().empty())
    throw CaseError(where(c, root["op"]) + ": 'op' must be an op name");
}

void parse_inputs(const CaseContext& c, const YAML::Node& root, CaseFile& cf) {
  const YAML::Node n = root["inputs"];
  if (!n || n.IsNull()) return;
  if (!n.IsMap()) throw CaseError(where(c, n) + ": 'inputs' must be a map of parameter name: tensor entry");
  for (const auto& kv : n) {
    const std::string name = key_of(c, kv.first);
    bool is_list = false;
    cf.inputs[name] = parse_input(c, name, kv.second, is_list);
    if (is_list) cf.list_inputs.insert(name);
  }
}

// "attrs.K=V" / "tiling.K=V": V is parsed as YAML, so numbers, booleans, strings and flow lists
// ("[200,256]") keep the types they would have in the case file.
void apply_set(CaseFile& cf, const std::string& s) {
  const std::string pre = cf.set_origin + " '" + s + "': ";
  const size_t eq = s.find('=');
  if (eq == std::string::npos) throw CaseError(pre + "expected KEY=VALUE");
  const std::string key = s.substr(0, eq), text = s.substr(eq + 1);
  const bool is_attr = key.rfind("attrs.", 0) == 0, is_tiling = key.rfind("tiling.", 0) == 0;
  if (!is_attr && !is_tiling)
    throw CaseError(pre + "KEY must start with attrs., tiling. or inputs. (hw. keys go to the hardware config)");
  const std::string name = key.substr(is_attr ? 6 : 7);
  if (name.empty()) throw CaseError(pre + "KEY needs a name after '" + key + "'");
  YAML::Node v;
  try {
    v = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw CaseError(pre + "VALUE is not valid YAML: " + e.msg);
  }
  // An attribute may be any YAML value (op pto takes maps and lists of lists); its op checks its shape. A tiling
  // value is a number or a list of them.
  bool plain = v.IsScalar() || v.IsSequence() || (is_attr && v.IsMap());
  if (v.IsSequence() && !is_attr)
    for (const auto& item : v) plain = plain && item.IsScalar();
  if (!plain)
    throw CaseError(pre + "VALUE must be a scalar or a flow list of scalars such as [1,2]" +
                    (is_attr ? " (attrs: or a flow map such as {a: 1})" : ""));
  (is_attr ? cf.attrs : cf.tiling)[name] = v;
  cf.set_by[key] = s;
}

// "inputs.NAME.shape=[d0, d1, ...]": the shape of a generated input (a sweep's shape axis), written into the case's
// YAML before the inputs are parsed, so every rule sees it as if the case file said it.
void apply_shape_set(YAML::Node& root, const std::string& s) {
  const std::string pre = "--set '" + s + "': ";
  const size_t eq = s.find('=');
  if (eq == std::string::npos) throw CaseError(pre + "expected KEY=VALUE");
  const std::string key = s.substr(0, eq), text = s.substr(eq + 1);
  const size_t dot = key.rfind('.');
  if (key.size() < 14 || dot <= 7 || key.substr(dot) != ".shape")
    throw CaseError(pre + "an inputs. KEY is inputs.NAME.shape (the shape of a generated input)");
  const std::string name = key.substr(7, dot - 7);
  YAML::Node v;
  try {
    v = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw CaseError(pre + "VALUE is not valid YAML: " + e.msg);
  }
  bool dims = v.IsSequence();
  for (const auto& d : v)
    dims = dims && d.IsScalar() && d.Scalar().find_first_not_of("0123456789") == std::string::npos;
  if (!dims) throw CaseError(pre + "VALUE must be a flow list of non-negative integers such as [2,64,256]");
  YAML::Node inputs = root["inputs"];
  std::string names;
  for (const auto& kv : inputs) names += (names.empty() ? "" : ", ") + kv.first.Scalar();
  if (!inputs.IsMap() || !inputs[name])
    throw CaseError(pre + "inputs." + name +
                    " is not an input of the case (inputs: " + (names.empty() ? "none" : names) + ")");
  YAML::Node t = inputs[name];
  if (!t.IsMap()) throw CaseError(pre + "inputs." + name + " is a tensor list: a shape axis sets one generated tensor");
  if (t["file"]) throw CaseError(pre + "inputs." + name + " is read from a file, whose shape is the file's");
  t["shape"] = v;
}
}  // namespace

bool CaseFile::tensor_is_list(const std::string& n) const { return list_inputs.count(n) != 0; }

std::string CaseFile::where(const std::string& section_key, const YAML::Node& n) const {
  if (const auto it = set_by.find(section_key); it != set_by.end()) return set_origin + " '" + it->second + "'";
  return path + ":" + std::to_string(n.Mark().line + 1);
}

void apply_sets(CaseFile& cf, const std::vector<std::string>& sets) {
  for (const auto& s : sets) apply_set(cf, s);
}

CaseFile load_case(const std::string& path, const std::vector<std::string>& sets) {
  return load_case(path, sets, true);
}

CaseFile load_case(const std::string& path, const std::vector<std::string>& sets, bool fill_generated) {
  YAML::Node root = load_yaml(path);
  if (const auto d = sim::find_duplicate_key(root)) throw CaseError(sim::duplicate_key_message(path, *d));
  const fs::path p(path);
  const CaseContext c{path, p.parent_path().string(), fill_generated};
  check_top(c, root);
  CaseFile cf;
  cf.path = path;
  cf.name = p.stem().string();
  cf.op = root["op"].Scalar();
  cf.attrs = section(c, root, "attrs");
  cf.tiling = section(c, root, "tiling");
  for (const auto& s : sets) {
    if (s.rfind("inputs.", 0) == 0) apply_shape_set(root, s);
    else apply_set(cf, s);
  }
  parse_inputs(c, root, cf);
  return cf;
}

}  // namespace npusim::op
