// Scalar unit semantics and the field rules of sync instructions.
#include <gtest/gtest.h>

#include <cstring>

#include "isa/instr/sync_rules.h"
#include "isa/semantics/exec.h"

namespace npusim::isa {
namespace {

struct ScalarFixture : ::testing::Test {
  std::vector<uint8_t> gm = std::vector<uint8_t>(256, 0);
  ScalarRegs regs{};
  ExecContext ctx;
  void SetUp() override {
    ctx.mem[Buf::GM] = std::span<uint8_t>(gm);
    ctx.regs = &regs;
  }
};

TEST_F(ScalarFixture, MovAndAluComputeOn64BitRegisters) {
  execute(SMov{1, 7}, ctx);
  execute(SMov{2, -3}, ctx);
  execute(SAlu{SAluOp::Mul, 3, 1, 2}, ctx);
  EXPECT_EQ(regs[3], -21);
  execute(SAlu{SAluOp::Div, 4, 3, 1}, ctx);
  EXPECT_EQ(regs[4], -3);
  execute(SAlu{SAluOp::Rem, 5, 3, 0, true, 4}, ctx);
  EXPECT_EQ(regs[5], -1);
  execute(SAlu{SAluOp::Shr, 6, 3, 0, true, 1}, ctx);  // arithmetic shift
  EXPECT_EQ(regs[6], -11);
  execute(SAlu{SAluOp::Max, 7, 1, 2}, ctx);
  EXPECT_EQ(regs[7], 7);
  execute(SMov{8, INT64_MAX}, ctx);
  execute(SAlu{SAluOp::Add, 8, 8, 0, true, 1}, ctx);  // wraps
  EXPECT_EQ(regs[8], INT64_MIN);
}

TEST_F(ScalarFixture, DivisionByZeroIsAnError) {
  execute(SMov{1, 5}, ctx);
  EXPECT_THROW(execute(SAlu{SAluOp::Div, 2, 1, 0, true, 0}, ctx), IsaError);
  EXPECT_THROW(execute(SAlu{SAluOp::Shl, 2, 1, 0, true, 64}, ctx), IsaError);
}

TEST_F(ScalarFixture, LoadSignExtendsIntegersAndKeepsFloatBits) {
  const int32_t v = -5;
  std::memcpy(&gm[16], &v, 4);
  gm[40] = 0xff;
  execute(SLoad{DType::I32, 1, {Buf::GM, 16}}, ctx);
  EXPECT_EQ(regs[1], -5);
  execute(SLoad{DType::U8, 2, {Buf::GM, 40}}, ctx);
  EXPECT_EQ(regs[2], 255);
  execute(SLoad{DType::I8, 2, {Buf::GM, 40}}, ctx);
  EXPECT_EQ(regs[2], -1);
  execute(SLoad{DType::F32, 3, {Buf::GM, 16}}, ctx);
  EXPECT_EQ(regs[3], 0xfffffffb);
}

TEST_F(ScalarFixture, IndexRegisterOffsetsTheAddress) {
  // A block-table read: table at gm+64, index 3 -> byte offset 12.
  const int32_t table[4] = {10, 11, 12, 13};
  std::memcpy(&gm[64], table, sizeof table);
  execute(SMov{1, 12}, ctx);
  execute(SLoad{DType::I32, 2, {Buf::GM, 64}, 1}, ctx);
  EXPECT_EQ(regs[2], 13);
  execute(SStore{DType::I16, 2, {Buf::GM, 0}, 1}, ctx);
  EXPECT_EQ(gm[12], 13);
  EXPECT_EQ(gm[13], 0);
  execute(SMov{1, -4}, ctx);  // a negative index counts back from the base
  execute(SLoad{DType::I32, 2, {Buf::GM, 72}, 1}, ctx);
  EXPECT_EQ(regs[2], 11);
  try {  // below address 0: the sum wraps beyond what an address holds
    execute(SLoad{DType::I32, 2, {Buf::GM, 0}, 1}, ctx);
    FAIL();
  } catch (const IsaError& e) {
    EXPECT_NE(std::string(e.what()).find("gm:0x0 plus index register r1 = -4 is beyond 2^56 - 1"), std::string::npos)
        << e.what();
  }
}

TEST_F(ScalarFixture, LoadOutOfBoundsOrMisalignedNamesTheOperand) {
  try {
    execute(SLoad{DType::I32, 1, {Buf::GM, 256}}, ctx);
    FAIL();
  } catch (const IsaError& e) {
    EXPECT_NE(std::string(e.what()).find("operand addr"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
  }
  EXPECT_THROW(execute(SLoad{DType::I32, 1, {Buf::GM, 2}}, ctx), IsaError);
  EXPECT_THROW(execute(SLoad{DType::I32, 1, {Buf::UB, 0}}, ctx), IsaError);
  EXPECT_THROW(execute(SLoad{DType::I4, 1, {Buf::GM, 0}}, ctx), IsaError);
  EXPECT_THROW(execute(SMov{32, 0}, ctx), IsaError);
}

// dcci names one GM line (its data is the machine's cache, sim/machine/dcache.h) or the whole cache.
TEST_F(ScalarFixture, DcciTakesAGmLineOrTheWholeCache) {
  EXPECT_NO_THROW(execute(Dcci{{Buf::GM, 64}}, ctx));
  EXPECT_NO_THROW(execute(Dcci{{Buf::UB, 0}, true}, ctx));  // all: the address is not used
  EXPECT_THROW(execute(Dcci{{Buf::UB, 0}}, ctx), IsaError);
  EXPECT_THROW(execute(Dcci{{Buf::GM, 1 << 20}}, ctx), IsaError);
}

TEST_F(ScalarFixture, ScalarWithoutRegisterFileIsAnError) {
  ctx.regs = nullptr;
  EXPECT_THROW(execute(SMov{0, 1}, ctx), IsaError);
}

TEST(SyncFields, EventIdsAndPairsAreChecked) {
  ExecContext ctx;
  EXPECT_NO_THROW(execute(SetFlag{Pipe::MTE2, Pipe::V, 7}, ctx));
  EXPECT_THROW(execute(SetFlag{Pipe::MTE2, Pipe::V, 8}, ctx), IsaError);
  EXPECT_THROW(execute(WaitFlag{Pipe::M, Pipe::MTE3, 0}, ctx), IsaError);  // no such event anywhere
  EXPECT_THROW(execute(SetFlag{Pipe::ALL, Pipe::V, 0}, ctx), IsaError);
  EXPECT_NO_THROW(execute(CrossSet{2, 10, Pipe::FIX}, ctx));
  EXPECT_THROW(execute(CrossSet{3, 0, Pipe::FIX}, ctx), IsaError);
  EXPECT_THROW(execute(CrossSet{2, 11, Pipe::FIX}, ctx), IsaError);
  EXPECT_THROW(execute(CrossWait{11}, ctx), IsaError);
}

// The scalar unit orders itself: a barrier on it is a hardware error (Ascend C PipeBarrier(ISASI)).
TEST(SyncFields, ABarrierOnTheScalarUnitIsAnError) {
  ExecContext ctx;
  EXPECT_THROW(execute(PipeBarrier{Pipe::S}, ctx), IsaError);
  EXPECT_NO_THROW(execute(PipeBarrier{Pipe::V}, ctx));
  EXPECT_NO_THROW(execute(PipeBarrier{Pipe::ALL}, ctx));
}

TEST(SyncRules, CoreKindsHaveTheirOwnEventSets) {
  EXPECT_TRUE(event_pair_valid(Pipe::MTE2, Pipe::MTE1, CoreKind::Cube));
  EXPECT_FALSE(event_pair_valid(Pipe::MTE2, Pipe::MTE1, CoreKind::Vector));
  EXPECT_TRUE(event_pair_valid(Pipe::V, Pipe::MTE3, CoreKind::Vector));
  EXPECT_FALSE(event_pair_valid(Pipe::V, Pipe::MTE3, CoreKind::Cube));
  EXPECT_TRUE(event_pair_valid(Pipe::FIX, Pipe::FIX, CoreKind::Cube));
  EXPECT_TRUE(event_pair_valid(Pipe::M, Pipe::V, CoreKind::Coupled));
  EXPECT_FALSE(core_has_pipe(CoreKind::Cube, Pipe::V));
  EXPECT_FALSE(core_has_pipe(CoreKind::Vector, Pipe::M));
}

}  // namespace
}  // namespace npusim::isa
