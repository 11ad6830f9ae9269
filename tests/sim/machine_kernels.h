#pragma once
// Small kernels used by the machine tests: a cube + vector pipeline through GM with cross-core flags
// (split) or through the L0C -> UB path (coupled), and deliberately broken variants for the checks.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>
#include "isa/numeric/numeric.h"
#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"
#include "sim/machine/machine.h"

#include <functional>

namespace npusim::sim::testing {

using namespace isa;

inline constexpr int kDim = 32;  // each block: C (32x32) = A (32x32) * B (32x32), fp16 in, fp32 acc

struct MixedBreak {
  bool skip_cross_flag = false;  // AIVs read the workspace without waiting for the AIC
};

inline void cube_matmul(CoreCtx& c, Addr a_gm, Addr b_gm) {
  const Addr l1a = c.alloc(Buf::L1, kDim * kDim * 2, "l1a"), l1b = c.alloc(Buf::L1, kDim * kDim * 2, "l1b");
  const Addr l0a = c.alloc(Buf::L0A, kDim * kDim * 2, "l0a"), l0b = c.alloc(Buf::L0B, kDim * kDim * 2, "l0b");
  const Addr l0c = c.alloc(Buf::L0C, kDim * kDim * 4, "l0c");
  // ND -> NZ: 32 rows per column group of 16 -> column-group stride 32 blocks.
  c.issue(
      Nd2Nz{.dst = l1a, .src = a_gm, .n_value = kDim, .d_value = kDim, .src_d_value = kDim, .dst_nz_c0_stride = kDim});
  c.issue(
      Nd2Nz{.dst = l1b, .src = b_gm, .n_value = kDim, .d_value = kDim, .src_d_value = kDim, .dst_nz_c0_stride = kDim});
  c.set_flag(Pipe::MTE2, Pipe::MTE1, 0);
  c.wait_flag(Pipe::MTE2, Pipe::MTE1, 0);
  const int mb = kDim / 16, kb = kDim / 16, nb = kDim / 16;
  for (int i = 0; i < mb; ++i)  // A: NZ fractal (kb, i) -> ZZ fractal (i, kb)
    c.issue(Load2d{.dst = {Buf::L0A, l0a.off + uint64_t(i) * kb * 512},
                   .src = l1a,
                   .start_index = uint16_t(i),
                   .repeat = uint8_t(kb),
                   .src_stride = uint16_t(mb)});
  for (int k = 0; k < kb; ++k)  // B: NZ fractal (nb, k) -> ZN fractal (k, nb), transposed
    c.issue(Load2d{.dst = {Buf::L0B, l0b.off + uint64_t(k) * nb * 512},
                   .src = l1b,
                   .start_index = uint16_t(k),
                   .repeat = uint8_t(nb),
                   .src_stride = uint16_t(kb),
                   .transpose = true});
  c.set_flag(Pipe::MTE1, Pipe::M, 0);
  c.wait_flag(Pipe::MTE1, Pipe::M, 0);
  c.issue(Mmad{.c = l0c, .a = l0a, .b = l0b, .m = kDim, .n = kDim, .k = kDim});
}

// The vector tail shared by both variants: x *= 2 in fp32, cast to fp16, store to GM.
inline void double_cast_store(CoreCtx& c, Addr f32, Addr f16, int elems, Addr out_gm) {
  const uint8_t reps = static_cast<uint8_t>(elems / 64);
  c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = f32, .src = f32, .scalar = 2.0, .repeat = reps});
  c.pipe_barrier(Pipe::V);
  c.issue(
      VCast{.dst_dtype = DType::F16, .src_dtype = DType::F32, .dst = f16, .src = f32, .repeat = reps, .dst_s = {1, 4}});
  c.set_flag(Pipe::V, Pipe::MTE3, 0);
  c.wait_flag(Pipe::V, Pipe::MTE3, 0);
  c.issue(DataCopy{.dst = out_gm, .src = f16, .burst_bytes = static_cast<uint32_t>(elems * 2)});
}

// Split: AIC computes C_b into workspace; each AIV doubles its 16 rows, casts to fp16 and stores them.
inline LaunchSpec mixed_split(int blocks, MixedBreak brk = {}) {
  LaunchSpec s{.name = "mixed", .block_dim = blocks, .mix = MixMode::Mix1_2};
  s.cube = [](CoreCtx& c) {
    const int b = c.block_idx();
    cube_matmul(c, c.gm("a", uint64_t(b) * kDim * kDim * 2), c.gm("b"));
    c.set_flag(Pipe::M, Pipe::FIX, 0);
    c.wait_flag(Pipe::M, Pipe::FIX, 0);
    c.issue(Fixpipe{.dst = c.gm("ws", uint64_t(b) * kDim * kDim * 4),
                    .src = {Buf::L0C, 0},
                    .src_dtype = DType::F32,
                    .dst_dtype = DType::F32,
                    .m = kDim,
                    .n = kDim,
                    .src_m_stride = kDim,
                    .dst_stride = kDim});
    c.cross_set(2, 3, Pipe::FIX);
  };
  s.vector = [brk](CoreCtx& c) {
    const int b = c.block_idx(), h = c.sub_block_idx(), rows = kDim / 2;
    if (!brk.skip_cross_flag) c.cross_wait(3);
    const Addr f32 = c.alloc(Buf::UB, rows * kDim * 4, "f32"), f16 = c.alloc(Buf::UB, rows * kDim * 2, "f16");
    c.issue(DataCopy{
        .dst = f32, .src = c.gm("ws", (uint64_t(b) * kDim + h * rows) * kDim * 4), .burst_bytes = rows * kDim * 4});
    c.set_flag(Pipe::MTE2, Pipe::V, 0);
    c.wait_flag(Pipe::MTE2, Pipe::V, 0);
    double_cast_store(c, f32, f16, rows * kDim, c.gm("out", (uint64_t(b) * kDim + h * rows) * kDim * 2));
  };
  return s;
}

// Coupled: one core does everything, handing L0C to UB directly.
inline LaunchSpec mixed_coupled(int blocks) {
  LaunchSpec s{.name = "mixed", .block_dim = blocks, .mix = MixMode::Mix1_2};
  s.cube = [](CoreCtx& c) {
    const int b = c.block_idx();
    cube_matmul(c, c.gm("a", uint64_t(b) * kDim * kDim * 2), c.gm("b"));
    const Addr f32 = c.alloc(Buf::UB, kDim * kDim * 4, "f32"), f16 = c.alloc(Buf::UB, kDim * kDim * 2, "f16");
    c.set_flag(Pipe::M, Pipe::V, 1);  // the coupled L0C->UB move runs on V, after the mmad
    c.wait_flag(Pipe::M, Pipe::V, 1);
    c.issue(Fixpipe{.dst = f32,
                    .src = {Buf::L0C, 0},
                    .src_dtype = DType::F32,
                    .dst_dtype = DType::F32,
                    .m = kDim,
                    .n = kDim,
                    .src_m_stride = kDim,
                    .dst_stride = kDim});
    c.pipe_barrier(Pipe::V);
    double_cast_store(c, f32, f16, kDim * kDim, c.gm("out", uint64_t(b) * kDim * kDim * 2));
  };
  return s;
}

// Small integers: every product and sum is exact, so the expected output is plain integer arithmetic.
struct MixedData {
  std::vector<uint16_t> a, b;
  int blocks;
  explicit MixedData(int n_blocks) : blocks(n_blocks) {
    for (int i = 0; i < n_blocks * kDim * kDim; ++i) a.push_back(f32_to_f16(static_cast<float>((i * 7 % 9) - 4)));
    for (int i = 0; i < kDim * kDim; ++i) b.push_back(f32_to_f16(static_cast<float>((i * 5 % 7) - 3)));
  }
  float expected(int blk, int r, int col) const {
    float acc = 0;
    for (int k = 0; k < kDim; ++k) acc += f16_to_f32(a[(blk * kDim + r) * kDim + k]) * f16_to_f32(b[k * kDim + col]);
    return 2 * acc;
  }
  void load(Machine& m) const {
    auto& gm = m.gm();
    const uint64_t ao = gm.allocate("a", a.size() * 2), bo = gm.allocate("b", b.size() * 2);
    gm.allocate("ws", uint64_t(blocks) * kDim * kDim * 4);
    gm.allocate("out", uint64_t(blocks) * kDim * kDim * 2);
    if (!gm.backs_everything()) return;
    std::memcpy(gm.ptr(ao, a.size() * 2), a.data(), a.size() * 2);
    std::memcpy(gm.ptr(bo, b.size() * 2), b.data(), b.size() * 2);
  }
  std::vector<uint16_t> output(Machine& m) const {
    const auto& o = m.gm().find("out");
    std::vector<uint16_t> v(o.bytes / 2);
    std::memcpy(v.data(), m.gm().ptr(o.offset, o.bytes), o.bytes);
    return v;
  }
};

// Every output element equals the exact reference (the inputs make every product and sum exact in fp16).
inline void expect_output_exact(const MixedData& d, Machine& m) {
  const auto out = d.output(m);
  for (int b = 0; b < d.blocks; ++b)
    for (int i = 0; i < kDim; ++i)
      for (int j = 0; j < kDim; ++j)
        ASSERT_EQ(f16_to_f32(out[size_t((b * kDim + i) * kDim + j)]), d.expected(b, i, j)) << b << " " << i << " " << j;
}

// True when some fault of one of `kinds` has every one of `words` in its message.
inline bool has_fault_of(const LaunchResult& r, std::initializer_list<std::string_view> kinds,
                         const std::vector<std::string>& words) {
  for (const auto& f : r.faults) {
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) continue;
    bool all = true;
    for (const auto& w : words) all &= f.message.find(w) != std::string::npos;
    if (all) return true;
  }
  return false;
}

// True when some fault of `kind` has every one of `words` in its message.
inline bool has_fault(const LaunchResult& r, const std::string& kind, std::initializer_list<std::string> words) {
  for (const auto& f : r.faults) {
    if (f.kind != kind) continue;
    bool all = true;
    for (const auto& w : words) all &= f.message.find(w) != std::string::npos;
    if (all) return true;
  }
  return false;
}

inline std::string faults_of(const LaunchResult& r) {
  std::string s;
  for (const auto& f : r.faults) s += "[" + f.kind + "] " + f.message + "\n";
  return s;
}

// One launch of `block_dim` blocks on a fresh machine (each test runs in its own process).
inline LaunchResult run_one(const char* hw, MixMode mix, KernelFn cube, KernelFn vector = {}, int block_dim = 1,
                            uint64_t gm_bytes = 0) {
  Machine m(load_hw(hw), SimMode::Full);
  if (gm_bytes) m.gm().allocate("x", gm_bytes);
  LaunchSpec s{.name = "test", .block_dim = block_dim, .mix = mix};
  s.cube = std::move(cube);
  s.vector = std::move(vector);
  return m.launch(s);
}

// One launch of one block of `kernel` on the AIC (CubeOnly) or an AIV (VectorOnly), with a 4 KiB GM "x".
inline LaunchResult run_single(MixMode mix, const KernelFn& kernel) {
  return mix == MixMode::CubeOnly ? run_one("ascend910b2", mix, kernel, {}, 1, 4096)
                                  : run_one("ascend910b2", mix, {}, kernel, 1, 4096);
}

// Runs f in a forked child (a process may elaborate one machine) and returns the numbers it produced; an
// empty vector when the child crashed.
inline std::vector<uint64_t> in_child(const std::function<std::vector<uint64_t>()>& f) {
  int fd[2];
  if (::pipe(fd) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fd[0]);
    const std::vector<uint64_t> v = f();
    const uint64_t n = v.size();
    ssize_t ok = ::write(fd[1], &n, sizeof n);
    if (n) ok = ::write(fd[1], v.data(), n * sizeof(uint64_t));
    ::_exit(ok >= 0 ? 0 : 1);
  }
  ::close(fd[1]);
  uint64_t n = 0;
  std::vector<uint64_t> v;
  if (::read(fd[0], &n, sizeof n) == sizeof n && n < (1u << 20)) {
    v.resize(n);
    size_t got = 0;
    while (got < n * sizeof(uint64_t)) {
      const ssize_t r = ::read(fd[0], reinterpret_cast<char*>(v.data()) + got, n * sizeof(uint64_t) - got);
      if (r <= 0) break;
      got += size_t(r);
    }
    if (got != n * sizeof(uint64_t)) v.clear();
  }
  ::close(fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return v;
}

}  // namespace npusim::sim::testing
