// The local-buffer shadow of the race checker (sim/check/local_shadow.h): granule rounding, per-granule
// states after contiguous and strided operands, page summaries that skip ordered pages without missing a
// race, and equivalence with a granule-by-granule reference checker on random scenes (plain and strided
// accesses): the same race hits in the same order. And the GM shadow's hinted walk against root lookups.
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

// ---- LocalShadow: granules, and the same reports as a granule-by-granule checker ------------------------

// A counter-mode vmuls.f32 over 8192 elements: each operand is one range of 1,024 blocks; the source
// granules record the read, the destination ones the write. Then one strided read by another pipe (16 rows
// of 8 blocks, 64 blocks apart) marks exactly its rows and finds the race with the write, all 16 rows.
TEST(LocalShadow, OperandsSetTheStatesOfExactlyTheirGranules) {
  isa::VScalar v;
  v.op = isa::VScalarOp::Muls;
  v.dtype = isa::DType::F32;
  v.src = {Buf::UB, 0};
  v.dst = {Buf::UB, 0x8000};
  v.mask = {true, 8192, 0};
  std::vector<AccessRange> ranges;
  isa::footprint(isa::Instr{v}, nullptr, ranges);
  ranges = isa::expand(ranges);
  ASSERT_EQ(ranges.size(), 2u);
  LocalShadow shadow(cores_of_agents());
  HappensBefore hb(kAgents);
  RaceHits hits;
  const uint32_t e1 = hb.tick(kAivV);
  shadow.begin(kAivV, e1, hb.clock(kAivV));
  for (const AccessRange& r : ranges) EXPECT_EQ(shadow.access(r, hits), 1024u);  // granules covered
  constexpr uint32_t kV = 1, kMte3 = 3;  // slots: the agents of core 0 in race_scene.h order
  GranuleState read_by_v{};
  read_by_v.read[kV] = e1;
  for (uint64_t g : {0u, 511u, 1023u}) EXPECT_EQ(shadow.state(0, Buf::UB, g), read_by_v) << g;
  for (uint64_t g : {1024u, 1500u, 2047u}) EXPECT_EQ(shadow.state(0, Buf::UB, g), written(kV, e1)) << g;
  EXPECT_EQ(shadow.state(0, Buf::UB, 2048), GranuleState{});
  const uint32_t e2 = hb.tick(kAivMte3);
  shadow.begin(kAivMte3, e2, hb.clock(kAivMte3));
  AccessRange rows = rd(Buf::UB, 0x8000, 0x8000 + 256);
  rows.count = 16;
  rows.stride = 2048;
  EXPECT_EQ(shadow.access(rows, hits), 128u);
  GranuleState both = written(kV, e1);
  both.read[kMte3] = e2;
  for (uint64_t row = 0; row < 16; ++row) {
    EXPECT_EQ(shadow.state(0, Buf::UB, 1024 + row * 64), both) << row;
    EXPECT_EQ(shadow.state(0, Buf::UB, 1024 + row * 64 + 7), both) << row;
    EXPECT_EQ(shadow.state(0, Buf::UB, 1024 + row * 64 + 8), written(kV, e1)) << row;
  }
  ASSERT_EQ(hits.hits().size(), 1u);  // mte3 reads what v wrote, unordered: one merged hit
  EXPECT_EQ(hits.hits()[0].kind, RaceKind::RAW);
  EXPECT_EQ(hits.hits()[0].bytes, 16u * 256u);
  EXPECT_EQ(hits.hits()[0].lo, 0x8000u);
  EXPECT_EQ(hits.hits()[0].hi, 0x8000u + 15 * 2048 + 256);
}

// A page summary flags the page of an unordered write; the granules of that page written before the flag
// are still ordered, so only the racing granule is reported.
TEST(LocalShadow, FlaggedPageStillChecksGranuleByGranule) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 32)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivMte2, {wr(Buf::UB, 64, 96)});  // same 1 KiB page, after the flag
  s.run(kAivV, {rd(Buf::UB, 0, 32)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAivV, {rd(Buf::UB, 0, 128)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aiv0 ub [0x40, 0x60)")) << s.faults()[0].message;
}

// A write ends the reads before it: a later write by another unordered pipe races with the first write
// (WAW) but not again with the read the first write already superseded.
TEST(LocalShadow, WriteEndsTheReadsBeforeIt) {
  Scene s;
  s.run(kAivV, {rd(Buf::UB, 0, 64)});
  s.flag(kAivV, kAivMte2);
  s.run(kAivMte2, {wr(Buf::UB, 0, 64)});
  s.run(kAivMte3, {wr(Buf::UB, 0, 64)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAW race")) << s.faults()[0].message;
}

TEST(LocalShadow, AccessesRoundOutToGranules) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 40)});  // granules 0 and 1
  s.run(kAivV, {rd(Buf::UB, 64, 96)});    // granule 2: untouched
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAivV, {rd(Buf::UB, 50, 60)});  // inside granule 1, past the written bytes: still a race
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aiv0 ub [0x32, 0x3c)")) << s.faults()[0].message;
}

TEST(LocalShadow, L0aGranuleIsAFractal) {
  Scene s;
  s.run(kAicMte1, {wr(Buf::L0A, 0, 512)});
  s.run(kAicM, {rd(Buf::L0A, 512, 1024)});
  EXPECT_TRUE(s.faults().empty()) << s.all_messages();
  s.run(kAicM, {rd(Buf::L0A, 500, 600)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aic0 l0a [0x1f4, 0x200)")) << s.faults()[0].message;
}

TEST(LocalShadow, RaceIsReportedForTheRacingGranulesOnly) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 1024)});
  s.flag(kAivMte2, kAivV);
  s.run(kAivV, {rd(Buf::UB, 0, 512)}, "vexp ub[2048], ub[0]");    // reads half of it
  s.run(kAivMte2, {wr(Buf::UB, 256, 768)}, "mov_gm_ub ub[256]");  // no flag from v: WAR on [256, 512) only
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  const std::string& m = s.faults()[0].message;
  EXPECT_TRUE(contains(m, "WAR race on aiv0 ub [0x100, 0x200):")) << m;
  EXPECT_TRUE(contains(m, "`vexp ub[2048], ub[0]` reads")) << m;
}

TEST(LocalShadow, OneInstructionRacingTwiceGivesOneReportWithHullAndBytes) {
  Scene s;
  s.run(kAivV, {rd(Buf::UB, 0, 32), rd(Buf::UB, 64, 96)});
  s.run(kAivMte2, {wr(Buf::UB, 0, 128)});
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "WAR race on aiv0 ub [0x0, 0x60) (64 bytes in conflict)"))
      << s.faults()[0].message;
}

TEST(LocalShadow, ChecksCountGranulesCovered) {
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

TEST(LocalShadow, RepeatedBlocksOfARacingOperandStillReportTheRace) {
  Scene s;
  s.run(kAivMte2, {wr(Buf::UB, 0, 128)});
  std::vector<AccessRange> ranges;
  for (uint64_t r = 0; r < 4; ++r)
    for (int b = 0; b < 8; ++b) ranges.push_back(block(Buf::UB, r, false));
  s.run(kAivV, ranges);
  ASSERT_EQ(s.faults().size(), 1u) << s.all_messages();
  EXPECT_TRUE(contains(s.faults()[0].message, "RAW race on aiv0 ub [0x0, 0x80)")) << s.faults()[0].message;
}

// A granule-by-granule checker, as a reference: the same race hits (kind,
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

TEST(LocalShadow, SameHitsAsGranuleByGranuleOnRandomScenes) {
  std::mt19937_64 rng(777);
  const std::vector<int> cores = cores_of_agents();
  const AgentId agents[] = {kAivV, kAivMte2, kAivMte3, kAivS};
  for (int scene = 0; scene < 60; ++scene) {
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
        uint64_t begin = rng() % 4096, len = 1 + (rng() % 3 == 0 ? rng() % 2048 : rng() % 200);
        constexpr uint64_t kPage = uint64_t{1} << LocalShadow::kPageShift;
        if (rng() % 4 == 0) begin = (rng() % 4) * kPage, len = kPage * (1 + rng() % 3);  // whole summary pages
        AccessRange r{buf, begin, begin + len, rng() % 2 == 0};
        if (rng() % 3 == 0) {  // a strided operand (rows of a tile), given whole; the reference walks its rows
          r.count = 2 + static_cast<uint32_t>(rng() % 12);
          r.stride = len + rng() % 300;
        }
        shadow.access(r, got);
        for (const AccessRange& seg : isa::expand({r})) ref.access(a, epoch, hb.clock(a), seg, want);
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

// ---- GmShadow: its segments hold exactly the per-byte state ----------------------------------------------

// The GM rule written per byte: each byte's last writer and its readers since (pruned the same way), hits
// merged per earlier instruction like RaceHits does.
class ByteGm {
 public:
  explicit ByteGm(const HappensBefore& hb) : hb_(hb) {}
  void access(AgentId a, uint32_t epoch, uint64_t id, const AccessRange& r, RaceHits& hits) {
    const Rec me{a, epoch, id};
    for (uint64_t b = r.begin; b < r.end; ++b) {
      Byte& x = bytes_[b];
      auto unordered = [&](const Rec& e) { return e.epoch != 0 && !hb_.ordered_before(e.agent, e.epoch, a); };
      if (r.write) {
        if (unordered(x.writer))
          hits.add(RaceKind::WAW, Buf::GM, x.writer.agent, x.writer.epoch, true, x.writer.id, b, b + 1);
        for (const Rec& rd : x.readers)
          if (unordered(rd)) hits.add(RaceKind::WAR, Buf::GM, rd.agent, rd.epoch, true, rd.id, b, b + 1);
        x.writer = me;
        x.readers.clear();
      } else {
        if (unordered(x.writer))
          hits.add(RaceKind::RAW, Buf::GM, x.writer.agent, x.writer.epoch, true, x.writer.id, b, b + 1);
        const VectorClock& clock = hb_.clock(a);
        std::erase_if(x.readers, [&](const Rec& e) { return clock[e.agent] >= e.epoch; });
        x.readers.push_back(me);
      }
    }
  }

 private:
  struct Rec {
    AgentId agent = 0;
    uint32_t epoch = 0;
    uint64_t id = 0;
  };
  struct Byte {
    Rec writer;
    std::vector<Rec> readers;
  };
  const HappensBefore& hb_;
  std::map<uint64_t, Byte> bytes_;
};

// DMA-like bursts (strided, sometimes overlapping, crossing 4 KiB pages, over ~260 pages) from five agents with random
// synchronisation: the same hits, in the same order, with the same hulls and byte counts as the per-byte rule.
TEST(GmShadowPages, SegmentsGiveTheHitsOfThePerByteRule) {
  std::mt19937_64 rng(99);
  HappensBefore hb(kAgents);
  GmShadow shadow(hb);
  ByteGm ref(hb);
  const AgentId agents[] = {kAivMte2, kAivMte3, kAicFix, kAiv1Mte2, kAiv1Mte3};
  size_t compared = 0;
  for (int instr = 0; instr < 1500; ++instr) {
    const AgentId a = agents[rng() % 5];
    if (rng() % 4 == 0) hb.acquire(a, hb.release(agents[rng() % 5]));
    const uint32_t epoch = hb.tick(a);
    // Mostly a few pages (many overlaps); every third draw anywhere in 1 MiB (the page index grows).
    const uint64_t base = rng() % (instr % 3 ? 12000 : 1 << 20), len = 1 + rng() % 300, nburst = 1 + rng() % 20;
    const uint64_t stride = rng() % 3 == 0 ? len - std::min<uint64_t>(len - 1, rng() % 8) : len + rng() % 600;
    const bool write = rng() % 2 == 0;
    RaceHits got, want;
    for (uint64_t b = 0; b < nburst; ++b) {
      const AccessRange r{Buf::GM, base + b * stride, base + b * stride + len, write};
      shadow.access(a, epoch, static_cast<uint64_t>(instr), r, got);
      ref.access(a, epoch, static_cast<uint64_t>(instr), r, want);
    }
    ASSERT_EQ(got.hits().size(), want.hits().size()) << "instruction " << instr;
    for (size_t i = 0; i < got.hits().size(); ++i, ++compared) {
      const RaceHit &x = got.hits()[i], &y = want.hits()[i];
      ASSERT_TRUE(x.kind == y.kind && x.other == y.other && x.other_epoch == y.other_epoch &&
                  x.other_id == y.other_id && x.lo == y.lo && x.hi == y.hi && x.bytes == y.bytes)
          << "instruction " << instr << " hit " << i;
    }
  }
  EXPECT_GT(compared, 500u);  // the draws do race
}

// Every page keeps its state while the page index grows: 700 writes to 700 scattered pages, then an
// unordered read of each must race with exactly its write.
TEST(GmShadowPages, ScatteredPagesKeepTheirStateWhileTheIndexGrows) {
  HappensBefore hb(kAgents);
  GmShadow shadow(hb);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> pages;
  // Half in the low pages the dense array holds (it grows as they come), half beyond it (the hash index).
  while (pages.size() < 700) {
    const uint64_t p =
        pages.size() % 2 ? rng() % (uint64_t{1} << 16) : (uint64_t{1} << 24) + rng() % (uint64_t{1} << 30);
    if (std::find(pages.begin(), pages.end(), p) == pages.end()) pages.push_back(p);
  }
  RaceHits none;
  for (size_t k = 0; k < pages.size(); ++k) {
    const AccessRange w{Buf::GM, pages[k] << 12, (pages[k] << 12) + 64, true};
    shadow.access(kAivMte3, hb.tick(kAivMte3), k, w, none);
  }
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(shadow.segments(), pages.size());
  for (size_t k = 0; k < pages.size(); ++k) {
    RaceHits hits;
    const AccessRange r{Buf::GM, (pages[k] << 12) + 32, (pages[k] << 12) + 96, false};
    shadow.access(kAiv1Mte2, hb.tick(kAiv1Mte2), 1000 + k, r, hits);
    ASSERT_EQ(hits.hits().size(), 1u) << "page " << k;
    EXPECT_EQ(hits.hits()[0].other_id, k);
    EXPECT_EQ(hits.hits()[0].bytes, 32u);
  }
}

}  // namespace
}  // namespace npusim::sim
