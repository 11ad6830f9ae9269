#include "kernels/op/gm_inputs.h"

#include <cstring>

namespace npusim::op {

uint64_t tensor_bytes(const HostTensor& t) { return static_cast<uint64_t>(t.numel()) * elem_bytes(t.type); }

uint64_t load_input(sim::Machine& m, const std::string& gm_name, const TensorEntry& e, bool scalar_read) {
  const HostTensor& t = e.data;
  const uint64_t bytes = tensor_bytes(t);
  const uint64_t off = m.gm().allocate(gm_name, bytes, scalar_read);
  m.gm().mark_read_only(gm_name);  // kernels only read inputs: no race shadow for their reads
  if (!m.gm().backs_everything() && !scalar_read) return off;
  if (t.bytes.size() == bytes) {
    if (bytes) std::memcpy(m.gm().ptr(off, bytes), t.bytes.data(), bytes);
    return off;
  }
  if (!e.file.empty()) throw CaseError("inputs." + e.name + ": tensor data was not loaded");
  const HostTensor g = generate(e.dtype, e.shape, e.init);  // timing mode: only what the scalar unit reads
  if (bytes) std::memcpy(m.gm().ptr(off, bytes), g.bytes.data(), bytes);
  return off;
}

HostTensor read_output(sim::Machine& m, const OutputSpec& o) {
  HostTensor t = HostTensor::zeros(o.type, o.shape);
  const auto& a = m.gm().find(o.gm_name);
  if (m.gm().backs_everything()) std::memcpy(t.bytes.data(), m.gm().ptr(a.offset, t.bytes.size()), t.bytes.size());
  return t;
}

}  // namespace npusim::op
