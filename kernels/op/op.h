#pragma once
// The operator interface. Each op declares its parameters and tiling keys, validates a case, chooses its tiling
// from the shapes and the hardware config (capacities, unit shapes, core counts -- never rates), lays its tensors
// out in GM, builds the launch, and computes its fp64 reference. Ops register themselves (registry.h).
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "kernels/accuracy/accuracy.h"
#include "kernels/host/case_file.h"
#include "kernels/host/host_tensor.h"
#include "kernels/op/tiling.h"
#include "sim/machine/machine.h"

namespace npusim::op {

// An attribute's default as the readers use it (params.h attr_int, ...): of the kind's type, or none (a required
// attribute, or one whose absence the op handles itself: attr_float_if / attr_string_if).
using ParamValue = std::variant<std::monostate, int64_t, double, bool, std::string>;

struct ParamSpec {
  std::string name;
  std::string kind;  // int | float | bool | string | int_list (attrs) | tensor | tensor_list (inputs)
  bool required = false;
  // Shown by `npusim ops`. With a typed default it starts with that value's text (a note may follow, as in
  // "0 (= num_heads)"); tests/op/test_param_specs.cpp holds every op to it.
  std::string default_text;
  std::string doc;
  ParamValue value{};
  bool is_tensor() const { return kind == "tensor" || kind == "tensor_list"; }
};

struct OutputSpec {
  std::string name;  // file stem of the .npy (attention_out, softmax_lse, c, ...)
  ElemType type;
  std::vector<int64_t> shape;
  std::string gm_name;  // GM allocation holding it
};

// Everything a prepared case needs to run and be reported.
struct Prepared {
  std::vector<std::pair<std::string, int64_t>> tiling;  // every tiling value used, in declaration order
  // Tiling values the kernel lowered where the problem leaves less room (key -> what was asked and used), e.g.
  // kv_splits above a batch's score blocks; report.json `tiling_clamped`.
  std::map<std::string, std::string> clamped;
  sim::LaunchSpec launch;
  std::vector<OutputSpec> outputs;
  uint64_t flops = 0;                  // algorithmic
  uint64_t min_gm_bytes = 0;           // inputs read once + outputs written once (memory roofline)
  uint64_t executed_flops_bound = 0;   // flops the cube must execute (compute roofline)
  int cores = 0;                       // AI cores used
  double macs_per_cycle_per_core = 0;  // cube rate for this case's input type (compute roofline)
};

struct Reference {
  std::string output;
  std::vector<double> ref64, naive;
  ElemType working;
  int64_t reduction_len;
  bool gate_fa_rule = true;
  Tolerance tolerance;  // of the per-element rules (kernels/accuracy/accuracy.h)
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
  virtual const TilingSpace& tiling_space() const = 0;
  // Validates the case, chooses the tiling (case `tiling:` overrides win), allocates and fills GM and builds
  // the launch. Throws CaseError (exit 2) naming the parameter / tiling key, the value and the rule.
  virtual Prepared prepare(const CaseFile& c, sim::Machine& m) const = 0;
  virtual std::vector<Reference> reference(const CaseFile& c) const = 0;
};

}  // namespace npusim::op
