// npusim diff DIR_A DIR_B: two run folders side by side -- every output bit for bit (A against B as expected, within
// --ulp / --atol when given) and their report.json (cycles, time, bound, hw, tiling, per-pipe utilisation). Either
// may be a folder of OUTPUT.npy files without a report (only the outputs are compared). Exit 4 when an output differs.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "kernels/accuracy/bit_compare.h"
#include "kernels/host/case_file.h"
#include "kernels/host/npy.h"
#include "tools/cli/options.h"
#include "tools/cli/signoff.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
// The case a run folder's resolved.yaml records (op and attrs), for the (b, n) breakdown of FIA BSH / BSND outputs.
std::optional<op::CaseFile> recorded_case(const std::string& dir) {
  const fs::path p = fs::path(dir) / "resolved.yaml";
  if (!fs::exists(p)) return std::nullopt;
  try {
    const YAML::Node c = YAML::LoadFile(p.string())["case"];
    if (!c || !c["op"]) return std::nullopt;
    op::CaseFile cf;
    cf.op = c["op"].as<std::string>();
    cf.attrs = c["attrs"] ? c["attrs"] : YAML::Node(YAML::NodeType::Map);
    return cf;
  } catch (const YAML::Exception&) {
    return std::nullopt;  // a damaged resolved.yaml only loses the breakdown
  }
}

// A run folder's report.json, or an empty object for a folder of OUTPUT.npy files without one (a board dump, a
// torch_npu result saved with numpy, a reference): then only the outputs are compared.
nlohmann::json read_report(const std::string& dir) {
  const fs::path p = fs::path(dir) / "report.json";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("'" + dir + "' is not a folder (npusim diff takes two folders)");
  std::ifstream f(p);
  if (!f) {
    bool any_npy = false;
    for (const auto& e : fs::directory_iterator(dir, ec)) any_npy |= e.path().extension() == ".npy";
    if (!any_npy)
      throw InputError("'" + dir +
                       "' holds neither report.json nor .npy files (npusim diff takes run folders of npusim run / "
                       "check, or folders of OUTPUT.npy)");
    return nlohmann::json::object();
  }
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p.string() + ": not valid JSON: " + e.what());
  }
}

std::string text(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.dump();
}

// One row of the side-by-side table; numbers also get B / A.
nlohmann::json row(const std::string& what, const nlohmann::json& a, const nlohmann::json& b, bool print) {
  nlohmann::json j = {{"key", what}, {"a", a}, {"b", b}, {"same", a == b}};
  std::string ratio;
  if (a.is_number() && b.is_number() && a.get<double>() != 0) {
    j["b_over_a"] = b.get<double>() / a.get<double>();
    ratio = "  (B / A " + text(j["b_over_a"]) + ")";
  }
  if (print)
    std::printf("  %-28s %-28s %-28s%s%s\n", what.c_str(), text(a).c_str(), text(b).c_str(), a == b ? "" : "  *",
                ratio.c_str());
  return j;
}

nlohmann::json report_rows(const nlohmann::json& a, const nlohmann::json& b, bool print) {
  nlohmann::json rows = nlohmann::json::array();
  if (print) std::printf("report.json%20s%-28s %-28s\n", "", "A", "B");
  for (const char* k : {"op", "hw", "mode", "cycles", "time_us", "achieved_tflops", "bound", "instructions"})
    if (a.contains(k) || b.contains(k))
      rows.push_back(row(k, a.value(k, nlohmann::json()), b.value(k, nlohmann::json()), print));
  std::set<std::string> keys;
  for (const auto* r : {&a, &b})
    if (r->contains("tiling"))
      for (const auto& [k, v] : (*r)["tiling"].items()) keys.insert(k);
  for (const auto& k : keys)
    rows.push_back(row("tiling." + k, a.value("/tiling"_json_pointer / k, nlohmann::json()),
                       b.value("/tiling"_json_pointer / k, nlohmann::json()), print));
  std::set<std::string> pipes;
  for (const auto* r : {&a, &b})
    if (r->contains("utilisation"))
      for (const auto& [side, m] : (*r)["utilisation"].items())
        for (const auto& [pipe, v] : m.items()) pipes.insert(side + "." + pipe);
  for (const auto& p : pipes) {
    const auto dot = p.find('.');
    const auto ptr = "/utilisation"_json_pointer / p.substr(0, dot) / p.substr(dot + 1);
    rows.push_back(row("utilisation." + p, a.value(ptr, nlohmann::json()), b.value(ptr, nlohmann::json()), print));
  }
  return rows;
}

// The outputs of a run folder (report.json `outputs`), or every NAME.npy of a folder without a report.
std::vector<std::string> outputs_of(const nlohmann::json& r, const std::string& dir) {
  std::vector<std::string> v;
  if (r.contains("outputs"))
    for (const auto& o : r["outputs"]) v.push_back(o.get<std::string>());
  else if (!r.contains("cycles")) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".npy") v.push_back(e.path().stem().string());
    std::sort(v.begin(), v.end());
  }
  return v;
}

// The dtype to compare an output in: a run's report.json `output_types` (bf16 .npy files hold float32), else the
// file's own type.
op::ElemType compare_type(const nlohmann::json& ra, const nlohmann::json& rb, const std::string& name,
                          const std::string& pa) {
  for (const auto* r : {&ra, &rb}) {
    op::ElemType t;
    const std::string type_name = r->value("/output_types"_json_pointer / name, std::string());
    if (!type_name.empty() && op::parse_elem_type(type_name, t)) return t;
  }
  std::error_code ec;
  if (!fs::exists(pa, ec)) throw InputError(pa + " does not exist");
  try {
    return op::read_npy(pa).type;
  } catch (const op::CaseError& e) {
    throw InputError(e.what());
  }
}
}  // namespace

int cmd_diff(const Args& args) {
  po::options_description desc("diff options");
  std::string a, b;
  bool json = false;
  op::BitTolerance tol;
  auto option = desc.add_options();
  option("a", po::value(&a)->required(), "run folder A (or a folder of OUTPUT.npy)");
  option("b", po::value(&b)->required(), "run folder B (or a folder of OUTPUT.npy), the expected side");
  option("json", po::bool_switch(&json), "print the comparison as JSON on stdout");
  add_tolerance_options(desc, tol);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim diff DIR_A DIR_B [--json] [--ulp N] [--atol X]", desc, {{"a", 1}, {"b", 1}},
                     vm))
    return kExitOk;
  check_tolerance(vm, tol, true, "");
  const nlohmann::json ra = read_report(a), rb = read_report(b);
  nlohmann::json out = {{"a", a}, {"b", b}, {"outputs", nlohmann::json::array()}};
  bool match = true;
  const auto oa = outputs_of(ra, a), ob = outputs_of(rb, b);
  std::optional<op::CaseFile> recorded = recorded_case(a);
  if (!recorded) recorded = recorded_case(b);
  for (const auto& name : oa) {
    if (std::find(ob.begin(), ob.end(), name) == ob.end()) {
      match = false;
      if (!json) std::cout << "output " << name << ": only in " << a << "\n";
      out["outputs"].push_back({{"output", name}, {"match", false}, {"error", "only in A"}});
      continue;
    }
    const std::string pa = (fs::path(a) / (name + ".npy")).string(), pb = (fs::path(b) / (name + ".npy")).string();
    const op::ElemType type = compare_type(ra, rb, name, pa);
    const op::HostTensor ta = load_expected(pa, type);
    std::optional<op::GroupView> view;
    if (recorded) view = output_view(*recorded, name, ta.shape);
    const op::BitCompare r = op::compare_bits(name, ta, load_expected(pb, type), 8, tol, view ? &*view : nullptr);
    if (!json) std::cout << op::format_bit_compare(r);
    out["outputs"].push_back(bits_json(r));
    match &= r.match();
  }
  for (const auto& name : ob)
    if (std::find(oa.begin(), oa.end(), name) == oa.end()) {
      match = false;
      if (!json) std::cout << "output " << name << ": only in " << b << "\n";
      out["outputs"].push_back({{"output", name}, {"match", false}, {"error", "only in B"}});
    }
  if (!ra.empty() && !rb.empty()) out["report"] = report_rows(ra, rb, !json);  // a folder of .npy files has no report
  out["match"] = match;
  if (json) std::cout << out.dump(2) << "\n";
  else std::cout << (match ? "outputs: MATCH\n" : "outputs: MISMATCH\n");
  return match ? kExitOk : kExitMismatch;
}

}  // namespace npusim::cli
