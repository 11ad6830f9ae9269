// A corpus of planted faults (issue 17): small kernels with one defect each. Every one must be caught, with the
// instructions involved named, and its repaired twin must run clean; tests/op runs every shipped kernel and case
// with all checks on and expects zero reports. The table is in tests/README.md "Planted faults".
#include <gtest/gtest.h>

#include "tests/sim/machine_kernels.h"

namespace npusim::sim::testing {
namespace {

// --- one producer -> consumer pipe pair per case: the defect is the missing set_flag / wait_flag -------------

struct PipePair {
  const char* name;
  MixMode mix;  // CubeOnly: the kernel runs on the AIC, VectorOnly: on an AIV
  Pipe src, dst;
  // Issues the producer, then (when `sync`) set_flag / wait_flag src -> dst, then the consumer.
  void (*kernel)(CoreCtx& c, bool sync);
  std::vector<std::string> named;  // words the race report must contain (both mnemonics, the core)
};

void sync_if(CoreCtx& c, bool sync, Pipe src, Pipe dst) {
  if (!sync) return;
  c.set_flag(src, dst, 0);
  c.wait_flag(src, dst, 0);
}

const Addr kUbX{Buf::UB, 0}, kUbY{Buf::UB, 0x10000};
Addr gm_x(CoreCtx& c) { return c.gm("x"); }

const PipePair kPairs[] = {
    {"mte2_to_v_raw",
     MixMode::VectorOnly,
     Pipe::MTE2,
     Pipe::V,
     [](CoreCtx& c, bool s) {
       c.issue(DataCopy{.dst = kUbX, .src = gm_x(c), .burst_bytes = 1024});
       sync_if(c, s, Pipe::MTE2, Pipe::V);
       c.issue(
           VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = kUbY, .src = kUbX, .scalar = 1.0, .repeat = 4});
     },
     {"aiv0", "copy", "vadds"}},
    {"v_to_mte3_raw",
     MixMode::VectorOnly,
     Pipe::V,
     Pipe::MTE3,
     [](CoreCtx& c, bool s) {
       c.issue(VDup{.dtype = DType::F32, .dst = kUbX, .value = 1.0, .repeat = 4});
       sync_if(c, s, Pipe::V, Pipe::MTE3);
       c.issue(DataCopy{.dst = gm_x(c), .src = kUbX, .burst_bytes = 1024});
     },
     {"aiv0", "vdup", "copy"}},
    {"v_to_mte2_war",
     MixMode::VectorOnly,
     Pipe::V,
     Pipe::MTE2,
     [](CoreCtx& c, bool s) {
       c.issue(
           VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = kUbY, .src = kUbX, .scalar = 2.0, .repeat = 4});
       sync_if(c, s, Pipe::V, Pipe::MTE2);
       c.issue(DataCopy{.dst = kUbX, .src = gm_x(c), .burst_bytes = 1024});
     },
     {"aiv0", "vmuls", "copy"}},
    {"mte3_to_mte2_war",
     MixMode::VectorOnly,
     Pipe::MTE3,
     Pipe::MTE2,
     [](CoreCtx& c, bool s) {
       c.issue(DataCopy{.dst = {Buf::GM, gm_x(c).off + 1024}, .src = kUbX, .burst_bytes = 1024});
       sync_if(c, s, Pipe::MTE3, Pipe::MTE2);
       c.issue(DataCopy{.dst = kUbX, .src = gm_x(c), .burst_bytes = 1024});
     },
     {"aiv0", "mte3", "mte2"}},
    {"mte3_to_v_war",
     MixMode::VectorOnly,
     Pipe::MTE3,
     Pipe::V,
     [](CoreCtx& c, bool s) {
       c.issue(DataCopy{.dst = gm_x(c), .src = kUbX, .burst_bytes = 1024});
       sync_if(c, s, Pipe::MTE3, Pipe::V);
       c.issue(VDup{.dtype = DType::F32, .dst = kUbX, .value = 1.0, .repeat = 4});
     },
     {"aiv0", "copy", "vdup"}},
    {"mte2_to_mte1_raw",
     MixMode::CubeOnly,
     Pipe::MTE2,
     Pipe::MTE1,
     [](CoreCtx& c, bool s) {
       c.issue(DataCopy{.dst = {Buf::L1, 0}, .src = gm_x(c), .burst_bytes = 1024});
       sync_if(c, s, Pipe::MTE2, Pipe::MTE1);
       c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 2});
     },
     {"aic0", "copy", "load2d"}},
    {"mte1_to_m_raw",
     MixMode::CubeOnly,
     Pipe::MTE1,
     Pipe::M,
     [](CoreCtx& c, bool s) {
       c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 1});
       sync_if(c, s, Pipe::MTE1, Pipe::M);
       c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16});
     },
     {"aic0", "load2d", "mmad"}},
    {"m_to_fix_raw",
     MixMode::CubeOnly,
     Pipe::M,
     Pipe::FIX,
     [](CoreCtx& c, bool s) {
       c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16});
       sync_if(c, s, Pipe::M, Pipe::FIX);
       c.issue(Fixpipe{.dst = gm_x(c), .src = {Buf::L0C, 0}});
     },
     {"aic0", "mmad", "fixpipe"}},
    {"m_to_mte1_war",
     MixMode::CubeOnly,
     Pipe::M,
     Pipe::MTE1,
     [](CoreCtx& c, bool s) {
       c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16});
       sync_if(c, s, Pipe::M, Pipe::MTE1);
       c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 1});
     },
     {"aic0", "mmad", "load2d"}},
    {"fix_to_m_war",
     MixMode::CubeOnly,
     Pipe::FIX,
     Pipe::M,
     [](CoreCtx& c, bool s) {
       c.issue(Fixpipe{.dst = gm_x(c), .src = {Buf::L0C, 0}});
       sync_if(c, s, Pipe::FIX, Pipe::M);
       c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16});
     },
     {"aic0", "fixpipe", "mmad"}},
    // FixPipe L0C -> L1, then MTE1 loads from that L1: set_flag fix -> mte1 fires after the FixPipe's writes land.
    {"fix_to_mte1_raw",
     MixMode::CubeOnly,
     Pipe::FIX,
     Pipe::MTE1,
     [](CoreCtx& c, bool s) {
       c.issue(
           Fixpipe{.dst = {Buf::L1, 0}, .src = {Buf::L0C, 0}, .src_m_stride = 16, .dst_stride = 16, .nz2nd = false});
       sync_if(c, s, Pipe::FIX, Pipe::MTE1);
       c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 1});
     },
     {"aic0", "fixpipe", "load2d"}},
    {"mte1_to_mte2_war",
     MixMode::CubeOnly,
     Pipe::MTE1,
     Pipe::MTE2,
     [](CoreCtx& c, bool s) {
       c.issue(Load2d{.dst = {Buf::L0A, 0}, .src = {Buf::L1, 0}, .repeat = 2});
       sync_if(c, s, Pipe::MTE1, Pipe::MTE2);
       c.issue(DataCopy{.dst = {Buf::L1, 0}, .src = gm_x(c), .burst_bytes = 1024});
     },
     {"aic0", "load2d", "copy"}},
};

void PrintTo(const PipePair& p, std::ostream* os) { *os << p.name; }

class MissingPipeSync : public ::testing::TestWithParam<PipePair> {};

LaunchResult run_pair(const PipePair& p, bool sync) {
  return run_single(p.mix, [&p, sync](CoreCtx& c) { p.kernel(c, sync); });
}

TEST_P(MissingPipeSync, IsARaceNamingBothInstructions) {
  const PipePair& p = GetParam();
  const auto r = run_pair(p, false);
  EXPECT_TRUE(has_fault_of(r, {"race", "gm-race"}, p.named)) << p.name << ":\n" << faults_of(r);
}

TEST_P(MissingPipeSync, WithTheFlagPairIsClean) {
  const auto r = run_pair(GetParam(), true);
  EXPECT_TRUE(r.faults.empty()) << GetParam().name << ":\n" << faults_of(r);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MissingPipeSync, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return std::string(info.param.name); });

// --- the other defects ----------------------------------------------------------------------------------------

TEST(PlantedFault, WrongEventIdIsADeadlockNamingTheWait) {
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {},
      [](CoreCtx& c) {
        c.issue(DataCopy{.dst = kUbX, .src = gm_x(c), .burst_bytes = 1024});
        c.set_flag(Pipe::MTE2, Pipe::V, 1);
        c.wait_flag(Pipe::MTE2, Pipe::V, 2);  // the set was event 1
      },
      1, 4096);
  EXPECT_TRUE(has_fault(r, "deadlock", {"aiv0", "wait_flag mte2->v event 2"})) << faults_of(r);
}

// Two UB slots, four rounds: the producer reuses a slot without waiting for the consumer to free it.
void ping_pong(CoreCtx& c, bool wait_for_free_slot) {
  const Addr slot[2] = {kUbX, {Buf::UB, 0x2000}};
  for (int i = 0; i < 4; ++i) {
    const int s = i % 2;
    if (i >= 2 && wait_for_free_slot) c.wait_flag(Pipe::V, Pipe::MTE2, s);
    c.issue(DataCopy{.dst = slot[s], .src = gm_x(c), .burst_bytes = 1024});
    c.set_flag(Pipe::MTE2, Pipe::V, s);
    c.wait_flag(Pipe::MTE2, Pipe::V, s);
    c.issue(VScalar{.op = VScalarOp::Adds,
                    .dtype = DType::F32,
                    .dst = {Buf::UB, 0x10000 + 0x1000u * s},
                    .src = slot[s],
                    .scalar = 1.0,
                    .repeat = 4});
    if (i < 2 && wait_for_free_slot) c.set_flag(Pipe::V, Pipe::MTE2, s);
  }
}

TEST(PlantedFault, WarOnAPingPongSlotNamesTheReuse) {
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { ping_pong(c, false); }, 1, 4096);
  EXPECT_TRUE(has_fault(r, "race", {"aiv0", "vadds", "copy"})) << faults_of(r);
}

TEST(PlantedFault, PingPongThatWaitsForTheFreeSlotIsClean) {
  const auto ok = run_one(
      "ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { ping_pong(c, true); }, 1, 4096);
  EXPECT_TRUE(ok.faults.empty()) << faults_of(ok);
}

TEST(PlantedFault, GmOverlapBetweenCoresIsAGmRaceNamingBoth) {
  // Two AIV blocks store 1 KiB each, 768 bytes apart: 256 bytes written by both, unordered.
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {},
      [](CoreCtx& c) {
        c.issue(VDup{.dtype = DType::F32, .dst = kUbX, .value = 1.0, .repeat = 4});
        c.set_flag(Pipe::V, Pipe::MTE3, 0);
        c.wait_flag(Pipe::V, Pipe::MTE3, 0);
        c.issue(DataCopy{.dst = {Buf::GM, gm_x(c).off + 768u * c.block_idx()}, .src = kUbX, .burst_bytes = 1024});
      },
      2, 4096);
  EXPECT_TRUE(has_fault(r, "gm-race", {"aiv0", "aiv1", "mte3"})) << faults_of(r);
}

TEST(PlantedFault, CrossCoreFlagNeverWaitedIsReportedWithTheSetter) {
  const auto r = run_one(
      "ascend910b2", MixMode::Mix1_2, [](CoreCtx& c) { c.cross_set(2, 3, Pipe::S); }, [](CoreCtx&) {});
  EXPECT_TRUE(has_fault(r, "cross-flags-pending", {"aiv0", "flag 3", "aic0"})) << faults_of(r);
}

TEST(PlantedFault, DeadlockAcrossAicAndAivNamesBothWaits) {
  // Each side waits for the other's flag before setting its own.
  const auto r = run_one(
      "ascend910b2", MixMode::Mix1_2,
      [](CoreCtx& c) {
        c.cross_wait(2);
        c.cross_set(2, 1, Pipe::S);
      },
      [](CoreCtx& c) {
        c.cross_wait(1);
        c.cross_set(2, 2, Pipe::S);
      });
  EXPECT_TRUE(has_fault(r, "deadlock", {"aic0", "cross_wait flag 2", "aiv0", "cross_wait flag 1"})) << faults_of(r);
}

TEST(PlantedFault, OutOfBoundsDmaNamesTheCopy) {
  // GM holds 4 KiB: the copy reads 4 KiB starting 2 KiB in.
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {},
      [](CoreCtx& c) {
        c.issue(DataCopy{.dst = kUbX, .src = {Buf::GM, gm_x(c).off + 2048}, .burst_bytes = 4096});
      },
      1, 4096);
  EXPECT_TRUE(has_fault(r, "bounds", {"aiv0", "copy", "exceeds"})) << faults_of(r);
}

// The scalar data cache is not coherent with DMA stores (sim/machine/dcache.h): a line the scalar unit cached
// before an MTE3 store to it must be dropped with dcci after the store's completion, or the load reads old bytes.
void scalar_reads_back(CoreCtx& c, bool dcci) {
  const Addr x = gm_x(c);
  c.load_scalar(DType::I32, x);  // caches the line
  c.issue(VDup{.dtype = DType::F32, .dst = kUbX, .value = 1.0, .repeat = 1});
  c.set_flag(Pipe::V, Pipe::MTE3, 0);
  c.wait_flag(Pipe::V, Pipe::MTE3, 0);
  c.issue(DataCopy{.dst = x, .src = kUbX, .burst_bytes = 256});
  c.set_flag(Pipe::MTE3, Pipe::S, 0);  // the store has completed ...
  c.wait_flag(Pipe::MTE3, Pipe::S, 0);
  if (dcci) c.issue(Dcci{.addr = x});  // ... and the cached line is dropped
  c.load_scalar(DType::I32, x);
}

TEST(PlantedFault, ScalarReadOfADmaStoreThroughTheDataCacheNamesBoth) {
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { scalar_reads_back(c, false); }, 1, 4096);
  EXPECT_TRUE(has_fault(r, "stale-dcache", {"aiv0", "sld.s32", "from before", "mte3", "copy", "dcci"})) << faults_of(r);
}

TEST(PlantedFault, ScalarReadOfADmaStoreAfterDcciIsClean) {
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {}, [](CoreCtx& c) { scalar_reads_back(c, true); }, 1, 4096);
  EXPECT_TRUE(r.faults.empty()) << faults_of(r);
}

TEST(PlantedFault, DcciOutsideGmIsRejected) {
  const auto r = run_one(
      "ascend910b2", MixMode::VectorOnly, {},
      [](CoreCtx& c) {
        c.issue(Dcci{.addr = {Buf::GM, 1 << 20}});
      },
      1, 4096);
  EXPECT_TRUE(has_fault(r, "isa", {"dcci", "allocated GM"})) << faults_of(r);
}

TEST(PlantedFault, MisalignedFractalNamesTheMmad) {
  // L0A operands start on a 512-byte fractal.
  const auto r = run_one("ascend910b2", MixMode::CubeOnly, [](CoreCtx& c) {
    c.issue(Mmad{.c = {Buf::L0C, 0}, .a = {Buf::L0A, 0x100}, .b = {Buf::L0B, 0}, .m = 16, .n = 16, .k = 16});
  });
  EXPECT_TRUE(has_fault(r, "bounds", {"aic0", "mmad", "not aligned to 512"})) << faults_of(r);
}

}  // namespace
}  // namespace npusim::sim::testing
