#pragma once
// Runs a small matmul through the ISA instruction semantics -- Mmad (init or bias) then Fixpipe ND to GM -- on
// local buffers, with A laid out in L0A (ZZ) and B in L0B (ZN) by hand from logical row-major matrices
// (isa/README.md section 3 "Fractal layouts"). The golden model is checked against it bit for bit.
#include <cstdint>
#include <cstring>
#include <vector>

#include "isa/semantics/exec.h"

namespace npusim::optest {

struct CubeCase {
  isa::DType in = isa::DType::F16;   // f16, bf16 or s8
  isa::DType out = isa::DType::F32;  // the Fixpipe destination dtype
  int m = 0, n = 0, k = 0;
  std::vector<uint16_t> a, b;  // raw element bits, a[i*k + kk], b[kk*n + j] (s8: the low byte)
  std::vector<uint32_t> bias;  // raw fp32 / s32 bits, n of them; empty = no bias (init from +0)
  double dequant_scale = 0;    // s32 -> f16 only: Fixpipe's scalar quant scale
};

struct CubeResult {
  std::vector<uint32_t> l0c;  // C[i][j] raw fp32 / s32 bits, row-major m x n
  std::vector<uint8_t> out;   // the Fixpipe ND output bytes, row-major m x n
};

inline CubeResult run_cube(const CubeCase& cc, isa::ExecPath path) {
  using namespace isa;
  std::vector<uint8_t> gm(1 << 16, 0), l0a(64 << 10, 0x7e), l0b(64 << 10, 0x7e), l0c(128 << 10, 0), bt(1 << 10, 0);
  ExecContext ctx;  // L0A / L0B padding holds NaN (or int 126) garbage: lanes past k must not be read
  ctx.mem[Buf::GM] = gm, ctx.mem[Buf::L0A] = l0a, ctx.mem[Buf::L0B] = l0b, ctx.mem[Buf::L0C] = l0c;
  ctx.mem[Buf::BT] = bt;
  const int es = bytes_of(cc.in), k0 = 32 / es;
  const int mb = (cc.m + 15) / 16, nb = (cc.n + 15) / 16, kb = (cc.k + k0 - 1) / k0;
  for (int i = 0; i < cc.m; ++i)  // ZZ: fractal (i/16, kk/k0), 16 rows of k0 elements inside
    for (int kk = 0; kk < cc.k; ++kk)
      std::memcpy(&l0a[(((uint64_t(i / 16) * kb + kk / k0) * 16 + i % 16) * k0 + kk % k0) * es], &cc.a[i * cc.k + kk],
                  es);
  for (int kk = 0; kk < cc.k; ++kk)  // ZN: fractal (kk/k0, j/16), 16 n-rows of k0 k-elements inside
    for (int j = 0; j < cc.n; ++j)
      std::memcpy(&l0b[(((uint64_t(kk / k0) * nb + j / 16) * 16 + j % 16) * k0 + kk % k0) * es], &cc.b[kk * cc.n + j],
                  es);
  if (!cc.bias.empty()) std::memcpy(bt.data(), cc.bias.data(), cc.bias.size() * 4);
  struct PathGuard {  // restores the process-wide path even when an instruction throws
    ExecPath saved = exec_path();
    ~PathGuard() { set_exec_path(saved); }
  } guard;
  set_exec_path(path);
  Mmad mm;
  mm.c = {Buf::L0C, 0}, mm.a = {Buf::L0A, 0}, mm.b = {Buf::L0B, 0}, mm.a_dtype = cc.in;
  mm.m = uint16_t(cc.m), mm.n = uint16_t(cc.n), mm.k = uint16_t(cc.k), mm.bias = !cc.bias.empty();
  execute(mm, ctx);
  Fixpipe f;
  f.dst = {Buf::GM, 0}, f.src = {Buf::L0C, 0}, f.src_dtype = cc.in == DType::I8 ? DType::I32 : DType::F32;
  f.dst_dtype = cc.out, f.m = uint16_t(cc.m), f.n = uint16_t(cc.n), f.src_m_stride = uint16_t(mb * 16);
  f.dst_stride = uint32_t(cc.n), f.nz2nd = true;
  if (cc.dequant_scale != 0) f.quant = Quant::Scalar, f.quant_scale = cc.dequant_scale;
  execute(f, ctx);
  CubeResult r;
  r.l0c.resize(size_t(cc.m * cc.n));
  for (int i = 0; i < cc.m; ++i)  // L0C: 16x16 fractals, column-block-major, mb*16 rows per column block
    for (int j = 0; j < cc.n; ++j)
      std::memcpy(&r.l0c[size_t(i * cc.n + j)], &l0c[((uint64_t(j / 16) * mb * 16 + i) * 16 + j % 16) * 4], 4);
  r.out.assign(gm.begin(), gm.begin() + cc.m * cc.n * bytes_of(cc.out));
  return r;
}

}  // namespace npusim::optest
