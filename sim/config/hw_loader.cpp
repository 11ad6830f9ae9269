// Loading a hardware description: file resolution, `base:` inheritance, --set overrides, validation.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/check/same_pipe_rule.h"
#include "sim/config/hw_schema.h"
#include "sim/config/yaml_keys.h"

#ifndef NPUSIM_CONFIG_DIR
#error "NPUSIM_CONFIG_DIR must point at configs/"
#endif

namespace npusim::sim {

namespace fs = std::filesystem;

namespace {
struct Value {
  std::string text;
  std::string where;  // "file:line"
};
using Flat = std::map<std::string, Value>;

fs::path hw_dir() { return fs::path(NPUSIM_CONFIG_DIR) / "hw"; }

fs::path resolve(const std::string& name_or_file) {
  fs::path p(name_or_file);
  if (p.has_extension() || name_or_file.find('/') != std::string::npos) {
    std::error_code ec;  // a path the OS rejects (too long, ...) is just one that does not exist (found by fuzz_hw)
    if (!fs::exists(p, ec)) throw ConfigError("hardware config file '" + name_or_file + "' does not exist");
    return p;
  }
  fs::path bundled = hw_dir() / (name_or_file + ".yaml");
  std::error_code ec;
  if (!fs::exists(bundled, ec)) {
    std::string names;
    for (const auto& n : bundled_hw_names()) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError("--hw '" + name_or_file + "' is not a bundled config (valid: " + names + ") nor a file");
  }
  return bundled;
}

void flatten(const YAML::Node& n, const std::string& prefix, const std::string& file, Flat& out) {
  for (const auto& kv : n) {
    if (!kv.first.IsScalar())
      throw ConfigError(file + ":" + std::to_string(kv.first.Mark().line + 1) + ": a hardware key must be a name");
    const std::string k = kv.first.Scalar();
    const std::string path = prefix.empty() ? k : prefix + "." + k;
    const std::string where = file + ":" + std::to_string(kv.first.Mark().line + 1);
    if (kv.second.IsMap()) flatten(kv.second, path, file, out);
    else if (kv.second.IsScalar()) out[path] = {kv.second.Scalar(), where};
    else throw ConfigError(where + ": key '" + path + "' must be a scalar or a section");
  }
}

Flat load_flat(const fs::path& file, std::set<std::string>& seen) {
  std::error_code ec;
  const std::string canon = fs::weakly_canonical(file, ec).string();
  if (!seen.insert(canon).second) throw ConfigError(file.string() + ": 'base' inheritance forms a cycle");
  YAML::Node root;
  // Only regular files: LoadFile throws an ios failure on a directory (found by fuzz_hw: `base: /`) and never
  // returns from /dev/zero.
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
    throw ConfigError("hardware config '" + file.string() + "' is " +
                      (fs::is_directory(file, ec) ? "a directory" : "not a regular file") + ", not a file");
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file.string() + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  } catch (const YAML::BadFile&) {
    throw ConfigError("cannot read hardware config '" + file.string() + "'");
  }
  if (const auto d = find_duplicate_key(root)) throw ConfigError(duplicate_key_message(file.string(), *d));
  if (!root.IsMap()) throw ConfigError(file.string() + ": a hardware config is a map of sections");
  Flat flat;
  if (root["base"]) {  // a bundled name, or a path relative to the including file
    if (!root["base"].IsScalar() || root["base"].Scalar().empty())  // found by fuzz_hw: `base: [a, b]` was exit 1
      throw ConfigError(file.string() + ":" + std::to_string(root["base"].Mark().line + 1) +
                        ": 'base' must be a bundled config name or a file path");
    std::string base = root["base"].Scalar();
    if ((base.find('/') != std::string::npos || fs::path(base).has_extension()) && fs::path(base).is_relative())
      base = (file.parent_path() / base).string();
    flat = load_flat(resolve(base), seen);
  }
  Flat own;
  flatten(root, "", file.string(), own);
  own.erase("base");
  for (auto& [k, v] : own) flat[k] = v;
  return flat;
}

std::string valid_keys_near(const std::string& path) {
  const std::string section = path.substr(0, path.find('.'));
  std::string out, all;
  for (const auto& k : hw_key_specs()) {
    all += (all.empty() ? "" : ", ") + k.info.path;
    if (k.info.path.rfind(section + ".", 0) == 0) out += (out.empty() ? "" : ", ") + k.info.path;
  }
  return out.empty() ? all : out;
}

void apply(HwConfig& c, const KeySpec& k, const Value& v) {
  auto bad = [&](const std::string& what) {
    throw ConfigError(v.where + ": key '" + k.info.path + "' = '" + v.text + "' " + what);
  };
  if (k.info.path == "name") {
    c.name = v.text;
    return;
  }
  if (k.ref_string) {
    if (k.info.path == "l2.replacement" && v.text != "lru" && v.text != "random") bad("is not one of lru, random");
    if (v.text.empty())
      bad(k.info.path.rfind("hazards.", 0) == 0 ? "must be a list of raw, waw, war, or none"
                                                : "must name an implementation");
    k.ref_string(c) = v.text;
    return;
  }
  if (k.info.path == "topology") {
    if (v.text == "split") c.topology = Topology::Split;
    else if (v.text == "coupled") c.topology = Topology::Coupled;
    else bad("is not one of split, coupled");
    return;
  }
  try {
    size_t used = 0;
    if (k.ref_float) {
      k.ref_float(c) = std::stod(v.text, &used);
    } else {
      const bool hexa = v.text.rfind("0x", 0) == 0 || v.text.rfind("0X", 0) == 0;
      k.ref_int(c) = std::stoll(v.text, &used, hexa ? 16 : 10);  // no octal surprise for "010"
    }
    if (used != v.text.size()) throw std::invalid_argument("trailing text");
  } catch (const std::logic_error&) {
    bad(std::string("is not ") + (k.ref_float ? "a number" : "an integer"));
  }
}

void validate(const HwConfig& c) {
  for (const auto& k : hw_key_specs()) {
    if (!k.ref_int && !k.ref_float) continue;
    const double v =
        k.ref_int ? static_cast<double>(k.ref_int(const_cast<HwConfig&>(c))) : k.ref_float(const_cast<HwConfig&>(c));
    const bool may_be_zero = k.info.path.find("latency") != std::string::npos ||
                             k.info.path.find("startup") != std::string::npos || k.info.path == "chip.aiv_per_core" ||
                             k.info.path == "vector.l0c_to_ub_bytes_per_cycle" ||
                             k.info.path == "mte3.ub_to_l1_bytes_per_cycle" || k.info.path == "scalar.dcache_bytes" ||
                             k.info.path == "scalar.dcache_hit_cycles" || k.info.path.find("sync.") == 0 ||
                             k.info.path.find("launch.") == 0 || k.info.path.find("hazards.") == 0 ||
                             k.info.path.find("segment_cycles") != std::string::npos;
    if (v < 0 || (v == 0 && !may_be_zero)) {
      std::ostringstream shown;
      shown << v;  // integers print without a fraction
      throw ConfigError("key '" + k.info.path + "' = " + shown.str() + " must be " + (may_be_zero ? ">= 0" : "> 0"));
    }
  }
  for (const auto& [key, v] :
       {std::pair{"launch.cold", c.launch.cold}, std::pair{"launch.inputs_in_l2", c.launch.inputs_in_l2}})
    if (v != 0 && v != 1)
      throw ConfigError(std::string("key '") + key + "' = " + std::to_string(v) + " must be 0 or 1");
  if (c.core.ub_bytes % c.ub.bank_bytes != 0)
    throw ConfigError("key 'core.ub_bytes' = " + std::to_string(c.core.ub_bytes) +
                      " must be a multiple of 'ub.bank_bytes' = " + std::to_string(c.ub.bank_bytes));
  if (c.topology == Topology::Split && c.chip.aiv_per_core < 1)
    throw ConfigError("key 'chip.aiv_per_core' must be >= 1 for topology split");
  if (c.topology == Topology::Coupled && c.chip.aiv_per_core != 0)
    throw ConfigError("key 'chip.aiv_per_core' must be 0 for topology coupled (the core has its own vector unit)");
  if (c.l2.bytes % c.l2.line_bytes != 0) throw ConfigError("key 'l2.bytes' must be a multiple of 'l2.line_bytes'");
  for (const auto& k : hw_key_specs())
    if (k.ref_string && k.info.path.rfind("hazards.", 0) == 0) {
      const std::string& v = k.ref_string(const_cast<HwConfig&>(c));
      if (!parse_same_pipe_rule(v))
        throw ConfigError("key '" + k.info.path + "' = '" + v +
                          "' must be a comma-separated list of raw, waw, war (each at most once), or none");
    }
}
}  // namespace

std::vector<std::string> bundled_hw_names() {
  std::vector<std::string> out;
  if (fs::exists(hw_dir()))
    for (const auto& e : fs::directory_iterator(hw_dir()))
      if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string default_hw_name() { return "ascend910b2"; }

namespace {
// Every key of a config with its value and where it was set: the inheritance chain, then the --set overrides.
Flat resolved_flat(const std::string& name_or_file, const std::vector<std::string>& sets) {
  std::set<std::string> seen;
  Flat flat = load_flat(resolve(name_or_file), seen);
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("--set '" + s + "' must be KEY=VALUE");
    std::string k = s.substr(0, eq);
    if (k.rfind("hw.", 0) == 0) k = k.substr(3);
    flat[k] = {s.substr(eq + 1), "--set " + s};
  }
  return flat;
}

// The comment on a config line ("[DOC] ini cube_freq") and the file:line, or the --set that gave the value.
std::string source_note(const std::string& where, std::map<std::string, std::vector<std::string>>& files) {
  if (where.rfind("--set", 0) == 0) return where;
  const auto colon = where.rfind(':');
  const std::string file = where.substr(0, colon);
  const size_t line = size_t(std::stoul(where.substr(colon + 1)));
  if (!files.count(file)) {
    std::ifstream in(file);
    for (std::string l; std::getline(in, l);) files[file].push_back(l);
  }
  const auto& lines = files[file];
  const std::string at = fs::path(file).filename().string() + ":" + std::to_string(line);
  if (line == 0 || line > lines.size()) return at;
  const std::string& text = lines[line - 1];
  const auto hash = text.find(" #");
  if (hash == std::string::npos) return at;
  const auto start = text.find_first_not_of(" #", hash);
  return (start == std::string::npos ? std::string() : text.substr(start) + " ") + "(" + at + ")";
}
}  // namespace

std::map<std::string, std::string> hw_key_sources(const std::string& name_or_file,
                                                  const std::vector<std::string>& sets) {
  std::map<std::string, std::vector<std::string>> files;
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : resolved_flat(name_or_file, sets)) out[k] = source_note(v.where, files);
  return out;
}

HwConfig load_hw(const std::string& name_or_file, const std::vector<std::string>& sets) {
  Flat flat = resolved_flat(name_or_file, sets);
  HwConfig c;
  std::set<std::string> given;
  for (const auto& [path, v] : flat) {
    const std::string& wanted = path;  // clang 14 cannot capture a structured binding
    const auto it = std::find_if(hw_key_specs().begin(), hw_key_specs().end(),
                                 [&](const KeySpec& k) { return k.info.path == wanted; });
    if (it == hw_key_specs().end())
      throw ConfigError(v.where + ": unknown hardware key '" + path + "' (valid: " + valid_keys_near(path) + ")");
    apply(c, *it, v);
    given.insert(path);
  }
  for (const auto& k : hw_key_specs())
    if (!given.count(k.info.path))
      throw ConfigError(name_or_file + ": missing required hardware key '" + k.info.path + "' (" + k.info.description +
                        "); keys of its section: " + valid_keys_near(k.info.path));
  validate(c);
  return c;
}

std::string hw_to_yaml(const HwConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.name << YAML::Key << "topology" << YAML::Value
      << (c.topology == Topology::Split ? "split" : "coupled");
  std::string section;
  for (const auto& k : hw_key_specs()) {
    if (!k.ref_int && !k.ref_float && !k.ref_string) continue;
    const auto dot = k.info.path.find('.');
    const std::string sec = k.info.path.substr(0, dot);
    if (sec != section) {
      if (!section.empty()) out << YAML::EndMap;
      out << YAML::Key << sec << YAML::Value << YAML::BeginMap;
      section = sec;
    }
    out << YAML::Key << k.info.path.substr(dot + 1) << YAML::Value;
    if (k.ref_string) out << k.ref_string(const_cast<HwConfig&>(c));
    else if (k.ref_int) out << k.ref_int(const_cast<HwConfig&>(c));
    else out << k.ref_float(const_cast<HwConfig&>(c));
  }
  if (!section.empty()) out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

uint8_t same_pipe_rule(const HwConfig& c, int pipe) {
  const std::string* rules[] = {
      nullptr,         &c.hazards.v,    &c.hazards.m,   &c.hazards.mte1,
      &c.hazards.mte2, &c.hazards.mte3, &c.hazards.fix, nullptr};  // isa::Pipe order: s v m mte1 mte2 mte3 fix all
  if (pipe < 0 || pipe >= int(std::size(rules)) || !rules[pipe]) return 0;
  return parse_same_pipe_rule(*rules[pipe]).value_or(0);
}

double cycles_to_us(const HwConfig& c, uint64_t cycles) { return static_cast<double>(cycles) / c.chip.clock_mhz; }

}  // namespace npusim::sim
