#pragma once
// Putting a case's tensors into GM: one named allocation per tensor, sized from the shape (in timing mode
// generated inputs carry no data and GM is not backed, except for tensors the scalar unit reads).
#include <string>

#include "kernels/op/case_file.h"
#include "kernels/op/host_tensor.h"
#include "sim/machine/machine.h"

namespace npusim::op {

uint64_t tensor_bytes(const HostTensor& t);
// Allocates `gm_name` and copies the data when GM is backed. With `scalar_read` the allocation is
// materialised in every mode (the kernel reads it with scalar loads) and generated data is produced on demand.
uint64_t load_input(sim::Machine& m, const std::string& gm_name, const TensorEntry& e, bool scalar_read = false);

}  // namespace npusim::op
