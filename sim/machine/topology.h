#pragma once
#include <algorithm>
// The core topology seam (sim/README.md "Implementations chosen by name"): which cores a chip has, which of them
// a launch runs with which program and block index, and which cores the AI-Core-local cross-core flags reach.
// Chosen by name from the `topology` key: `split` (topology_split.cpp: an AIC and aiv_per_core AIVs per AI Core,
// talking through GM) or `coupled` (topology_coupled.cpp: one core with the cube and vector units). Kernels still
// read the key itself (HwConfig::topology) to choose their dataflow.
#include <memory>
#include <string>
#include <vector>

#include "isa/instr/sync_rules.h"
#include "sim/config/hw_config.h"
#include "sim/machine/machine.h"

namespace npusim::sim {

// One core of the chip, at its global index.
struct CoreSlot {
  isa::CoreKind kind = isa::CoreKind::Cube;
  int ai_core = 0;   // the AI Core it belongs to
  int sub = 0;       // its index among that AI Core's vector cores (0 otherwise)
  std::string name;  // trace and report name: "aic0", "aiv3", "core0"
};

// One core a launch runs on.
struct LaunchPlacement {
  int core = 0;
  bool runs_cube = false;  // the launch's cube program (else its vector program)
  int block_idx = 0, sub_block = 0;
  // Blocks this core runs after its first, one after another: block_idx + stride, + 2 stride, ... below block_dim
  // (a launch of more blocks than cores runs in waves, as the device's block scheduler does). 0: one block.
  int block_stride = 0;
};

class TopologyModel {
 public:
  virtual ~TopologyModel() = default;
  // Every core of the chip in global index order.
  virtual std::vector<CoreSlot> cores() const = 0;
  // The cores of one launch, in start order; a KernelInputError names what the spec gets wrong.
  virtual std::vector<LaunchPlacement> place(const LaunchSpec& spec) const = 0;
  // The vector cores of an AI Core: the partners of cross_set modes 1 and 2 (empty: the topology has none).
  virtual std::vector<int> vector_cores_of(int ai_core) const = 0;
  // Whether a core reaches the vector unit's buffers directly (FixPipe to UB, UB to L1): the ISA's coupled paths.
  virtual bool coupled_datapaths() const = 0;
};

// The block-dim rule every topology applies: block_dim in [1, 65535]; returns the blocks placed at the start, at
// most `limit` (the cores of that kind on the chip named `chip`); each placed core runs the others in turn.
inline int check_block_dim(const LaunchSpec& spec, int limit, const std::string& chip) {
  constexpr int kMaxBlockDim = 65535;
  if (spec.block_dim < 1 || spec.block_dim > kMaxBlockDim)
    throw KernelInputError("launch '" + spec.name + "': block_dim = " + std::to_string(spec.block_dim) +
                           " must be in [1, " + std::to_string(kMaxBlockDim) + "] (" + chip + " runs " +
                           std::to_string(limit) + " at a time)");
  return std::min(spec.block_dim, limit);
}
// The stride of a placement's later blocks: 0 when every block has its own core.
inline int block_stride(const LaunchSpec& spec, int placed) { return spec.block_dim > placed ? placed : 0; }

// The key's value as a registry name.
std::string topology_name(Topology t);
std::unique_ptr<TopologyModel> make_topology(const HwConfig& hw);

}  // namespace npusim::sim
