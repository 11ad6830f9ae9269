#pragma once
// Shared helpers of the data-movement / cube / fixpipe tests: a core's buffers (A2 sizes), typed access, and
// matrix <-> fractal-layout helpers that follow isa/README.md section 3.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "isa/numeric/numeric.h"
#include "isa/semantics/exec.h"

namespace npusim::isa::testing {

// All buffers of one core (GM 1 MiB). `coupled` enables UB->L1 and L0C->UB.
struct Core {
  std::vector<uint8_t> gm = std::vector<uint8_t>(1 << 20, 0), l1 = std::vector<uint8_t>(512 << 10, 0),
                       l0a = std::vector<uint8_t>(64 << 10, 0), l0b = std::vector<uint8_t>(64 << 10, 0),
                       l0c = std::vector<uint8_t>(128 << 10, 0), ub = std::vector<uint8_t>(192 << 10, 0),
                       bt = std::vector<uint8_t>(1 << 10, 0), fb = std::vector<uint8_t>(2 << 10, 0);
  ExecContext ctx;
  explicit Core(bool coupled = false) {
    ctx.coupled = coupled;
    ctx.mem[Buf::GM] = gm, ctx.mem[Buf::L1] = l1, ctx.mem[Buf::L0A] = l0a, ctx.mem[Buf::L0B] = l0b;
    ctx.mem[Buf::L0C] = l0c, ctx.mem[Buf::UB] = ub, ctx.mem[Buf::BT] = bt, ctx.mem[Buf::FB] = fb;
  }
  Core(const Core&) = delete;
  uint8_t* at(Buf b, uint64_t off) { return ctx.mem[b].data() + off; }
  template <class T>
  void put(Buf b, uint64_t off, T v) {
    std::memcpy(at(b, off), &v, sizeof(T));
  }
  template <class T>
  T get(Buf b, uint64_t off) {
    T v;
    std::memcpy(&v, at(b, off), sizeof(T));
    return v;
  }
  void fill(Buf b, uint8_t byte) { std::memset(ctx.mem[b].data(), byte, ctx.mem[b].size()); }
  void run(const Instr& in) { execute(in, ctx); }
};

// Runs `in` and expects an IsaError whose message contains `needle`.
inline void expect_isa_error(Core& core, const Instr& in, const std::string& needle) {
  try {
    core.run(in);
    ADD_FAILURE() << "no IsaError; expected one containing \"" << needle << "\"";
  } catch (const IsaError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

inline uint16_t h(float x) { return f32_to_f16(x); }  // exact for the small values the tests use

// Fractal layouts, in elements of the operand type (k0 = elements of K per fractal row).
inline uint64_t zz_index(int kb_count, int k0, int i, int kk) {  // L0A: A (m x k)
  return ((uint64_t(i / 16) * kb_count + kk / k0) * 16 + i % 16) * k0 + kk % k0;
}
inline uint64_t zn_index(int nb_count, int k0, int kk, int j) {  // L0B: B (k x n)
  return ((uint64_t(kk / k0) * nb_count + j / 16) * 16 + j % 16) * k0 + kk % k0;
}
inline uint64_t l0c_index(int mp, int i, int j) { return (uint64_t(j / 16) * mp + i) * 16 + j % 16; }

}  // namespace npusim::isa::testing
