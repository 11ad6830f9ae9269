#pragma once
// Shared fixture of the vector-unit tests: a UB (and a small GM) and helpers that run an instruction on
// both execution paths and require identical bytes, so every semantic test also checks Reference == Fast.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "isa/numeric/numeric.h"
#include "isa/semantics/exec.h"

namespace npusim::isa::vtest {

inline constexpr size_t kUbBytes = 192 * 1024;

inline Addr ub(uint64_t off) { return Addr{Buf::UB, off}; }
inline float f16v(uint16_t h) { return f16_to_f32(h); }

class VecTest : public ::testing::Test {
 protected:
  std::vector<uint8_t> ubuf = std::vector<uint8_t>(kUbBytes, 0);
  std::vector<uint8_t> gm = std::vector<uint8_t>(4096, 0);
  ExecContext ctx;

  void SetUp() override {
    ctx.mem[Buf::UB] = ubuf;
    ctx.mem[Buf::GM] = gm;
    set_exec_path(ExecPath::Fast);
  }
  void TearDown() override { set_exec_path(ExecPath::Fast); }

  // ---- typed access -------------------------------------------------------------------------
  void put16(uint64_t off, uint16_t v) { std::memcpy(&ubuf[off], &v, 2); }
  void put32(uint64_t off, uint32_t v) { std::memcpy(&ubuf[off], &v, 4); }
  uint16_t get16(uint64_t off) const {
    uint16_t v;
    std::memcpy(&v, &ubuf[off], 2);
    return v;
  }
  uint32_t get32(uint64_t off) const {
    uint32_t v;
    std::memcpy(&v, &ubuf[off], 4);
    return v;
  }
  void put_f16(uint64_t off, float v) { put16(off, f16_round(v)); }
  float get_f16(uint64_t off) const { return f16_to_f32(get16(off)); }
  void put_f32(uint64_t off, float v) { put32(off, f32_bits(v)); }
  float get_f32(uint64_t off) const { return f32_from_bits(get32(off)); }
  // Element i of an array of 16- or 32-bit values at off.
  void put16s(uint64_t off, const std::vector<uint16_t>& v) {
    for (size_t i = 0; i < v.size(); ++i) put16(off + 2 * i, v[i]);
  }
  void fill16(uint64_t off, size_t n, uint16_t v) {
    for (size_t i = 0; i < n; ++i) put16(off + 2 * i, v);
  }
  void fill32(uint64_t off, size_t n, uint32_t v) {
    for (size_t i = 0; i < n; ++i) put32(off + 4 * i, v);
  }

  // ---- execution ----------------------------------------------------------------------------
  // Runs `in` on a copy of UB with the Reference path and on UB with the Fast path; both must succeed and
  // leave identical bytes.
  void run(const Instr& in) {
    std::vector<uint8_t> ref_ub = ubuf;
    ExecContext ref_ctx = ctx;
    ref_ctx.mem[Buf::UB] = ref_ub;
    set_exec_path(ExecPath::Reference);
    execute(in, ref_ctx);
    set_exec_path(ExecPath::Fast);
    execute(in, ctx);
    expect_same(ref_ub, ubuf);
  }

  static void expect_same(const std::vector<uint8_t>& ref, const std::vector<uint8_t>& fast) {
    for (size_t i = 0; i < ref.size(); ++i)
      if (ref[i] != fast[i]) {
        ADD_FAILURE() << "Reference and Fast differ first at UB byte " << i << ": " << int(ref[i]) << " vs "
                      << int(fast[i]);
        return;
      }
  }

  // Both paths must throw an IsaError whose message contains every one of `parts`, and write nothing.
  void expect_error(const Instr& in, std::initializer_list<std::string> parts) {
    for (ExecPath p : {ExecPath::Reference, ExecPath::Fast}) {
      const std::vector<uint8_t> before = ubuf;
      set_exec_path(p);
      try {
        execute(in, ctx);
        ADD_FAILURE() << "no IsaError on path " << int(p);
      } catch (const IsaError& e) {
        for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      }
      EXPECT_TRUE(before == ubuf) << "an erroring instruction wrote UB";
    }
    set_exec_path(ExecPath::Fast);
  }
};

}  // namespace npusim::isa::vtest
