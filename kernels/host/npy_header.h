#pragma once
// The .npy header dict, parsed by hand: it is a small Python literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
#include <string>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

struct NpyHeader {
  std::string descr;  // as written in the file, for messages
  ElemType type = ElemType::F32;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Throws CaseError "PATH: ..." for a malformed dict, a missing or repeated key, or an unsupported descr.
NpyHeader parse_npy_header(const std::string& path, const std::string& text);
// The descr numpy writes for a HostTensor type. bfloat16 has no numpy dtype and is written as its
// uint16 bit patterns ('<u2'); int4 as its int8 values ('|i1') -- both read back via convert_for_case.
std::string npy_descr(ElemType t);
std::string npy_shape_text(const std::vector<int64_t>& shape);  // Python tuple: (), (5,), (2, 3)

}  // namespace npusim::op
