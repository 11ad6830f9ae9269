#pragma once
// msprof's op_summary.csv for a simulated run (issue 39 item 5), so msprof scripts and MindStudio Insight-style
// analyses read simulated runs, and `npusim compare-profile` lines a device profile row up with a run.
// Columns, order and formulas of msprof for Atlas A2 with the default PipeUtilization metrics (Ascend/msprof
// op_summary_assembler.cpp, ai_core_config.py, metric_processor.cpp): tools/README.md "op_summary.csv".
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::cli {

// One operator input or output as msprof lists it: an absent optional input is an empty item.
struct ProfiledTensor {
  std::vector<int64_t> shape;
  std::string dtype;  // npusim's name (float16, ...); empty when absent
};

struct ProfiledOp {
  std::string name, type;  // Op Name (the case), OP Type (the device's type name of the op)
  std::vector<ProfiledTensor> inputs, outputs;
};

// msprof's 46 op_summary columns (A2, PipeUtilization), in order.
const std::vector<std::string>& op_summary_columns();
// The row of a run, by column name, from its report.json (pipe_summary per core, time_us), the core clock and
// the chip's AI Core count (cube_utilization's denominator).
std::map<std::string, std::string> op_summary_row(const nlohmann::json& report, double clock_mhz, int ai_cores,
                                                  const ProfiledOp& op);
// The header and the row as CSV text (RFC 4180 quoting, as msprof writes it).
std::string op_summary_csv(const std::map<std::string, std::string>& row);
// The device's OP Type of an npusim op (MatMulV2, FusedInferAttentionScore, FlashAttentionScore).
std::string device_op_type(const std::string& op);

// CSV records (RFC 4180: quoted fields, doubled quotes, CRLF or LF); a record per line.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace npusim::cli
