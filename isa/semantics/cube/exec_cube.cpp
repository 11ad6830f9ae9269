// Mmad: operand validation and the Reference implementation (the plain definition of isa/README.md section 3).
// The Fast implementation (mmad_fast.cpp) must give the same bits; tests/isa/test_mmad_fast.cpp checks it.
#include <string>

#include "isa/instr/operand.h"
#include "isa/semantics/cube/mmad_kernels.h"
#include "isa/semantics/exec_impl.h"

namespace npusim::isa {
namespace mmad {

namespace {

float start_value_f32(const Job& j, int i, int col) {
  float v;
  if (j.bias) {
    std::memcpy(&v, j.bias + uint64_t(col) * 4, 4);
    return v;
  }
  if (j.init) return 0.0f;
  std::memcpy(&v, j.c + c_index(j, i, col) * 4, 4);
  return v;
}

uint32_t start_value_s32(const Job& j, int i, int col) {
  uint32_t v = 0;
  if (j.bias) std::memcpy(&v, j.bias + uint64_t(col) * 4, 4);
  else if (!j.init) std::memcpy(&v, j.c + c_index(j, i, col) * 4, 4);
  return v;
}

// Balanced pairwise tree, level by level: (p0+p1), (p2+p3), ... then pairs of those, until one value is left.
float tree_sum(float* p, int n) {
  for (; n > 1; n /= 2)
    for (int q = 0; q < n / 2; ++q) p[q] = p[2 * q] + p[2 * q + 1];
  return p[0];
}

// One fractal-K step for output (i, col): the k0 products of K block kb, lanes beyond k contributing +0.
float kblock_sum(const Job& j, int i, int col, int kb) {
  float p[64] = {};
  for (int t = 0; t < j.k0; ++t) {
    const int kk = kb * j.k0 + t;
    p[t] = kk < j.k ? widen_float(j.t, j.a, a_index(j, i, kk)) * widen_float(j.t, j.b, b_index(j, kk, col)) : 0.0f;
  }
  return tree_sum(p, j.k0);
}

void store_f32(const Job& j, int i, int col, float v) {
  uint32_t u = f32_bits(v);
  if (v != v) u = kCanonicalNan;
  std::memcpy(j.c + c_index(j, i, col) * 4, &u, 4);
}

}  // namespace

void run_reference(const Job& j) {
  for (int col = 0; col < j.np(); ++col)
    for (int i = 0; i < j.mp(); ++i) {
      if (j.is_int()) {
        uint32_t acc = start_value_s32(j, i, col);  // uint32: wrap-around is defined
        for (int kk = 0; kk < j.k; ++kk)
          acc +=
              static_cast<uint32_t>(widen_int(j.t, j.a, a_index(j, i, kk)) * widen_int(j.t, j.b, b_index(j, kk, col)));
        std::memcpy(j.c + c_index(j, i, col) * 4, &acc, 4);
        continue;
      }
      float acc = start_value_f32(j, i, col);
      for (int kb = 0; kb < j.kb; ++kb) acc = acc + kblock_sum(j, i, col, kb);
      store_f32(j, i, col, acc);
    }
}

}  // namespace mmad

namespace impl {

namespace {

void check_mmad_fields(const Mmad& in) {
  switch (in.a_dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::I8:
    case DType::I4: break;
    default:
      isa_fail("field a_dtype: mmad takes f16, bf16, f32, s8 or s4 inputs, not " + std::string(dtype_name(in.a_dtype)));
  }
  check_field("m", in.m, 0, 4095);
  check_field("n", in.n, 0, 4095);
  check_field("k", in.k, 0, 4095);
  if (in.unit_flag != 0 && in.unit_flag != 2 && in.unit_flag != 3)
    isa_fail("field unit_flag = " + std::to_string(in.unit_flag) + " is not 0, 2 or 3");
}

}  // namespace

void exec(const Mmad& in, ExecContext& ctx) {
  check_mmad_fields(in);
  mmad::Job j{};
  j.t = in.a_dtype;
  j.m = in.m, j.n = in.n, j.k = in.k;
  j.k0 = fractal_k(in.a_dtype);
  j.mb = (in.m + 15) / 16, j.nb = (in.n + 15) / 16, j.kb = (in.k + j.k0 - 1) / j.k0;
  const bool noop = in.m == 0 || in.n == 0 || in.k == 0;
  const uint64_t f = kFractalBytes;
  j.a = operand_bytes(ctx, "a", in.a, noop ? 0 : uint64_t(j.mb) * j.kb * f, {Buf::L0A});
  j.b = operand_bytes(ctx, "b", in.b, noop ? 0 : uint64_t(j.kb) * j.nb * f, {Buf::L0B});
  j.c = operand_bytes(ctx, "c", in.c, noop ? 0 : uint64_t(j.mb) * j.nb * 16 * 16 * 4, {Buf::L0C});
  if (in.bias) j.bias = operand_bytes(ctx, "bias_addr", in.bias_addr, noop ? 0 : uint64_t(j.nb) * 16 * 4, {Buf::BT});
  j.init = in.init;
  if (noop) return;
  if (exec_path() == ExecPath::Reference) mmad::run_reference(j);
  else mmad::run_fast(j);
}

}  // namespace impl
}  // namespace npusim::isa
