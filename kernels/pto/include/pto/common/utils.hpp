#pragma once
// pto-isa's include/pto/common/utils.hpp: on npusim, part of <pto/pto-inst.hpp>.
#include <pto/pto-inst.hpp>
