#pragma once
// Moving a case's tensors between the host and GM: one named allocation per tensor, sized from the shape (in timing
// mode generated inputs carry no data and GM is not backed, except for tensors the scalar unit reads).
#include <string>

#include "kernels/host/case_file.h"
#include "kernels/host/host_tensor.h"
#include "kernels/op/op.h"
#include "sim/machine/machine.h"

namespace npusim::op {

uint64_t tensor_bytes(const HostTensor& t);
// Allocates `gm_name` and copies the data when GM is backed. With `scalar_read` the allocation is
// materialised in every mode (the kernel reads it with scalar loads) and generated data is produced on demand.
uint64_t load_input(sim::Machine& m, const std::string& gm_name, const TensorEntry& e, bool scalar_read = false);
// Reads an output from GM into a host tensor (zeros when GM is not backed, i.e. timing mode).
HostTensor read_output(sim::Machine& m, const OutputSpec& o);

}  // namespace npusim::op
