#pragma once
// Random vector instructions and adversarial data for the Reference == Fast tests.
#include <random>

#include "tests/isa/vec_test_util.h"

namespace npusim::isa::vtest {

class VecFuzz : public VecTest {
 protected:
  static constexpr uint64_t kRegion = 0x8000;  // dst, src0, src1, sel: one 32 KiB region each
  std::mt19937_64 rng{12345};

  uint64_t pick(uint64_t n) { return rng() % n; }
  template <class T, size_t N>
  T pick_of(const T (&a)[N]) {
    return a[pick(N)];
  }

  // fp16 bit patterns: raw bits, specials (NaN payloads, subnormals, +-0, inf, max), values near 1 (whose
  // differences cancel) and values near the overflow threshold.
  uint16_t adv16() {
    static const uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe55, 0x7d00, 0x7bff,
                                       0xfbff, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7800};
    switch (pick(8)) {
      case 0: return static_cast<uint16_t>(rng());
      case 1: return pick_of(special);
      case 2:
      case 3: return static_cast<uint16_t>(0x3c00 + pick(33) - 16 + (pick(2) << 15));
      case 4: return static_cast<uint16_t>(0x7800 + pick(0x400) + (pick(2) << 15));
      default: return static_cast<uint16_t>(((10 + pick(12)) << 10 | pick(1024)) | (pick(2) << 15));
    }
  }
  // fp32 bit patterns of the same kinds, plus values around the fp16 / bf16 / int32 limits for vconv.
  uint32_t adv32() {
    static const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
                                       0xffa5a5a5, 0x7f7fffff, 0x00000001, 0x007fffff, 0x00800000, 0x3f800000,
                                       0xbf800000, 0x477fe000, 0x477ff000, 0x477fefff, 0x4f000000, 0xcf000000,
                                       0x33000000, 0x33000001, 0x387fc000, 0x7f7f8000, 0x3f808000};
    switch (pick(9)) {
      case 0: return static_cast<uint32_t>(rng());
      case 1: return pick_of(special);
      case 2:
      case 3: return static_cast<uint32_t>(0x3f800000 + pick(4097) - 2048 + (pick(2) << 31));
      case 4: return f32_bits(f16_to_f32(adv16()) * (1.0f + float(pick(5)) / 4096));
      case 5: return static_cast<uint32_t>(int32_t(pick(2001)) - 1000);
      case 6: return static_cast<uint32_t>(((100 + pick(60)) << 23 | pick(1u << 23)) | (pick(2) << 31));
      default: return static_cast<uint32_t>(((120 + pick(16)) << 23 | pick(1u << 23)) | (pick(2) << 31));
    }
  }

  // Fills the dst, src0, src1 and sel regions with adversarial elements of `bytes` (2 or 4) each.
  void fill_adversarial(int bytes) {
    for (uint64_t off = 0; off < 4 * kRegion; off += bytes) bytes == 2 ? put16(off, adv16()) : put32(off, adv32());
  }

  VStride stride() {
    static const uint16_t blk[] = {1, 1, 1, 2, 0, 3};
    static const uint16_t rep[] = {8, 8, 8, 16, 0, 4, 9, 1, 2};
    return {pick_of(blk), pick_of(rep)};
  }
  VecMask mask() {
    switch (pick(6)) {
      case 0:
      case 1: return {};
      case 2: return {false, rng(), rng()};
      case 3: return {true, pick(1200), 0};
      case 4: return {false, 1ull << pick(64), 1ull << pick(64)};
      default: return {false, ~0ull >> pick(64), ~0ull >> pick(64)};
    }
  }
  uint8_t repeat() { return static_cast<uint8_t>(pick(4) == 0 ? 0 : 1 + pick(5)); }
  Addr region(int k) { return ub(k * kRegion + 32 * pick(64)); }
};

}  // namespace npusim::isa::vtest
