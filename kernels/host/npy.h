#pragma once
// NumPy .npy files (format versions 1.0 / 2.0 / 3.0). Reading accepts little-endian float16, float32,
// int8, uint8, int32, int64, bool, uint16 in C or Fortran order (Fortran is transposed into C order);
// anything else is a CaseError (case_file.h) naming the file and what it found. Writing is always C order, version 1.0.
#include <string>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

// The element type the file declares (float16 -> F16, uint16 -> U16, ...) and its data in C order.
HostTensor read_npy(const std::string& path);
void write_npy(const std::string& path, const HostTensor& t);

// Case-file conversion of a file tensor to the declared dtype: float32 -> float16 / bfloat16 with RNE;
// uint16 -> bfloat16 as bit patterns; int8 -> int4 (values must be in [-8, 7]); same type -> unchanged;
// anything else -> CaseError naming `what` (the parameter) and both types.
HostTensor convert_for_case(const HostTensor& file_tensor, ElemType declared, const std::string& what);
// The output encoding of design.md: fp16 -> float16, bf16 -> float32 holding the exact bf16 values,
// int8 -> int8, fp32 -> float32 (other types unchanged).
HostTensor output_encoding(const HostTensor& t);

}  // namespace npusim::op
