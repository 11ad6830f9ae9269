#pragma once
// The op registry: each operator declares its parameters, validates a case, chooses its tiling from the
// shapes and the hardware config (capacities, unit shapes, core counts -- never rates), lays its tensors out
// in GM, builds the launch, reads its outputs back and computes its fp64 reference.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/op/case_file.h"
#include "kernels/op/host_tensor.h"
#include "sim/machine/machine.h"

namespace npusim::op {

struct ParamSpec {
  std::string name;
  std::string kind;          // int | float | bool | string | int_list (attrs) | tensor | tensor_list (inputs)
  bool required = false;
  std::string default_text;  // shown by `npusim ops`
  std::string doc;
};

struct OutputSpec {
  std::string name;          // file stem of the .npy (attention_out, softmax_lse, c, ...)
  ElemType type;
  std::vector<int64_t> shape;
  std::string gm_name;       // GM allocation holding it
};

// Everything a prepared case needs to run and be reported.
struct Prepared {
  std::vector<std::pair<std::string, int64_t>> tiling;  // every tiling value used, in a stable order
  sim::LaunchSpec launch;
  std::vector<OutputSpec> outputs;
  uint64_t flops = 0;                 // algorithmic
  uint64_t min_gm_bytes = 0;          // inputs read once + outputs written once (memory roofline)
  uint64_t executed_flops_bound = 0;  // flops the cube must execute (compute roofline)
  int cores = 0;                      // AI cores used
  double macs_per_cycle_per_core = 0; // cube rate for this case's input type (compute roofline)
};

struct Reference {
  std::string output;
  std::vector<double> ref64, naive;
  ElemType working;
  int64_t reduction_len;
  bool gate_fa_rule = true;
  // Elements whose value the operator leaves unspecified (nonzero = skipped by the accuracy check), e.g. a fully
  // masked attention row without invalid-row correction. Empty = every element is checked.
  std::vector<uint8_t> unspecified;
};

class Op {
 public:
  virtual ~Op() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<ParamSpec> params() const = 0;
  // Validates the case, chooses the tiling (case `tiling:` overrides win), allocates and fills GM and builds
  // the launch. Throws CaseError (exit 2) naming the parameter / tiling key, the value and the rule.
  virtual Prepared prepare(const CaseFile& c, sim::Machine& m) const = 0;
  virtual std::vector<Reference> reference(const CaseFile& c) const = 0;
};

// Registered ops; find_op throws CaseError listing the valid names.
const std::vector<std::unique_ptr<Op>>& all_ops();
const Op& find_op(const std::string& name);
// Rejects attrs / inputs not declared by the op and missing required ones (CaseError listing valid names).
void check_param_names(const Op& op, const CaseFile& c);
// Reads an output from GM into a host tensor.
HostTensor read_output(sim::Machine& m, const OutputSpec& o);
// Typed attribute access with defaults and errors naming the attribute.
int64_t attr_int(const CaseFile& c, const std::string& name, int64_t def);
double attr_float(const CaseFile& c, const std::string& name, double def, bool* given = nullptr);
bool attr_bool(const CaseFile& c, const std::string& name, bool def);
std::string attr_string(const CaseFile& c, const std::string& name, const std::string& def);
// An int_list attribute (a YAML list of integers; a single integer reads as a list of one). Absent: empty, and
// *given (if passed) is false -- an explicit [] gives an empty list with *given true.
std::vector<int64_t> attr_int_list(const CaseFile& c, const std::string& name, bool* given = nullptr);
// A tiling value: the case's override if present (validated against [lo, hi]), else `chosen`.
int64_t tiling_value(const CaseFile& c, const std::string& key, int64_t chosen, int64_t lo, int64_t hi);

}  // namespace npusim::op
