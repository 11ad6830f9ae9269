// FlashAttentionVarLenScoreV3 on the simulated chip (kernels/fa_varlen/): every feature case of configs/cases
// (and tiling variants of them) runs in full mode in its own process; each output equals the golden model's bits
// (tests/golden/attention_golden.h, following the op's tiling) and passes the accuracy policy against fp64.
// The special rows of spec §2.3 are checked by value as well.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "kernels/accuracy/accuracy.h"
#include "kernels/attention/attn_data.h"
#include "kernels/attention/attn_reference.h"
#include "kernels/fa_varlen/fa_op.h"
#include "kernels/fa_varlen/fa_params.h"
#include "kernels/fa_varlen/fa_tiling.h"
#include "kernels/host/case_file.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tests/golden/attention_golden.h"
#include "tests/op/fa_kernel_harness.h"
#include "tests/support/bits.h"

namespace npusim::op {
namespace {

using fatest::case_path;
using fatest::run_and_check;

// Each run is a child (a fault or crash ends only it), whose gtest failures print to the shared
// stdout and set its exit status.
void in_child(const std::string& name, const std::vector<std::string>& sets, int64_t min_special) {
  const pid_t pid = fork();
  if (pid == 0) {
    run_and_check(case_path(name), sets, min_special);
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << name << " failed (see the child's messages above)";
}

struct FaCase {
  const char* name;
  std::vector<std::string> sets;
  int64_t min_special = 0;  // special rows (empty KV, invalid) the case must contain
};

void PrintTo(const FaCase& c, std::ostream* os) {
  *os << c.name;
  for (const auto& x : c.sets) *os << " --set " << x;
}

class FaVarLenKernel : public ::testing::TestWithParam<FaCase> {};

TEST_P(FaVarLenKernel, OutputsAreTheGoldenBitsAndPassTheAccuracyPolicy) {
  in_child(GetParam().name, GetParam().sets, GetParam().min_special);
}

// Each feature case, and tilings that change the block structure: small s1 / s2 blocks (many units per row,
// several blocks per unit), the 1024-column S2 block, preload 2, one K / V slot, fewer cores. (With D + Dr =
// 192 a 1024-column K block does not fit L1: that override is an exit-2 tiling error, tested in the CLI suite.)
INSTANTIATE_TEST_SUITE_P(
    Cases, FaVarLenKernel,
    ::testing::Values(
        FaCase{"fa_varlen_rope_causal", {}}, FaCase{"fa_varlen_rope_s1024", {}},
        FaCase{"fa_varlen_rope_causal", {"tiling.s1_block=32", "tiling.s2_block=128", "tiling.block_dim=5"}},
        FaCase{"fa_varlen_f16_d192", {}}, FaCase{"fa_varlen_local_mask_band", {}},
        FaCase{"fa_varlen_local_mask_band", {"tiling.s1_block=48", "tiling.vec_rows=8", "tiling.preload=2"}},
        FaCase{"fa_varlen_global_mask_invalid_rows", {}, 4},
        FaCase{"fa_varlen_global_mask_invalid_rows", {"attrs.inner_precise=0"}}, FaCase{"fa_varlen_band_sparse4", {}},
        FaCase{"fa_varlen_band_sparse4", {"tiling.s2_block=128", "tiling.kv_buffers=1"}},
        FaCase{"fa_varlen_sparse7", {}}, FaCase{"fa_varlen_sparse8", {}}, FaCase{"fa_varlen_zero_length", {}, 4 * 40},
        FaCase{"fa_varlen_dv_lt_d", {}}, FaCase{"fa_varlen_dv_lt_d", {"tiling.s2_block=256", "tiling.block_dim=3"}},
        FaCase{"fa_varlen_rope_causal", {"tiling.s2_block=1024", "tiling.s1_block=64", "tiling.kv_buffers=1"}}),
    [](const auto& info) {
      std::string s = std::string(info.param.name) + "_" + std::to_string(info.index);
      for (char& ch : s)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return s;
    });

}  // namespace
}  // namespace npusim::op
