// Bit-level sign-off (kernels/accuracy/bit_compare.h): planted defects are named by the report -- a one-bit
// difference by its index, values, bit patterns and 1 ULP; a swapped head as exactly two (b, n) groups; a wrong
// row as exactly one row.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/accuracy/bit_compare.h"
#include "kernels/host/case_file.h"

namespace npusim::op {
namespace {

// A BNSD-shaped bf16 tensor (B 2, N 4, S 8, D 16) of distinct values.
HostTensor bnsd() {
  InitSpec init;
  init.dist = "normal";
  init.seed = 7;
  return generate(ElemType::BF16, {2, 4, 8, 16}, init);
}

int64_t flat(int64_t b, int64_t n, int64_t s, int64_t d) { return ((b * 4 + n) * 8 + s) * 16 + d; }

TEST(BitCompare, IdenticalTensorsMatch) {
  const HostTensor t = bnsd();
  const BitCompare r = compare_bits("attention_out", t, t);
  EXPECT_TRUE(r.match());
  EXPECT_EQ(r.exact, r.elements);
  EXPECT_NE(format_bit_compare(r).find("MATCH"), std::string::npos);
}

TEST(BitCompare, OneFlippedMantissaBitIsOneUlpAtItsIndex) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  u.bytes[size_t(flat(1, 2, 5, 9) * 2)] ^= 1;  // lowest mantissa bit of element [1, 2, 5, 9]
  const BitCompare r = compare_bits("attention_out", u, t);
  ASSERT_FALSE(r.match());
  EXPECT_EQ(r.elements - r.exact, 1);
  EXPECT_EQ(r.first.index, (std::vector<int64_t>{1, 2, 5, 9}));
  EXPECT_EQ(r.first.ulp, 1);
  EXPECT_EQ(r.first.got_bits ^ r.first.expect_bits, 1u);
  const std::string s = format_bit_compare(r);
  EXPECT_NE(s.find("first  [1, 2, 5, 9]"), std::string::npos) << s;
  EXPECT_NE(s.find("1 ULP"), std::string::npos) << s;
  EXPECT_NE(s.find("ULP distance: 1: 1;"), std::string::npos) << s;
}

TEST(BitCompare, SwappedHeadsAreExactlyTwoGroups) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  const size_t head = 8 * 16 * 2;  // bytes of one (b, n) plane
  std::memcpy(&u.bytes[size_t(flat(1, 1, 0, 0) * 2)], &t.bytes[size_t(flat(1, 3, 0, 0) * 2)], head);
  std::memcpy(&u.bytes[size_t(flat(1, 3, 0, 0) * 2)], &t.bytes[size_t(flat(1, 1, 0, 0) * 2)], head);
  const BitCompare r = compare_bits("attention_out", u, t);
  EXPECT_EQ(r.groups_with_mismatch, 2);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].count, 128);
  std::vector<std::vector<int64_t>> keys{r.groups[0].key, r.groups[1].key};
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::vector<int64_t>>{{1, 1}, {1, 3}}));
  EXPECT_EQ(r.rows_with_mismatch, 16);
  const std::string s = format_bit_compare(r);
  EXPECT_NE(s.find("2 of 8 differ"), std::string::npos) << s;
}

TEST(BitCompare, AWrongRowIsExactlyOneRow) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  for (int64_t d = 0; d < 16; ++d) u.set(flat(0, 2, 6, d), t.get(flat(0, 2, 6, d)) * 2 + 1);
  const BitCompare r = compare_bits("attention_out", u, t);
  EXPECT_EQ(r.rows_with_mismatch, 1);
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.rows[0].key, (std::vector<int64_t>{0, 2, 6}));
  EXPECT_EQ(r.groups_with_mismatch, 1);
  const std::string s = format_bit_compare(r);
  EXPECT_NE(s.find("1 of 64 differ; [0, 2, 6] 16;"), std::string::npos) << s;
}

TEST(BitCompare, ShapeOrTypeDifferencesAreReportedNotCompared) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  u.shape = {2, 4, 16, 8};
  EXPECT_FALSE(compare_bits("o", u, t).match());
  EXPECT_NE(compare_bits("o", u, t).shape_error.find("shapes differ"), std::string::npos);
}

TEST(BitCompare, NanIsTheWorstMismatch) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  u.bytes[0] ^= 1;
  u.set(5, std::nan(""));
  const BitCompare r = compare_bits("o", u, t);
  EXPECT_EQ(r.worst.ulp, -1);
  EXPECT_EQ(r.worst.index.back(), 5);
}

TEST(BitCompare, ToleranceCountsOnlyTheMismatchesBeyondIt) {
  const HostTensor t = bnsd();
  HostTensor u = t;
  u.bytes[size_t(flat(0, 0, 0, 0) * 2)] ^= 1;  // 1 ULP
  u.bytes[size_t(flat(0, 1, 0, 0) * 2)] ^= 4;  // 4 ULP
  EXPECT_FALSE(compare_bits("o", u, t).match());
  const BitCompare one = compare_bits("o", u, t, 8, {.ulp = 1});
  EXPECT_FALSE(one.match());
  EXPECT_EQ(one.beyond_tolerance, 1);
  EXPECT_NE(format_bit_compare(one).find("2 differ, 1 beyond --ulp 1"), std::string::npos) << format_bit_compare(one);
  const BitCompare four = compare_bits("o", u, t, 8, {.ulp = 4});
  EXPECT_TRUE(four.match());
  EXPECT_NE(format_bit_compare(four).find("WITHIN TOLERANCE (2 differ, all within --ulp 4)"), std::string::npos);
  EXPECT_TRUE(compare_bits("o", u, t, 8, {.atol = 1.0}).match());  // |values| ~ 1: 4 bf16 ULP < 1
  EXPECT_FALSE(compare_bits("o", u, t, 8, {.atol = 0}).match());
}

TEST(BitCompare, NanMatchesOnlyNanWithinATolerance) {
  HostTensor t = HostTensor::zeros(ElemType::F32, {4});
  HostTensor u = t;
  const uint32_t quiet_nan = 0x7fc00000u, other_nan = 0xffc00001u;
  std::memcpy(&u.bytes[4], &quiet_nan, 4);
  EXPECT_FALSE(compare_bits("o", u, t, 8, {.ulp = 1000000, .atol = 1e30}).match());  // NaN vs 0
  std::memcpy(&t.bytes[4], &other_nan, 4);  // another NaN pattern: within a tolerance, not bit-exact
  EXPECT_FALSE(compare_bits("o", u, t).match());
  EXPECT_TRUE(compare_bits("o", u, t, 8, {.ulp = 0}).match());
}

TEST(BitCompare, ViewGroupsBshByBatchAndHead) {
  // BSH (B 2, S 8, H = N 4 x D 16): a wrong head 3 of batch 1 at every position is one (b, n) group, spread over
  // all 8 (b, s) rows of the plain breakdown.
  InitSpec init;
  init.seed = 9;
  const HostTensor t = generate(ElemType::F16, {2, 8, 64}, init);
  HostTensor u = t;
  for (int64_t s = 0; s < 8; ++s)
    for (int64_t d = 0; d < 16; ++d) u.bytes[size_t(((1 * 8 + s) * 64 + 3 * 16 + d) * 2)] ^= 1;
  EXPECT_EQ(compare_bits("o", u, t).groups_with_mismatch, 8);  // by (b, s)
  const GroupView view{{2, 8, 4, 16}, {0, 2}, "(b, n)"};
  const BitCompare r = compare_bits("o", u, t, 8, {}, &view);
  EXPECT_EQ(r.groups_total, 8);
  ASSERT_EQ(r.groups_with_mismatch, 1);
  EXPECT_EQ(r.groups[0].key, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(r.groups[0].count, 128);
  EXPECT_EQ(r.rows_with_mismatch, 8);  // rows of the view: (b, s, n)
  EXPECT_NE(format_bit_compare(r).find("by (b, n): 1 of 8 differ; [1, 3] 128;"), std::string::npos)
      << format_bit_compare(r);
}

}  // namespace
}  // namespace npusim::op
