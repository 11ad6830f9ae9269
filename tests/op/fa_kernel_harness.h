#pragma once
// Running FlashAttentionVarLenScoreV3 on the simulated chip from a case file and checking it, shared by the
// feature-case suite (test_fa_varlen.cpp) and the random property tests (test_attention_properties.cpp): each
// output equals the golden model's bits (following the op's tiling) and passes the accuracy policy against fp64;
// the special rows of spec FA V3 §2.3 are checked by value as well.
#include <gtest/gtest.h>

#include <cfloat>
#include <string>
#include <vector>

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
#include "tests/support/bits.h"

namespace npusim::op::fatest {

inline std::string case_path(const std::string& name) {
  return std::string(NPUSIM_CONFIG_DIR) + "/cases/" + name + ".yaml";
}

// Spec §2.3 by value: rows of a batch without KV are 0 / 0 / 0; invalid rows (inner_precise 2, every column
// masked) are 0 / -FLT_MAX / +FLT_MAX.
inline int64_t expect_special_rows(const attn::AttnProblem& p, const attn::AttnData& d, const HostTensor& out,
                                   const HostTensor& mx, const HostTensor& sm) {
  std::vector<int64_t> cols;
  int64_t checked = 0;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t i = 0; i < p.act_q[size_t(b)]; ++i) {
        const bool empty_kv = p.act_kv[size_t(b)] == 0;
        const bool invalid = !empty_kv && attn::row_kind(p, d, b, i, cols) == attn::RowKind::Empty;
        if (!empty_kv && !invalid) continue;
        const int64_t s = d.stat_index(b, n, i);
        for (int r = 0; r < 8; ++r) {
          EXPECT_EQ(mx.get(s + r), empty_kv ? 0.0 : -double(FLT_MAX)) << "softmax_max of batch " << b << " row " << i;
          EXPECT_EQ(sm.get(s + r), empty_kv ? 0.0 : double(FLT_MAX)) << "softmax_sum of batch " << b << " row " << i;
        }
        for (int64_t dv = 0; dv < p.Dv; ++dv) {
          const int64_t o = d.out_index(b, n, p.q_start(b) + i, dv);
          EXPECT_EQ(out.get(o), 0.0) << "attention_out of batch " << b << " row " << i;
          EXPECT_FALSE(std::signbit(out.get(o))) << "attention_out of batch " << b << " row " << i << " is -0";
        }
        ++checked;
      }
  return checked;
}

// One full-mode run of a case with `sets` overrides, then golden bits, accuracy and special rows.
// `min_special`: the case must contain at least this many special rows (so the rule above is exercised).
inline void run_and_check(const std::string& path, const std::vector<std::string>& sets, int64_t min_special) {
  const CaseFile c = load_case(path, sets, true);
  const Op& op = find_op("flash_attention_var_len_score");
  sim::Machine m(sim::load_hw("ascend910b2"), sim::SimMode::Full);
  const Prepared prep = op.prepare(c, m);
  const auto r = m.launch(prep.launch);
  ASSERT_TRUE(r.ok()) << (r.faults.empty() ? "" : r.faults[0].message);
  EXPECT_TRUE(r.notes.empty()) << (r.notes.empty() ? "" : r.notes[0].message);  // no barrier that orders nothing
  ASSERT_EQ(prep.outputs.size(), 3u);
  const HostTensor out = read_output(m, prep.outputs[0]), mx = read_output(m, prep.outputs[1]),
                   sm = read_output(m, prep.outputs[2]);
  const attn::AttnProblem p = parse_fa_varlen(c);
  const sim::HwConfig hw = sim::load_hw("ascend910b2");
  Tiling t(fa::fa_tiling_space(), c, hw);
  const attn::Plan plan = fa::make_fa_plan(p, hw, t);
  const attn::AttnData d(p, fa_varlen_tensors(c));
  const golden::AttnGoldenOut g = golden::attention_golden(p, d, plan.t.s1_block, plan.t.s2_block);
  test::expect_same_bits(out, g.out, "attention_out");
  test::expect_same_bits(mx, g.max, "softmax_max");
  test::expect_same_bits(sm, g.sum, "softmax_sum");
  for (const auto& ref : op.reference(c)) {
    const HostTensor& o = ref.output == "softmax_max" ? mx : ref.output == "softmax_sum" ? sm : out;
    const auto acc = compare_accuracy(ref.output, o, ref.ref64, ref.naive, ref.working, ref.reduction_len,
                                      ref.gate_fa_rule, ref.unspecified, ref.tolerance);
    EXPECT_TRUE(acc.pass()) << format_report(acc);
  }
  EXPECT_GE(expect_special_rows(p, d, out, mx, sm), min_special);
}

}  // namespace npusim::op::fatest
