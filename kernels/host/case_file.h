#pragma once
// Operator case files (design.md "Case file"): op name, attrs, inputs (file or generated), tiling overrides.
// --set attrs.X=V / tiling.X=V apply on top (hw.X is handled by the hardware config loader).
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

struct InitSpec {
  std::string dist = "normal";  // normal | uniform | zeros | ones | bernoulli | triu | permutation
  double mean = 0, std = 1, low = -1, high = 1;
  double p = 0.5;  // bernoulli: probability of a 1
  uint64_t seed = 0;
};

struct TensorEntry {
  std::string name;
  ElemType dtype = ElemType::F16;
  std::vector<int64_t> shape;
  std::string file;  // resolved path, empty when generated
  InitSpec init;
  HostTensor data;  // filled by load_case (file or generator)
};

struct CaseFile {
  std::string path, name;  // name = file stem
  std::string op;
  YAML::Node attrs;                                        // map (possibly empty)
  std::map<std::string, std::vector<TensorEntry>> inputs;  // a list for tensor-list parameters
  YAML::Node tiling;                                       // map (possibly empty)
  std::set<std::string> list_inputs;          // parameters given as a YAML list (a list of one differs from a tensor)
  std::map<std::string, std::string> set_by;  // "attrs.K" / "tiling.K" -> the --set that gave it
  std::string set_origin = "--set";           // how messages name a set: "--set 'K=V'", "argument 'K=V'" (Python)
  bool tensor_is_list(const std::string& n) const;
  // Where a value of attrs / tiling came from, for messages: "--set 'attrs.K=V'" or "FILE:LINE".
  std::string where(const std::string& section_key, const YAML::Node& n) const;
};

// Loads and resolves a case: YAML syntax errors and missing files name file and line; tensors are read
// (relative to the case file) or generated deterministically; `sets` are "attrs.K=V" / "tiling.K=V".
// Throws cli-level InputError (npusim::op::CaseError) on bad input.
CaseFile load_case(const std::string& path, const std::vector<std::string>& sets);
// As above; with fill_generated = false generated tensors keep an empty `data` (shape, dtype and init are
// set; call generate() for the few a timing-mode run needs) so huge shapes cost no host memory.
CaseFile load_case(const std::string& path, const std::vector<std::string>& sets, bool fill_generated);

// Applies "attrs.K=V" / "tiling.K=V" settings (V parsed as YAML, as --set does) to a case built in memory, e.g.
// by the Python module from its arguments; messages name each as `cf.set_origin 'K=V'`.
void apply_sets(CaseFile& cf, const std::vector<std::string>& sets);

class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Deterministic generator (same bits on every host: IEEE operations only, no libm).
HostTensor generate(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init);
// The rules a distribution puts on dtype and shape (triu: rank >= 2; permutation: an integer dtype holding
// numel - 1); throws CaseError with the rule. load_case calls it for every generated tensor, even in timing mode.
void check_generator(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init);

}  // namespace npusim::op
