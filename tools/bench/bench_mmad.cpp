// Host speed of the mmad emulation: GFLOP/s (flops = 2*m*n*k) of the Fast and Reference paths on fp16 tiles, beside
// single-threaded OpenBLAS cblas_sgemm on the same shapes in the same run. Usage: bench_mmad [seconds per figure].
// OpenBLAS reads OPENBLAS_NUM_THREADS / OPENBLAS_CORETYPE when it is loaded, so the bench re-executes itself with
// them set (1 thread, Haswell kernels) when they are missing.
#include <cblas.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "isa/numeric/numeric.h"
#include "isa/semantics/exec.h"

using namespace npusim::isa;

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

void reexec_with_openblas_env(char** argv) {
  if (env_is("OPENBLAS_NUM_THREADS", "1") && env_is("OPENBLAS_CORETYPE", "Haswell")) return;
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  execv("/proc/self/exe", argv);
  std::perror("bench_mmad: re-exec failed");
  std::exit(1);
}

// Best time of one call in seconds: batches of calls, each batch long enough to time, for about `budget` seconds.
double best_call_seconds(const std::function<void()>& call, double budget) {
  using clock = std::chrono::steady_clock;
  call();  // warm caches and scratch buffers
  int per_batch = 1;
  double best = 1e30, spent = 0;
  while (spent < budget) {
    const auto t0 = clock::now();
    for (int r = 0; r < per_batch; ++r) call();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    spent += s;
    best = std::min(best, s / per_batch);
    if (s < 0.02) per_batch *= 2;
  }
  return best;
}

struct Tile {
  int m, n, k;
  std::vector<uint8_t> l0a, l0b, l0c, bt;
  std::vector<float> a32, b32, c32;  // the same values as fp32 ND matrices for sgemm
};

Tile make_tile(int m, int n, int k) {
  Tile t{m, n, k, {}, {}, {}, {}, {}, {}, {}};
  const int mb = (m + 15) / 16, nb = (n + 15) / 16, kb = (k + 15) / 16;
  t.l0a.assign(size_t(mb) * kb * 512, 0);
  t.l0b.assign(size_t(kb) * nb * 512, 0);
  t.l0c.assign(size_t(mb) * nb * 1024, 0);
  t.bt.assign(1024, 0);
  t.a32.assign(size_t(m) * k, 0);
  t.b32.assign(size_t(k) * n, 0);
  t.c32.assign(size_t(m) * n, 0);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {  // L0A ZZ: fractal (i/16, kk/16), row-major 16 x 16 inside
      const uint16_t h = f32_to_f16(u(rng));
      std::memcpy(&t.l0a[((size_t(i / 16) * kb + kk / 16) * 256 + (i % 16) * 16 + kk % 16) * 2], &h, 2);
      t.a32[size_t(i) * k + kk] = f16_to_f32(h);
    }
  for (int kk = 0; kk < k; ++kk)
    for (int j = 0; j < n; ++j) {  // L0B ZN: fractal (kk/16, j/16), 16 n-rows of 16 k inside
      const uint16_t h = f32_to_f16(u(rng));
      std::memcpy(&t.l0b[((size_t(kk / 16) * nb + j / 16) * 256 + (j % 16) * 16 + kk % 16) * 2], &h, 2);
      t.b32[size_t(kk) * n + j] = f16_to_f32(h);
    }
  return t;
}

ExecContext context_of(Tile& t) {
  ExecContext ctx;
  ctx.mem[Buf::L0A] = t.l0a;
  ctx.mem[Buf::L0B] = t.l0b;
  ctx.mem[Buf::L0C] = t.l0c;
  ctx.mem[Buf::BT] = t.bt;
  return ctx;
}

void bench_shape(int m, int n, int k, double budget) {
  Tile t = make_tile(m, n, k);
  ExecContext ctx = context_of(t);
  Mmad mm;
  mm.c = {Buf::L0C, 0}, mm.a = {Buf::L0A, 0}, mm.b = {Buf::L0B, 0};
  mm.a_dtype = DType::F16;
  mm.m = uint16_t(m), mm.n = uint16_t(n), mm.k = uint16_t(k);
  const Instr in = mm;
  const double flops = 2.0 * m * n * k;

  set_exec_path(ExecPath::Reference);
  const double ref_s = best_call_seconds([&] { execute(in, ctx); }, budget / 2);
  const std::vector<uint8_t> ref_c = t.l0c;
  set_exec_path(ExecPath::Fast);
  const double fast_s = best_call_seconds([&] { execute(in, ctx); }, budget);
  const bool same = ref_c == t.l0c;
  const double blas_s = best_call_seconds(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, t.a32.data(), k, t.b32.data(), n, 0.0f,
                    t.c32.data(), n);
      },
      budget);
  const double fast = flops / fast_s * 1e-9, ref = flops / ref_s * 1e-9, blas = flops / blas_s * 1e-9;
  std::printf(
      "%4dx%4dx%4d  fast %7.2f GFLOP/s  reference %6.3f GFLOP/s  openblas sgemm %7.2f GFLOP/s  fast/openblas %5.1f %%  "
      "fast==reference %s\n",
      m, n, k, fast, ref, blas, 100.0 * fast / blas, same ? "yes" : "NO");
}

}  // namespace

int main(int argc, char** argv) {
  reexec_with_openblas_env(argv);
  const double budget = argc > 1 ? std::atof(argv[1]) : 2.0;
  std::printf("mmad fp16 emulation (one thread) vs OpenBLAS sgemm (OPENBLAS_NUM_THREADS=%s OPENBLAS_CORETYPE=%s)\n",
              std::getenv("OPENBLAS_NUM_THREADS"), std::getenv("OPENBLAS_CORETYPE"));
  bench_shape(128, 128, 128, budget);
  bench_shape(256, 512, 128, budget);
  return 0;
}
