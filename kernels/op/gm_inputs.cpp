#include "kernels/op/gm_inputs.h"

#include <cstring>

namespace npusim::op {

namespace {
// The host tensor's bytes as GM holds them: int4 (one value per host byte) packed two per byte, the lower index in
// the low nibble (as isa s4_get reads it); every other type as it is.
void put(uint8_t* gm, const HostTensor& t, uint64_t bytes) {
  if (t.type != ElemType::I4) {
    std::memcpy(gm, t.bytes.data(), bytes);
    return;
  }
  const uint64_t n = uint64_t(t.numel());  // values were range-checked when the tensor was made
  for (uint64_t j = 0; j < bytes; ++j) {
    const uint8_t lo = t.bytes[2 * j] & 0xf, hi = 2 * j + 1 < n ? t.bytes[2 * j + 1] & 0xf : 0;
    gm[j] = uint8_t(lo | hi << 4);
  }
}
}  // namespace

uint64_t tensor_bytes(const HostTensor& t) {
  if (t.type == ElemType::I4) return (static_cast<uint64_t>(t.numel()) + 1) / 2;  // packed in GM
  return static_cast<uint64_t>(t.numel()) * elem_bytes(t.type);
}

uint64_t load_input(sim::Machine& m, const std::string& gm_name, const TensorEntry& e, bool scalar_read) {
  const HostTensor& t = e.data;
  const uint64_t bytes = tensor_bytes(t);
  const uint64_t off = m.gm().allocate(gm_name, bytes, scalar_read);
  m.gm().mark_read_only(gm_name);  // kernels only read inputs: no race shadow for their reads
  if (!m.gm().backs_everything() && !scalar_read) return off;
  if (t.bytes.size() == uint64_t(t.numel()) * elem_bytes(t.type)) {
    if (bytes) put(m.gm().ptr(off, bytes), t, bytes);
    return off;
  }
  if (!e.file.empty()) throw CaseError("inputs." + e.name + ": tensor data was not loaded");
  const HostTensor g = generate(e.dtype, e.shape, e.init);  // timing mode: only what the scalar unit reads
  if (bytes) put(m.gm().ptr(off, bytes), g, bytes);
  return off;
}

HostTensor read_output(sim::Machine& m, const OutputSpec& o) {
  HostTensor t = HostTensor::zeros(o.type, o.shape);
  const auto& a = m.gm().find(o.gm_name);
  if (m.gm().backs_everything()) std::memcpy(t.bytes.data(), m.gm().ptr(a.offset, t.bytes.size()), t.bytes.size());
  return t;
}

}  // namespace npusim::op
