// npusim diff DIR_A DIR_B: two run folders side by side -- every output bit for bit (A against B as expected)
// and their report.json (cycles, time, bound, hw, tiling, per-pipe utilisation). Exit 4 when an output differs.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "kernels/accuracy/bit_compare.h"
#include "kernels/host/npy.h"
#include "tools/cli/options.h"
#include "tools/cli/signoff.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
nlohmann::json read_report(const std::string& dir) {
  const fs::path p = fs::path(dir) / "report.json";
  std::ifstream f(p);
  if (!f) throw InputError(p.string() + " does not exist (npusim diff takes two folders written by npusim run / check)");
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
  if (print) std::printf("  %-28s %-28s %-28s%s%s\n", what.c_str(), text(a).c_str(), text(b).c_str(), a == b ? "" : "  *", ratio.c_str());
  return j;
}

nlohmann::json report_rows(const nlohmann::json& a, const nlohmann::json& b, bool print) {
  nlohmann::json rows = nlohmann::json::array();
  if (print) std::printf("report.json%20s%-28s %-28s\n", "", "A", "B");
  for (const char* k : {"op", "hw", "mode", "cycles", "time_us", "achieved_tflops", "bound", "instructions"})
    if (a.contains(k) || b.contains(k)) rows.push_back(row(k, a.value(k, nlohmann::json()), b.value(k, nlohmann::json()), print));
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

std::vector<std::string> outputs_of(const nlohmann::json& r) {
  std::vector<std::string> v;
  if (r.contains("outputs"))
    for (const auto& o : r["outputs"]) v.push_back(o.get<std::string>());
  return v;
}
}  // namespace

int cmd_diff(const Args& args) {
  po::options_description desc("diff options");
  std::string a, b;
  bool json = false;
  desc.add_options()("a", po::value(&a)->required(), "run folder A")("b", po::value(&b)->required(), "run folder B")(
      "json", po::bool_switch(&json), "print the comparison as JSON on stdout");
  po::positional_options_description pos;
  pos.add("a", 1).add("b", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: npusim diff DIR_A DIR_B [--json]", desc, pos, vm)) return kExitOk;
  const nlohmann::json ra = read_report(a), rb = read_report(b);
  nlohmann::json out = {{"a", a}, {"b", b}, {"outputs", nlohmann::json::array()}};
  bool match = true;
  const auto oa = outputs_of(ra), ob = outputs_of(rb);
  for (const auto& name : oa) {
    if (std::find(ob.begin(), ob.end(), name) == ob.end()) {
      match = false;
      if (!json) std::cout << "output " << name << ": only in " << a << "\n";
      out["outputs"].push_back({{"output", name}, {"match", false}, {"error", "only in A"}});
      continue;
    }
    // The dtype the run produced (report.json output_types); bf16 .npy files hold float32, so read them as bf16.
    const std::string type_name = ra.value("/output_types"_json_pointer / name, std::string());
    op::ElemType type = op::ElemType::F32;
    const std::string pa = (fs::path(a) / (name + ".npy")).string(), pb = (fs::path(b) / (name + ".npy")).string();
    if (type_name.empty() || !op::parse_elem_type(type_name, type)) {  // a report.json without output_types
      std::error_code ec;
      if (!fs::exists(pa, ec)) throw InputError(pa + " does not exist");
      try {
        type = op::read_npy(pa).type;
      } catch (const op::CaseError& e) {
        throw InputError(e.what());
      }
    }
    const op::BitCompare r = op::compare_bits(name, load_expected(pa, type), load_expected(pb, type));
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
  out["report"] = report_rows(ra, rb, !json);
  out["match"] = match;
  if (json) std::cout << out.dump(2) << "\n";
  else std::cout << (match ? "outputs: MATCH\n" : "outputs: MISMATCH\n");
  return match ? kExitOk : kExitMismatch;
}

}  // namespace npusim::cli
