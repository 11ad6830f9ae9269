// `coupled`: ai_cores cores (core0..), each with cube and vector units and the paths between their buffers
// (310P class). Every mix mode runs the cube program on block_dim cores; there are no separate vector cores,
// so the AI-Core-local cross-core flag modes (1, 2) have no partners.
#include "sim/machine/topology.h"
#include "sim/registry.h"

namespace npusim::sim {

extern "C" const int npusim_impl_anchor_topology_coupled = 0;  // linked in by sim/CMakeLists.txt (-u)

namespace {
class CoupledTopology final : public TopologyModel {
 public:
  explicit CoupledTopology(const HwConfig& hw) : name_(hw.name), cores_(static_cast<int>(hw.chip.ai_cores)) {}

  std::vector<CoreSlot> cores() const override {
    std::vector<CoreSlot> v;
    for (int i = 0; i < cores_; ++i) v.push_back({isa::CoreKind::Coupled, i, 0, "core" + std::to_string(i)});
    return v;
  }

  std::vector<LaunchPlacement> place(const LaunchSpec& spec) const override {
    const int n = check_block_dim(spec, cores_, name_);
    if (!spec.cube)
      throw KernelInputError("launch '" + spec.name + "': a coupled core runs the cube program, which is empty");
    std::vector<LaunchPlacement> v;
    for (int i = 0; i < n; ++i) v.push_back({i, true, i, 0, block_stride(spec, n)});
    return v;
  }

  std::vector<int> vector_cores_of(int) const override { return {}; }
  bool coupled_datapaths() const override { return true; }

 private:
  std::string name_;
  int cores_;
};
}  // namespace

NPUSIM_REGISTER_IMPL(TopologyModel, "coupled", CoupledTopology);

}  // namespace npusim::sim
