// Simulator speed: simulated instructions and cycles per host second, per microbenchmark and for a long
// mixed program (cube + vector + cross-core flags on every core), in full and timing mode, checks on,
// trace off. Each point runs in a forked child (its host time and memory measured alone).
// Usage: bench_sim_micro [--hw NAME] [--quick] [--only NAME]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/micro/micro.h"
#include "sim/config/hw_config.h"
#include "sim/machine/core_ctx.h"

using namespace npusim;
using namespace npusim::isa;

namespace {
// A long mixed program: each AI Core's AIC runs `iters` rounds of load2d/mmad/fixpipe and hands each
// round to its AIVs, which run a softmax-like vector sequence on it; ping-pong through cross-core flags.
sim::LaunchSpec mixed_program(int blocks, int iters) {
  sim::LaunchSpec s{.name = "mixed_long", .block_dim = blocks, .mix = sim::MixMode::Mix1_2};
  s.cube = [iters](sim::CoreCtx& c) {
    const Addr l1 = c.alloc(Buf::L1, 64 * 1024, "l1"), a = c.alloc(Buf::L0A, 32 * 1024, "a");
    const Addr b = c.alloc(Buf::L0B, 32 * 1024, "b"), acc = c.alloc(Buf::L0C, 64 * 1024, "c");
    const Addr ws = c.gm("ws", uint64_t(c.block_idx()) * 2 * 64 * 1024);
    for (int i = 0; i < iters; ++i) {
      if (i >= 2) c.cross_wait(2);  // the AIVs released this workspace slot
      c.issue(Load2d{.dst = a, .src = l1, .repeat = 64});
      c.issue(Load2d{.dst = b, .src = l1, .repeat = 64});
      c.set_flag(Pipe::MTE1, Pipe::M, 0);
      c.wait_flag(Pipe::MTE1, Pipe::M, 0);
      c.issue(Mmad{.c = acc, .a = a, .b = b, .m = 128, .n = 128, .k = 128});
      c.set_flag(Pipe::M, Pipe::MTE1, 1);
      c.wait_flag(Pipe::M, Pipe::MTE1, 1);
      c.set_flag(Pipe::M, Pipe::FIX, 0);
      c.wait_flag(Pipe::M, Pipe::FIX, 0);
      c.issue(Fixpipe{.dst = {Buf::GM, ws.off + uint64_t(i % 2) * 64 * 1024},
                      .src = acc,
                      .dst_dtype = DType::F32,
                      .m = 128,
                      .n = 128,
                      .src_m_stride = 128,
                      .dst_stride = 128});
      c.set_flag(Pipe::FIX, Pipe::M, 0);
      c.wait_flag(Pipe::FIX, Pipe::M, 0);
      c.cross_set(2, 1, Pipe::FIX);
    }
    for (int i = std::max(0, iters - 2); i < iters; ++i) c.cross_wait(2);
  };
  s.vector = [iters](sim::CoreCtx& c) {
    const Addr x = c.alloc(Buf::UB, 32 * 1024, "x"), y = c.alloc(Buf::UB, 32 * 1024, "y");
    const Addr m = c.alloc(Buf::UB, 1024, "m");
    const uint64_t ws = c.gm("ws", uint64_t(c.block_idx()) * 2 * 64 * 1024).off + c.sub_block_idx() * 32 * 1024;
    for (int i = 0; i < iters; ++i) {
      c.cross_wait(1);
      c.issue(DataCopy{.dst = x, .src = {Buf::GM, ws + uint64_t(i % 2) * 64 * 1024}, .burst_bytes = 32 * 1024});
      c.set_flag(Pipe::MTE2, Pipe::V, 0);
      c.wait_flag(Pipe::MTE2, Pipe::V, 0);
      c.cross_set(2, 2, Pipe::V);
      for (int row = 0; row < 8; ++row) {  // 8 row groups of 16 rows x 64 floats
        const Addr xr{Buf::UB, x.off + uint64_t(row) * 4096}, yr{Buf::UB, y.off + uint64_t(row) * 4096};
        c.issue(VReduce{.op = VRedOp::Max,
                        .dtype = DType::F32,
                        .dst = {Buf::UB, m.off + uint64_t(row) * 64},
                        .src = xr,
                        .repeat = 16});
        c.pipe_barrier(Pipe::V);
        c.issue(
            VScalar{.op = VScalarOp::Adds, .dtype = DType::F32, .dst = yr, .src = xr, .scalar = -1.0, .repeat = 16});
        c.pipe_barrier(Pipe::V);
        c.issue(VUnary{.op = VUnaryOp::Exp, .dtype = DType::F32, .dst = yr, .src = yr, .repeat = 16});
        c.pipe_barrier(Pipe::V);
        c.issue(VReduce{.op = VRedOp::Sum,
                        .dtype = DType::F32,
                        .dst = {Buf::UB, m.off + 512 + uint64_t(row) * 64},
                        .src = yr,
                        .repeat = 16});
        c.pipe_barrier(Pipe::V);
      }
      c.set_flag(Pipe::V, Pipe::MTE2, 1);
      c.wait_flag(Pipe::V, Pipe::MTE2, 1);
    }
  };
  return s;
}

// A stream of `n` vector instructions of `repeats` repeats each on one AIV (instruction-rate probes).
sim::LaunchSpec vector_stream(int n, int repeats) {
  sim::LaunchSpec s{.name = "vector_stream", .block_dim = 1, .mix = sim::MixMode::VectorOnly};
  s.vector = [n, repeats](sim::CoreCtx& c) {
    for (int i = 0; i < n; ++i) {
      if (repeats == 1) c.issue(VDup{.dtype = DType::F32, .dst = {Buf::UB, 0}, .value = 1.0});
      else
        c.issue(VBinary{.dtype = DType::F32,
                        .dst = {Buf::UB, 0x10000},
                        .src0 = {Buf::UB, 0},
                        .src1 = {Buf::UB, 0x1000},
                        .repeat = static_cast<uint8_t>(repeats)});
    }
  };
  return s;
}

struct Point {
  std::string name, mode;
  uint64_t instructions = 0, cycles = 0;
  double wall = 0;
};

Point measure(const std::string& hw_name, sim::SimMode mode, const std::string& what, int iters) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Point p{what, sim::sim_mode_name(mode)};
    sim::Machine m(sim::load_hw(hw_name), mode);
    const auto t0 = std::chrono::steady_clock::now();
    if (what == "vdup_1rep" || what == "vadd_16rep") {
      const auto r = m.launch(vector_stream(200000, what == "vdup_1rep" ? 1 : 16));
      p.instructions = r.instructions, p.cycles = r.cycles;
    } else if (what == "mixed_long") {
      const int blocks = static_cast<int>(m.hw().chip.ai_cores);
      m.gm().allocate("ws", uint64_t(blocks) * 2 * 64 * 1024);
      const auto r = m.launch(mixed_program(blocks, iters));
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.faults[0].message.c_str());
        _exit(3);
      }
      p.instructions = r.instructions, p.cycles = r.cycles;
    } else {
      const auto r = kernels::micro::run_micro(m, what);
      p.instructions = r.instructions, p.cycles = r.cycles;
    }
    p.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char line[512];
    const int n = std::snprintf(line, sizeof line, "%llu %llu %.6f", (unsigned long long)p.instructions,
                                (unsigned long long)p.cycles, p.wall);
    if (write(fds[1], line, n) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  char buf[512] = {0};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Point p{what, sim::sim_mode_name(mode)};
  if (n > 0) {
    unsigned long long i = 0, c = 0;
    std::sscanf(buf, "%llu %llu %lf", &i, &c, &p.wall);
    p.instructions = i, p.cycles = c;
  }
  return p;
}
}  // namespace

int main(int argc, char** argv) {
  std::string hw = "ascend910b2";
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--hw") && i + 1 < argc) hw = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
  }
  std::vector<std::string> names = kernels::micro::micro_names();
  names.push_back("vdup_1rep");   // 200,000 one-repeat instructions: per-instruction overhead
  names.push_back("vadd_16rep");  // 200,000 16-repeat, 3-operand instructions: per-block checks dominate
  names.push_back("mixed_long");
  std::printf(
      "| program | mode | instructions | cycles | wall s | Minstr/s | Mcycles/s |\n|---|---|---|---|---|---|---|\n");
  for (const auto& name : names)
    for (auto mode : {sim::SimMode::Timing, sim::SimMode::Full}) {
      if (quick && name != "mixed_long" && name != "vdup_1rep" && name != "vadd_16rep") continue;
      if (!only.empty() && name != only) continue;
      if (mode == sim::SimMode::Full && (name == "mte2_allcores")) continue;  // 288 MiB of GM: timing only
      const Point p = measure(hw, mode, name, quick ? 20 : 200);
      std::printf("| %s | %s | %llu | %llu | %.3f | %.2f | %.1f |\n", p.name.c_str(), p.mode.c_str(),
                  (unsigned long long)p.instructions, (unsigned long long)p.cycles, p.wall,
                  p.wall > 0 ? p.instructions / p.wall / 1e6 : 0, p.wall > 0 ? p.cycles / p.wall / 1e6 : 0);
      std::fflush(stdout);
    }
}
