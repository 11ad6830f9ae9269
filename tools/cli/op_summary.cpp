#include "tools/cli/op_summary.h"

#include <cstdio>

namespace npusim::cli {

namespace {
using json = nlohmann::json;

// msprof's data-type names (geDataTypeMap in msprof's number_mapping.cpp: the older types without a prefix).
std::string msprof_dtype(const std::string& t) {
  static const std::map<std::string, std::string> names = {
      {"float16", "FLOAT16"}, {"float32", "FLOAT"}, {"bfloat16", "DT_BF16"}, {"int8", "INT8"},
      {"uint8", "UINT8"},     {"int32", "INT32"},   {"int64", "INT64"},      {"bool", "BOOL"},
      {"int4", "DT_INT4"},    {"uint16", "UINT16"}, {"uint64", "UINT64"}};
  const auto it = names.find(t);
  return it == names.end() ? t : it->second;
}

// "d,d;d,d" with empty items for absent tensors, wrapped in literal quotes as msprof writes it; N/A when none.
std::string shapes_text(const std::vector<ProfiledTensor>& ts) {
  if (ts.empty()) return "N/A";
  std::string s = "\"";
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) s += ';';
    for (size_t d = 0; d < ts[i].shape.size(); ++d) {
      if (d) s += ',';
      s += std::to_string(ts[i].shape[d]);
    }
  }
  s += '"';
  return s;
}

std::string joined(const std::vector<ProfiledTensor>& ts, bool formats) {
  if (ts.empty()) return "N/A";
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) s += ';';
    if (!ts[i].dtype.empty()) s += formats ? std::string("ND") : msprof_dtype(ts[i].dtype);
  }
  return s;
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

struct KindTotals {
  int cores = 0;
  uint64_t total_cycles = 0;             // sum over the kind's cores of end - start (msprof: summed over blocks)
  std::map<std::string, uint64_t> busy;  // per pipe name
};

std::map<std::string, KindTotals> kinds_of(const json& report) {
  std::map<std::string, KindTotals> k;
  for (const auto& [name, core] : report.at("pipe_summary").at("per_core").items()) {
    const std::string kind = name.rfind("aiv", 0) == 0 ? "aiv" : "aic";  // a coupled core counts as an AI Core
    KindTotals& t = k[kind];
    ++t.cores;
    t.total_cycles += core.value("end_cycle", uint64_t{0}) -
                      std::min(core.value("end_cycle", uint64_t{0}), core.value("start_cycle", uint64_t{0}));
    for (const auto& [pipe, stats] : core.items())
      if (stats.is_object() && stats.contains("busy_cycles")) t.busy[pipe] += stats["busy_cycles"].get<uint64_t>();
  }
  return k;
}

// aicore_time / aiv_time and the pipe columns of one core kind (msprof: time = total / (freq x blocks) per wave,
// X_ratio = X cycles / total cycles, X_time = time x X_ratio).
void kind_columns(std::map<std::string, std::string>& row, const std::string& prefix, const std::string& time_col,
                  const KindTotals* t, double mhz, const std::vector<std::pair<std::string, std::string>>& pipes) {
  const double time = t && t->cores ? double(t->total_cycles) / (mhz * t->cores) : 0;
  row[time_col] = num(time);
  row[prefix + "total_cycles"] = std::to_string(t ? t->total_cycles : 0);
  for (const auto& [col, pipe] : pipes) {
    const double r =
        t && t->total_cycles ? double(t->busy.count(pipe) ? t->busy.at(pipe) : 0) / double(t->total_cycles) : 0;
    row[prefix + col + "_time(us)"] = num(time * r);
    row[prefix + col + "_ratio"] = num(r);
  }
  row[prefix + "icache_miss_rate"] = "N/A";  // not modelled
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

const std::vector<std::string>& op_summary_columns() {
  static const std::vector<std::string> cols = {"Device_id",
                                                "Model ID",
                                                "Task ID",
                                                "Stream ID",
                                                "Op Name",
                                                "OP Type",
                                                "OP State",
                                                "Task Type",
                                                "Task Start Time(us)",
                                                "Task Duration(us)",
                                                "Task Wait Time(us)",
                                                "Block Dim",
                                                "Mix Block Dim",
                                                "HF32 Eligible",
                                                "Input Shapes",
                                                "Input Data Types",
                                                "Input Formats",
                                                "Output Shapes",
                                                "Output Data Types",
                                                "Output Formats",
                                                "Context ID",
                                                "aicore_time(us)",
                                                "aic_total_cycles",
                                                "aic_mac_time(us)",
                                                "aic_mac_ratio",
                                                "aic_scalar_time(us)",
                                                "aic_scalar_ratio",
                                                "aic_mte1_time(us)",
                                                "aic_mte1_ratio",
                                                "aic_mte2_time(us)",
                                                "aic_mte2_ratio",
                                                "aic_fixpipe_time(us)",
                                                "aic_fixpipe_ratio",
                                                "aic_icache_miss_rate",
                                                "aiv_time(us)",
                                                "aiv_total_cycles",
                                                "aiv_vec_time(us)",
                                                "aiv_vec_ratio",
                                                "aiv_scalar_time(us)",
                                                "aiv_scalar_ratio",
                                                "aiv_mte2_time(us)",
                                                "aiv_mte2_ratio",
                                                "aiv_mte3_time(us)",
                                                "aiv_mte3_ratio",
                                                "aiv_icache_miss_rate",
                                                "cube_utilization(%)"};
  return cols;
}

std::string device_op_type(const std::string& op) {
  // aclnnMm runs MatMulV2 (msprof-analyze's 910B kernel_details sample); aclnnFlashAttentionVarLenScoreV3 is a
  // TND mode of the FlashAttentionScore kernel (hicann/ops-transformer).
  static const std::map<std::string, std::string> types = {{"matmul", "MatMulV2"},
                                                           {"fused_infer_attention_score", "FusedInferAttentionScore"},
                                                           {"flash_attention_var_len_score", "FlashAttentionScore"}};
  const auto it = types.find(op);
  return it == types.end() ? op : it->second;
}

std::map<std::string, std::string> op_summary_row(const json& report, double mhz, int ai_cores, const ProfiledOp& op) {
  std::map<std::string, std::string> row;
  const auto kinds = kinds_of(report);
  const KindTotals* aic = kinds.count("aic") ? &kinds.at("aic") : nullptr;
  const KindTotals* aiv = kinds.count("aiv") ? &kinds.at("aiv") : nullptr;
  const bool mix = aic && aiv;
  const std::string task_type = mix ? "MIX_AIC" : aic ? "AI_CORE" : "AI_VECTOR_CORE";
  const double duration = report.value("time_us", 0.0);  // first core start to last core end
  row["Device_id"] = "0", row["Model ID"] = "4294967295", row["Task ID"] = "0", row["Stream ID"] = "0";
  row["Op Name"] = op.name, row["OP Type"] = op.type, row["OP State"] = "static", row["Task Type"] = task_type;
  row["Task Start Time(us)"] = "0.000\t";  // msprof appends a tab (its spreadsheet guard)
  row["Task Duration(us)"] = num(duration);
  row["Task Wait Time(us)"] = "0";
  row["Block Dim"] = std::to_string(aic ? aic->cores : aiv ? aiv->cores : 0);
  row["Mix Block Dim"] = std::to_string(mix ? aiv->cores : 0);
  row["HF32 Eligible"] = "NO";
  row["Input Shapes"] = shapes_text(op.inputs), row["Input Data Types"] = joined(op.inputs, false);
  row["Input Formats"] = joined(op.inputs, true);
  row["Output Shapes"] = shapes_text(op.outputs), row["Output Data Types"] = joined(op.outputs, false);
  row["Output Formats"] = joined(op.outputs, true);
  row["Context ID"] = mix ? "0" : "N/A";
  kind_columns(row, "aic_", "aicore_time(us)", aic, mhz,
               {{"mac", "m"}, {"scalar", "s"}, {"mte1", "mte1"}, {"mte2", "mte2"}, {"fixpipe", "fix"}});
  kind_columns(row, "aiv_", "aiv_time(us)", aiv, mhz,
               {{"vec", "v"}, {"scalar", "s"}, {"mte2", "mte2"}, {"mte3", "mte3"}});
  // msprof: aic_total_cycles / (freq x the chip's AI Cores x Task Duration): how busy all AI Cores were.
  row["cube_utilization(%)"] =
      aic && duration > 0 ? num(double(aic->total_cycles) / (mhz * ai_cores * duration) * 100) : "0";
  return row;
}

std::string op_summary_csv(const std::map<std::string, std::string>& row) {
  std::string head, line;
  for (const auto& c : op_summary_columns()) {
    if (&c != &op_summary_columns().front()) head += ',', line += ',';
    head += csv_field(c);
    const auto it = row.find(c);
    line += csv_field(it == row.end() ? "N/A" : it->second);
  }
  return head + "\n" + line + "\n";
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = rows.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      rows.emplace_back(1);
    } else {
      field += c;
    }
  }
  while (!rows.empty() && rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();  // trailing newline(s)
  return rows;
}

}  // namespace npusim::cli
