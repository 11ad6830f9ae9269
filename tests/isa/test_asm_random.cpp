// Text form, randomised: for every instruction kind, thousands of instructions whose members are drawn over
// their whole type range (each member kept at its default a quarter of the time, so omission is exercised
// too) print as one line and parse back identical, and the printed line is canonical.
#include <limits>

#include "tests/isa/asm_test_support.h"

namespace npusim::isa {
namespace {

using asm_test::kEnumCount;

constexpr int kInstancesPerKind = 2000;

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t bits() { return gen_(); }
  int below(int n) { return static_cast<int>(gen_() % static_cast<uint64_t>(n)); }

 private:
  std::mt19937_64 gen_;
};

template <class T>
void randomize(T& v, Rng& r) {
  if constexpr (std::is_same_v<T, bool>) {
    v = r.below(2);
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(kEnumCount<T> > 0, "enum without a count in asm_test_support.h");
    v = static_cast<T>(r.below(kEnumCount<T>));
  } else if constexpr (std::is_integral_v<T>) {
    // Extremes, small values or any bit pattern of the type.
    switch (r.below(4)) {
      case 0: v = r.below(2) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max(); break;
      case 1: v = static_cast<T>(r.below(33) - (std::is_signed_v<T> ? 16 : 0)); break;
      default: v = static_cast<T>(r.bits()); break;
    }
  }
}

double random_double(Rng& r) {
  using L = std::numeric_limits<double>;
  constexpr double kSpecial[] = {
      0.0, -0.0, L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), L::max(), -L::min(), 65504.0, 0.1};
  switch (r.below(4)) {
    case 0: return kSpecial[r.below(10)];
    case 1: return (r.below(2001) - 1000) / 8.0;
    default: return std::bit_cast<double>(r.bits());  // every class: normal, subnormal, inf, NaN payloads
  }
}

void randomize(double& v, Rng& r) { v = random_double(r); }
void randomize(Addr& a, Rng& r) {
  Buf b{};
  randomize(b, r);
  a.buf = b;
  a.off = r.below(2) ? static_cast<uint64_t>(r.below(1 << 16)) * 32 : r.bits() & Addr::kMaxOff;
}
void randomize(VStride& s, Rng& r) {
  randomize(s.blk, r);
  randomize(s.rep, r);
}
void randomize(VecMask& m, Rng& r) {
  m.counter = r.below(2);
  m.lo = r.below(4) ? r.bits() : ~0ull;
  m.hi = r.below(4) ? r.bits() : ~0ull;
}

template <class S>
S random_struct(Rng& r) {
  S s{};
  std::apply([&](auto&... m) { ((r.below(4) ? randomize(m, r) : void()), ...); }, asm_test::members(s));
  return s;
}

class AsmRandomRoundTrip : public testing::TestWithParam<size_t> {};

TEST_P(AsmRandomRoundTrip, RandomFieldsOfThisKindSurvivePrintParsePrint) {
  Rng rng(0x5eed0000 + GetParam());
  const Instr proto = asm_test::default_instr(GetParam());
  int failures = 0;
  for (int i = 0; i < kInstancesPerKind && failures < 5; ++i) {
    const Instr in = std::visit([&]<class S>(const S&) { return Instr{random_struct<S>(rng)}; }, proto);
    const std::string text = to_asm(in);
    Instr back;
    try {
      back = parse_instr(text);
    } catch (const AsmError& e) {
      ADD_FAILURE() << text << ": " << e.what();
      ++failures;
      continue;
    }
    const auto same = asm_test::same_instr(back, in);
    const bool ok = same && to_asm(back) == text && text.find('\n') == std::string::npos;
    EXPECT_TRUE(ok) << text << " -> " << to_asm(back) << (same ? "" : same.message());
    failures += !ok;
  }
}

std::string kind_name(const testing::TestParamInfo<size_t>& info) {
  return std::string(mnemonic(asm_test::default_instr(info.param)));
}

INSTANTIATE_TEST_SUITE_P(EveryKind, AsmRandomRoundTrip, testing::Range<size_t>(0, std::variant_size_v<Instr>),
                         kind_name);

}  // namespace
}  // namespace npusim::isa
