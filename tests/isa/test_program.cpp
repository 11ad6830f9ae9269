// The sequential interpreter: flag bookkeeping, pipe availability per core kind, error positions.
#include <gtest/gtest.h>

#include "isa/interp/program.h"

namespace npusim::isa {
namespace {

BufferSizes small_sizes() {
  BufferSizes s;
  s.bytes[static_cast<int>(Buf::UB)] = 4096;
  s.bytes[static_cast<int>(Buf::L1)] = 4096;
  return s;
}

TEST(FunctionalCore, WaitWithoutEarlierSetIsReportedWithItsIndex) {
  std::vector<uint8_t> gm(64);
  FunctionalCore core(CoreKind::Vector, small_sizes(), gm);
  try {
    core.run({SMov{0, 1}, WaitFlag{Pipe::MTE2, Pipe::V, 0}});
    FAIL();
  } catch (const IsaError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("instruction 1: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("block forever"), std::string::npos) << msg;
  }
}

TEST(FunctionalCore, MatchedFlagsLeaveNothingPendingAndUnmatchedAreListed) {
  std::vector<uint8_t> gm(64);
  FunctionalCore core(CoreKind::Vector, small_sizes(), gm);
  core.run({SetFlag{Pipe::MTE2, Pipe::V, 1}, WaitFlag{Pipe::MTE2, Pipe::V, 1}, SetFlag{Pipe::V, Pipe::MTE3, 2}});
  ASSERT_EQ(core.pending_flags().size(), 1u);
  EXPECT_NE(core.pending_flags()[0].find("v->mte3 event 2"), std::string::npos);
  EXPECT_EQ(core.executed(), 3u);
}

TEST(FunctionalCore, DoubleSetIsAnError) {
  std::vector<uint8_t> gm(64);
  FunctionalCore core(CoreKind::Vector, small_sizes(), gm);
  EXPECT_THROW(core.run({SetFlag{Pipe::MTE2, Pipe::V, 1}, SetFlag{Pipe::MTE2, Pipe::V, 1}}), IsaError);
}

TEST(FunctionalCore, CoreWithoutThePipeRejectsTheInstruction) {
  std::vector<uint8_t> gm(64);
  FunctionalCore aic(CoreKind::Cube, small_sizes(), gm);
  EXPECT_THROW(aic.run({VDup{DType::F16, {Buf::UB, 0}, 1.0}}), IsaError);
  FunctionalCore aiv(CoreKind::Vector, small_sizes(), gm);
  EXPECT_THROW(aiv.run({SetFlag{Pipe::MTE2, Pipe::MTE1, 0}}), IsaError);  // a cube-side event
}

TEST(FunctionalCore, ScalarProgramRunsInOrder) {
  std::vector<uint8_t> gm(64);
  FunctionalCore core(CoreKind::Vector, small_sizes(), gm);
  core.run({SMov{1, 6}, SMov{2, 7}, SAlu{SAluOp::Mul, 3, 1, 2}, SStore{DType::I32, 3, {Buf::GM, 8}}});
  EXPECT_EQ(gm[8], 42);
}

}  // namespace
}  // namespace npusim::isa
