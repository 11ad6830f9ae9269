#pragma once
// Bit-for-bit comparison of host tensors (kernel output vs golden model): the first differing element is named
// with its flat index, both values and both bit patterns.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/host/host_tensor.h"

namespace npusim::test {

inline std::string bits_hex(const uint8_t* p, int bytes) {
  std::string s = "0x";
  char buf[4];
  for (int i = bytes - 1; i >= 0; --i) std::snprintf(buf, sizeof buf, "%02x", p[i]), s += buf;  // little endian
  return s;
}

inline void expect_same_bits(const op::HostTensor& a, const op::HostTensor& b, const std::string& what) {
  ASSERT_EQ(a.type, b.type) << what << ": element types differ";
  ASSERT_EQ(a.shape, b.shape) << what << ": shapes differ";
  ASSERT_EQ(a.bytes.size(), b.bytes.size()) << what;
  const int e = op::elem_bytes(a.type);
  for (int64_t i = 0; i < a.numel(); ++i) {
    const uint8_t *x = &a.bytes[size_t(i * e)], *y = &b.bytes[size_t(i * e)];
    ASSERT_EQ(std::memcmp(x, y, size_t(e)), 0) << what << " element " << i << ": " << a.get(i) << " (" << bits_hex(x, e)
                                               << ") vs golden " << b.get(i) << " (" << bits_hex(y, e) << ")";
  }
}

}  // namespace npusim::test
