#pragma once
// pto-isa's include/pto/common/memory.hpp: on npusim, part of <pto/pto-inst.hpp>.
#include <pto/pto-inst.hpp>
