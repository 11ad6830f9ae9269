// `split`: ai_cores AICs (global indices 0..A-1) and aiv_per_core AIVs per AI Core (A + i * aiv_per_core + k), the
// Atlas A2 (910B) arrangement: the AIC and its AIVs share data through GM and synchronise by cross-core flags.
#include "sim/machine/topology.h"
#include "sim/registry.h"

namespace npusim::sim {

extern "C" const int npusim_impl_anchor_topology_split = 0;  // linked in by sim/CMakeLists.txt (-u)

namespace {
class SplitTopology final : public TopologyModel {
 public:
  explicit SplitTopology(const HwConfig& hw)
      : name_(hw.name), aics_(static_cast<int>(hw.chip.ai_cores)), per_(static_cast<int>(hw.chip.aiv_per_core)) {}

  std::vector<CoreSlot> cores() const override {
    std::vector<CoreSlot> v;
    for (int i = 0; i < aics_; ++i) v.push_back({isa::CoreKind::Cube, i, 0, "aic" + std::to_string(i)});
    for (int j = 0; j < aics_ * per_; ++j)
      v.push_back({isa::CoreKind::Vector, j / per_, j % per_, "aiv" + std::to_string(j)});
    return v;
  }

  // CubeOnly: AIC i is block i. VectorOnly: AIV j is block j. Mix1_2: AIC i and its AIVs are block i, the AIVs
  // sub-blocks 0..aiv_per_core-1. Blocks beyond the cores follow on the same cores (block_stride).
  std::vector<LaunchPlacement> place(const LaunchSpec& spec) const override {
    const int n = check_block_dim(spec, spec.mix == MixMode::VectorOnly ? aics_ * per_ : aics_, name_);
    const int stride = block_stride(spec, n);
    const bool want_cube = spec.mix != MixMode::VectorOnly, want_vec = spec.mix != MixMode::CubeOnly;
    if (want_cube && !spec.cube)
      throw KernelInputError("launch '" + spec.name + "': the mix mode needs a cube program");
    if (want_vec && !spec.vector)
      throw KernelInputError("launch '" + spec.name + "': the mix mode needs a vector program");
    std::vector<LaunchPlacement> v;
    if (spec.mix == MixMode::VectorOnly) {
      for (int j = 0; j < n; ++j) v.push_back({aics_ + j, false, j, 0, stride});
      return v;
    }
    for (int i = 0; i < n; ++i) {
      v.push_back({i, true, i, 0, stride});
      if (want_vec)
        for (int k = 0; k < per_; ++k) v.push_back({aics_ + i * per_ + k, false, i, k, stride});
    }
    return v;
  }

  std::vector<int> vector_cores_of(int ai_core) const override {
    std::vector<int> v;
    for (int k = 0; k < per_; ++k) v.push_back(aics_ + ai_core * per_ + k);
    return v;
  }

  bool coupled_datapaths() const override { return false; }

 private:
  std::string name_;
  int aics_, per_;
};
}  // namespace

NPUSIM_REGISTER_IMPL(TopologyModel, "split", SplitTopology);

}  // namespace npusim::sim
