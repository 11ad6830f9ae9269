#include "kernels/fia/fia_int4_view.h"

#include <cstring>

#include "isa/numeric/numeric.h"

namespace npusim::op::fia {

namespace {
constexpr const char* kPacked[] = {"key", "value", "key_shared_prefix", "value_shared_prefix"};

bool has_int32_kv(const CaseFile& c) {
  for (const char* name : kPacked)
    if (const auto it = c.inputs.find(name); it != c.inputs.end())
      for (const TensorEntry& e : it->second)
        if (e.dtype == ElemType::I32) return true;
  return false;
}

// An int32 tensor (..., n) as int4 (..., 8 n); data (when loaded) unpacked one value per byte as HostTensor holds int4.
void unpack(TensorEntry& e) {
  e.dtype = ElemType::I4;
  if (!e.shape.empty()) e.shape.back() *= 8;
  if (e.data.bytes.empty()) {
    e.data.type = ElemType::I4, e.data.shape = e.shape;
    return;
  }
  HostTensor t = HostTensor::zeros(ElemType::I4, e.shape);
  for (int64_t i = 0; i < e.data.numel(); ++i) {
    int32_t word;
    std::memcpy(&word, e.data.bytes.data() + 4 * i, 4);
    for (int k = 0; k < 8; ++k) t.bytes[size_t(8 * i + k)] = uint8_t(isa::s4_from_s32_word(word, k));
  }
  e.data = std::move(t);
}
}  // namespace

const CaseFile& int4_view(const CaseFile& c, std::optional<CaseFile>& storage) {
  if (!has_int32_kv(c)) return c;
  storage = c;
  for (const char* name : kPacked)
    if (const auto it = storage->inputs.find(name); it != storage->inputs.end())
      for (TensorEntry& e : it->second)
        if (e.dtype == ElemType::I32) unpack(e);
  return *storage;
}

}  // namespace npusim::op::fia
