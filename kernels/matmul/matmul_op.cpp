#include "kernels/matmul/matmul_op.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "isa/numeric/int_math.h"
#include "kernels/matmul/matmul_kernel.h"
#include "kernels/matmul/matmul_reference.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"

namespace npusim::op {

NPUSIM_REGISTER_OP(MatmulOp);

using isa::DType;

namespace {
const TensorEntry& one(const CaseFile& c, const std::string& n) {
  const auto& v = c.inputs.at(n);
  if (v.size() != 1) throw CaseError("inputs." + n + " must be one tensor, not a list of " + std::to_string(v.size()));
  return v[0];
}

DType storage(ElemType t) {
  switch (t) {
    case ElemType::F16: return DType::F16;
    case ElemType::BF16: return DType::BF16;
    case ElemType::I8: return DType::I8;
    default: throw CaseError("inputs.a: dtype " + elem_type_name(t) + " is not supported (float16, bfloat16, int8)");
  }
}

DType out_type(const std::string& s, DType in, bool has_scale) {
  const bool f = in != DType::I8;
  if (s.empty()) return f ? in : (has_scale ? DType::F16 : DType::I32);
  if (f && (s == "float16" || s == "bfloat16" || s == "float32"))
    return s == "float16" ? DType::F16 : s == "bfloat16" ? DType::BF16 : DType::F32;
  if (!f && s == "int32" && !has_scale) return DType::I32;
  if (!f && s == "float16" && has_scale) return DType::F16;
  throw CaseError("attrs.out_dtype = '" + s + "' is not allowed for " + std::string(isa::dtype_name(in)) +
                  " inputs (float16 / bfloat16 inputs: float16 | bfloat16 | float32; int8 inputs: int32, or float16 "
                  "together with attrs.dequant_scale)");
}

ElemType elem_of(DType t) {
  return t == DType::F16    ? ElemType::F16
         : t == DType::BF16 ? ElemType::BF16
         : t == DType::F32  ? ElemType::F32
                            : ElemType::I32;
}

MatmulShape validate(const CaseFile& c) {
  const auto& a = one(c, "a");
  const auto& b = one(c, "b");
  MatmulShape s;
  s.transpose_a = attr_bool(c, "transpose_a");
  s.transpose_b = attr_bool(c, "transpose_b");
  if (a.data.shape.size() != 2)
    throw CaseError("inputs.a must be 2-D (M, K), got rank " + std::to_string(a.data.shape.size()));
  if (b.data.shape.size() != 2)
    throw CaseError("inputs.b must be 2-D (K, N), got rank " + std::to_string(b.data.shape.size()));
  if (a.dtype != b.dtype)
    throw CaseError("inputs.a and inputs.b must have the same dtype (" + elem_type_name(a.dtype) + " vs " +
                    elem_type_name(b.dtype) + ")");
  s.in = storage(a.dtype);
  s.acc = s.in == DType::I8 ? DType::I32 : DType::F32;
  s.m = s.transpose_a ? a.data.shape[1] : a.data.shape[0];
  const int64_t ka = s.transpose_a ? a.data.shape[0] : a.data.shape[1];
  s.k = s.transpose_b ? b.data.shape[1] : b.data.shape[0];
  s.n = s.transpose_b ? b.data.shape[0] : b.data.shape[1];
  if (ka != s.k)
    throw CaseError("inputs.a and inputs.b disagree on K: " + std::to_string(ka) + " vs " + std::to_string(s.k) +
                    " (with transpose_a = " + (s.transpose_a ? "true" : "false") +
                    ", transpose_b = " + (s.transpose_b ? "true" : "false") + ")");
  if (s.m < 1 || s.n < 1 || s.k < 1) throw CaseError("inputs.a / inputs.b: M, N and K must be >= 1");
  if (s.m > 65535 || s.k > 65535 || s.n > 65535) throw CaseError("inputs.a / inputs.b: M, N and K must be <= 65535");
  const std::optional<double> scale = attr_float_if(c, "dequant_scale");
  const bool has_scale = scale.has_value();
  s.dequant_scale = scale.value_or(1.0);  // without one the output is not scaled
  if (has_scale && s.in != DType::I8) throw CaseError("attrs.dequant_scale applies to int8 inputs only");
  if (has_scale && !std::isfinite(s.dequant_scale))
    throw CaseError("attrs.dequant_scale = " + std::to_string(s.dequant_scale) + " must be a finite number");
  s.out = out_type(attr_string_if(c, "out_dtype").value_or(""), s.in, has_scale);  // "": the rule of out_type
  if (c.inputs.count("bias")) {
    const auto& bias = one(c, "bias");
    const ElemType want = s.in == DType::I8 ? ElemType::I32 : ElemType::F32;
    if (bias.dtype != want || bias.data.shape != std::vector<int64_t>{s.n})
      throw CaseError("inputs.bias must be " + elem_type_name(want) + " of shape (" + std::to_string(s.n) + ")");
    s.bias = true;
  }
  return s;
}

}  // namespace

std::vector<ParamSpec> MatmulOp::params() const {
  return {{"a", "tensor", true, "", "(M, K), or (K, M) with transpose_a; float16, bfloat16 or int8"},
          {"b", "tensor", true, "", "(K, N), or (N, K) with transpose_b; same dtype as a"},
          {"bias", "tensor", false, "none", "(N,) float32 (int32 for int8 inputs), added as the accumulator start"},
          {"transpose_a", "bool", false, "false", "a is stored as (K, M)", false},
          {"transpose_b", "bool", false, "false", "b is stored as (N, K)", false},
          {"out_dtype", "string", false, "input dtype (int32 for int8)",
           "float16 | bfloat16 | float32; int32 or float16 for int8"},
          {"dequant_scale", "float", false, "none", "int8 -> float16 output: c = float16(float(acc) * scale)"}};
}

const TilingSpace& MatmulOp::tiling_space() const { return matmul_tiling_space(); }

Prepared MatmulOp::prepare(const CaseFile& c, sim::Machine& m) const {
  check_param_names(*this, c);
  Tiling tiling(tiling_space(), c, m.hw());
  MatmulPlan p;
  p.s = validate(c);
  p.t = choose_matmul_tiling(p.s, m.hw(), tiling);
  p.a_gm = load_input(m, "a", one(c, "a"));
  p.b_gm = load_input(m, "b", one(c, "b"));
  if (p.s.bias) p.bias_gm = load_input(m, "bias", one(c, "bias"));
  const uint64_t c_bytes = uint64_t(p.s.m * p.s.n * isa::bytes_of(p.s.out));
  p.c_gm = m.gm().allocate("c", c_bytes);
  Prepared r;
  r.tiling = tiling.used();
  r.launch =
      sim::LaunchSpec{.name = "matmul", .block_dim = static_cast<int>(p.t.block_dim), .mix = sim::MixMode::CubeOnly};
  r.launch.cube = [p](sim::CoreCtx& ctx) { matmul_cube(ctx, p); };
  r.outputs = {{"c", elem_of(p.s.out), {p.s.m, p.s.n}, "c"}};
  r.flops = 2ull * p.s.m * p.s.n * p.s.k;
  const int64_t k0 = p.k0();
  const int64_t rows = isa::kFractalRows;
  r.executed_flops_bound = 2ull * isa::round_up(p.s.m, rows) * isa::round_up(p.s.n, rows) * isa::round_up(p.s.k, k0);
  r.min_gm_bytes = tensor_bytes(one(c, "a").data) + tensor_bytes(one(c, "b").data) + c_bytes +
                   (p.s.bias ? tensor_bytes(one(c, "bias").data) : 0);
  r.cores = static_cast<int>(p.t.block_dim);
  const auto& cube = m.hw().cube;  // MACs of one fractal step (16 x 16 x fractal K) / cycles per step
  r.macs_per_cycle_per_core =
      double(rows * rows * k0) / double(p.s.in == DType::I8 ? cube.fractal_cycles_s8 : cube.fractal_cycles_b16);
  return r;
}

std::vector<Reference> MatmulOp::reference(const CaseFile& c) const {
  const MatmulShape s = validate(c);
  const HostTensor* bias = s.bias ? &one(c, "bias").data : nullptr;
  Reference r;
  r.output = "c";
  const ElemType out = elem_of(s.out);
  r.ref64 = matmul_ref64(one(c, "a").data, one(c, "b").data, bias, s.transpose_a, s.transpose_b, out, s.dequant_scale);
  r.naive = matmul_naive(one(c, "a").data, one(c, "b").data, bias, s.transpose_a, s.transpose_b, out, s.dequant_scale);
  r.working = out == ElemType::I32 ? ElemType::F32 : out;
  r.reduction_len = s.k;
  return {r};
}

}  // namespace npusim::op
