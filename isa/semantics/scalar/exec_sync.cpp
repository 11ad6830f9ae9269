// Sync instructions have no data semantics; executing one validates its fields. Their ordering meaning
// (flags, barriers, cross-core counters) belongs to the machine model in sim/ and to program.cpp's
// sequential interpreter.
#include "isa/instr/operand.h"
#include "isa/instr/sync_rules.h"
#include "isa/semantics/exec_impl.h"

namespace npusim::isa::impl {

namespace {
void check_event(Pipe src, Pipe dst, uint8_t event) {
  check_field("event", event, 0, kNumEventIds - 1);
  if (src == Pipe::ALL || dst == Pipe::ALL) isa_fail("a flag connects two real pipes, not 'all'");
  if (!event_pair_valid(src, dst, CoreKind::Cube) && !event_pair_valid(src, dst, CoreKind::Vector) &&
      !event_pair_valid(src, dst, CoreKind::Coupled))
    isa_fail("no hardware event " + std::string(pipe_name(src)) + "->" + std::string(pipe_name(dst)));
}
}  // namespace

void exec(const SetFlag& in, ExecContext&) { check_event(in.src, in.dst, in.event); }
void exec(const WaitFlag& in, ExecContext&) { check_event(in.src, in.dst, in.event); }
// The scalar unit orders its own instructions; PipeBarrier<PIPE_S> raises a hardware error (Ascend C
// PipeBarrier(ISASI), 约束说明). pipe_barrier all is the drain.
void exec(const PipeBarrier& in, ExecContext&) {
  if (in.pipe == Pipe::S) isa_fail("the scalar unit orders itself: a barrier on pipe s is a hardware error");
}
void exec(const CrossSet& in, ExecContext&) {
  check_field("mode", in.mode, 0, 2);
  check_field("flag_id", in.flag_id, 0, kNumCrossFlags - 1);
  if (in.pipe == Pipe::ALL) isa_fail("cross_set runs on one pipe, not 'all'");
}
void exec(const CrossWait& in, ExecContext&) { check_field("flag_id", in.flag_id, 0, kNumCrossFlags - 1); }
void exec(const SyncAll&, ExecContext&) {}

}  // namespace npusim::isa::impl
