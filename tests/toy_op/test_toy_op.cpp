// The toy op end to end: it registered itself from its own folder (nothing central lists it), its declared
// tiling key is validated from the declaration, and its output is exact.
#include <gtest/gtest.h>

#include "kernels/op/gm_inputs.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tests/support/case_writer.h"
#include "tests/support/scratch.h"

namespace npusim::op {
namespace {

TEST(ToyOp, RegistersItselfAndIsListedWithTheOthers) {
  const Op& op = find_op("toy_scale");
  EXPECT_EQ(op.tiling_space().valid_names(), "chunk, block_dim");
  bool listed = false;
  for (const auto& o : all_ops()) listed |= o->name() == "toy_scale";
  EXPECT_TRUE(listed);
}

TEST(ToyOp, ScalesEveryElementExactlyAcrossChunksAndCores) {
  const std::string path = test::CaseWriter(test::scratch_dir(), "toy_scale")
                               .attr("alpha", 0.5)
                               .generated("x", {5000}, "float32", "dist: normal, std: 3.0, seed: 7")
                               .tiling("chunk: 512, block_dim: 3")
                               .write();
  const CaseFile c = load_case(path, {});
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Full);
  const Prepared prep = find_op("toy_scale").prepare(c, m);
  EXPECT_EQ(prep.tiling, (std::vector<std::pair<std::string, int64_t>>{{"chunk", 512}, {"block_dim", 3}}));
  const auto r = m.launch(prep.launch);
  ASSERT_TRUE(r.ok()) << r.faults[0].message;
  EXPECT_TRUE(r.notes.empty()) << r.notes[0].message;  // (no pipe_barrier that orders nothing)
  const HostTensor y = read_output(m, prep.outputs[0]);
  const HostTensor& x = c.inputs.at("x")[0].data;
  for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(y.get(i), 0.5 * x.get(i)) << i;  // exact: a power of two
}

TEST(ToyOp, ATilingValueOutsideTheDeclarationIsRejected) {
  const std::string path =
      test::CaseWriter(test::scratch_dir(), "toy_scale").generated("x", {100}, "float16", "dist: ones").write();
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Full);
  try {
    find_op("toy_scale").prepare(load_case(path, {"tiling.chunk=100"}), m);
    FAIL() << "accepted";
  } catch (const CaseError& e) {
    EXPECT_STREQ(e.what(), "tiling.chunk = 100 must be in [128, 16320], a multiple of 128");
  }
}

}  // namespace
}  // namespace npusim::op
