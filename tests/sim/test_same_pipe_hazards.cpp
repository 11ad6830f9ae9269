// Same-pipe hazards (issue 34; isa/README.md "Same-pipe ordering"): two instructions of one pipe where the second
// reads or overwrites what the first touched, with no pipe_barrier on that pipe between them, are a `hazard`
// fault naming both where the pipe's rule (hazards.<pipe>) says the hardware does not order them. Each planted
// hazard has a legal twin (the barrier added, or the ordering the hardware gives) that runs clean; the table is in
// tests/README.md "Planted faults".
#include <gtest/gtest.h>

#include <regex>

#include "tests/sim/machine_kernels.h"

namespace npusim::sim::testing {
namespace {

struct SamePipe {
  const char* name;
  MixMode mix;
  Pipe pipe;
  // Issues the first instruction, then (when `barrier`) pipe_barrier(pipe), then the dependent one.
  void (*kernel)(CoreCtx& c, bool barrier);
  std::vector<std::string> named;  // words the hazard report must contain
};

const Addr kX{Buf::UB, 0}, kY{Buf::UB, 0x10000}, kZ{Buf::UB, 0x20000};
void barrier_if(CoreCtx& c, bool b, Pipe p) {
  if (b) c.pipe_barrier(p);
}
Mmad small_mmad(bool init) {  // (16 / 16) * (16 / 16) = 1 fractal < hazards.m_self_ordered_fractals (10)
  return Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16, .init = init};
}

const SamePipe kCases[] = {
    {"v_raw",
     MixMode::VectorOnly,
     Pipe::V,
     [](CoreCtx& c, bool b) {
       c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
       barrier_if(c, b, Pipe::V);
       c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kZ, .src = kY, .scalar = 2.0, .repeat = 4});
     },
     {"RAW hazard", "aiv0 ub", "vadds", "vmuls", "pipe_barrier(v)"}},
    {"v_waw",
     MixMode::VectorOnly,
     Pipe::V,
     [](CoreCtx& c, bool b) {
       c.issue(VUnary{.op = VUnaryOp::Exp, .dtype = DType::F32, .dst = kY, .src = kX, .repeat = 4});
       barrier_if(c, b, Pipe::V);
       c.issue(VDup{.dtype = DType::F32, .dst = kY, .value = 0.0, .repeat = 4});
     },
     {"WAW hazard", "vexp", "vdup"}},
    {"v_war",
     MixMode::VectorOnly,
     Pipe::V,
     [](CoreCtx& c, bool b) {
       c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
       barrier_if(c, b, Pipe::V);
       c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 0.0, .repeat = 4});
     },
     {"WAR hazard", "vadds", "vdup"}},
    {"v_war_then_in_place",
     MixMode::VectorOnly,
     Pipe::V,  // the second reads x too, then overwrites it
     [](CoreCtx& c, bool b) {
       c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
       barrier_if(c, b, Pipe::V);
       c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kX, .src = kX, .scalar = 2.0, .repeat = 4});
     },
     {"WAR hazard", "vadds", "vmuls"}},
    {"m_small_accumulate",
     MixMode::CubeOnly,
     Pipe::M,
     [](CoreCtx& c, bool b) {
       c.issue(small_mmad(true));
       barrier_if(c, b, Pipe::M);
       c.issue(small_mmad(false));  // accumulates onto the first one's L0C
     },
     {"hazard on aic0 l0c", "mmad", "pipe_barrier(m)"}},
    {"mte2_waw_ub",
     MixMode::VectorOnly,
     Pipe::MTE2,
     [](CoreCtx& c, bool b) {
       c.issue(DataCopy{.dst = kX, .src = c.gm("x"), .burst_bytes = 1024});
       barrier_if(c, b, Pipe::MTE2);
       c.issue(DataCopy{.dst = {Buf::UB, 512}, .src = {Buf::GM, c.gm("x").off + 2048}, .burst_bytes = 1024});
     },
     {"WAW hazard on aiv0 ub", "copy", "pipe_barrier(mte2)"}},
    {"mte3_waw_gm",
     MixMode::VectorOnly,
     Pipe::MTE3,
     [](CoreCtx& c, bool b) {
       c.issue(DataCopy{.dst = c.gm("x"), .src = kX, .burst_bytes = 1024});
       barrier_if(c, b, Pipe::MTE3);
       c.issue(DataCopy{.dst = {Buf::GM, c.gm("x").off + 512}, .src = kY, .burst_bytes = 1024});
     },
     {"WAW hazard on aiv0 gm", "copy", "pipe_barrier(mte3)"}},
    {"fix_waw_gm",
     MixMode::CubeOnly,
     Pipe::FIX,
     [](CoreCtx& c, bool b) {
       c.issue(Fixpipe{.dst = c.gm("x"), .src = {Buf::L0C, 0}});
       barrier_if(c, b, Pipe::FIX);
       c.issue(Fixpipe{.dst = c.gm("x"), .src = {Buf::L0C, 0x400}});
     },
     {"WAW hazard on aic0 gm", "fixpipe", "pipe_barrier(fix)"}},
};

void PrintTo(const SamePipe& p, std::ostream* os) { *os << p.name; }

class MissingPipeBarrier : public ::testing::TestWithParam<SamePipe> {};

LaunchResult run_case(const SamePipe& p, bool barrier) {
  return run_single(p.mix, [&p, barrier](CoreCtx& c) { p.kernel(c, barrier); });
}

TEST_P(MissingPipeBarrier, IsAHazardNamingBothInstructions) {
  const SamePipe& p = GetParam();
  const auto r = run_case(p, false);
  EXPECT_TRUE(has_fault_of(r, {"hazard"}, p.named)) << p.name << ":\n" << faults_of(r);
}

TEST_P(MissingPipeBarrier, WithTheBarrierIsCleanAndTheBarrierIsNeeded) {
  const auto r = run_case(GetParam(), true);
  EXPECT_TRUE(r.faults.empty()) << GetParam().name << ":\n" << faults_of(r);
  EXPECT_TRUE(r.notes.empty()) << GetParam().name << ": " << r.notes.front().message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MissingPipeBarrier, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// --- what orders same-pipe dependences besides a barrier ------------------------------------------------------

TEST(SamePipe, ASetFlagFromThePipeCompletesItsEarlierInstructions) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) {
    c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
    c.set_flag(Pipe::V, Pipe::MTE3, 0);  // waits for the vadds' results before it fires
    c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kZ, .src = kY, .scalar = 2.0, .repeat = 4});
    c.wait_flag(Pipe::V, Pipe::MTE3, 0);
  });
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(SamePipe, CompletionReachesThePipeThroughAnotherPipesFlags) {
  // V writes x, hands it to MTE3 (set_flag completes V), MTE3 hands back: V may overwrite x without a barrier.
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {},
      [](CoreCtx& c) {
        c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 1.0, .repeat = 4});
        c.set_flag(Pipe::V, Pipe::MTE3, 0);
        c.wait_flag(Pipe::V, Pipe::MTE3, 0);
        c.issue(DataCopy{.dst = c.gm("x"), .src = kX, .burst_bytes = 1024});
        c.set_flag(Pipe::MTE3, Pipe::V, 0);
        c.wait_flag(Pipe::MTE3, Pipe::V, 0);
        c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 2.0, .repeat = 4});
      },
      1, 4096);
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(SamePipe, ALargeMmadOrdersTheAccumulationItself) {
  // (64 / 16) * (64 / 16) = 16 fractals >= hazards.m_self_ordered_fractals: no PIPE_M barrier needed (Ascend C Mmad).
  const auto r = run_one("ascend910b2", MixMode::CubeOnly, [](CoreCtx& c) {
    const Mmad big{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 64, .n = 64, .k = 16};
    c.issue(big);
    Mmad acc = big;
    acc.init = false;
    c.issue(acc);
  });
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(SamePipe, Mte1OrdersItsOwnLoads) {  // hazards.mte1: none
  const auto r = run_one("ascend910b2", MixMode::CubeOnly, [](CoreCtx& c) {
    c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 2});
    c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0x1000}, .repeat = 2});
  });
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(SamePipe, ARuleOfNoneOrdersEverything) {
  HwConfig hw = load_hw("ascend910b2", {"hazards.v=none"});
  Machine m(hw, SimMode::Full);
  LaunchSpec s{.name = "chain", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
    c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kZ, .src = kY, .scalar = 2.0, .repeat = 4});
  };
  const auto r = m.launch(s);
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(SamePipe, ABadRuleIsAConfigErrorNamingTheKey) {
  try {
    load_hw("ascend910b2", {"hazards.v=raw,raw"});
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("hazards.v"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("raw, waw, war"), std::string::npos) << e.what();
  }
}

// --- barriers that order nothing are notes, not faults ----------------------------------------------------------

TEST(SamePipe, ABarrierBetweenIndependentInstructionsIsARedundantNote) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) {
    c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 1.0, .repeat = 4});
    c.pipe_barrier(Pipe::V);  // the vmuls below reads y, not x
    c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kZ, .src = kY, .scalar = 2.0, .repeat = 4});
    c.pipe_barrier(Pipe::V);  // nothing outstanding that anything reads: also redundant
  });
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0].kind, "redundant-barrier");
  EXPECT_NE(r.notes[0].message.find("pipe_barrier pipe=v"), std::string::npos) << r.notes[0].message;
  EXPECT_NE(r.notes[0].message.find("vdup"), std::string::npos) << r.notes[0].message;
}

TEST(SamePipe, ABarrierRightAfterACompletionIsRedundant) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) {
    c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 1.0, .repeat = 4});
    c.set_flag(Pipe::V, Pipe::MTE3, 0);
    c.pipe_barrier(Pipe::V);  // the set_flag already waited for the vdup
    c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kZ, .src = kX, .scalar = 2.0, .repeat = 4});
    c.wait_flag(Pipe::V, Pipe::MTE3, 0);
  });
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].message.find("had landed already"), std::string::npos) << r.notes[0].message;
}

TEST(SamePipe, KernelsKnowWhetherABarrierWouldOrderAnything) {
  std::vector<int> seen;
  run_one("ascend910b2", MixMode::VectorOnly, {}, [&seen](CoreCtx& c) {
    seen.push_back(c.outstanding(Pipe::V));  // 0: nothing issued
    c.issue(VDup{.dtype = DType::F32, .dst = kX, .value = 1.0, .repeat = 4});
    seen.push_back(c.outstanding(Pipe::V));  // 1
    c.pipe_barrier(Pipe::V);
    seen.push_back(c.outstanding(Pipe::V));  // 0
    c.issue(VDup{.dtype = DType::F32, .dst = kY, .value = 1.0, .repeat = 4});
    c.set_flag(Pipe::V, Pipe::MTE3, 0);
    seen.push_back(c.outstanding(Pipe::V));  // 0: the set waits for the vdup
    c.wait_flag(Pipe::V, Pipe::MTE3, 0);
    c.issue(VDup{.dtype = DType::F32, .dst = kZ, .value = 1.0, .repeat = 4});
    seen.push_back(c.outstanding(Pipe::V));  // 1
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 0, 0, 1}));
}

// The checker thread replays the log: the same hazards and notes as inline checks, in the same order.
TEST(SamePipe, CheckThreadReportsWhatInlineChecksReport) {
  Machine m(load_hw("ascend910b2"), SimMode::Timing);
  LaunchSpec s{.name = "mixed", .block_dim = 2, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    for (int i = 0; i < 50; ++i) {
      c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kY, .src = kX, .scalar = 1.0, .repeat = 4});
      if (i % 3 == 0) c.pipe_barrier(Pipe::V);
      c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kX, .src = kY, .scalar = 2.0, .repeat = 4});
      if (i % 5 == 0) c.pipe_barrier(Pipe::V), c.pipe_barrier(Pipe::V);
    }
  };
  // (ids and cycles go on across the two launches of one machine: compared without them)
  const std::regex ids("#[0-9]+|cycle [0-9]+");
  std::vector<std::string> seen[2];
  for (int threaded = 0; threaded < 2; ++threaded) {
    m.set_check_thread(threaded);
    const auto r = m.launch(s);
    for (const auto& f : r.faults) seen[threaded].push_back(std::regex_replace(f.kind + ": " + f.message, ids, ""));
    for (const auto& n : r.notes) seen[threaded].push_back(std::regex_replace(n.kind + ": " + n.message, ids, ""));
  }
  EXPECT_FALSE(seen[0].empty());
  EXPECT_EQ(seen[0], seen[1]);
}

}  // namespace
}  // namespace npusim::sim::testing
