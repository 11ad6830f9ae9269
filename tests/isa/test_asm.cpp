// Text form: hand-built instructions of every kind (every field non-default) survive print -> parse, and
// canonical lines survive parse -> print. Error paths: test_asm_errors.cpp; random fields: test_asm_random.cpp.
#include <limits>
#include <set>

#include "tests/isa/asm_test_support.h"

namespace npusim::isa {
namespace {

using asm_test::arity;
using asm_test::same_instr;

// The member counts of instr.h, counted by hand: if a field is added, this fails until the tests and
// the field table are revisited.
static_assert(arity<DataCopy>() == 9 && arity<Nd2Nz>() == 11 && arity<Load2d>() == 9 && arity<Mmad>() == 11);
static_assert(arity<Fixpipe>() == 14 && arity<VBinary>() == 10 && arity<VScalar>() == 9 && arity<VUnary>() == 8);
static_assert(arity<VReduce>() == 8 && arity<VBlockReduce>() == 8 && arity<VPairAdd>() == 7);
static_assert(arity<VBrcb>() == 5);
static_assert(arity<VDup>() == 6 && arity<VCast>() == 10 && arity<VCmp>() == 9 && arity<VSel>() == 12);
static_assert(arity<VCopy>() == 7 && arity<SMov>() == 2 && arity<SAlu>() == 6 && arity<SLoad>() == 4);
static_assert(arity<SStore>() == 4 && arity<Dcci>() == 2 && arity<SetFlag>() == 3 && arity<WaitFlag>() == 3);
static_assert(arity<PipeBarrier>() == 1);
static_assert(arity<CrossSet>() == 3 && arity<CrossWait>() == 1 && arity<SyncAll>() == 0);

constexpr VecMask kPartMask{false, 0x00ff00ff00ff00ffull, 0x1ull};
constexpr VecMask kCountMask{true, 100, 0x7ull};  // hi is unused in counter mode but must survive too

// One instruction per kind with every member (and every sub-member) different from its default.
std::vector<Instr> all_kinds_non_default() {
  return {
      DataCopy{{Buf::UB, 0x40}, {Buf::L1, 0x123456789}, 7, 96, 5, 2, true, DType::BF16, -1.5},
      Nd2Nz{{Buf::L1, 0x200}, {Buf::UB, 0x80}, DType::BF16, 2, 33, 40, 2048, 64, 48, 2, 4096},
      Load2d{{Buf::L0A, 0x400}, {Buf::L1, 0x1000}, DType::I8, 3, 255, 4, 1, true, 2},
      Mmad{{Buf::L0C, 0x800},
           {Buf::L0A, 0x200},
           {Buf::L0B, 0x600},
           DType::I4,
           4095,
           0,
           64,
           false,
           3,
           true,
           {Buf::FB, 0x40}},
      Fixpipe{{Buf::UB, 0xdead00},
              {Buf::L0C, 0x400},
              DType::I32,
              DType::I8,
              48,
              32,
              64,
              100,
              false,
              Quant::Vector,
              0.125,
              {Buf::BT, 0x80},
              true,
              false},
      VBinary{VBinOp::Max,
              DType::I32,
              {Buf::UB, 0x100},
              {Buf::UB, 0x200},
              {Buf::L1, 0x300},
              9,
              kPartMask,
              {2, 16},
              {0, 0},
              {3, 24}},
      VScalar{VScalarOp::Mins, DType::F32, {Buf::UB, 0x20}, {Buf::UB, 0x40}, -0.0, 0, kCountMask, {2, 3}, {4, 5}},
      VUnary{VUnaryOp::Rsqrt, DType::BF16, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 200, kPartMask, {2, 3}, {4, 5}},
      VReduce{VRedOp::Max, DType::F32, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 17, kPartMask, {2, 3}, 2},
      VBlockReduce{VRedOp::Min, DType::I16, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 17, kCountMask, {0, 9}, 3},
      VPairAdd{DType::F32, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 2, kPartMask, {7, 1}, 8},
      VBrcb{DType::I16, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 3, {2, 65535}},
      VDup{DType::BF16, {Buf::UB, 0x20}, 1e-300, 4, kPartMask, {0, 0}},
      VCast{DType::BF16,
            DType::I32,
            RoundMode::ODD,
            false,
            {Buf::UB, 0x20},
            {Buf::UB, 0x40},
            5,
            kCountMask,
            {5, 4},
            {3, 2}},
      VCmp{CmpOp::NE, DType::F32, {Buf::UB, 0x20}, {Buf::UB, 0x40}, {Buf::UB, 0x60}, 6, kPartMask, {2, 2}, {3, 3}},
      VSel{DType::F32,
           {Buf::UB, 0x20},
           {Buf::UB, 0x40},
           {Buf::UB, 0x60},
           {Buf::UB, 0x80},
           true,
           -std::numeric_limits<double>::infinity(),
           7,
           kPartMask,
           {2, 9},
           {3, 10},
           {4, 11}},
      VCopy{DType::I32, {Buf::UB, 0x20}, {Buf::UB, 0x40}, 8, kCountMask, {2, 3}, {4, 5}},
      SMov{31, std::numeric_limits<int64_t>::min()},
      SAlu{SAluOp::Shr, 1, 2, 3, true, -7},
      SLoad{DType::F16, 5, {Buf::UB, 0x100}, 2},
      SStore{DType::U8, 6, {Buf::L1, 0x104}, 127},
      Dcci{{Buf::UB, 0x140}, true},
      SetFlag{Pipe::V, Pipe::MTE3, 7},
      WaitFlag{Pipe::M, Pipe::FIX, 5},
      PipeBarrier{Pipe::MTE1},
      CrossSet{0, 15, Pipe::FIX},
      CrossWait{9},
      SyncAll{},
  };
}

// Indices of the members of s that equal the default-constructed struct's.
template <class S>
std::vector<size_t> default_members(const S& s) {
  std::vector<size_t> found;
  const S d{};
  [&]<size_t... I>(std::index_sequence<I...>) {
    [[maybe_unused]] auto ts = asm_test::members(s);
    [[maybe_unused]] auto td = asm_test::members(d);
    ((asm_test::same_member(std::get<I>(ts), std::get<I>(td)) ? found.push_back(I) : void()), ...);
  }
  (std::make_index_sequence<static_cast<size_t>(arity<S>())>{});
  return found;
}

TEST(AsmRoundTrip, HandBuiltListCoversEveryKindWithEveryMemberNonDefault) {
  std::set<size_t> kinds;
  for (const Instr& in : all_kinds_non_default()) {
    kinds.insert(in.index());
    const auto defaults = std::visit([](const auto& s) { return default_members(s); }, in);
    EXPECT_TRUE(defaults.empty()) << to_asm(in) << ": member #" << defaults.front() << " is default";
  }
  EXPECT_EQ(kinds.size(), std::variant_size_v<Instr>);
}

TEST(AsmRoundTrip, EveryKindWithEveryFieldNonDefaultParsesBackIdentical) {
  for (const Instr& in : all_kinds_non_default()) {
    const std::string text = to_asm(in);
    SCOPED_TRACE(text);
    EXPECT_EQ(text.find('\n'), std::string::npos);
    EXPECT_TRUE(same_instr(parse_instr(text), in));
    EXPECT_EQ(to_asm(parse_instr(text)), text);
  }
}

TEST(AsmRoundTrip, DefaultConstructedKindsParseBackIdentical) {
  for (size_t kind = 0; kind < std::variant_size_v<Instr>; ++kind) {
    const Instr in = asm_test::default_instr(kind);
    EXPECT_TRUE(same_instr(parse_instr(to_asm(in)), in)) << to_asm(in);
  }
}

// ---- canonical text ------------------------------------------------------------------------------
TEST(AsmCanonical, StructsPrintAsDocumented) {
  EXPECT_EQ(to_asm(VBinary{}), "vadd.f16 dst=gm:0x0 src0=gm:0x0 src1=gm:0x0");
  EXPECT_EQ(to_asm(VBinary{VBinOp::Sub,
                           DType::F32,
                           {Buf::UB, 0},
                           {Buf::UB, 0x100},
                           {Buf::UB, 0x200},
                           4,
                           {false, 0xffff, 0},
                           {1, 16},
                           {1, 8},
                           {1, 8}}),
            "vsub.f32 dst=ub:0x0 src0=ub:0x100 src1=ub:0x200 repeat=4 mask=0x0:0xffff dst_rep=16");
  EXPECT_EQ(to_asm(VCast{DType::F16, DType::F32, RoundMode::ODD, true, {Buf::UB, 0}, {Buf::UB, 0x400}}),
            "vconv.f16.f32 dst=ub:0x0 src=ub:0x400 round=odd");
  EXPECT_EQ(to_asm(Fixpipe{.dst = {Buf::GM, 0x2000}, .src = {Buf::L0C, 0}, .quant = Quant::Scalar, .quant_scale = 0.5}),
            "fixpipe.f16.f32 dst=gm:0x2000 src=l0c:0x0 quant=scalar quant_scale=0.5");
  EXPECT_EQ(to_asm(SMov{3, -5}), "smov rd=3 imm=-5");
  EXPECT_EQ(to_asm(SAlu{SAluOp::Add, 1, 2, 3, false, 0}), "sadd rd=1 ra=2 rb=3");
  EXPECT_EQ(to_asm(SLoad{DType::I32, 1, {Buf::GM, 0x100}, 2}), "sld.s32 rd=1 addr=gm:0x100 index_reg=2");
  EXPECT_EQ(to_asm(SLoad{DType::I32, 1, {Buf::GM, 0x100}, -1}), "sld.s32 rd=1 addr=gm:0x100");
  EXPECT_EQ(to_asm(SetFlag{}), "set_flag src=mte2 dst=v event=0");
  EXPECT_EQ(to_asm(SyncAll{}), "sync_all");
}

TEST(AsmCanonical, CanonicalLinesReprintUnchanged) {
  const char* lines[] = {
      "copy dst=ub:0x0 src=gm:0x1000 nburst=4 burst_bytes=64 src_gap=64",
      "copy dst=gm:0x40 src=ub:0x20 burst_bytes=7 pad=1 pad_dtype=f32 pad_value=-3.25",
      "nd2nz.bf16 dst=l1:0x0 src=gm:0x0 n_value=64 d_value=128 src_d_value=128 dst_nz_c0_stride=64",
      "load2d.f16 dst=l0b:0x200 src=l1:0x4000 start_index=2 repeat=8 transpose=1",
      "mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 m=32 init=0",
      "mmad.s8 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 bias=1 bias_addr=bt:0x40",
      "fixpipe.f16.f32 dst=gm:0x2000 src=l0c:0x0 quant=scalar quant_scale=0.5",
      "vcmp.f32 dst=ub:0x0 src0=ub:0x100 src1=ub:0x200 op=ge mask=count:64",
      "vcopy.s16 dst=ub:0x0 src=ub:0x100 mask=count:3:0x0",
      "vadds.f16 dst=ub:0x0 src=ub:0x0 scalar=nan",
      "vmuls.f32 dst=ub:0x0 src=ub:0x0 scalar=1e+300",
      "vdup.f32 dst=ub:0x0 value=-0",
      "vdup.f32 dst=ub:0x0 value=-inf",
      "vdup.f32 dst=ub:0x0 value=5e-324",
      "vsel.f16 dst=ub:0x0 src0=ub:0x20 src1=ub:0x40 sel=ub:0x60 scalar_mode=1 scalar=0.1",
      "vcgadd.f16 dst=ub:0x0 src=ub:0x100 src_rep=0 dst_rep=2",
      "vbrcb.s32 dst=ub:0x0 src=ub:0x100 repeat=2",
      "sadd rd=1 ra=2 rb=0 use_imm=1 imm=10",
      "sst.u8 rs=4 addr=gm:0xffffffffffffff index_reg=31",
      "dcci addr=gm:0x40",
      "dcci addr=gm:0x0 all=1",
      "wait_flag src=s dst=mte3 event=7",
      "pipe_barrier pipe=all",
      "cross_set mode=2 flag_id=7 pipe=fix",
      "cross_wait flag_id=7",
      "sync_all",
  };
  for (const char* line : lines) EXPECT_EQ(to_asm(parse_instr(line)), line);
}

// The parser accepts any key order, hex integers, decimal address offsets and extra blanks.
TEST(AsmCanonical, NonCanonicalSpellingsParseToTheCanonicalInstruction) {
  const Instr in = parse_instr("\t vadd.f16   repeat=0x10 src1=ub:512 src0=ub:0x100   dst=ub:0  \r");
  EXPECT_EQ(to_asm(in), "vadd.f16 dst=ub:0x0 src0=ub:0x100 src1=ub:0x200 repeat=16");
  EXPECT_EQ(to_asm(parse_instr("smov imm=-0x10 rd=2")), "smov rd=2 imm=-16");
  EXPECT_EQ(to_asm(parse_instr("vdup.f32 dst=ub:0x0 value=1.50e0")), "vdup.f32 dst=ub:0x0 value=1.5");
  // Fields equal to their default may be written out; they are dropped when printed.
  EXPECT_EQ(to_asm(parse_instr("vexp.f16 dst=ub:0 src=ub:0 repeat=1 mask=0xffffffffffffffff:0xffffffffffffffff")),
            "vexp.f16 dst=ub:0x0 src=ub:0x0");
}

TEST(AsmCanonical, ExtremeIntegersAndDoublesRoundTrip) {
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(same_instr(parse_instr("smov rd=0 imm=-9223372036854775808"), SMov{0, lo}));
  EXPECT_TRUE(same_instr(parse_instr("smov rd=0 imm=9223372036854775807"), SMov{0, hi}));
  for (double v : {0.0, -0.0, 0.1, -1e-310, 4.9406564584124654e-324, 1.7976931348623157e308,
                   std::numeric_limits<double>::infinity(), 65504.0, 3.0000001192092896}) {
    const Instr in = VDup{DType::F32, {Buf::UB, 0}, v};
    EXPECT_TRUE(same_instr(parse_instr(to_asm(in)), in)) << to_asm(in);
  }
  EXPECT_TRUE(std::isnan(std::get<VDup>(parse_instr(to_asm(VDup{.value = -std::nan("7")}))).value));
}

// to_asm is used inside error messages of instructions that may hold invalid enum values.
TEST(AsmCanonical, OutOfRangeEnumsPrintWithoutCrashing) {
  EXPECT_EQ(to_asm(PipeBarrier{static_cast<Pipe>(9)}), "pipe_barrier pipe=?9");
  EXPECT_EQ(to_asm(VUnary{static_cast<VUnaryOp>(20), DType::F16, {static_cast<Buf>(12), 0}, {Buf::UB, 0}}),
            "?op20.f16 dst=?12:0x0 src=ub:0x0");
}

}  // namespace
}  // namespace npusim::isa
