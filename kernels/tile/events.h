#pragma once
// Named events: a set_flag / wait_flag pair is one (src pipe, dst pipe, id) triple. Kernels declare their
// events as constants (`constexpr Event kKLoaded{Pipe::MTE2, Pipe::MTE1, 0}`) so every hand-over reads by
// name, and a slot's pair is one value (`slot_free(i)`), not three integers repeated at each call.
#include "isa/instr/instr.h"
#include "sim/machine/core_ctx.h"

namespace npusim::tile {

struct Event {
  isa::Pipe src, dst;
  int id;
  constexpr Event at(int k) const { return {src, dst, id + k}; }  // the k-th of consecutive ids
};

inline void set(sim::CoreCtx& c, Event e) { c.set_flag(e.src, e.dst, e.id); }
inline void wait(sim::CoreCtx& c, Event e) { c.wait_flag(e.src, e.dst, e.id); }
// set then wait: the consumer pipe waits for everything the producer pipe issued so far.
inline void handover(sim::CoreCtx& c, Event e) { set(c, e), wait(c, e); }

}  // namespace npusim::tile
