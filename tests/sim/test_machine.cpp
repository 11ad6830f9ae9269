// The machine end to end: a multi-core cube + vector program with cross-core flags computes the right
// result on every bundled config; every check fires on a broken kernel and stays silent on a correct one.
#include <gtest/gtest.h>

#include "sim/config/hw_config.h"
#include "tests/sim/machine_kernels.h"

namespace npusim::sim::testing {
namespace {

// What a launch did, as numbers two runs can compare: cycles, instructions, race checks, faults (count, then a
// hash of each kind and text, in order) and every core's end cycle and per-pipe statistics.
std::vector<uint64_t> outcome(const LaunchResult& r) {
  std::vector<uint64_t> v{r.cycles, r.instructions, r.race_checks, r.faults.size()};
  for (const auto& c : r.cores) {
    v.push_back(c.end_cycle);
    for (const auto& p : c.pipes)
      v.insert(v.end(), {p.busy_cycles, p.instructions, p.queue_full_cycles, p.flag_wait_cycles});
  }
  for (const auto& f : r.faults) v.push_back(std::hash<std::string>{}(f.kind + "|" + f.message));
  return v;
}

// The mixed program without its cross-core flag, then on every AIV `rounds` rounds of a copy in, `adds` vector adds
// and a copy out that race with each other on GM and UB (faults naming instruction ids), then `tail`; `setup`
// configures the machine. Run in a child (a fault stops only its machine); returns outcome().
std::vector<uint64_t> racing_launch(const std::function<void(Machine&)>& setup, int rounds, int adds,
                                    const std::function<void(CoreCtx&)>& tail = {}) {
  return in_child([&] {
    Machine m(load_hw("ascend910b2"), SimMode::Full);
    setup(m);
    m.gm().allocate("x", 64 * 1024);
    MixedData d(2);
    d.load(m);
    LaunchSpec s = mixed_split(2, {.skip_cross_flag = true});
    const KernelFn mixed_vector = s.vector;
    s.vector = [&, mixed_vector](CoreCtx& c) {
      mixed_vector(c);
      const Addr ub = c.alloc(Buf::UB, 4096, "x");
      for (int i = 0; i < rounds; ++i) {
        const Addr g = c.gm("x", uint64_t(i % 16) * 4096);
        c.issue(DataCopy{.dst = ub, .src = g, .burst_bytes = 4096});
        for (int k = 0; k < adds; ++k)
          c.issue(
              VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = ub, .src = ub, .scalar = 1.0, .repeat = 16});
        c.issue(DataCopy{.dst = g, .src = ub, .burst_bytes = 4096});
      }
      if (tail) tail(c);
      c.pipe_barrier(Pipe::ALL);
    };
    return outcome(m.launch(s));
  });
}

class MixedOnConfig : public ::testing::TestWithParam<const char*> {};

TEST_P(MixedOnConfig, CubeVectorCrossCoreProgramIsCorrect) {
  const HwConfig hw = load_hw(GetParam());
  Machine m(hw, SimMode::Full);
  const int blocks = 2;
  MixedData d(blocks);
  d.load(m);
  const LaunchSpec spec = hw.topology == Topology::Split ? mixed_split(blocks) : mixed_coupled(blocks);
  const LaunchResult r = m.launch(spec);
  ASSERT_TRUE(r.ok()) << faults_of(r);
  EXPECT_GT(r.cycles, 0u);
  EXPECT_EQ(r.flops, 2u * blocks * kDim * kDim * kDim);
  expect_output_exact(d, m);
  EXPECT_GT(r.race_checks, 0u);
}

INSTANTIATE_TEST_SUITE_P(Bundled, MixedOnConfig,
                         ::testing::Values("ascend910b1", "ascend910b2", "ascend910b3", "ascend910b4", "ascend310p3"));

TEST(MachineChecks, MissingCrossCoreFlagIsAGmRaceNamingBothCores) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  MixedData d(1);
  d.load(m);
  const auto r = m.launch(mixed_split(1, {.skip_cross_flag = true}));
  EXPECT_TRUE(has_fault(r, "gm-race", {"aic0", "fix", "aiv0", "mte2"})) << faults_of(r);
}

TEST(MachineChecks, MissingPipeFlagIsALocalRaceNamingBothInstructions) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  m.gm().allocate("x", 1024);
  LaunchSpec s{.name = "race", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    const Addr ub = c.alloc(Buf::UB, 1024, "x");
    c.issue(DataCopy{.dst = ub, .src = c.gm("x"), .burst_bytes = 1024});
    c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = ub, .src = ub, .scalar = 1.0, .repeat = 4});
  };
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "race", {"aiv0", "mte2", "copy", "vadds"})) << faults_of(r);
}

// The checker on its second host thread replays the same accesses against the same clocks: every fault,
// in order, and the check count equal the inline checker's. 3000 rounds (several log batches) of a copy
// racing with a vector op, local and GM races, plus the cross-core race of the mixed program.
TEST(MachineChecks, CheckThreadReportsExactlyWhatInlineChecksReport) {
  const auto run = [](bool threaded) {
    return racing_launch([&](Machine& m) { m.set_check_thread(threaded); }, 3000, 1);
  };
  const auto inline_checks = run(false), threaded = run(true);
  ASSERT_GE(inline_checks.size(), 4u);
  EXPECT_GT(inline_checks[3], 50u);  // many races found
  EXPECT_EQ(threaded, inline_checks);
}

TEST(MachineChecks, CorrectlySynchronisedKernelRaisesNothing) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  MixedData d(2);
  d.load(m);
  const auto r = m.launch(mixed_split(2));
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(MachineChecks, WaitWithoutSetIsADeadlockNamingTheBlockedInstruction) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  LaunchSpec s{.name = "deadlock", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) { c.wait_flag(Pipe::MTE2, Pipe::V, 3); };
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "deadlock", {"aiv0", "wait_flag mte2->v event 3"})) << faults_of(r);
  EXPECT_THROW(m.launch(s), std::logic_error);  // the machine is stopped after a deadlock
}

TEST(MachineChecks, CrossWaitWithoutSetIsADeadlock) {
  const auto r = run_one(
      "ascend910b2", MixMode::Mix1_2, [](CoreCtx& c) { c.cross_wait(5); }, [](CoreCtx&) {});
  EXPECT_TRUE(has_fault(r, "deadlock", {"aic0", "cross_wait flag 5"})) << faults_of(r);
}

TEST(MachineChecks, FlagLeftSetAtKernelEndIsReported) {
  const auto r =
      run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { c.set_flag(Pipe::V, Pipe::MTE3, 2); });
  EXPECT_TRUE(
      has_fault(r, "flags-pending", {"aiv0", "v->mte3 event 2", "'set_flag src=v dst=mte3 event=2'", "never waited"}))
      << faults_of(r);
}

TEST(MachineChecks, SecondSetOfAFlagStillSetIsReported) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) {
    c.set_flag(Pipe::V, Pipe::MTE3, 4);
    c.set_flag(Pipe::V, Pipe::MTE3, 4);
  });
  EXPECT_TRUE(has_fault(r, "flag",
                        {"aiv0", "set_flag v->mte3 event 4", "still set by #", "'set_flag src=v dst=mte3 event=4'",
                         "loses one of the two sets"}))
      << faults_of(r);
}

TEST(MachineChecks, SixteenPendingCrossSetsOverflow) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  LaunchSpec s{.name = "overflow", .block_dim = 1, .mix = MixMode::Mix1_2};
  s.cube = [](CoreCtx& c) {
    for (int i = 0; i < 16; ++i) c.cross_set(2, 4, Pipe::S);
  };
  s.vector = [](CoreCtx&) {};
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "cross-flag-overflow", {"aiv0", "flag 4", "15"})) << faults_of(r);
}

TEST(MachineChecks, OutOfBoundsOperandIsAFaultNamingTheInstruction) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  LaunchSpec s{.name = "oob", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    c.issue(VDup{.dtype = DType::F32, .dst = {Buf::UB, c.capacity(Buf::UB) - 256}, .value = 1.0, .repeat = 2});
  };
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "bounds", {"aiv0", "vdup", "exceeds"})) << faults_of(r);
}

TEST(MachineChecks, InstructionForAMissingPipeIsRejected) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) {
    c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}});
  });
  EXPECT_TRUE(has_fault(r, "isa", {"aiv0", "no m pipe"})) << faults_of(r);
}

TEST(MachineChecks, PipeBarrierAllOrdersEveryEarlierPipe) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  m.gm().allocate("x", 1024);
  LaunchSpec s{.name = "barrier", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    const Addr ub = c.alloc(Buf::UB, 1024, "x");
    c.issue(DataCopy{.dst = ub, .src = c.gm("x"), .burst_bytes = 1024});
    c.pipe_barrier(Pipe::ALL);  // the scalar waits for MTE2; the vadds it issues next is ordered after
    c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = ub, .src = ub, .scalar = 1.0, .repeat = 4});
  };
  const auto r = m.launch(s);
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(MachineChecks, SyncFieldsOutOfRangeAreRejectedNotExecuted) {
  const auto r = run_one(
      "ascend910b2", MixMode::Mix1_2,
      [](CoreCtx& c) { c.issue(CrossSet{.mode = 2, .flag_id = 12, .pipe = Pipe::FIX}); }, [](CoreCtx&) {});
  EXPECT_TRUE(has_fault(r, "isa", {"aic0", "flag_id = 12"})) << faults_of(r);
}

TEST(MachineChecks, EventIdOutOfRangeIsRejected) {
  const auto r =
      run_one("ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { c.set_flag(Pipe::V, Pipe::MTE3, 9); });
  EXPECT_TRUE(has_fault(r, "isa", {"aiv0", "event = 9"})) << faults_of(r);
}

TEST(MachineChecks, CrossFlagSetButNeverWaitedIsReported) {
  const auto r = run_one(
      "ascend910b2", MixMode::Mix1_2, [](CoreCtx& c) { c.cross_set(2, 6, Pipe::S); }, [](CoreCtx&) {});
  EXPECT_TRUE(has_fault(r, "cross-flags-pending", {"aiv0", "flag 6", "aic0"})) << faults_of(r);
}

TEST(MachineChecks, CoupledCoreHasNoFixPipe) {
  Machine m(load_hw("ascend310p3"), SimMode::Full);
  m.gm().allocate("y", 4096);
  LaunchSpec s{.name = "nofix", .block_dim = 1};
  s.cube = [](CoreCtx& c) { c.issue(Fixpipe{.dst = c.gm("y"), .src = {Buf::L0C, 0}}); };
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "isa", {"core0", "no fix pipe"})) << faults_of(r);
}

// M -> FIX is an event of an AIC; a coupled core's M pipe exists but its L0C leaves through V.
TEST(MachineChecks, EventPairTheCoreKindLacksIsRejected) {
  Machine m(load_hw("ascend310p3"), SimMode::Full);
  LaunchSpec s{.name = "nopair", .block_dim = 1};
  s.cube = [](CoreCtx& c) { c.set_flag(Pipe::M, Pipe::FIX, 0); };
  const auto r = m.launch(s);
  EXPECT_TRUE(has_fault(r, "isa", {"core0", "an coupled core has no hardware event m->fix"})) << faults_of(r);
}

TEST(MachineChecks, TilingThatDoesNotFitIsAnInputError) {
  const auto r = run_one("ascend910b2", MixMode::VectorOnly, {},
                         [](CoreCtx& c) { c.alloc(Buf::UB, 300000, "tiling.s2_block buffer"); });
  EXPECT_TRUE(has_fault(r, "input", {"tiling.s2_block buffer", "196608"})) << faults_of(r);
}

// Timing mode skips the arithmetic but keeps every cost: the launch's cycles, each core's end cycle and each
// pipe's busy cycles and instruction count equal full mode's (each mode in a child).
TEST(MachineModes, TimingModeGivesTheCyclesOfFullMode) {
  const auto timing_of = [](SimMode mode) {
    return in_child([mode] {
      Machine m(load_hw("ascend910b2"), mode);
      MixedData d(2);
      d.load(m);
      const auto r = m.launch(mixed_split(2));
      std::vector<uint64_t> v{r.ok() ? 1u : 0u, r.cycles, r.instructions};
      for (const auto& c : r.cores) {
        v.push_back(c.end_cycle);
        for (const auto& p : c.pipes) v.push_back(p.busy_cycles), v.push_back(p.instructions);
      }
      return v;
    });
  };
  const auto full = timing_of(SimMode::Full), timing = timing_of(SimMode::Timing);
  ASSERT_GE(full.size(), 3u);
  EXPECT_EQ(full[0], 1u);
  EXPECT_EQ(full[1],
            1384u);  // the cost model's (tests/sim/test_cost.cpp); block 1 starts launch.block_dispatch_cycles late
  EXPECT_EQ(timing, full);
}

// Machines per process (sim/README.md): one built after others, or alive beside another, gives the cycles and
// bits of a machine alone in its process, also after a machine that deadlocked, on another config, or ran
// in between its own launches.
TEST(MachineModes, SequentialMachinesAreIndependent) {
  const auto run_mixed = [](Machine& m, std::vector<uint16_t>* out) {
    MixedData d(2);
    if (m.gm().used_bytes() == 0) d.load(m);  // the first launch of this machine
    const auto r = m.launch(mixed_split(2));
    EXPECT_TRUE(r.ok()) << faults_of(r);
    if (out) *out = d.output(m);
    return r.cycles;
  };
  const auto alone = in_child([&] {
    Machine m(load_hw("ascend910b2"), SimMode::Full);
    std::vector<uint16_t> bits;
    const uint64_t first = run_mixed(m, &bits), second = run_mixed(m, nullptr);
    return std::vector<uint64_t>{first, second, std::hash<std::string>{}(std::string(bits.begin(), bits.end()))};
  });
  ASSERT_EQ(alone.size(), 3u);
  const auto after_others = in_child([&] {
    {
      Machine dead(load_hw("ascend910b2"), SimMode::Full);
      LaunchSpec s{.name = "deadlock", .block_dim = 1, .mix = MixMode::VectorOnly};
      s.vector = [](CoreCtx& c) { c.wait_flag(Pipe::MTE2, Pipe::V, 3); };
      EXPECT_FALSE(dead.launch(s).ok());
    }
    Machine other(load_hw("ascend910b4"), SimMode::Full);
    run_mixed(other, nullptr);
    Machine m(load_hw("ascend910b2"), SimMode::Full);
    std::vector<uint16_t> bits;
    const uint64_t first = run_mixed(m, &bits);
    run_mixed(other, nullptr);  // another machine runs between m's launches
    const uint64_t second = run_mixed(m, nullptr);
    return std::vector<uint64_t>{first, second, std::hash<std::string>{}(std::string(bits.begin(), bits.end()))};
  });
  EXPECT_EQ(after_others, alone);
}

TEST(MachineModes, FunctionalModeGivesTheSameBitsWithZeroCycles) {
  Machine m(load_hw("ascend910b2"), SimMode::Functional);
  MixedData d(2);
  d.load(m);
  const auto r = m.launch(mixed_split(2));
  ASSERT_TRUE(r.ok()) << faults_of(r);
  EXPECT_EQ(r.cycles, 0u);
  expect_output_exact(d, m);  // every element, not just a sample
}

TEST(MachineTiming, TinyVectorKernelTakesTheDerivedCycleCount) {
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  m.gm().allocate("x", 256);
  LaunchSpec s{.name = "tiny", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    const Addr ub = c.alloc(Buf::UB, 256, "x");
    c.issue(DataCopy{.dst = ub, .src = c.gm("x"), .burst_bytes = 256});
    c.set_flag(Pipe::MTE2, Pipe::V, 0);
    c.wait_flag(Pipe::MTE2, Pipe::V, 0);
    c.issue(VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = ub, .src = ub, .scalar = 1.0});
    c.set_flag(Pipe::V, Pipe::MTE3, 0);
    c.wait_flag(Pipe::V, Pipe::MTE3, 0);
    c.issue(DataCopy{.dst = c.gm("x"), .src = ub, .burst_bytes = 256});
  };
  const auto r = m.launch(s);
  ASSERT_TRUE(r.ok()) << faults_of(r);
  // copy issued at 1 (scalar.issue_cycles = 1): 256 B cold read = max(256 / 96, one segment x 6) = 6 cycles
  // busy, lands 50 + 400 later -> 457. set_flag mte2->v (issued 2) waits for that: fires at 457, visible at 458
  // (sync.flag_latency_cycles 1). vadds starts at 458: in place, 1 beat, lands 24 later -> 483. set_flag v->mte3
  // at 483, visible 484. copy out starts at 484: max(256 B / 64 B per cycle, 6) = 6 busy, lands 50 + 150 (L2
  // write) later -> 690.
  EXPECT_EQ(r.cycles, 690u);
  EXPECT_EQ(r.mem.bytes_read, 256u);
  EXPECT_EQ(r.mem.bytes_written, 256u);
}

TEST(MachineTiming, LongStreamOfShortInstructionsFillsTheQueueWithoutStalling) {
  // Regression: the scalar unit must re-check a full queue after catching up with simulated time.
  Machine m(load_hw("ascend910b2"), SimMode::Full);
  m.set_checks(Checks::Off);  // the stream overwrites one block on purpose: same-pipe WAW hazards, not the subject
  LaunchSpec s{.name = "stream", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [](CoreCtx& c) {
    for (int i = 0; i < 1000; ++i) c.issue(VDup{.dtype = DType::F32, .dst = {Buf::UB, 0}, .value = 1.0});
  };
  const auto r = m.launch(s);
  ASSERT_TRUE(r.ok()) << faults_of(r);
  // Issued one per cycle at 1..1000; the vector pipe starts each at its issue cycle (1 beat each), the last
  // lands 24 cycles (vector.simple_latency_cycles) after its beat: 1000 + 1 + 24.
  EXPECT_EQ(r.cycles, 1025u);
}

}  // namespace
}  // namespace npusim::sim::testing

namespace npusim::sim::testing {
namespace {

// The seams chosen by name (sim/registry.h): an unknown implementation is a ConfigError naming the key, the value
// and the valid names, raised when the machine is built (each in a child).
TEST(MachineSeams, UnknownImplementationNamesTheKeyAndTheValidOnes) {
  for (const auto& key_valid :
       {std::pair<std::string, std::string>{"memory.impl", "lru_write_back"}, {"cost.impl", "class_rates"}}) {
    const std::string &key = key_valid.first, &valid = key_valid.second;  // (clang 14 cannot capture bindings)
    const auto got = in_child([&] {
      const HwConfig hw = load_hw("ascend910b2", {key + "=bogus"});
      try {
        Machine m(hw, SimMode::Timing);
      } catch (const ConfigError& e) {
        const std::string msg = e.what();
        const bool ok = msg.find(key + " = 'bogus' is not a registered implementation") != std::string::npos &&
                        msg.find("valid: " + valid) != std::string::npos;
        return std::vector<uint64_t>{ok ? 1u : 2u};
      }
      return std::vector<uint64_t>{0};
    });
    EXPECT_EQ(got, std::vector<uint64_t>{1}) << key;
  }
}

}  // namespace
}  // namespace npusim::sim::testing

namespace npusim::sim::testing {
namespace {

// Kernel programs run ahead of a scalar unit that waits for a queue slot (sim/README.md "Running ahead"). The
// scalar unit then issues what they left at the cycles it reaches each instruction, so every result is that of
// a program suspended at each full queue: cycles, statistics, instruction ids, and the faults with their texts,
// also when the program fails, is rejected or deadlocks while it is ahead of its scalar unit.
uint64_t queue_full_cycles(const std::vector<uint64_t>& v, Pipe p) {  // summed over the cores of outcome()
  uint64_t sum = 0;
  const size_t per_core = 1 + 4 * kNumPipes;
  for (size_t c = 4; c + per_core <= v.size() - v[3]; c += per_core) sum += v[c + 1 + 4 * size_t(p) + 2];
  return sum;
}

TEST(MachineEngine, RunningAheadChangesNoResult) {
  const std::vector<std::pair<std::string, std::function<void(CoreCtx&)>>> tails{
      {"completes", {}},
      {"rejected",
       [](CoreCtx& c) {
         c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}});
       }},
      {"input error", [](CoreCtx& c) { c.alloc(Buf::UB, c.capacity(Buf::UB), "too big"); }},
      {"deadlock", [](CoreCtx& c) { c.wait_flag(Pipe::MTE2, Pipe::V, 3); }},
  };
  for (const auto& what_tail : tails) {
    const std::string& what = what_tail.first;
    const auto& tail = what_tail.second;  // references, not bindings: the lambdas capture them (clang 14 cannot)
    const auto launch = [&](bool on) { return racing_launch([&](Machine& m) { m.set_run_ahead(on); }, 400, 4, tail); };
    const auto ahead = launch(true), suspended = launch(false);
    ASSERT_GE(ahead.size(), 4u) << what;
    EXPECT_GT(ahead[3], 10u) << what;  // the races of the loop, each naming instruction ids
    EXPECT_GT(queue_full_cycles(ahead, Pipe::V), 0u) << what << ": the vector queue never filled";
    EXPECT_EQ(ahead, suspended) << what;
  }
}

}  // namespace
}  // namespace npusim::sim::testing
