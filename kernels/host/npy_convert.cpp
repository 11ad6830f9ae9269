// Conversions between .npy file types and case dtypes (design.md "Case file": float32 inputs are rounded
// to the declared dtype with RNE, bf16 may come as uint16 bit patterns, int4 as int8 values in [-8, 7]).
#include <string>

#include "isa/numeric/numeric.h"
#include "kernels/host/case_file.h"
#include "kernels/host/npy.h"

namespace npusim::op {

namespace {
HostTensor retyped(const HostTensor& t, ElemType to) {
  HostTensor out = HostTensor::zeros(to, t.shape);
  for (int64_t i = 0; i < t.numel(); ++i) out.set(i, t.get(i));  // set() rounds floats RNE, checks int ranges
  return out;
}

// Element-wise copy into a narrower integer type; an out-of-range value names the parameter and index.
HostTensor checked_ints(const HostTensor& t, ElemType to, const std::string& what, int64_t lo, int64_t hi) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get(i);
    if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
      throw CaseError(what + ": element " + std::to_string(i) + " = " + std::to_string(static_cast<int64_t>(v)) +
                      " is out of range for " + elem_type_name(to) + " (the file's " + elem_type_name(t.type) +
                      " values must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "])");
  }
  return retyped(t, to);
}
}  // namespace

HostTensor convert_for_case(const HostTensor& f, ElemType declared, const std::string& what) {
  if (f.type == declared) return f;
  if (f.type == ElemType::F32 && (declared == ElemType::F16 || declared == ElemType::BF16)) return retyped(f, declared);
  if (f.type == ElemType::U16 && declared == ElemType::BF16) {  // same little-endian bytes, read as bf16 patterns
    HostTensor out = f;
    out.type = ElemType::BF16;
    return out;
  }
  if (f.type == ElemType::I8 && declared == ElemType::I4) return checked_ints(f, declared, what, -8, 7);
  if (f.type == ElemType::U8 && declared == ElemType::Bool) return checked_ints(f, declared, what, 0, 1);
  throw CaseError(
      what + ": the file holds " + elem_type_name(f.type) + " but the declared dtype is " + elem_type_name(declared) +
      " (accepted: the same type, float32 -> float16 / bfloat16, uint16 -> bfloat16, int8 -> int4, uint8 -> bool)");
}

HostTensor output_encoding(const HostTensor& t) {
  if (t.type != ElemType::BF16) return t;
  return retyped(t, ElemType::F32);  // every bf16 value is exact in float32
}

}  // namespace npusim::op
