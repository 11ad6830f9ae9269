// Text form: every class of parse error names the exact line and column of the offending token, and
// parse_program's comment / blank-line / line-number rules.
#include "tests/isa/asm_test_support.h"

namespace npusim::isa {
namespace {

// parse_instr(text, line) must throw AsmError at (line, column) whose message contains `fragment`.
testing::AssertionResult fails_at(std::string_view text, int line, int column, std::string_view fragment) {
  try {
    const Instr in = parse_instr(text, line);
    return testing::AssertionFailure() << "parsed without error as " << to_asm(in);
  } catch (const AsmError& e) {
    const std::string what = e.what();
    if (e.line() != line || e.column() != column || what.find(fragment) == std::string::npos)
      return testing::AssertionFailure() << "got line " << e.line() << " column " << e.column() << ": " << what;
    return testing::AssertionSuccess();
  }
}

TEST(AsmErrors, MessageStartsWithLineAndColumn) {
  const AsmError e(2, 5, "bad thing");
  EXPECT_STREQ(e.what(), "line 2, column 5: bad thing");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 5);
}

TEST(AsmErrors, UnknownMnemonicSuggestsCloseNamesOrListsAll) {
  EXPECT_TRUE(fails_at("vadx.f16 dst=ub:0x0", 3, 1, "unknown mnemonic 'vadx'; did you mean: vadd"));
  EXPECT_TRUE(fails_at("setflag src=v dst=mte3 event=1", 1, 1, "did you mean: set_flag"));
  EXPECT_TRUE(fails_at("  frobnicate dst=ub:0x0", 1, 3, "valid mnemonics: copy nd2nz load2d mmad fixpipe vadd"));
}

TEST(AsmErrors, DtypeSuffixMustMatchTheKind) {
  EXPECT_TRUE(fails_at("vadd dst=ub:0x0 src0=ub:0x0 src1=ub:0x0", 1, 1, "vadd: needs 1 dtype suffix (vadd.<dtype>)"));
  EXPECT_TRUE(
      fails_at("vconv.f16 dst=ub:0x0 src=ub:0x0", 1, 1, "needs 2 dtype suffixes (vconv.<dst_dtype>.<src_dtype>)"));
  EXPECT_TRUE(fails_at("vadd.f16.f32 dst=ub:0x0 src0=ub:0x0 src1=ub:0x0", 1, 10, "vadd: needs 1 dtype suffix"));
  EXPECT_TRUE(fails_at("set_flag.f16 src=v dst=mte3 event=1", 1, 10, "set_flag: takes no dtype suffix"));
  EXPECT_TRUE(
      fails_at("vadd.f17 dst=ub:0x0", 1, 6, "vadd: dtype: unknown dtype 'f17' (valid: f16 bf16 f32 s8 u8 s4 s16 s32)"));
  EXPECT_TRUE(fails_at("vconv.f16. dst=ub:0x0", 1, 11, "src_dtype: unknown dtype ''"));
}

TEST(AsmErrors, UnknownKeyListsTheValidKeys) {
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 foo=1", 1, 32,
                       "vexp: unknown key 'foo' (valid keys: dst src repeat mask dst_blk dst_rep src_blk src_rep)"));
  EXPECT_TRUE(fails_at("vexp.f16 dtype=f16 dst=ub:0x0 src=ub:0x0", 1, 10, "unknown key 'dtype'"));
  EXPECT_TRUE(fails_at("sync_all x=1", 1, 10, "sync_all: unknown key 'x' (valid keys: none)"));
}

TEST(AsmErrors, DuplicateKeyPointsAtTheSecondOccurrence) {
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=1 repeat=2", 1, 41, "vexp: duplicate key 'repeat'"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 dst=ub:0x20 src=ub:0x0", 1, 21, "duplicate key 'dst'"));
}

TEST(AsmErrors, TokenWithoutEqualsOrKey) {
  EXPECT_TRUE(fails_at("vexp.f16 dst ub:0x0 src=ub:0x0", 1, 10, "expected key=value, got 'dst' (missing '=')"));
  EXPECT_TRUE(fails_at("sync_all =5", 1, 10, "missing key before '='"));
}

TEST(AsmErrors, MalformedIntegerPointsAtTheValue) {
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=1x", 1, 39, "vexp: repeat: malformed integer '1x'"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=", 1, 39, "malformed integer ''"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=+1", 1, 39, "malformed integer '+1'"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=0x", 1, 39, "malformed integer '0x'"));
}

TEST(AsmErrors, MalformedAddressPointsAtTheBadPart) {
  EXPECT_TRUE(
      fails_at("vexp.f16 dst=ub0x0 src=ub:0x0", 1, 14, "vexp: dst: malformed address 'ub0x0' (expected buf:0xOFFSET)"));
  EXPECT_TRUE(
      fails_at("vexp.f16 dst=xb:0x0 src=ub:0x0", 1, 14, "unknown buffer 'xb' (valid: gm l1 l0a l0b l0c ub bt fb)"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0xzz src=ub:0x0", 1, 17, "malformed address offset '0xzz'"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x10000000000000000 src=ub:0x0", 1, 17, "does not fit 64 bits"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x100000000000000 src=ub:0x0", 1, 17,
                       "address offset '0x100000000000000' is beyond 2^56 - 1"));
}

// Kernels build addresses in C++: an offset an address cannot hold is refused, not cut to 56 bits.
TEST(AsmErrors, AddressConstructorRefusesOffsetsBeyond56Bits) {
  EXPECT_EQ(Addr(Buf::GM, Addr::kMaxOff).off, Addr::kMaxOff);
  try {
    (void)Addr(Buf::UB, Addr::kMaxOff + 1);
    ADD_FAILURE() << "no error";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("address offset 72057594037927936 in ub is beyond 2^56 - 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(AsmErrors, MalformedEnumsBoolsAndDoubles) {
  EXPECT_TRUE(fails_at("set_flag src=mte4 dst=v event=0", 1, 14,
                       "set_flag: src: unknown pipe 'mte4' (valid: s v m mte1 mte2 mte3 fix all)"));
  EXPECT_TRUE(fails_at("vconv.f16.f32 dst=ub:0x0 src=ub:0x0 round=nearest", 1, 43,
                       "round: unknown rounding mode 'nearest' (valid: rint round floor ceil trunc odd)"));
  EXPECT_TRUE(fails_at("fixpipe.f16.f32 dst=gm:0x0 src=l0c:0x0 quant=channel", 1, 46,
                       "unknown quant mode 'channel' (valid: none scalar vector)"));
  EXPECT_TRUE(fails_at("vcmp.f16 dst=ub:0x0 src0=ub:0x0 src1=ub:0x0 op=lt2", 1, 48,
                       "unknown compare op 'lt2' (valid: lt gt eq le ge ne)"));
  EXPECT_TRUE(fails_at("mmad.f16 c=l0c:0x0 a=l0a:0x0 b=l0b:0x0 init=2", 1, 45, "mmad: init: expected 0 or 1, got '2'"));
  EXPECT_TRUE(fails_at("vdup.f32 dst=ub:0x0 value=1.5.2", 1, 27, "vdup: value: malformed number '1.5.2'"));
  EXPECT_TRUE(fails_at("vdup.f32 dst=ub:0x0 value=+1", 1, 27, "malformed number '+1'"));
  EXPECT_TRUE(fails_at("vdup.f32 dst=ub:0x0 value=1e999", 1, 27, "'1e999' is out of range for a double"));
}

TEST(AsmErrors, MalformedMaskPointsAtTheBadPart) {
  const std::string head = "vexp.f16 dst=ub:0x0 src=ub:0x0 ";  // mask value starts at column 37
  EXPECT_TRUE(fails_at(head + "mask=0x1", 1, 37, "mask: malformed mask '0x1' (expected 0xHI:0xLO or count:N)"));
  EXPECT_TRUE(fails_at(head + "mask=count:x", 1, 43, "malformed mask count 'x'"));
  EXPECT_TRUE(fails_at(head + "mask=0x1:0xg", 1, 41, "malformed mask lo word '0xg'"));
  EXPECT_TRUE(fails_at(head + "mask=count:5:z", 1, 45, "malformed mask hi word 'z'"));
}

TEST(AsmErrors, MissingAddressOperandPointsAtTheMnemonic) {
  EXPECT_TRUE(fails_at("vadd.f16 dst=ub:0x0 src0=ub:0x0", 1, 1, "vadd: missing operand 'src1'"));
  EXPECT_TRUE(fails_at("   sld.s32 rd=1", 7, 4, "sld: missing operand 'addr'"));
  EXPECT_TRUE(fails_at("mmad.f16 a=l0a:0x0 b=l0b:0x0", 1, 1, "mmad: missing operand 'c'"));
}

TEST(AsmErrors, ValueOutOfTheFieldsRangeIsAnErrorNotATruncation) {
  EXPECT_TRUE(
      fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=300", 1, 39, "vexp: repeat: '300' is out of range [0, 255]"));
  EXPECT_TRUE(fails_at("set_flag src=v dst=mte3 event=-1", 1, 31, "event: '-1' is out of range [0, 255]"));
  EXPECT_TRUE(
      fails_at("sld.s32 rd=1 addr=gm:0x0 index_reg=128", 1, 36, "index_reg: '128' is out of range [-128, 127]"));
  EXPECT_TRUE(fails_at("smov rd=0 imm=9223372036854775808", 1, 15,
                       "is out of range [-9223372036854775808, 9223372036854775807]"));
  EXPECT_TRUE(fails_at("smov rd=0 imm=-9223372036854775809", 1, 15, "out of range"));
  EXPECT_TRUE(fails_at("smov rd=0 imm=99999999999999999999999", 1, 15, "out of range"));
  EXPECT_TRUE(fails_at("smov rd=256 imm=0", 1, 9, "rd: '256' is out of range [0, 255]"));
  EXPECT_TRUE(fails_at("copy dst=ub:0x0 src=gm:0x0 nburst=65536", 1, 35, "nburst: '65536' is out of range [0, 65535]"));
  EXPECT_TRUE(fails_at("vexp.f16 dst=ub:0x0 src=ub:0x0 dst_blk=0x10000", 1, 40, "out of range [0, 65535]"));
}

TEST(AsmErrors, EmptyTextAndEmbeddedNewline) {
  EXPECT_TRUE(fails_at("  \t ", 4, 1, "empty instruction"));
  EXPECT_TRUE(fails_at("sync_all\nsync_all", 1, 9, "newline inside one instruction"));
}

// ---- parse_program -------------------------------------------------------------------------------
TEST(AsmProgram, CommentsAndBlankLinesAreSkipped) {
  const std::vector<Instr> p = parse_program(
      "# header comment\n"
      "\n"
      "copy dst=ub:0x0 src=gm:0x0 burst_bytes=64   # load a block\n"
      "   \t\n"
      "vexp.f32 dst=ub:0x100 src=ub:0x0\r\n"
      "set_flag src=v dst=mte3 event=0\n"
      "#\n"
      "sync_all");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(to_asm(p[0]), "copy dst=ub:0x0 src=gm:0x0 burst_bytes=64");
  EXPECT_EQ(to_asm(p[1]), "vexp.f32 dst=ub:0x100 src=ub:0x0");
  EXPECT_EQ(to_asm(p[2]), "set_flag src=v dst=mte3 event=0");
  EXPECT_EQ(to_asm(p[3]), "sync_all");
  EXPECT_TRUE(parse_program("").empty());
  EXPECT_TRUE(parse_program("\n# only a comment\n\n").empty());
}

TEST(AsmProgram, ErrorCarriesTheProgramLineAndColumn) {
  const std::string text =
      "sync_all\n"
      "# comment\n"
      "\n"
      "  vexp.f16 dst=ub:0x0 src=ub:0x0 repeat=999 # too many repeats\n"
      "sync_all\n";
  try {
    parse_program(text);
    FAIL() << "no error";
  } catch (const AsmError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.column(), 41);
    EXPECT_NE(std::string(e.what()).find("line 4, column 41: vexp: repeat: '999' is out of range"), std::string::npos)
        << e.what();
  }
}

TEST(AsmProgram, PrintedProgramOfEveryKindParsesBack) {
  std::string text;
  std::vector<Instr> expected;
  for (size_t kind = 0; kind < std::variant_size_v<Instr>; ++kind) {
    expected.push_back(asm_test::default_instr(kind));
    text += to_asm(expected.back()) + "  # kind " + std::to_string(kind) + "\n\n";
  }
  const std::vector<Instr> back = parse_program(text);
  ASSERT_EQ(back.size(), expected.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_TRUE(asm_test::same_instr(back[i], expected[i]));
}

}  // namespace
}  // namespace npusim::isa
