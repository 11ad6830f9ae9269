// Exact cycle counts of the cost model, each with its derivation from the ascend910b2 config.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <list>
#include <map>
#include <random>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/machine/cost.h"
#include "sim/machine/memsys.h"

namespace npusim::sim {
namespace {

using namespace isa;

const HwConfig& b2() {
  static const HwConfig c = load_hw("ascend910b2");
  return c;
}

TEST(CostModel, MmadCostsOneCyclePerFractalStep) {
  // 128 x 256 x 64 fp16: 8 * 16 * 4 = 512 fractal steps at cube.fractal_cycles_b16 = 1, plus cube.startup_cycles 12.
  Mmad m{.m = 128, .n = 256, .k = 64};
  EXPECT_EQ(local_cost(m, b2()).occupancy, 512u + 12);
  // fp32 inputs: k0 = 8 -> 8 * 16 * 8 = 1024 steps at 2 cycles.
  m.a_dtype = DType::F32;
  EXPECT_EQ(local_cost(m, b2()).occupancy, 2048u + 12);
  // Partial fractals count whole: 17 x 17 x 17 fp16 = 2 * 2 * 2 = 8 steps.
  EXPECT_EQ(local_cost(Mmad{.m = 17, .n = 17, .k = 17}, b2()).occupancy, 8u + 12);
  EXPECT_EQ(mmad_flops(Mmad{.m = 17, .n = 17, .k = 17}), 2u * 17 * 17 * 17);
  EXPECT_EQ(mmad_executed_flops(Mmad{.m = 17, .n = 17, .k = 17}), 2u * 32 * 32 * 32);
}

TEST(CostModel, Load2dIsBytesOverRateWithStartupAsLatency) {
  // 16 fractals = 8192 B into L0A at 256 B/cycle = 32 cycles busy; the 28-cycle start-up is latency.
  EXPECT_EQ(local_cost(Load2d{.dst = {Buf::L0A, 0}, .repeat = 16}, b2()).occupancy, 32u);
  EXPECT_EQ(local_cost(Load2d{.dst = {Buf::L0A, 0}, .repeat = 16}, b2()).latency, 28u);
  // Into L0B at 128 B/cycle: 64 busy.
  EXPECT_EQ(local_cost(Load2d{.dst = {Buf::L0B, 0}, .repeat = 16}, b2()).occupancy, 64u);
}

TEST(CostModel, FixpipeToL1IsElementsOverRateWithStartupAsLatency) {
  // 128 x 128 = 16384 elements at 64 per cycle = 256 cycles busy, 20 cycles start-up latency.
  const Fixpipe f{.dst = {Buf::L1, 0}, .m = 128, .n = 128, .src_m_stride = 128};
  EXPECT_EQ(local_cost(f, b2()).occupancy, 256u);
  EXPECT_EQ(local_cost(f, b2()).latency, 20u);
}

TEST(CostModel, ContiguousVectorOpTakesItsClassBeatsPerRepeat) {
  // vadd.f32 over 8 repeats: src0 at 0 (groups 0-7), src1 at 0x2100 (groups 8-15), dst at 0x14000 (groups
  // 0-7 of the next 64 KiB bank row): one block per group and operand, reads and writes in different banks
  // -> conflict-free, so each repeat takes the binary class's 2 beats.
  VBinary v{.op = VBinOp::Add,
            .dtype = DType::F32,
            .dst = {Buf::UB, 0x14000},
            .src0 = {Buf::UB, 0},
            .src1 = {Buf::UB, 0x2000 + 0x100},
            .repeat = 8};
  const auto c = local_cost(v, b2());
  EXPECT_EQ(c.occupancy, 16u);
  EXPECT_EQ(c.latency, 24u);        // vector.binary_latency_cycles
  EXPECT_EQ(c.conflict_beats, 0u);  // report.json pipe_summary: nothing of it is bank conflicts
  // The same shape with one tile and a scalar is the simple class: 1 beat per repeat.
  VScalar sc{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = {Buf::UB, 0x14000}, .src = {Buf::UB, 0}, .repeat = 8};
  EXPECT_EQ(local_cost(sc, b2()).occupancy, 8u);
  // Compare and select of two tiles are binary too; select against a scalar is simple.
  EXPECT_EQ(vec_class(VCmp{}), VecClass::Binary);
  EXPECT_EQ(vec_class(VSel{}), VecClass::Binary);
  EXPECT_EQ(vec_class(VSel{.scalar_mode = true}), VecClass::Simple);
}

TEST(CostModel, WholeAndBlockReductionsHaveTheirOwnClassRates) {
  // configs/README.md "Calibration": a whole-repeat reduction (vcmax) takes vector.reduce_beats per repeat, a
  // block reduction (vcgmax) and the pair add vector.block_reduce_beats; each reports its class latency.
  const HwConfig& hw = b2();
  EXPECT_EQ(vec_class(VReduce{}), VecClass::Reduce);
  EXPECT_EQ(vec_class(VBlockReduce{}), VecClass::BlockReduce);
  EXPECT_EQ(vec_class(VPairAdd{}), VecClass::BlockReduce);
  const VReduce whole{
      .op = VRedOp::Max, .dtype = DType::F32, .dst = {Buf::UB, 0x10000}, .src = {Buf::UB, 0}, .repeat = 8};
  const VBlockReduce block{
      .op = VRedOp::Max, .dtype = DType::F32, .dst = {Buf::UB, 0x10000}, .src = {Buf::UB, 0}, .repeat = 8};
  const VPairAdd pair{.dtype = DType::F32, .dst = {Buf::UB, 0x10000}, .src = {Buf::UB, 0}, .repeat = 8};
  ASSERT_NE(hw.vector.reduce_beats, hw.vector.block_reduce_beats);  // else the test cannot tell the classes apart
  EXPECT_EQ(local_cost(whole, hw).occupancy, uint64_t(8 * hw.vector.reduce_beats));
  EXPECT_EQ(local_cost(whole, hw).latency, uint64_t(hw.vector.reduce_latency_cycles));
  EXPECT_EQ(local_cost(block, hw).occupancy, uint64_t(8 * hw.vector.block_reduce_beats));
  EXPECT_EQ(local_cost(block, hw).latency, uint64_t(hw.vector.block_reduce_latency_cycles));
  EXPECT_EQ(local_cost(pair, hw).occupancy, uint64_t(8 * hw.vector.block_reduce_beats));
}

TEST(CostModel, BlockStrideSixteenPutsAllBlocksInOneGroup) {
  // hardware.md §2: dst blkStride 16 (512 B) -> all 8 blocks in one group -> 8 beats per repeat;
  // blkStride 8 -> 4 beats. Sources contiguous in other groups.
  VDup d{.dtype = DType::F32, .dst = {Buf::UB, 0}, .repeat = 2, .dst_s = {16, 128}};
  EXPECT_EQ(local_cost(d, b2()).occupancy, 16u);
  d.dst_s = {8, 64};
  EXPECT_EQ(local_cost(d, b2()).occupancy, 8u);
}

TEST(CostModel, BroadcastOperandReadsItsBlockOnce) {
  // vsub.f32 in place on 16 rows of 64 lanes (src0 = dst at 0, groups 0-7) with a per-row broadcast block
  // (src1 at 0x10100: blk stride 0, rep stride 1 -> the same block for all 8 lanes groups of a repeat). The
  // broadcast block is one row read in its group (sim/README.md), not eight: repeat r reads it from group
  // (8 + r) mod 16, which src0's blocks (groups 0-7 in even repeats, 8-15 in odd ones) also use in 8 of the
  // 16 repeats: 16 + 8 beats (counting the copies would give 8 beats per repeat, 128).
  VBinary v{.op = VBinOp::Sub,
            .dtype = DType::F32,
            .dst = {Buf::UB, 0},
            .src0 = {Buf::UB, 0},
            .src1 = {Buf::UB, 0x10100},
            .repeat = 16,
            .dst_s = {1, 8},
            .src0_s = {1, 8},
            .src1_s = {0, 1}};
  HwConfig one_beat = b2();  // the conflict beats alone (the binary class floor of 2 would hide them)
  one_beat.vector.binary_beats = 1;
  EXPECT_EQ(local_cost(v, one_beat).occupancy, 16u + 8);
  // Eight *different* blocks of one group (block stride 16: all in group 8) still take 8 beats; in odd repeats
  // src0 (groups 8-15) adds a ninth read of group 8: 8 * 8 + 8 * 9.
  v.src1_s = {16, 128};
  EXPECT_EQ(local_cost(v, b2()).occupancy, 8u * 8 + 8u * 9);
  // What the conflicts add is what exceeds the class's 2 beats per repeat.
  EXPECT_EQ(local_cost(v, b2()).conflict_beats, 8u * 8 + 8u * 9 - 16u * 2);
}

TEST(CostModel, BankGeometryComesFromTheConfig) {
  // 8 bank groups instead of 16: blk stride 8 (256 B) now maps all 8 blocks to one group -> 8 beats.
  HwConfig hw = b2();
  hw.ub.bank_groups = 8;
  hw.ub.bank_bytes = 8192;  // 24 banks of 8 KiB
  VDup d{.dtype = DType::F32, .dst = {Buf::UB, 0}, .repeat = 1, .dst_s = {8, 64}};
  EXPECT_EQ(local_cost(d, hw).occupancy, 8u);
  EXPECT_EQ(local_cost(d, b2()).occupancy, 4u);
}

TEST(CostModel, GrowingUbKeepsTheBanksOfTheSameAddresses) {
  // Regression (issue 12): the bank rows used to be ub_bytes / 3, so doubling the UB moved an address 64 KiB up
  // into the same bank as its twin below and the same code got slower. Rows now come from the bank keys only.
  VBinary v{.op = VBinOp::Add,
            .dtype = DType::F32,
            .dst = {Buf::UB, 0x10000},
            .src0 = {Buf::UB, 0},
            .src1 = {Buf::UB, 0x20100},
            .repeat = 16};
  HwConfig big = b2();
  big.core.ub_bytes *= 2;
  EXPECT_EQ(local_cost(v, big).occupancy, local_cost(v, b2()).occupancy);
  EXPECT_EQ(ub_banks(big).row_bytes, 65536);
}

TEST(CostModel, OneAndTwoSourceShapesDoNotShareACacheEntry) {
  // Regression: the occupancy memo must not confuse a missing second source with one at ub:0x0.
  VUnary u{.op = VUnaryOp::Abs, .dtype = DType::F32, .dst = {Buf::UB, 0x10000}, .src = {Buf::UB, 0x100}, .repeat = 4};
  VBinary b{.op = VBinOp::Add,
            .dtype = DType::F32,
            .dst = {Buf::UB, 0x10000},
            .src0 = {Buf::UB, 0x100},
            .src1 = {Buf::UB, 0},
            .repeat = 4,
            .src1_s = {0, 0}};
  HwConfig one_beat = b2();  // binary class at 1 beat so that the conflict beats show
  one_beat.vector.binary_beats = 1;
  const auto first = local_cost(u, one_beat).occupancy;
  EXPECT_EQ(first, 4u);  // conflict-free: 1 beat per repeat
  // src1 (blk 0, rep 0) is one block of group 0, read once per repeat; in odd repeats src0 (moved by 256 B)
  // reads group 0 as well: 1 + 2 + 1 + 2 beats.
  EXPECT_EQ(local_cost(b, one_beat).occupancy, 6u);
  EXPECT_EQ(local_cost(u, one_beat).occupancy, first);
}

TEST(CostModel, ClassBeatsApplyToTranscendentals) {
  // vexp: vector.exp_beats = 2 per conflict-free repeat, latency 31 (vector.exp_latency_cycles).
  VUnary u{.op = VUnaryOp::Exp, .dtype = DType::F32, .dst = {Buf::UB, 0x8000}, .src = {Buf::UB, 0x100}, .repeat = 10};
  EXPECT_EQ(local_cost(u, b2()).occupancy, 20u);
  EXPECT_EQ(local_cost(u, b2()).latency, 31u);
}

TEST(CostModel, ReadAndWriteInTheSameBankCostAnExtraBeat) {
  const uint64_t rd[1] = {0x0}, wr[1] = {0x200};  // same group 0, same bank (addr >> 16 equal)
  EXPECT_EQ(repeat_conflict_beats(ub_banks(b2()), rd, 1, wr, 1), 2u);
  const uint64_t wr2[1] = {0x10000};  // group 0 but bank 16
  EXPECT_EQ(repeat_conflict_beats(ub_banks(b2()), rd, 1, wr2, 1), 1u);
}

// The per-repeat rule of sim/README.md written the plain way (sort, divisions) against the walk the model
// runs (masks and shifts for power-of-two geometries, a scan instead of a sort), on random block lists with
// repeated blocks, in the bundled geometry and in one that is not a power of two.
uint64_t reference_conflict_beats(const UbBanks& ub, std::vector<uint64_t> rd, std::vector<uint64_t> wr) {
  const auto groups = static_cast<uint64_t>(ub.groups);
  auto group = [&](uint64_t a) { return (a / 32) % groups; };
  auto bank = [&](uint64_t a) { return groups * (a / static_cast<uint64_t>(ub.row_bytes)) + group(a); };
  auto busiest = [&](std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    std::map<uint64_t, int> per;
    int most = 0;
    for (uint64_t a : v) most = std::max(most, ++per[group(a) & 63]);
    return most;
  };
  uint64_t beats = static_cast<uint64_t>(std::max({1, busiest(rd), busiest(wr)}));
  for (uint64_t r : rd)
    for (uint64_t w : wr)
      if (bank(r) == bank(w) && r != w) return beats + 1;
  return beats;
}

TEST(CostModel, ConflictWalkEqualsThePlainRuleOnRandomBlocks) {
  std::mt19937_64 rng(7);
  for (const UbBanks ub : {ub_banks(b2()), UbBanks{12, 12 * 4096}, UbBanks{16, 3 * 65536}}) {
    for (int trial = 0; trial < 3000; ++trial) {
      const int nr = int(rng() % 25), nw = int(rng() % 9);
      const uint64_t span = trial % 2 ? 64 : 8192;  // small spans repeat blocks, large ones cross bank rows
      std::vector<uint64_t> rd(static_cast<size_t>(nr)), wr(static_cast<size_t>(nw));
      for (auto& a : rd) a = (rng() % span) * 32;
      for (auto& a : wr) a = (rng() % span) * 32;
      ASSERT_EQ(repeat_conflict_beats(ub, rd.data(), nr, wr.data(), nw), reference_conflict_beats(ub, rd, wr))
          << "groups " << ub.groups << " trial " << trial;
    }
  }
}

// The lists real vector instructions produce: up to three read operands of 8 ascending blocks (block
// stride 0-3) and one written, often overlapping or equal -- the shape the walk's distinctness shortcut reads.
TEST(CostModel, ConflictWalkEqualsThePlainRuleOnOperandShapedBlocks) {
  std::mt19937_64 rng(11);
  for (const UbBanks ub : {ub_banks(b2()), UbBanks{12, 12 * 4096}}) {
    for (int trial = 0; trial < 6000; ++trial) {
      auto operand = [&](std::vector<uint64_t>& out, uint64_t base) {
        const uint64_t blk = rng() % 4;
        for (uint64_t b = 0; b < 8; ++b) out.push_back((base + b * blk) * 32);
      };
      std::vector<uint64_t> rd, wr;
      const int operands = 1 + int(rng() % 3);
      uint64_t base = rng() % 512;
      for (int o = 0; o < operands; ++o) {
        if (rng() % 3) base = rng() % 512;  // else: the same base again (vmul x, x)
        operand(rd, base);
      }
      operand(wr, rng() % 3 ? rng() % 512 : base);
      ASSERT_EQ(repeat_conflict_beats(ub, rd.data(), int(rd.size()), wr.data(), int(wr.size())),
                reference_conflict_beats(ub, rd, wr))
          << "groups " << ub.groups << " trial " << trial;
    }
  }
}

// Touches `steps` lines (line_at(step, rng)) on an LruLines of `capacity` and on a plain LRU (list + map);
// hits and dirty write-backs must agree at every step. Returns {hits, dirty evictions}.
std::pair<uint64_t, uint64_t> against_plain_lru(uint64_t capacity, int steps,
                                                const std::function<uint64_t(int, std::mt19937_64&)>& line_at) {
  LruLines lru(capacity);
  std::list<std::pair<uint64_t, bool>> order;  // most recent first: (line, dirty)
  std::map<uint64_t, std::list<std::pair<uint64_t, bool>>::iterator> where;
  std::mt19937_64 rng(5);
  uint64_t hits = 0, dirty_evictions = 0;
  for (int step = 0; step < steps; ++step) {
    const uint64_t line = line_at(step, rng);
    const bool write = rng() % 3 == 0;
    bool evicted_dirty = false;
    const bool hit = lru.touch(line, write, &evicted_dirty);
    bool want_hit = false, want_dirty = false;
    if (auto it = where.find(line); it != where.end()) {
      want_hit = true;
      const bool d = it->second->second || write;
      order.erase(it->second);
      order.emplace_front(line, d);
    } else {
      if (order.size() == capacity) {
        want_dirty = order.back().second;
        where.erase(order.back().first);
        order.pop_back();
      }
      order.emplace_front(line, write);
    }
    where[line] = order.begin();
    EXPECT_EQ(hit, want_hit) << "step " << step;
    EXPECT_EQ(evicted_dirty, want_dirty) << "step " << step;
    if (hit != want_hit || evicted_dirty != want_dirty) break;
    hits += hit, dirty_evictions += evicted_dirty;
  }
  return {hits, dirty_evictions};
}

// A mix of streams and scattered lines, including one line per 64-line region (the index grows from its typical
// size to hold them) and re-touched lines.
TEST(LruLines, AgreesWithAPlainLruWhileItsIndexGrows) {
  const auto [hits, dirty_evictions] = against_plain_lru(3000, 60000, [](int step, std::mt19937_64& rng) -> uint64_t {
    switch (step / 15000) {
      case 0: return uint64_t(step);                   // a stream
      case 1: return (rng() % 5000) * 64;              // one line per region
      case 2: return rng() % 9000;                     // scattered, many re-touches
      default: return 100000 + uint64_t(step % 2500);  // a loop that fits
    }
  });
  EXPECT_GT(hits, 10000u);
  EXPECT_GT(dirty_evictions, 1000u);
}

// Before its first fill the L2 keeps only touch stamps and builds its recency list from them at the first
// eviction: many re-touches in any order while it fills (streams, scattered lines), then an overflowing mix.
TEST(LruLines, AgreesWithAPlainLruAcrossItsFirstFill) {
  for (const uint64_t capacity : {1u, 2u, 64u, 3000u}) {
    const uint64_t distinct = capacity == 1 ? 1 : capacity - 1;  // fills only in the second half
    const auto [hits, dirty_evictions] =
        against_plain_lru(capacity, 40000, [&](int step, std::mt19937_64& rng) -> uint64_t {
          if (step < 20000) return step % 3 ? rng() % distinct : uint64_t(step / 7) % distinct;
          return rng() % (3 * capacity + 2);
        });
    EXPECT_GT(hits, 10000u) << capacity;
    EXPECT_GT(dirty_evictions, capacity == 1 ? 0u : 100u) << capacity;
  }
}

TEST(MemorySystem, ColdReadIsPortBoundWithHbmLatency) {
  MemorySystem m(b2());
  // 64 KiB cold: 65536 / 32 B per cycle = 2048 cycles busy; latency = 50 startup + 400 HBM.
  const auto t = m.read({{Buf::GM, 0, 65536, false}}, 0, {32, 110, 50, 0});
  EXPECT_EQ(t.occupancy, 2048u);
  EXPECT_EQ(t.latency, 450u);
  // Read again: every line hits L2 -> 65536 / 110 = 595.8 -> 596; latency 50 + L2 150.
  const auto h = m.read({{Buf::GM, 0, 65536, false}}, 5000, {32, 110, 50, 0});
  EXPECT_EQ(h.occupancy, 596u);
  EXPECT_EQ(h.latency, 200u);
  EXPECT_DOUBLE_EQ(m.l2_hit_rate(), 0.5);
}

TEST(MemorySystem, WrittenDataIsServedFromL2) {
  MemorySystem m(b2());
  m.write({{Buf::GM, 4096, 4096 + 8192, true}}, 0, {64, 0, 50, 0});
  const auto t = m.read({{Buf::GM, 4096, 4096 + 8192, false}}, 100, {32, 110, 50, 0});
  EXPECT_EQ(t.latency, 200u);  // all hits: 50 startup + 150 L2
  EXPECT_EQ(m.stats().l2_hit_bytes, 8192u);
}

TEST(MemorySystem, ShortRowsCostWholeBursts) {
  MemorySystem m(b2());
  // 16 rows of 32 B each 1 KiB apart: each row costs one 128 B burst -> 2048 B / 32 = 64 cycles.
  std::vector<Access> rows;
  for (int r = 0; r < 16; ++r) rows.push_back({Buf::GM, uint64_t(r) * 1024, uint64_t(r) * 1024 + 32, false});
  EXPECT_EQ(m.read(rows, 0, {32, 110, 0, 0}).occupancy, 64u);
}

TEST(MemorySystem, ConcurrentStreamsShareHbm) {
  HwConfig hw = b2();
  hw.hbm.bytes_per_cycle = 64;  // two 32 B/cycle ports saturate it; a third must wait
  MemorySystem m(hw);
  const uint64_t n = 64 * 1024;
  auto a = m.read({{Buf::GM, 0, n, false}}, 0, {32, 110, 0, 0});
  auto b = m.read({{Buf::GM, n, 2 * n, false}}, 0, {32, 110, 0, 0});
  auto c = m.read({{Buf::GM, 2 * n, 3 * n, false}}, 0, {32, 110, 0, 0});
  EXPECT_EQ(a.occupancy, 2048u);  // port-bound: the HBM reservation ends at 1024
  EXPECT_EQ(b.occupancy, 2048u);  // reservation ends at 2048
  EXPECT_EQ(c.occupancy, 3072u);  // queued behind both on HBM: ends at 3072
}

TEST(MemorySystem, ShortSegmentsCostRequestsNotBytes) {
  MemorySystem m(b2());
  // 64 rows of 128 B, 1 KiB apart, all L2 hits after a first pass: 8 KiB / 110 B per cycle = 75 cycles of data,
  // but 64 segments x 6 cycles = 384 cycles of requests.
  std::vector<Access> rows;
  for (int r = 0; r < 64; ++r) rows.push_back({Buf::GM, uint64_t(r) * 1024, uint64_t(r) * 1024 + 128, false});
  m.read(rows, 0, {32, 110, 0, 6});
  EXPECT_EQ(m.read(rows, 10000, {32, 110, 0, 6}).occupancy, 384u);
  EXPECT_EQ(m.read(rows, 20000, {32, 110, 0, 0}).occupancy, 75u);
}

TEST(MemorySystem, ConcurrentStreamsShareTheL2) {
  HwConfig hw = b2();
  hw.l2.bytes_per_cycle = 200;  // two 110 B/cycle hit streams exceed it
  MemorySystem m(hw);
  const uint64_t n = 64 * 1024;
  m.warm(0, 2 * n);
  auto a = m.read({{Buf::GM, 0, n, false}}, 0, {32, 110, 0, 0});
  auto b = m.read({{Buf::GM, n, 2 * n, false}}, 0, {32, 110, 0, 0});
  EXPECT_EQ(a.occupancy, 596u);            // own port: 65536 / 110; the L2 reservation ends at 328
  EXPECT_EQ(b.occupancy, 656u);            // behind it on the L2 channel: 2 x 65536 / 200
  EXPECT_EQ(m.stats().l2_miss_bytes, 0u);  // warm() made the lines resident
}

}  // namespace
}  // namespace npusim::sim
