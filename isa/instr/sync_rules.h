#pragma once
// Which set_flag / wait_flag pipe pairs exist on each kind of core (hardware.md §4, from the Ascend C
// HardEvent enumeration in kernel_event.h): an AIC has no vector pipe, an AIV no cube pipes, and a coupled
// core (310P) has cube and vector pipes but no FixPipe: its L0C results move to UB on the vector pipe.
#include "isa/instr/instr.h"

namespace npusim::isa {

enum class CoreKind : uint8_t { Cube, Vector, Coupled };
std::string_view core_kind_name(CoreKind k);  // aic aiv coupled

bool event_pair_valid(Pipe src, Pipe dst, CoreKind kind);
// Whether the core kind has the pipe at all (S exists everywhere; ALL is a pseudo-pipe for barriers).
bool core_has_pipe(CoreKind kind, Pipe p);

}  // namespace npusim::isa
