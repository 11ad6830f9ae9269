#pragma once
// npusim: the two ACL types a kernel's own headers use in host-side declarations (e.g. a launcher's prototype next
// to the kernel), so such headers compile unchanged. No ACL function exists here: host code is replaced by
// NPUSIM_PTO_ENTRY (kernels/pto/README.md).
#include <cstdint>

using aclFloat16 = uint16_t;
using aclrtStream = void*;
