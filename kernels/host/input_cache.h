#pragma once
// A disk cache of generated case inputs (case_generate.cpp): a sweep, a tuner or a numerics session runs the
// same tensors many times, and generating the Box-Muller normals of a 4096 x 4096 operand costs seconds. A
// tensor of at least kMinCacheBytes is stored once under a key of its exact generator parameters and read back
// afterwards; the generator is deterministic, so a hit is bit-identical to regenerating (checked by a hash of
// the data stored with it: a damaged entry is regenerated). Location: $NPUSIM_CACHE_DIR, else
// $XDG_CACHE_HOME/npusim, else ~/.cache/npusim (subfolder inputs/); NPUSIM_INPUT_CACHE=0 turns it off. An
// unwritable location only loses the cache, never the run.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/host/case_file.h"

namespace npusim::op {

inline constexpr uint64_t kMinCacheBytes = uint64_t{1} << 20;

// generate(t, shape, init), through the cache when the tensor is large enough and the cache is on.
HostTensor generate_cached(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init);

// The cache folder in use ("" when off); the entry file of a tensor (tests).
std::string input_cache_dir();
// A folder of npusim's cache ($NPUSIM_CACHE_DIR/SUB, else $XDG_CACHE_HOME/npusim/SUB, else ~/.cache/npusim/SUB;
// empty when none of them is set), e.g. "pto" for kernel libraries built from a case's source.
std::string cache_subdir(const std::string& sub);
std::string input_cache_entry(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init);

}  // namespace npusim::op
