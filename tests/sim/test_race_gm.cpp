// Race checker through GM between cores, and its reports (pairs once, cap, history window, cost).
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "tests/sim/race_scene.h"

namespace npusim::sim {
namespace {

using namespace race_test;

// ---- GM between cores ----------------------------------------------------------------------------------

TEST(GmRace, CubeWriteThenVectorReadWithoutCrossFlagIsGmRace) {
  Scene s;
  s.run(kAicFix, {rd(Buf::L0C, 0, 1024), wr(Buf::GM, 0x1000, 0x1400)}, "fix gm[0x1000], l0c[0]");
  s.run(kAiv1Mte2, {rd(Buf::GM, 0x1200, 0x1600), wr(Buf::UB, 0, 1024)}, "mov_gm_ub ub[0], gm[0x1200]");
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const Fault& f = s.faults()[0];
  EXPECT_EQ(f.kind, "gm-race");
  EXPECT_TRUE(contains(f.message, "RAW race on gm [0x1200, 0x1400)")) << f.message;
  EXPECT_TRUE(contains(f.message, "#1 aic0 fix (cycle 100) `fix gm[0x1000], l0c[0]` writes")) << f.message;
  EXPECT_TRUE(contains(f.message, "#2 aiv1 mte2 (cycle 107) `mov_gm_ub ub[0], gm[0x1200]` reads")) << f.message;
  EXPECT_TRUE(contains(f.message, "no cross-core flag or SyncAll orders aic0:fix before aiv1:mte2")) << f.message;
}

TEST(GmRace, CrossFlagThroughScalarOrdersCubeWriteBeforeVectorRead) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0x1000, 0x1400)});
  s.flag(kAicFix, kAiv1S);  // cross_set on aic0 fix, cross_wait on aiv1's scalar unit
  s.issue(kAiv1S, kAiv1Mte2);
  s.run(kAiv1Mte2, {rd(Buf::GM, 0x1200, 0x1600)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(GmRace, InstructionIssuedBeforeTheCrossWaitIsNotOrdered) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 64)});
  s.issue(kAiv1S, kAiv1Mte2);  // issued before the wait
  s.flag(kAicFix, kAiv1S);
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 64)});
  EXPECT_EQ(s.faults().size(), 1u) << s.all_messages();
}

// A DMA whose bursts are back to back (stride = burst length) is checked as the one range it covers: the same
// faults, word for word, as that range given whole; and a write so made replaces what it covers.
TEST(GmRace, BackToBackBurstsReportAsTheRangeTheyCover) {
  const AccessRange bursts_read{Buf::GM, 0x1800, 0x1900, false, 8, 0x100};
  const AccessRange bursts_write{Buf::GM, 0x1800, 0x1900, true, 8, 0x100};
  std::vector<std::string> messages[2];
  for (int whole = 0; whole < 2; ++whole) {
    Scene s;
    s.run(kAicFix, {wr(Buf::GM, 0x1000, 0x2000)});
    s.run(kAiv1Mte2, {whole ? rd(Buf::GM, 0x1800, 0x2000) : bursts_read});
    s.run(kAivMte3, {whole ? wr(Buf::GM, 0x1800, 0x2000) : bursts_write});
    for (const Fault& f : s.faults()) messages[whole].push_back(f.message);
  }
  ASSERT_EQ(messages[0].size(), 3u);  // RAW (aiv1 mte2 after aic0 fix), then WAW and WAR for aiv0 mte3
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_TRUE(contains(messages[0][0], "RAW race on gm [0x1800, 0x2000)")) << messages[0][0];
}

TEST(GmRace, AdjacentRangesNeverRaceAndOneByteOverlapDoes) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 100)});
  s.run(kAiv1Mte2, {rd(Buf::GM, 100, 200)});
  s.run(kAivMte3, {wr(Buf::GM, 200, 300)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAiv1Mte2, {rd(Buf::GM, 99, 150)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message, "gm [0x63, 0x64)")) << s.faults()[0].message;
}

TEST(GmRace, ReadRecordsOnlyItsOwnBytesOfALargerSegment) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 100)});
  s.flag(kAicFix, kAiv1S);
  s.issue(kAiv1S, kAiv1Mte2);
  s.run(kAiv1Mte2, {rd(Buf::GM, 40, 60)});
  s.run(kAicFix, {wr(Buf::GM, 0, 40), wr(Buf::GM, 60, 100)});  // around the read: no conflict
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAicFix, {wr(Buf::GM, 50, 55)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message, "WAR race on gm [0x32, 0x37)")) << s.faults()[0].message;
}

TEST(GmRace, WriteInsideASegmentKeepsTheRestOfIt) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 100)}, "fix first");
  s.run(kAicFix, {wr(Buf::GM, 0, 50)}, "fix second");
  s.run(kAiv1Mte2, {rd(Buf::GM, 50, 100)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "gm [0x32, 0x64): #1 aic0 fix (cycle 100) `fix first` writes"))
      << s.faults()[0].message;
}

TEST(GmRace, WriteStartingInAGapCoversTheGap) {
  Scene s;
  s.run(kAiv1Mte2, {rd(Buf::GM, 20, 40)});
  s.flag(kAiv1Mte2, kAicFix);
  s.run(kAicFix, {wr(Buf::GM, 0, 100)});
  s.run(kAivMte2, {rd(Buf::GM, 0, 10)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on gm [0x0, 0xa)")) << s.faults()[0].message;
}

TEST(GmRace, WriteOverManySegmentsLeavesOneOrderedState) {
  Scene s;
  s.run(kAiv1Mte2, {rd(Buf::GM, 20, 30)});
  s.run(kAicFix, {wr(Buf::GM, 0, 10)});
  s.flag(kAiv1Mte2, kAicFix);
  s.run(kAicFix, {wr(Buf::GM, 0, 30)});  // ordered after the read and its own earlier write
  s.flag(kAicFix, kAivMte3);
  s.run(kAivMte3, {wr(Buf::GM, 25, 30)});  // ordered after everything above, transitively
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(GmRace, WriteOverManySegmentsReplacesTheirState) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 10)});
  s.run(kAiv1Mte3, {wr(Buf::GM, 20, 30)});
  s.flag(kAiv1Mte3, kAicFix);
  s.run(kAicFix, {wr(Buf::GM, 0, 30)}, "fix all");
  s.run(kAivMte2, {rd(Buf::GM, 20, 30)});  // races with the last write only
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "`fix all` writes")) << s.faults()[0].message;
}

TEST(GmRace, ReadsCoveredByALaterWriteAreNotReportedAgain) {
  Scene s;
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 64)});
  s.run(kAicFix, {wr(Buf::GM, 0, 64)});  // WAR with aiv1's read: reported
  s.flag(kAicFix, kAivMte3);
  s.run(kAivMte3, {wr(Buf::GM, 0, 64)});  // ordered after that write: the old read is not news
  EXPECT_EQ(s.faults().size(), 1u) << s.all_messages();
}

TEST(GmRace, ReadByOneCoreThenUnorderedWriteByAnotherIsWarRace) {
  Scene s;
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 512)}, "mov_gm_ub ub[0], gm[0]");
  s.run(kAivMte3, {wr(Buf::GM, 256, 768)}, "mov_ub_gm gm[256], ub[0]");
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const std::string& m = s.faults()[0].message;
  EXPECT_TRUE(contains(m, "WAR race on gm [0x100, 0x200)")) << m;
  EXPECT_TRUE(contains(m, "no cross-core flag or SyncAll orders aiv1:mte2 before aiv0:mte3")) << m;
}

TEST(GmRace, WritesOfTwoCoresToOneRangeAreWawRace) {
  Scene s;
  s.run(kAivMte3, {wr(Buf::GM, 0, 64)});
  s.run(kAiv1Mte3, {wr(Buf::GM, 32, 96)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAW race on gm [0x20, 0x40)")) << s.faults()[0].message;
}

TEST(GmRace, PipesOfOneCoreRaceThroughGmToo) {
  Scene s;
  s.run(kAivMte3, {wr(Buf::GM, 0, 64)});
  s.run(kAivMte2, {rd(Buf::GM, 0, 64)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_EQ(s.faults()[0].kind, "gm-race");
  EXPECT_TRUE(contains(s.faults()[0].message, "no set_flag/wait_flag orders mte3 -> mte2 on aiv0"));
}

TEST(GmRace, OrderingIsTransitiveThroughAThirdCore) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 4096)});
  s.flag(kAicFix, kAivS);  // aic0 -> aiv0
  s.flag(kAivS, kAiv1S);   // aiv0 -> aiv1
  s.issue(kAiv1S, kAiv1Mte2);
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 4096)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(GmRace, SyncAllOrdersEveryCoreBeforeEveryOther) {
  Scene s;
  s.run(kAicFix, {wr(Buf::GM, 0, 1024)});
  s.run(kAiv1Mte3, {wr(Buf::GM, 1024, 2048)});
  s.sync_all({kAicFix, kAiv1Mte3, kAivS, kAiv1S});
  s.issue(kAivS, kAivMte2);
  s.issue(kAiv1S, kAiv1Mte2);
  s.run(kAivMte2, {rd(Buf::GM, 0, 2048)});
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 2048)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(GmRace, WriteAfterManyReadersChecksEachUnorderedOne) {
  Scene s;
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 64)});
  s.run(kAivMte2, {rd(Buf::GM, 0, 64)});  // unordered with aiv1's read: both are kept
  s.flag(kAivMte2, kAicS);
  s.issue(kAicS, kAicFix);
  s.run(kAicFix, {wr(Buf::GM, 0, 64)});  // ordered after aiv0's read only
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "orders aiv1:mte2 before aic0:fix")) << s.faults()[0].message;
}

TEST(GmRace, ReaderOrderedBeforeANewerReaderStillExposesTheRace) {
  Scene s;
  s.run(kAivMte2, {rd(Buf::GM, 0, 64)});
  s.flag(kAivMte2, kAiv1S);
  s.issue(kAiv1S, kAiv1Mte2);
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 64)});  // prunes aiv0's read: it is ordered before this one
  s.run(kAicFix, {wr(Buf::GM, 0, 64)});    // unordered with both reads
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAR race on gm")) << s.faults()[0].message;
}

// ---- reporting -----------------------------------------------------------------------------------------

TEST(RaceReport, EachPairOfInstructionsIsReportedOnce) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 32), rd(Buf::UB, 64, 96), wr(Buf::GM, 0, 32)});
  // RAW on block 0, WAR on block 2, and RAW through GM: one pair, one report.
  s.run(kAivV, {rd(Buf::UB, 0, 32), wr(Buf::UB, 64, 96), rd(Buf::GM, 0, 32)});
  EXPECT_EQ(s.faults().size(), 1u) << s.all_messages();
}

TEST(RaceReport, FaultsBeyondTheCapAreCountedNotStored) {
  Scene s;
  const size_t races = RaceChecker::kMaxFaults + 50;
  for (size_t i = 0; i < races; ++i) {
    s.run(kAivMte2, {block(Buf::UB, i, true)});
    s.run(kAivV, {block(Buf::UB, i, false)});
  }
  EXPECT_EQ(s.faults().size(), RaceChecker::kMaxFaults);
  EXPECT_EQ(s.rc.faults_dropped(), 50u);
}

TEST(RaceReport, ResetForgetsShadowStateAndFaults) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 32), wr(Buf::GM, 0, 32)});
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  ASSERT_EQ(s.faults().size(), 1u);
  s.rc.reset();
  EXPECT_TRUE(s.faults().empty());
  EXPECT_EQ(s.rc.checks_run(), 0u);
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 32)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(RaceReport, EvictedLocalInstructionIsNamedByAgentAndEpoch) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 32)});
  for (size_t i = 0; i < RaceChecker::kHistory; ++i) s.run(kAivMte2, {wr(Buf::UB, 64, 96)});
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message, "instruction 1 of aiv0 mte2 (older than the history window of " +
                                                  std::to_string(RaceChecker::kHistory) + " instructions) writes"))
      << s.faults()[0].message;
}

TEST(RaceReport, EvictedGmInstructionIsNamedById) {
  Scene s;
  const uint64_t id = s.run(kAicFix, {wr(Buf::GM, 0, 32)});
  for (size_t i = 0; i < RaceChecker::kHistory; ++i) s.run(kAicFix, {wr(Buf::GM, 64, 96)});
  s.run(kAiv1Mte2, {rd(Buf::GM, 0, 32)});
  ASSERT_EQ(s.faults().size(), 1u);
  EXPECT_TRUE(contains(s.faults()[0].message,
                       "instruction #" + std::to_string(id) + " aic0 fix (older than the history window) writes"))
      << s.faults()[0].message;
}

// ---- cost ----------------------------------------------------------------------------------------------

// A correct vector pipeline at full operand size (3 x 2040 blocks per vector instruction) stays silent;
// prints the checking cost per block (the figure quoted in the design notes).
TEST(RaceCost, FullSizeVectorPipelineIsCleanAndCheapPerBlock) {
  Scene s;
  constexpr uint64_t kOp = 2040 * 32;  // one operand: 255 repeats x 8 blocks
  const int iterations = 400;
  const std::clock_t t0 = std::clock();  // CPU time: the test machine may be shared
  for (int it = 0; it < iterations; ++it) {
    s.run(kAivMte2, {wr(Buf::UB, 0, kOp)});
    s.flag(kAivMte2, kAivV);
    s.run(kAivV, {rd(Buf::UB, 0, kOp), rd(Buf::UB, kOp, 2 * kOp), wr(Buf::UB, 2 * kOp, 3 * kOp)});
    s.flag(kAivV, kAivMte3);
    s.run(kAivMte3, {rd(Buf::UB, 2 * kOp, 3 * kOp), wr(Buf::GM, 0, kOp)});
    s.flag(kAivMte3, kAivV);
    s.flag(kAivV, kAivMte2);
  }
  const double ns = 1e9 * static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  const uint64_t blocks = uint64_t{iterations} * 5 * 2040;
  // + the GM segments each later mte3 overwrites: one per 4 KiB shadow page its 65,280 bytes touch (16)
  EXPECT_EQ(s.rc.checks_run(), blocks + 16 * (iterations - 1));
  std::printf("race checker: %.2f ns CPU per block checked (%llu blocks)\n", ns / static_cast<double>(blocks),
              static_cast<unsigned long long>(blocks));
}

// 48 vector cores stream row bursts of one shared input (every segment read by all of them, unordered)
// and write bursts of their own outputs: clean, and prints the cost per GM range.
TEST(RaceCost, ManyCoresStreamingGmIsCleanAndPrintsCostPerRange) {
  constexpr int kCores = 48, kIterations = 20, kBursts = 64;
  HappensBefore hb(2 * kCores);  // agents 2c (mte2) and 2c + 1 (mte3) of core c
  std::vector<int> core_of_agent;
  for (int c = 0; c < kCores; ++c) core_of_agent.insert(core_of_agent.end(), {c, c});
  RaceChecker rc(hb, core_of_agent);
  std::vector<AccessRange> ranges;
  uint64_t id = 1, gm_ranges = 0;
  const std::clock_t t0 = std::clock();
  for (int it = 0; it < kIterations; ++it) {
    for (int c = 0; c < kCores; ++c) {
      const auto mte2 = static_cast<AgentId>(2 * c), mte3 = mte2 + 1;
      ranges.clear();
      const uint64_t in = it % 4 * 512;
      for (uint64_t b = 0; b < kBursts; ++b) ranges.push_back(rd(Buf::GM, in + b * 4096, in + b * 4096 + 512));
      rc.on_access(mte2, hb.tick(mte2), InstrInfo{id++, c, "aiv", Pipe::MTE2, 0, "mov_gm_ub"}, ranges);
      hb.acquire(mte3, hb.release(mte2));
      ranges.clear();
      const uint64_t out = (uint64_t{1} << 30) + static_cast<uint64_t>(c) * kBursts * 4096 + it % 8 * 512;
      for (uint64_t b = 0; b < kBursts; ++b) ranges.push_back(wr(Buf::GM, out + b * 4096, out + b * 4096 + 512));
      rc.on_access(mte3, hb.tick(mte3), InstrInfo{id++, c, "aiv", Pipe::MTE3, 0, "mov_ub_gm"}, ranges);
      gm_ranges += 2 * kBursts;
    }
  }
  const double ns = 1e9 * static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  EXPECT_EQ(rc.faults().size(), 0u);
  std::printf("race checker: %.0f ns CPU per GM range (%llu ranges of 512 bytes, %d cores)\n",
              ns / static_cast<double>(gm_ranges), static_cast<unsigned long long>(gm_ranges), kCores);
  // The shadow built from all those ranges still knows every reader: a write by core 0 into the shared input,
  // ordered after nothing the other cores did, is a race with the last core's reads.
  ranges.assign(1, wr(Buf::GM, 3 * 512, 4 * 512));
  rc.on_access(1, hb.tick(1), InstrInfo{id++, 0, "aiv", Pipe::MTE3, 0, "mov_ub_gm"}, ranges);
  ASSERT_FALSE(rc.faults().empty());
  for (const auto& f : rc.faults()) EXPECT_NE(f.message.find("WAR"), std::string::npos) << f.message;
}

}  // namespace
}  // namespace npusim::sim
