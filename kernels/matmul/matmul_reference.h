#pragma once
// The matmul op's references for the accuracy policy (design.md, kernels/op/accuracy.h): out = a . b (+ bias)
// with a (M, K) [(K, M) when transpose_a], b (K, N) [(N, K) when transpose_b], bias (N): fp32 for float16 /
// bfloat16 inputs, int32 for int8. dequant_scale is used only for int8 inputs with a float16 output
// (out = acc * scale); every other combination ignores it. Both return M*N values in C order.
#include <cstdint>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

struct MatmulDims {
  int64_t m = 0, n = 0, k = 0;
};
// Shapes and dtypes checked (std::invalid_argument naming the operand): 2-D a / b with matching K, bias (N) of
// the right dtype, a and b of the same dtype, a supported out_dtype (float16 | bfloat16 | float32 for float
// inputs; int32 | float16 for int8).
MatmulDims matmul_dims(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                       bool transpose_b, ElemType out_dtype);

// fp64 of the exact sum of the exact products (+ bias), correctly rounded, then * dequant_scale for int8 -> fp16.
std::vector<double> matmul_ref64(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                                 bool transpose_b, ElemType out_dtype, double dequant_scale);

// The FlashAttention rule's naive low-precision result, the textbook formula: fp32 products summed in fp32 in
// k order, + bias (fp32), then rounded to out_dtype (RINT, IEEE overflow). int8: the exact integer sum (+ bias);
// for fp16 output float(sum) * float(scale) in fp32, then rounded to fp16 (RINT, IEEE overflow).
std::vector<double> matmul_naive(const HostTensor& a, const HostTensor& b, const HostTensor* bias, bool transpose_a,
                                 bool transpose_b, ElemType out_dtype, double dequant_scale);

}  // namespace npusim::op
