#pragma once
// The pipe-cost seam: how long an instruction occupies its pipe and when its results land, for everything except
// the GM side of a transfer (the memory model's, memory_model.h). Implementations register under a name
// (sim/registry.h) and the config chooses one with `cost.impl` (configs/README.md); `class_rates` is the
// calibrated per-class model of cost.h. A co-design study can register another (e.g. a different vector unit)
// without touching the pipes.
#include <memory>

#include "isa/instr/instr.h"
#include "sim/config/hw_config.h"
#include "sim/machine/cost.h"

namespace npusim::sim {

class PipeCostModel {
 public:
  virtual ~PipeCostModel() = default;
  // An instruction that does not touch GM (vector, cube, MTE1, on-chip FixPipe / copies, scalar, sync). A pure
  // function of the instruction: the pipes memoise it per instruction (instr_memo.h).
  virtual PipeCost local(const isa::Instr& in) const = 0;
  // A GM-bound fixpipe's port rate in bytes per cycle (the memory model times the transfer at that rate).
  virtual double fixpipe_bytes_per_cycle(const isa::Fixpipe& f) const = 0;
};

// The implementation named by hw.cost.impl (ConfigError listing the valid names otherwise).
std::unique_ptr<PipeCostModel> make_cost_model(const HwConfig& hw);

}  // namespace npusim::sim
