#pragma once
// Running the FIA op on the simulated chip from a case file, shared by the kernel-vs-golden suites
// (test_fia_kernel.cpp: prompt, test_fia_decode.cpp: decode): one run, the golden's view of an AttnCase's
// tensors, a bit-exact comparison, and runs in child processes (a test that needs several runs forks one child
// per run, so a fault or crash in one ends only its child).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "kernels/accuracy/accuracy.h"
#include "kernels/attention/attn_data.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/host/case_file.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/op.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tests/golden/attention_golden.h"
#include "tests/op/attention_test_support.h"
#include "tests/op/case_test_support.h"
#include "tests/op/fia_case_writer.h"
#include "tests/support/bits.h"

namespace npusim::op::fiatest {

struct KernelRun {
  HostTensor out, lse;
  uint64_t cycles = 0;
};

// Loads the case, prepares and launches the op on an ascend910b2; outputs are read back unless timing mode.
inline KernelRun run(const std::string& path, sim::SimMode mode, CaseFile* loaded = nullptr) {
  const CaseFile c = load_case(path, {}, mode != sim::SimMode::Timing);
  const Op& op = find_op("fused_infer_attention_score");
  sim::Machine m(sim::load_hw("ascend910b2"), mode);
  const Prepared prep = op.prepare(c, m);
  const auto r = m.launch(prep.launch);
  EXPECT_TRUE(r.ok()) << (r.faults.empty() ? "" : r.faults[0].message);
  EXPECT_TRUE(r.notes.empty()) << (r.notes.empty() ? "" : r.notes[0].message);  // no barrier that orders nothing
  KernelRun out;
  out.cycles = r.cycles;
  if (mode != sim::SimMode::Timing) {
    out.out = read_output(m, prep.outputs[0]);
    if (prep.outputs.size() > 1) out.lse = read_output(m, prep.outputs[1]);
  }
  if (loaded) *loaded = c;
  return out;
}

// The case's tensors as the golden / AttnData see them (absent optional inputs stay null).
inline attn::AttnTensors tensors(const attntest::AttnCase& c) {
  attn::AttnTensors t;
  t.query = &c.q;
  for (const HostTensor& x : c.k) t.key.push_back(&x);
  for (const HostTensor& x : c.v) t.value.push_back(&x);
  if (c.p.pse) t.pse_shift = &c.pse;
  if (c.p.mask != attn::MaskKind::None) t.atten_mask = &c.mask;
  if (c.p.kv == attn::KvStorage::PagedBsH || c.p.kv == attn::KvStorage::PagedNBsD) t.block_table = &c.bt;
  if (c.p.prefix) t.key_prefix = &c.kp, t.value_prefix = &c.vp;
  if (c.p.post_quant.on) t.quant_scale2 = &c.qs2;
  if (c.p.post_quant.offset) t.quant_offset2 = &c.qo2;
  c.set_antiquant(t);
  return t;
}

using test::expect_same_bits;  // tests/support/bits.h

// A named case of a parameterised kernel suite: its problem and tensors, case-file extras, and whether the plan must
// split some KV (flash-decoding partials and combine).
struct KernelCase {
  std::string name;
  std::function<attntest::AttnCase()> make;
  attntest::CaseExtras extras;
  bool want_fd = false;
};
inline void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.name; }

// The case written as a case file (scratch folder), run in full mode on an ascend910b2 and parsed back.
struct CaseRun {
  attntest::AttnCase ac;
  CaseFile c;
  KernelRun k;
};

inline CaseRun run_case(const KernelCase& kc) {
  CaseRun r;
  r.ac = kc.make();
  const std::string path = attntest::write_fia_case(casetest::scratch_dir(), r.ac, kc.extras);
  r.k = run(path, sim::SimMode::Full, &r.c);
  return r;
}

// One run in a child process, which sends back the output bits, the lse bits and the cycle count (8 bytes,
// little endian, last).
// The plan the op chose for this case (case tiling overrides included): the golden follows its tiling.
inline attn::Plan plan_of(const CaseFile& c, const attn::AttnProblem& p) {
  const sim::HwConfig hw = sim::load_hw("ascend910b2");
  Tiling t(fia::fia_tiling_space(), c, hw);
  return fia::make_fia_plan(p, hw, t);
}

// The kernel's outputs equal the golden model's bits and pass the accuracy policy against the op's references.
inline void expect_golden_and_accurate(const CaseFile& c, const attntest::AttnCase& ac, const attn::AttnProblem& p,
                                       const attn::Plan& plan, const KernelRun& k) {
  attn::AttnData d(p, tensors(ac));
  d.set_kv_values(attn::KvValues::Fp16);  // antiquantised K / V as the kernel dequantises them
  const golden::AttnGoldenOut g = golden::attention_golden(p, d, plan.t.s1_block, plan.t.s2_block, plan.t.kv_splits);
  expect_same_bits(k.out, g.out, "attention_out");
  if (p.lse) expect_same_bits(k.lse, g.lse, "softmax_lse");
  for (const auto& ref : find_op("fused_infer_attention_score").reference(c)) {
    const HostTensor& o = ref.output == "softmax_lse" ? k.lse : k.out;
    const auto acc = compare_accuracy(ref.output, o, ref.ref64, ref.naive, ref.working, ref.reduction_len,
                                      ref.gate_fa_rule, ref.unspecified, ref.tolerance);
    EXPECT_TRUE(acc.pass()) << format_report(acc);
  }
}

inline std::vector<uint8_t> run_in_child(const std::string& path, sim::SimMode mode) {
  int fd[2];
  if (pipe(fd) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const KernelRun r = run(path, mode);
    std::vector<uint8_t> msg(r.out.bytes);
    msg.insert(msg.end(), r.lse.bytes.begin(), r.lse.bytes.end());
    for (int i = 0; i < 8; ++i) msg.push_back(uint8_t(r.cycles >> (8 * i)));
    size_t done = 0;
    while (done < msg.size()) {
      const ssize_t w = write(fd[1], msg.data() + done, msg.size() - done);
      if (w <= 0) _exit(1);
      done += size_t(w);
    }
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  close(fd[1]);
  std::vector<uint8_t> got;
  uint8_t buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) got.insert(got.end(), buf, buf + n);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child run failed";
  return got;
}

inline uint64_t cycles_of(const std::vector<uint8_t>& m) {
  uint64_t c = 0;
  for (int i = 0; i < 8 && m.size() >= 8; ++i) c |= uint64_t(m[m.size() - 8 + size_t(i)]) << (8 * i);
  return c;
}

}  // namespace npusim::op::fiatest
