#pragma once
// Host-side tensors of an operator case: inputs loaded from .npy or generated, outputs read back from GM.
// Elements are stored little-endian in the case dtype's own encoding (bf16 as its 16-bit pattern, bool as
// one byte 0 / 1, int4 as int8 values in [-8, 7] one per byte until packed into GM by the op).
#include <cstdint>
#include <string>
#include <vector>

namespace npusim::op {

// U64: FixPipe dequant words (aclnnTransQuantParam format); values up to 2^53 (exact in the case file's doubles).
enum class ElemType : uint8_t { F16, BF16, F32, I8, U8, I32, I64, Bool, I4, U16, U64 };
std::string elem_type_name(ElemType t);  // float16 bfloat16 float32 int8 uint8 int32 int64 bool int4 uint16 uint64
bool parse_elem_type(const std::string& s, ElemType& out);
int elem_bytes(ElemType t);  // storage bytes per element in HostTensor (int4: 1)

struct HostTensor {
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numel() const;
  double get(int64_t i) const;    // exact value as double (fp16 / bf16 widened exactly)
  void set(int64_t i, double v);  // rounds to the type: floats RINT (IEEE overflow), ints must be integral
  static HostTensor zeros(ElemType t, std::vector<int64_t> shape);
};

}  // namespace npusim::op
