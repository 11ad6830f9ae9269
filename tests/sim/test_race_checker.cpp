// Race checker on local buffers: scripted scenes (tests/sim/race_scene.h) drive HappensBefore + RaceChecker
// the way the machine does. Broken scripts must fire, correct ones must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/sim/race_scene.h"

namespace npusim::sim {
namespace {

using namespace race_test;

// ---- happens-before ------------------------------------------------------------------------------------

TEST(HappensBefore, TickStartsAtOneAndCountsOwnEpochs) {
  HappensBefore hb(3);
  EXPECT_EQ(hb.tick(1), 1u);
  EXPECT_EQ(hb.tick(1), 2u);
  EXPECT_EQ(hb.clock(1)[1], 2u);
  EXPECT_EQ(hb.clock(1)[0], 0u);
  EXPECT_EQ(hb.clock(0)[1], 0u);
}

TEST(HappensBefore, AcquireJoinsAndBumpsVersionOnlyWhenSomethingChanged) {
  HappensBefore hb(3);
  hb.tick(0);
  hb.tick(0);
  hb.tick(2);
  hb.acquire(1, hb.release(0));
  EXPECT_EQ(hb.version(1), 1u);
  EXPECT_EQ(hb.clock(1)[0], 2u);
  hb.acquire(1, hb.release(0));  // nothing new
  EXPECT_EQ(hb.version(1), 1u);
  hb.acquire(1, hb.release(2));
  EXPECT_EQ(hb.version(1), 2u);
  EXPECT_EQ(hb.clock(1)[0], 2u);
  EXPECT_EQ(hb.clock(1)[2], 1u);
}

TEST(HappensBefore, OrderedBeforeCoversReleasedEpochsOnly) {
  HappensBefore hb(2);
  const uint32_t e1 = hb.tick(0);
  hb.acquire(1, hb.release(0));
  const uint32_t e2 = hb.tick(0);
  EXPECT_TRUE(hb.ordered_before(0, e1, 1));
  EXPECT_FALSE(hb.ordered_before(0, e2, 1));
  EXPECT_TRUE(hb.ordered_before(0, e2, 0));  // an agent is ordered with itself
}

TEST(VectorClock, JoinIsElementwiseMax) {
  VectorClock a(3), b(3);
  a.set(0, 5);
  a.set(1, 1);
  b.set(1, 4);
  b.set(2, 2);
  a.join(b);
  EXPECT_EQ(a[0], 5u);
  EXPECT_EQ(a[1], 4u);
  EXPECT_EQ(a[2], 2u);
}

// The block-sparse representation must behave exactly like a dense clock: random sets, joins and copies
// between clocks of 100 agents (13 blocks, the last one partial) against plain arrays.
TEST(VectorClock, SparseBlocksBehaveLikeADenseArray) {
  constexpr size_t kAgents = 100;
  std::vector<VectorClock> vc(4, VectorClock(kAgents));
  std::vector<std::vector<uint32_t>> dense(4, std::vector<uint32_t>(kAgents, 0));
  uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull, uint32_t(seed >> 33); };
  for (int step = 0; step < 4000; ++step) {
    const size_t i = next() % 4, j = next() % 4;
    switch (next() % 4) {
      case 0: {
        const AgentId a = next() % kAgents;
        const uint32_t v = next() % 1000;
        vc[i].set(a, v);
        dense[i][a] = v;
        break;
      }
      case 1: {
        bool grew = false;
        for (size_t k = 0; k < kAgents; ++k) {
          grew |= dense[j][k] > dense[i][k];
          dense[i][k] = std::max(dense[i][k], dense[j][k]);
        }
        EXPECT_EQ(vc[i].join(vc[j]), grew);
        break;
      }
      case 2:
        vc[i] = vc[j];  // copies only the blocks either side marked
        dense[i] = dense[j];
        break;
      default: vc[i].clear(); std::fill(dense[i].begin(), dense[i].end(), 0u);
    }
    for (size_t k = 0; k < kAgents; ++k) ASSERT_EQ(vc[i][AgentId(k)], dense[i][k]) << "step " << step << " entry " << k;
  }
}

TEST(HappensBefore, OwnEntryKeptApartIsCurrentWheneverTheClockIsRead) {
  HappensBefore hb(16);
  hb.tick(9);
  hb.tick(9);
  hb.acquire(3, hb.release(9));  // the released clock carries agent 9's current epoch
  EXPECT_EQ(hb.clock(3)[9], 2u);
  EXPECT_TRUE(hb.ordered_before(9, 2, 3));
  EXPECT_FALSE(hb.ordered_before(9, 3, 3));
  hb.tick(9);
  EXPECT_EQ(hb.clock(9)[9], 3u);
  EXPECT_EQ(hb.version(3), 1u);
  hb.acquire(3, hb.release(9));
  EXPECT_EQ(hb.clock(3)[9], 3u);
  EXPECT_EQ(hb.version(3), 2u);
}

// ---- local buffers -------------------------------------------------------------------------------------

TEST(LocalRace, UnsyncedMte2WriteThenVectorReadIsRawRaceNamingBoth) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 64)}, "mov_gm_ub ub[0], gm[0], 1, 64, 0, 0");
  s.run(kAivV, {rd(Buf::UB, 32, 96), wr(Buf::UB, 256, 320)}, "vadd.f16 ub[256], ub[32], ub[32]");
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const Fault& f = s.faults()[0];
  EXPECT_EQ(f.kind, "race");
  EXPECT_TRUE(contains(f.message, "RAW race on aiv0 ub [0x20, 0x40)")) << f.message;
  EXPECT_TRUE(contains(f.message, "#1 aiv0 mte2 (cycle 100) `mov_gm_ub ub[0], gm[0], 1, 64, 0, 0` writes"))
      << f.message;
  EXPECT_TRUE(contains(f.message, "#2 aiv0 v (cycle 107) `vadd.f16 ub[256], ub[32], ub[32]` reads")) << f.message;
  EXPECT_TRUE(contains(f.message, "no set_flag/wait_flag orders mte2 -> v on aiv0")) << f.message;
}

TEST(LocalRace, SetFlagWaitFlagOrdersMte2BeforeVector) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 64)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 64), wr(Buf::UB, 256, 320)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  EXPECT_EQ(s.rc.checks_run(), 6u);  // 2 + 2 + 2 blocks
}

TEST(LocalRace, WaitFlagOnScalarOrdersLaterIssuedInstructions) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 64)});
  s.flag(kAivMte2, kAivS);  // wait_flag executed by the scalar unit (e.g. pipe_barrier-like)
  s.issue(kAivS, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 64)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, VectorReadThenUnsyncedMte2OverwriteIsWarRace) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 32)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 32)}, "vexp ub[64], ub[0]");
  s.run(kAivMte2, {wr(Buf::UB, 0, 32)}, "mov_gm_ub ub[0], gm[32]");
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const std::string& m = s.faults()[0].message;
  EXPECT_TRUE(contains(m, "WAR race on aiv0 ub [0x0, 0x20)")) << m;
  EXPECT_TRUE(contains(m, "`vexp ub[64], ub[0]` reads")) << m;
  EXPECT_TRUE(contains(m, "`mov_gm_ub ub[0], gm[32]` writes")) << m;
  EXPECT_TRUE(contains(m, "no set_flag/wait_flag orders v -> mte2 on aiv0")) << m;
}

TEST(LocalRace, DoubleBufferedLoopWithBothFlagsIsClean) {
  Scene s;
  for (int slot = 0; slot < 2; ++slot) s.flag(kAivV, kAivMte2);  // slots start free
  for (int it = 0; it < 10; ++it) {
    const uint64_t base = (it % 2) * 1024;
    s.run(kAivMte2, {wr(Buf::UB, base, base + 1024)});
    s.flag(kAivMte2, kAivV);
    s.run(kAivV, {rd(Buf::UB, base, base + 1024), wr(Buf::UB, 4096, 5120)});
    s.flag(kAivV, kAivMte3);
    s.run(kAivMte3, {rd(Buf::UB, 4096, 5120), wr(Buf::GM, 0, 1024)});
    s.flag(kAivMte3, kAivV);  // output free for the next vector instruction
    s.flag(kAivV, kAivMte2);  // input slot free
  }
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, WawBetweenTwoPipes) {
  Scene s;
  s.run(kAivV, {wr(Buf::UB, 512, 544)}, "vdup ub[512]");
  s.run(kAivMte2, {wr(Buf::UB, 512, 544)}, "mov_gm_ub ub[512]");
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAW race on aiv0 ub [0x200, 0x220)")) << s.faults()[0].message;
  EXPECT_TRUE(contains(s.faults()[0].message, "no set_flag/wait_flag orders v -> mte2 on aiv0"));
}

TEST(LocalRace, DisjointBlocksNeverRace) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 96)});
  s.run(kAivV, {rd(Buf::UB, 96, 192), wr(Buf::UB, 192, 256)});
  s.run(kAivMte3, {rd(Buf::UB, 256, 288)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, SameOffsetsInDifferentBuffersOrCoresNeverRace) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 64)});
  s.run(kAivV, {rd(Buf::L1, 0, 64)});   // another buffer
  s.run(kAiv1V, {rd(Buf::UB, 0, 64)});  // another core's UB
  s.run(kAicMte1, {rd(Buf::L1, 0, 64)});
  s.run(kAicM, {wr(Buf::L0C, 0, 64)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, StridedOperandCoversItsBlocksNotItsSpan) {
  Scene s;
  s.run(kAivMte2, {block(Buf::UB, 0, true), block(Buf::UB, 2, true), block(Buf::UB, 4, true)});
  s.run(kAivV, {block(Buf::UB, 1, true), block(Buf::UB, 3, false)});  // the gaps: no conflict
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAivV, {block(Buf::UB, 2, false)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message, "ub [0x40, 0x60)")) << s.faults()[0].message;
}

TEST(LocalRace, ConflictRangeIsTheHullWithConflictingByteCount) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 128)});
  s.run(kAivV, {block(Buf::UB, 0, false), block(Buf::UB, 3, false)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "ub [0x0, 0x80) (64 bytes in conflict)")) << s.faults()[0].message;
}

TEST(LocalRace, LongOperandRacingWithOneInstructionGivesOneReport) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 2040 * 32)});
  s.run(kAivV, {rd(Buf::UB, 0, 2040 * 32)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message, "ub [0x0, 0xff00):")) << s.faults()[0].message;
}

TEST(LocalRace, SameAgentNeverRacesWithItself) {
  Scene s;
  for (int i = 0; i < 5; ++i) {
    s.run(kAivV, {rd(Buf::UB, 0, 256), wr(Buf::UB, 0, 256)});
    s.run(kAivV, {wr(Buf::UB, 128, 512)});
  }
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, OrderingIsTransitiveAcrossPipes) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 256)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  s.flag(kAivV, kAivMte3);
  s.run(kAivMte3, {rd(Buf::UB, 0, 256), wr(Buf::GM, 0, 256)});  // ordered after mte2 through v
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalRace, ReadsOfTwoPipesAreEachCheckedByALaterWrite) {
  Scene s;
  s.run(kAicMte2, {wr(Buf::L1, 0, 512)});
  s.flag(kAicMte2, kAicMte1);
  s.run(kAicMte1, {rd(Buf::L1, 0, 512), wr(Buf::L0A, 0, 512)});
  s.flag(kAicMte2, kAicFix);
  s.run(kAicFix, {rd(Buf::L1, 0, 32)});
  s.flag(kAicMte1, kAicMte2);  // mte1 released the buffer, fix did not
  s.run(kAicMte2, {wr(Buf::L1, 0, 512)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "no set_flag/wait_flag orders fix -> mte2 on aic0"));
}

TEST(LocalRace, ReadsCoveredByALaterWriteAreNotReportedAgain) {
  Scene s;
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  s.run(kAivMte2, {wr(Buf::UB, 0, 32)});  // WAR with the vector read: reported
  s.flag(kAivMte2, kAivMte3);
  s.run(kAivMte3, {wr(Buf::UB, 0, 32)});  // ordered after that write: the old read is not news
  EXPECT_EQ(s.faults().size(), 1u) << s.all_messages();
}

TEST(LocalRace, TooManyAgentsOnOneCoreAreRejected) {
  HappensBefore hb(9);
  EXPECT_THROW(RaceChecker(hb, std::vector<int>(9, 0)), std::invalid_argument);
}

TEST(LocalRace, AbsurdLocalOffsetIsRejected) {
  Scene s;
  EXPECT_THROW(s.run(kAivV, {rd(Buf::UB, 0, uint64_t{1} << 40)}), std::out_of_range);
}

}  // namespace
}  // namespace npusim::sim
