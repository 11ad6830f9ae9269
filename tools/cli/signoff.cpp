// Numerics sign-off helpers of the command line (signoff.h).
#include "tools/cli/signoff.h"

#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "kernels/host/npy.h"
#include "tools/cli/cli_error.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
// Writes one input tensor and returns its file name relative to OUT.
std::string write_input(const op::TensorEntry& t, const std::string& stem, const fs::path& dir) {
  const op::HostTensor data = t.data.bytes.empty() && t.file.empty() ? op::generate(t.dtype, t.shape, t.init) : t.data;
  op::write_npy((dir / (stem + ".npy")).string(), data);  // bf16 -> '<u2' bit patterns, int4 -> int8 values
  if (data.type == op::ElemType::BF16) op::write_npy((dir / (stem + ".f32.npy")).string(), op::output_encoding(data));
  return "inputs/" + stem + ".npy";
}

void emit_file_tensor(YAML::Emitter& y, const op::TensorEntry& t, const std::string& file) {
  y << YAML::Flow << YAML::BeginMap << YAML::Key << "dtype" << YAML::Value << op::elem_type_name(t.dtype) << YAML::Key
    << "file" << YAML::Value << file << YAML::EndMap;
}
}  // namespace

void save_inputs(const op::CaseFile& c, const std::vector<std::pair<std::string, int64_t>>& tiling,
                 const std::string& out) {
  const fs::path dir = fs::path(out) / "inputs";
  fs::create_directories(dir);
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "op" << YAML::Value << c.op << YAML::Key << "attrs" << YAML::Value << c.attrs;
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, list] : c.inputs) {
    y << YAML::Key << name << YAML::Value;
    if (!c.tensor_is_list(name)) {
      emit_file_tensor(y, list[0], write_input(list[0], name, dir));
      continue;
    }
    y << YAML::BeginSeq;
    for (size_t k = 0; k < list.size(); ++k)
      emit_file_tensor(y, list[k], write_input(list[k], name + "." + std::to_string(k), dir));
    y << YAML::EndSeq;
  }
  y << YAML::EndMap << YAML::Key << "tiling" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : tiling) y << YAML::Key << k << YAML::Value << v;
  y << YAML::EndMap << YAML::EndMap;
  std::ofstream(fs::path(out) / "replay.yaml")
      << "# The case of this run with every input read from inputs/ (npusim run --save-inputs).\n"
      << y.c_str() << "\n";
}

op::HostTensor load_expected(const std::string& path, op::ElemType type) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("expected output " + path + " does not exist");
  try {
    return op::convert_for_case(op::read_npy(path), type, path);
  } catch (const op::CaseError& e) {
    throw InputError(e.what());
  }
}

nlohmann::json accuracy_json(const op::AccuracyReport& r) {
  return {{"output", r.output},
          {"pass", r.pass()},
          {"elements", r.elements},
          {"unspecified", r.unspecified},
          {"fa_rule",
           {{"pass", r.fa_pass},
            {"gated", r.fa_gated},
            {"ratio", r.fa_ratio()},
            {"max_abs_err", r.max_abs_err},
            {"naive_max_abs_err", r.naive_max_abs_err},
            {"bound", r.fa_bound},
            {"meaning", "max |out - ref64| over 2 x the naive working-dtype error + 1e-5; <= 1 passes"}}},
          {"cann_rule",
           {{"pass", r.cann_pass},
            {"threshold", r.cann_threshold},
            {"failures", r.cann_failures},
            {"tolerated_fraction", r.tolerated_fraction},
            {"cap_failures", r.cap_failures},
            {"meaning",
             "elements with |out - ref64| > T x max(1, |ref64|); with a tolerated fraction, cap_failures counts those "
             "beyond 8 T"}}},
          {"int8_rule",
           {{"applies", r.int8_rule},
            {"pass", r.int8_rule && r.int8_pass()},
            {"tolerated_fraction", r.tolerated_fraction},
            {"cap_failures", r.cap_failures},
            {"off_by_one", r.int8_off_by_one},
            {"failures", r.int8_failures},
            {"meaning", "int8 output vs round(fp64 truth): every |out - ref| <= 1; off_by_one counts distance 1"}}},
          {"relative",
           {{"floor", r.rel_floor},
            {"max_abs_ref", r.max_abs_ref},
            {"elements", r.rel_count},
            {"max", r.rel_max},
            {"mean", r.rel_mean},
            {"meaning", "|out - ref| / |ref| where |ref| >= 1e-3 x max |ref|"}}},
          {"absolute_below_floor",
           {{"elements", r.abs_count},
            {"max", r.abs_below_max},
            {"meaning", "|out - ref| where |ref| is below the floor"}}},
          {"max_abs_err", r.max_abs_err},
          {"max_rel_err", r.max_rel_err},
          {"mere", r.mere},
          {"mare", r.mare},
          {"error_balance", r.error_balance},
          {"cann_failures", r.cann_failures},
          {"fa_pass", r.fa_pass},
          {"special_values_pass", r.exact_special_pass},
          {"worst_index", r.worst_index},
          {"worst_out", r.worst_out},
          {"worst_ref", r.worst_ref}};
}

void add_tolerance_options(po::options_description& desc, op::BitTolerance& t) {
  auto option = desc.add_options();
  option("ulp", po::value(&t.ulp),
         "with a comparison: an element within N representable values (units for integers) of the expected one passes");
  option("atol", po::value(&t.atol),
         "with a comparison: an element within X of the expected value passes (either tolerance suffices; NaN matches "
         "only NaN)");
}

void check_tolerance(const po::variables_map& vm, const op::BitTolerance& t, bool comparing, const std::string& needs) {
  if (vm.count("ulp") && t.ulp < 0) throw InputError("--ulp " + std::to_string(t.ulp) + " must be 0 or more");
  if (vm.count("atol") && !(t.atol >= 0)) throw InputError("--atol " + std::to_string(t.atol) + " must be 0 or more");
  if ((vm.count("ulp") || vm.count("atol")) && !comparing)
    throw InputError("--ulp / --atol judge a comparison: they need " + needs);
}

std::optional<op::GroupView> output_view(const op::CaseFile& c, const std::string& output,
                                         const std::vector<int64_t>& shape) {
  if (c.op != "fused_infer_attention_score" || output != "attention_out") return std::nullopt;
  const std::string layout = c.attrs["input_layout"] ? c.attrs["input_layout"].as<std::string>() : "BSH";
  const int64_t n = c.attrs["num_heads"] ? c.attrs["num_heads"].as<int64_t>() : 1;
  if (layout == "BSH" && shape.size() == 3 && n > 0 && shape[2] % n == 0)
    return op::GroupView{{shape[0], shape[1], n, shape[2] / n}, {0, 2}, "(b, n) of BSH as (B, S, N, D)"};
  if ((layout == "BSND" || layout == "BNSD_BSND") && shape.size() == 4)
    return op::GroupView{shape, {0, 2}, "(b, n) of BSND"};
  return std::nullopt;  // BNSD: the leading (b, n) already
}

nlohmann::json bits_json(const op::BitCompare& r) {
  auto mm = [](const op::BitMismatch& m) {
    return nlohmann::json{{"index", m.index},
                          {"got", m.got},
                          {"expected", m.expect},
                          {"got_bits", m.got_bits},
                          {"expected_bits", m.expect_bits},
                          {"ulp", m.ulp}};
  };
  auto counts = [](const std::vector<op::IndexCount>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& g : v) a.push_back({{"index", g.key}, {"mismatches", g.count}});
    return a;
  };
  nlohmann::json j = {{"output", r.output},     {"dtype", op::elem_type_name(r.type)},
                      {"shape", r.shape},       {"match", r.match()},
                      {"elements", r.elements}, {"exact", r.exact}};
  if (!r.shape_error.empty()) j["error"] = r.shape_error;
  if (r.tolerance.any())
    j["tolerance"] = {{"ulp", r.tolerance.ulp}, {"atol", r.tolerance.atol}, {"beyond", r.beyond_tolerance}};
  if (r.has_mismatch) {
    j["first"] = mm(r.first);
    j["worst"] = mm(r.worst);
    for (const auto& [b, c] : r.ulp_histogram) j["ulp_histogram"][b] = c;
    j["groups"] = {{"leading_dims", r.group_rank},
                   {"with_mismatch", r.groups_with_mismatch},
                   {"total", r.groups_total},
                   {"top", counts(r.groups)},
                   {"by", r.group_label.empty() ? "leading indices" : r.group_label}};
    j["rows"] = {{"with_mismatch", r.rows_with_mismatch}, {"total", r.rows_total}, {"top", counts(r.rows)}};
  }
  return j;
}

}  // namespace npusim::cli
