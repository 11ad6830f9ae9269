#pragma once
// Independent bit-exact golden model of the matmul op (design.md "Accuracy policy" 1): plain loops over the
// documented cube arithmetic (isa/README.md section 3: Mmad accumulation order, FixPipe conversion), using only
// isa/numeric.h scalar primitives -- never instruction semantics or buffers.
//
// out (M, N) = a (M, K) [(K, M) when transpose_a] . b (K, N) [(N, K) when transpose_b] (+ bias (N)).
//   float16 / bfloat16 inputs: bias float32, out_dtype float16 | bfloat16 | float32;
//   int8 inputs: bias int32, out_dtype int32, or float16 with dequant_scale (ignored for every other case).
// Throws std::invalid_argument on shapes or dtypes outside that set.
#include "kernels/host/host_tensor.h"

namespace npusim::golden {

op::HostTensor matmul_golden(const op::HostTensor& a, const op::HostTensor& b, const op::HostTensor* bias,
                             bool transpose_a, bool transpose_b, op::ElemType out_dtype, double dequant_scale);

}  // namespace npusim::golden
