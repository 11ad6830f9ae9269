// Mmad Fast path == Reference path, bit for bit, on random and adversarial operands: every input type, partial
// m / n / k, bias, accumulate and init, with NaN, infinities, subnormals, signed zeros, cancellation and bf16
// products that overflow or underflow fp32.
#include <array>
#include <random>
#include <vector>

#include "tests/isa/cube_fixture.h"

namespace npusim::isa {
namespace {

using testing::Core;

enum class Gen { Random, Bits, Specials, Cancel, Extreme };

struct Case {
  DType t;
  Gen gen;
  int m, n, k;
  int mode;  // 0 init, 1 accumulate, 2 bias
};

uint16_t pick16(std::mt19937& rng, const std::vector<uint16_t>& specials, uint16_t fallback) {
  return rng() % 2 ? specials[rng() % specials.size()] : fallback;
}

// One random operand element (raw bits, low bytes used for narrower types).
uint32_t element(DType t, Gen g, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  const float cancel[6] = {1.0f, -1.0f, 1024.0f, -1024.0f, 1.0f / 1024, -1.0f / 1024};
  if (t == DType::I8) return rng() & 0xff;
  if (t == DType::I4) return rng() & 0xf;
  if (g == Gen::Bits) return uint32_t(rng());
  float x = g == Gen::Cancel ? cancel[rng() % 6] : u(rng);
  if (t == DType::F32) {
    if (g == Gen::Specials) {
      const uint32_t s[] = {0,           0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                            0x7f800001u, 1,           0x807fffffu, 0x7f7fffffu, 0x00800000u};
      return rng() % 2 ? s[rng() % 10] : f32_bits(x);
    }
    if (g == Gen::Extreme) return (rng() & 0x807fffffu) | ((rng() % 2 ? 0xe0u + rng() % 31 : rng() % 24) << 23);
    return f32_bits(x);
  }
  if (t == DType::F16) {
    if (g == Gen::Specials)
      return pick16(rng, {0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 1, 0x8001, 0x03ff, 0x7bff, 0xfbff}, f32_to_f16(x));
    if (g == Gen::Extreme) return (rng() & 0x83ff) | ((rng() % 2 ? 28 + rng() % 3 : rng() % 3) << 10);
    return f32_to_f16(x);
  }
  if (g == Gen::Specials)  // bf16
    return pick16(rng, {0, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 1, 0x8001, 0x7f7f, 0x0080}, f32_to_bf16(x));
  if (g == Gen::Extreme) return (rng() & 0x807f) | ((rng() % 2 ? 0xc0 + rng() % 63 : rng() % 64) << 7);
  return f32_to_bf16(x);
}

void fill_operand(Core& c, Buf b, DType t, Gen g, uint64_t elems, std::mt19937& rng) {
  for (uint64_t e = 0; e < elems; ++e) {
    const uint32_t v = element(t, g, rng);
    if (t == DType::I4) s4_set(c.at(b, 0), e, int8_t(int(v) - 8));
    else std::memcpy(c.at(b, e * bytes_of(t)), &v, bytes_of(t));
  }
}

void run_case(const Case& cs, uint32_t seed) {
  std::mt19937 rng(seed);
  Core ref, fast;
  const int k0 = cs.t == DType::I4 ? 64 : 512 / 16 / bytes_of(cs.t);
  const uint64_t mb = (cs.m + 15) / 16, nb = (cs.n + 15) / 16, kb = (cs.k + k0 - 1) / k0;
  fill_operand(ref, Buf::L0A, cs.t, cs.gen, mb * kb * 16 * k0, rng);
  fill_operand(ref, Buf::L0B, cs.t, cs.gen, kb * nb * 16 * k0, rng);
  for (uint64_t w = 0; w < mb * nb * 256 + 64; ++w) {  // C and one fractal row beyond it
    const uint32_t v = rng() % 8 == 0 ? 0x7fc00001u + rng() % 3 : uint32_t(rng());
    ref.put<uint32_t>(Buf::L0C, w * 4, rng() % 4 ? v : f32_bits(float(int(rng() % 9) - 4)));
  }
  for (uint64_t w = 0; w < 256; ++w) ref.put<uint32_t>(Buf::BT, w * 4, rng() % 4 ? uint32_t(rng()) : 0x80000000u);
  fast.l0a = ref.l0a, fast.l0b = ref.l0b, fast.l0c = ref.l0c, fast.bt = ref.bt;
  Mmad x;
  x.c = {Buf::L0C, 0}, x.a = {Buf::L0A, 0}, x.b = {Buf::L0B, 0}, x.bias_addr = {Buf::BT, 0};
  x.a_dtype = cs.t, x.m = uint16_t(cs.m), x.n = uint16_t(cs.n), x.k = uint16_t(cs.k);
  x.init = cs.mode == 0, x.bias = cs.mode == 2;
  set_exec_path(ExecPath::Reference);
  ref.run(x);
  set_exec_path(ExecPath::Fast);
  fast.run(x);
  ASSERT_EQ(ref.l0c, fast.l0c) << "dtype " << dtype_name(cs.t) << " gen " << int(cs.gen) << " m " << cs.m << " n "
                               << cs.n << " k " << cs.k << " mode " << cs.mode << " seed " << seed;
}

const std::array<std::array<int, 3>, 8> kShapes = {
    {{1, 1, 1}, {16, 16, 16}, {17, 33, 40}, {5, 70, 3}, {48, 16, 100}, {31, 47, 257}, {64, 64, 128}, {2, 1, 700}}};

void run_all(DType t, std::initializer_list<Gen> gens) {
  uint32_t seed = 1;
  for (Gen g : gens)
    for (const auto& s : kShapes)
      for (int mode = 0; mode < 3; ++mode) run_case({t, g, s[0], s[1], s[2], mode}, seed++);
}

TEST(MmadFastPath, F16MatchesReference) {
  run_all(DType::F16, {Gen::Random, Gen::Bits, Gen::Specials, Gen::Cancel, Gen::Extreme});
}
TEST(MmadFastPath, Bf16MatchesReference) {
  run_all(DType::BF16, {Gen::Random, Gen::Bits, Gen::Specials, Gen::Cancel, Gen::Extreme});
}
TEST(MmadFastPath, F32MatchesReference) {
  run_all(DType::F32, {Gen::Random, Gen::Bits, Gen::Specials, Gen::Cancel, Gen::Extreme});
}
TEST(MmadFastPath, S8MatchesReference) { run_all(DType::I8, {Gen::Random}); }
TEST(MmadFastPath, S4MatchesReference) { run_all(DType::I4, {Gen::Random}); }

TEST(MmadFastPath, LeavesEverythingOutsideCUntouched) {
  Core c;
  c.fill(Buf::L0C, 0xab);
  Mmad x;
  x.c = {Buf::L0C, 1024}, x.a = {Buf::L0A, 0}, x.b = {Buf::L0B, 0}, x.m = 17, x.n = 5, x.k = 9;
  c.run(x);  // writes 2 x 1 fractals of 1 KiB at [1024, 3072)
  for (int off : {0, 1023, 3072, 4095}) EXPECT_EQ(c.l0c[off], 0xab) << off;
  EXPECT_EQ(c.get<uint32_t>(Buf::L0C, 1024), 0u);
}

}  // namespace
}  // namespace npusim::isa
