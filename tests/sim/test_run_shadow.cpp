// The run-length shadow of the local buffers (sim/check/run_shadow.h): splits, merges, partial overlaps,
// chunk boundaries, and equivalence with the per-granule model it replaced: random access sequences give
// the same checks and the same state, granule by granule, and the same race reports through LocalShadow.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "isa/instr/footprint.h"
#include "sim/check/gm_shadow.h"
#include "sim/check/local_shadow.h"
#include "tests/sim/race_scene.h"

namespace npusim::sim {
namespace {

using namespace race_test;

GranuleState written(uint32_t slot, uint32_t epoch) {
  GranuleState s{};
  s.w_slot = slot;
  s.w_epoch = epoch;
  return s;
}

struct Piece {
  uint64_t lo, hi;
  GranuleState state;
};

// Records every check call.
struct Recorder {
  std::vector<Piece> seen;
  auto fn() {
    return [this](const GranuleState& s, uint64_t lo, uint64_t hi) { seen.push_back({lo, hi, s}); };
  }
};

std::vector<std::pair<uint64_t, uint64_t>> bounds(const RunShadow& sh) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& r : sh.runs()) out.emplace_back(r.begin, r.end);
  return out;
}

using Bounds = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(RunShadow, GrowsAsOneEmptyRun) {
  RunShadow sh;
  EXPECT_TRUE(sh.runs().empty());
  sh.grow(10);
  EXPECT_EQ(bounds(sh), (Bounds{{0, 10}}));
  EXPECT_EQ(sh.runs()[0].state, GranuleState{});
  sh.grow(15);  // geometric: to 20, still one empty run
  EXPECT_EQ(bounds(sh), (Bounds{{0, 20}}));
}

TEST(RunShadow, WriteInsideARunSplitsItInThree) {
  RunShadow sh;
  sh.grow(10);
  Recorder rec;
  sh.write(2, 5, written(1, 7), {}, rec.fn());
  ASSERT_EQ(rec.seen.size(), 1u);  // one check for the one run overlapped
  EXPECT_EQ(rec.seen[0].lo, 2u);
  EXPECT_EQ(rec.seen[0].hi, 5u);
  EXPECT_EQ(bounds(sh), (Bounds{{0, 2}, {2, 5}, {5, 10}}));
  EXPECT_EQ(sh.runs()[1].state, written(1, 7));
  EXPECT_EQ(sh.runs()[2].state, GranuleState{});
}

TEST(RunShadow, PartialOverlapChecksEachRunOnceClipped) {
  RunShadow sh;
  sh.grow(10);
  Recorder ignore;
  sh.write(2, 5, written(1, 7), {}, ignore.fn());
  Recorder rec;
  sh.write(4, 8, written(2, 3), {}, rec.fn());
  ASSERT_EQ(rec.seen.size(), 2u);
  EXPECT_EQ(rec.seen[0].lo, 4u);
  EXPECT_EQ(rec.seen[0].hi, 5u);
  EXPECT_EQ(rec.seen[0].state, written(1, 7));
  EXPECT_EQ(rec.seen[1].lo, 5u);
  EXPECT_EQ(rec.seen[1].hi, 8u);
  EXPECT_EQ(rec.seen[1].state, GranuleState{});
  EXPECT_EQ(bounds(sh), (Bounds{{0, 2}, {2, 4}, {4, 8}, {8, 10}}));
}

TEST(RunShadow, WriteOverManyRunsLeavesOneAndMergesWithItsEqualNeighbour) {
  RunShadow sh;
  sh.grow(100);
  Recorder ignore;
  for (uint64_t i = 0; i < 10; ++i)
    sh.write(10 * i, 10 * i + 5, written(0, static_cast<uint32_t>(i + 1)), {}, ignore.fn());
  EXPECT_EQ(sh.runs().size(), 20u);
  Recorder rec;
  sh.write(3, 97, written(1, 50), {}, rec.fn());
  EXPECT_EQ(rec.seen.size(), 20u);  // every run, from [0, 5) to [95, 100), clipped
  EXPECT_EQ(bounds(sh), (Bounds{{0, 3}, {3, 97}, {97, 100}}));
  sh.write(97, 99, written(1, 50), {}, ignore.fn());  // same state (same instruction): one run
  EXPECT_EQ(bounds(sh), (Bounds{{0, 3}, {3, 99}, {99, 100}}));
}

TEST(RunShadow, ReadsOfOneInstructionCoalesceBlockByBlock) {
  RunShadow sh;
  sh.grow(64);
  Recorder ignore;
  sh.write(0, 64, written(2, 1), {}, ignore.fn());
  for (uint64_t i = 0; i < 16; ++i) sh.read(i, i + 1, 1, 9, {}, ignore.fn());  // a broadcast operand, block by block
  ASSERT_EQ(bounds(sh), (Bounds{{0, 16}, {16, 64}}));
  EXPECT_EQ(sh.runs()[0].state.read[1], 9u);
  EXPECT_EQ(sh.runs()[0].state.w_epoch, 1u);
  EXPECT_EQ(sh.runs()[1].state, written(2, 1));
  sh.read(16, 64, 1, 9, {}, ignore.fn());  // the rest too: one run again
  EXPECT_EQ(bounds(sh), (Bounds{{0, 64}}));
}

TEST(RunShadow, RereadBySameInstructionChangesNothing) {
  RunShadow sh;
  sh.grow(8);
  Recorder ignore;
  sh.read(0, 8, 3, 4, {}, ignore.fn());
  sh.read(2, 4, 3, 4, {}, ignore.fn());
  EXPECT_EQ(bounds(sh), (Bounds{{0, 8}}));
}

TEST(RunShadow, RunsSpanChunkBoundaries) {
  RunShadow sh;
  sh.grow(1000);
  Recorder ignore;
  sh.write(60, 700, written(0, 1), {}, ignore.fn());
  sh.read(63, 129, 1, 2, {}, ignore.fn());
  EXPECT_EQ(bounds(sh), (Bounds{{0, 60}, {60, 63}, {63, 129}, {129, 700}, {700, 1000}}));
  Recorder rec;
  sh.write(64, 640, written(2, 3), {}, rec.fn());
  ASSERT_EQ(rec.seen.size(), 2u);
  EXPECT_EQ(rec.seen[0].lo, 64u);
  EXPECT_EQ(rec.seen[0].hi, 129u);
  EXPECT_EQ(rec.seen[1].lo, 129u);
  EXPECT_EQ(rec.seen[1].hi, 640u);
  EXPECT_EQ(bounds(sh), (Bounds{{0, 60}, {60, 63}, {63, 64}, {64, 640}, {640, 700}, {700, 1000}}));
}

// Random reads and writes against a dense per-granule model: the checks, expanded to granules, and the
// states after each access must match exactly, whatever the merge hints.
TEST(RunShadow, MatchesPerGranuleModelOnRandomAccesses) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 20; ++round) {
    RunShadow sh;
    sh.grow(round % 4 == 3 ? 5000 + rng() % 15000 : 64 + rng() % 400);  // some span several summary words
    std::vector<GranuleState> model(sh.size());
    for (int op = 0; op < 400; ++op) {
      const uint64_t span = rng() % 4 == 0 ? 1 + rng() % sh.size() : 1 + rng() % 12;
      const uint64_t a = rng() % sh.size(), b = std::min<uint64_t>(sh.size(), a + span);
      const uint32_t slot = static_cast<uint32_t>(rng() % 8), epoch = 1 + static_cast<uint32_t>(rng() % 6);
      const RunShadow::Merge merge{rng() % 2 == 0, rng() % 2 == 0};
      const bool is_write = rng() % 2 == 0;
      Recorder rec;
      if (is_write)
        sh.write(a, b, written(slot, epoch), merge, rec.fn());
      else
        sh.read(a, b, slot, epoch, merge, rec.fn());
      // Checks: contiguous, in order, covering [a, b), each with the state the model holds there.
      uint64_t pos = a;
      for (const Piece& p : rec.seen) {
        ASSERT_EQ(p.lo, pos);
        ASSERT_LT(p.lo, p.hi);
        for (uint64_t g = p.lo; g < p.hi; ++g) ASSERT_EQ(p.state, model[g]) << "granule " << g;
        pos = p.hi;
      }
      ASSERT_EQ(pos, b);
      for (uint64_t g = a; g < b; ++g) {
        if (is_write)
          model[g] = written(slot, epoch);
        else
          model[g].read[slot] = epoch;
      }
      // State: granule by granule, and no run is empty.
      uint64_t next = 0;
      for (const auto& r : sh.runs()) {
        ASSERT_EQ(r.begin, next);
        ASSERT_LT(r.begin, r.end);
        for (uint64_t g = r.begin; g < r.end; ++g) ASSERT_EQ(r.state, model[g]) << "granule " << g;
        next = r.end;
      }
      ASSERT_EQ(next, sh.size());
    }
  }
}

// ---- LocalShadow: granules, and the same reports as checking granule by granule ------------------------

// A counter-mode vmuls.f32 over 8192 elements: each operand is one range of 1,024 blocks and one run.
TEST(LocalShadowRuns, ContiguousOperandIsOneRunAndRowsOneRunEach) {
  isa::VScalar v;
  v.op = isa::VScalarOp::Muls;
  v.dtype = isa::DType::F32;
  v.src = {Buf::UB, 0};
  v.dst = {Buf::UB, 0x8000};
  v.mask = {true, 8192, 0};
  std::vector<AccessRange> ranges;
  isa::footprint(isa::Instr{v}, nullptr, ranges);
  ASSERT_EQ(ranges.size(), 2u);
  LocalShadow shadow(cores_of_agents());
  HappensBefore hb(kAgents);
  RaceHits hits;
  shadow.begin(kAivV, hb.tick(kAivV), hb.clock(kAivV));
  for (const AccessRange& r : ranges) EXPECT_EQ(shadow.access(r, hits), 1024u);  // granules covered
  auto runs = shadow.runs(0, Buf::UB);
  ASSERT_GE(runs.size(), 2u);
  EXPECT_EQ(runs[0].begin, 0u);
  EXPECT_EQ(runs[0].end, 1024u);
  EXPECT_EQ(runs[1].begin, 1024u);
  EXPECT_EQ(runs[1].end, 2048u);
  // Row-strided: 16 rows of 8 blocks, 64 blocks apart, read by another pipe: one run per row and gap.
  shadow.begin(kAivMte3, hb.tick(kAivMte3), hb.clock(kAivMte3));
  for (uint64_t row = 0; row < 16; ++row)
    shadow.access(rd(Buf::UB, 0x8000 + row * 2048, 0x8000 + row * 2048 + 256), hits);
  runs = shadow.runs(0, Buf::UB);
  ASSERT_GE(runs.size(), 1u + 32u);
  for (uint64_t row = 0; row < 16; ++row) {
    EXPECT_EQ(runs[1 + 2 * row].begin, 1024 + row * 64);
    EXPECT_EQ(runs[1 + 2 * row].end, 1024 + row * 64 + 8);
  }
  EXPECT_FALSE(hits.empty());  // mte3 reads what v wrote, unordered
}

TEST(LocalShadowRuns, AccessesRoundOutToGranules) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 40)});  // granules 0 and 1
  s.run(kAivV, {rd(Buf::UB, 64, 96)});    // granule 2: untouched
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAivV, {rd(Buf::UB, 50, 60)});  // inside granule 1, past the written bytes: still a race
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aiv0 ub [0x32, 0x3c)")) << s.faults()[0].message;
}

TEST(LocalShadowRuns, L0aGranuleIsAFractal) {
  Scene s;
  s.run(kAicMte1, {wr(Buf::L0A, 0, 512)});
  s.run(kAicM, {rd(Buf::L0A, 512, 1024)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAicM, {rd(Buf::L0A, 500, 600)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aic0 l0a [0x1f4, 0x200)")) << s.faults()[0].message;
}

TEST(LocalShadowRuns, RaceAcrossARunBoundaryIsReportedForTheRacingRunOnly) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 1024)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 512)}, "vexp ub[2048], ub[0]");  // splits the run at 512
  s.run(kAivMte2, {wr(Buf::UB, 256, 768)}, "mov_gm_ub ub[256]");  // no flag from v: WAR on [256, 512) only
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const std::string& m = s.faults()[0].message;
  EXPECT_TRUE(contains(m, "WAR race on aiv0 ub [0x100, 0x200):")) << m;
  EXPECT_TRUE(contains(m, "`vexp ub[2048], ub[0]` reads")) << m;
}

TEST(LocalShadowRuns, OneInstructionRacingInTwoRunsGivesOneReportWithHullAndBytes) {
  Scene s;
  s.run(kAivV, {rd(Buf::UB, 0, 32), rd(Buf::UB, 64, 96)});
  s.run(kAivMte2, {wr(Buf::UB, 0, 128)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAR race on aiv0 ub [0x0, 0x60) (64 bytes in conflict)"))
      << s.faults()[0].message;
}

TEST(LocalShadowRuns, ChecksCountGranulesCoveredNotRuns) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 8192 * 4)});  // one run, 1024 blocks
  EXPECT_EQ(s.rc.checks_run(), 1024u);
  // A broadcast operand lists each block 8 times: each listing still counts.
  std::vector<AccessRange> ranges;
  for (uint64_t r = 0; r < 4; ++r)
    for (int b = 0; b < 8; ++b) ranges.push_back(block(Buf::UB, r, false));
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, ranges);
  EXPECT_EQ(s.rc.checks_run(), 1024u + 32u);
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
}

TEST(LocalShadowRuns, RepeatedBlocksOfARacingOperandStillReportTheRace) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 128)});
  std::vector<AccessRange> ranges;
  for (uint64_t r = 0; r < 4; ++r)
    for (int b = 0; b < 8; ++b) ranges.push_back(block(Buf::UB, r, false));
  s.run(kAivV, ranges);
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aiv0 ub [0x0, 0x80)")) << s.faults()[0].message;
}

// The granule-by-granule checker the run shadow replaced, as a reference: the same race hits (kind,
// earlier access, hull, bytes, order) for every instruction of random scenes on one core's buffers.
class GranuleReference {
 public:
  explicit GranuleReference(const std::vector<int>& core_of_agent) : core_of_agent_(core_of_agent) {
    for (size_t a = 0; a < core_of_agent.size(); ++a) {
      const auto c = static_cast<size_t>(core_of_agent[a]);
      if (slots_.size() <= c) slots_.resize(c + 1);
      slot_of_agent_.push_back(static_cast<uint32_t>(slots_[c].size()));
      slots_[c].push_back(static_cast<AgentId>(a));
    }
  }
  void access(AgentId a, uint32_t epoch, const VectorClock& clock, const AccessRange& r, RaceHits& hits) {
    const auto core = static_cast<size_t>(core_of_agent_[a]);
    const uint32_t own = slot_of_agent_[a];
    auto& mem = mem_[{core, r.buf}];
    const uint64_t g = LocalShadow::granule(r.buf), first = r.begin / g, last = (r.end + g - 1) / g;
    if (mem.size() < last) mem.resize(last);
    auto ordered = [&](uint32_t slot, uint32_t e) { return slot == own || e <= clock[slots_[core][slot]]; };
    for (uint64_t i = first; i < last; ++i) {
      GranuleState& k = mem[i];
      const uint64_t lo = std::max(r.begin, i * g), hi = std::min(r.end, (i + 1) * g);
      auto add = [&](RaceKind kind, uint32_t slot, uint32_t e) {
        hits.add(kind, r.buf, slots_[core][slot], e, false, 0, lo, hi);
      };
      if (!r.write) {
        if (k.w_epoch && !ordered(k.w_slot, k.w_epoch)) add(RaceKind::RAW, k.w_slot, k.w_epoch);
        k.read[own] = epoch;
        continue;
      }
      if (k.w_epoch && !ordered(k.w_slot, k.w_epoch)) add(RaceKind::WAW, k.w_slot, k.w_epoch);
      for (uint32_t s = 0; s < GranuleState::kSlots; ++s)
        if (k.read[s] && !ordered(s, k.read[s])) add(RaceKind::WAR, s, k.read[s]);
      k = written(own, epoch);
    }
  }

 private:
  std::vector<int> core_of_agent_;
  std::vector<uint32_t> slot_of_agent_;
  std::vector<std::vector<AgentId>> slots_;
  std::map<std::pair<size_t, Buf>, std::vector<GranuleState>> mem_;
};

TEST(LocalShadowRuns, SameHitsAsGranuleByGranuleOnRandomScenes) {
  std::mt19937_64 rng(777);
  const std::vector<int> cores = cores_of_agents();
  const AgentId agents[] = {kAivV, kAivMte2, kAivMte3, kAivS};
  for (int scene = 0; scene < 30; ++scene) {
    HappensBefore hb(kAgents);
    LocalShadow shadow(cores);
    GranuleReference ref(cores);
    for (int instr = 0; instr < 300; ++instr) {
      const AgentId a = agents[rng() % 4];
      if (rng() % 3 == 0) {  // a flag from another agent orders what it did so far
        const AgentId from = agents[rng() % 4];
        hb.tick(from);
        const VectorClock snapshot = hb.release(from);
        hb.acquire(a, snapshot);
      }
      const uint32_t epoch = hb.tick(a);
      RaceHits got, want;
      shadow.begin(a, epoch, hb.clock(a));
      const int n = 1 + static_cast<int>(rng() % 6);
      for (int k = 0; k < n; ++k) {
        const Buf buf = rng() % 5 == 0 ? Buf::L1 : Buf::UB;
        const uint64_t begin = rng() % 4096, len = 1 + (rng() % 3 == 0 ? rng() % 2048 : rng() % 200);
        const AccessRange r{buf, begin, begin + len, rng() % 2 == 0};
        shadow.access(r, got);
        ref.access(a, epoch, hb.clock(a), r, want);
      }
      ASSERT_EQ(got.hits().size(), want.hits().size()) << "scene " << scene << " instruction " << instr;
      for (size_t i = 0; i < got.hits().size(); ++i) {
        const RaceHit &x = got.hits()[i], &y = want.hits()[i];
        ASSERT_TRUE(x.kind == y.kind && x.buf == y.buf && x.other == y.other && x.other_epoch == y.other_epoch &&
                    x.lo == y.lo && x.hi == y.hi && x.bytes == y.bytes)
            << "scene " << scene << " instruction " << instr << " hit " << i;
      }
    }
  }
}

// ---- GmShadow: walking from the last range's segment finds what a lookup from the root finds ------------

TEST(GmShadowHint, BurstsOfOneInstructionGiveTheSameHitsAndSegmentsAsRootLookups) {
  std::mt19937_64 rng(99);
  HappensBefore hb(kAgents);
  GmShadow hinted(hb), plain(hb, false);
  const AgentId agents[] = {kAivMte2, kAivMte3, kAicFix, kAiv1Mte2, kAiv1Mte3};
  for (int instr = 0; instr < 3000; ++instr) {
    const AgentId a = agents[rng() % 5];
    if (rng() % 4 == 0) hb.acquire(a, hb.release(agents[rng() % 5]));
    const uint32_t epoch = hb.tick(a);
    // A DMA: bursts in address order with a stride, sometimes overlapping the previous one.
    const uint64_t base = rng() % 8192, len = 1 + rng() % 300, nburst = 1 + rng() % 40;
    const uint64_t stride = rng() % 3 == 0 ? len - std::min<uint64_t>(len - 1, rng() % 8) : len + rng() % 600;
    const bool write = rng() % 2 == 0;
    RaceHits got, want;
    uint64_t got_checked = 0, want_checked = 0;
    for (uint64_t b = 0; b < nburst; ++b) {
      const AccessRange r{Buf::GM, base + b * stride, base + b * stride + len, write};
      got_checked += hinted.access(a, epoch, static_cast<uint64_t>(instr), r, got);
      want_checked += plain.access(a, epoch, static_cast<uint64_t>(instr), r, want);
    }
    ASSERT_EQ(got_checked, want_checked) << "instruction " << instr;
    ASSERT_EQ(hinted.segments(), plain.segments()) << "instruction " << instr;
    ASSERT_EQ(got.hits().size(), want.hits().size()) << "instruction " << instr;
    for (size_t i = 0; i < got.hits().size(); ++i) {
      const RaceHit &x = got.hits()[i], &y = want.hits()[i];
      ASSERT_TRUE(x.kind == y.kind && x.other == y.other && x.other_epoch == y.other_epoch &&
                  x.other_id == y.other_id && x.lo == y.lo && x.hi == y.hi && x.bytes == y.bytes)
          << "instruction " << instr << " hit " << i;
    }
  }
}

}  // namespace
}  // namespace npusim::sim
