#include "isa/interp/program.h"

#include "isa/instr/operand.h"
#include "isa/text/asm.h"

namespace npusim::isa {

FunctionalCore::FunctionalCore(CoreKind kind, const BufferSizes& sizes, std::vector<uint8_t>& gm) : kind_(kind) {
  for (int b = 1; b < kNumBufs; ++b) {
    local_[b].assign(sizes.bytes[b], 0);
    ctx_.mem.buf[b] = std::span<uint8_t>(local_[b]);
  }
  ctx_.mem[Buf::GM] = std::span<uint8_t>(gm);
  ctx_.regs = &regs_;
  ctx_.coupled = kind == CoreKind::Coupled;
}

void FunctionalCore::check_pipe(const Instr& in) const {
  const Pipe p = pipe_of(in);
  if (!core_has_pipe(kind_, p))
    isa_fail("an " + std::string(core_kind_name(kind_)) + " core has no " + std::string(pipe_name(p)) + " pipe");
  auto check_pair = [&](Pipe s, Pipe d) {
    if (!event_pair_valid(s, d, kind_))
      isa_fail("an " + std::string(core_kind_name(kind_)) + " core has no event " + std::string(pipe_name(s)) + "->" +
               std::string(pipe_name(d)));
  };
  if (auto* f = std::get_if<SetFlag>(&in)) check_pair(f->src, f->dst);
  if (auto* f = std::get_if<WaitFlag>(&in)) check_pair(f->src, f->dst);
}

void FunctionalCore::step(const Instr& in) {
  check_pipe(in);
  execute(in, ctx_);
  if (auto* f = std::get_if<SetFlag>(&in)) {
    auto& flag = flags_[static_cast<int>(f->src)][static_cast<int>(f->dst)][f->event];
    if (flag) isa_fail("flag already set and not yet waited for (a second set is lost on hardware)");
    flag = true;
  } else if (auto* w = std::get_if<WaitFlag>(&in)) {
    auto& flag = flags_[static_cast<int>(w->src)][static_cast<int>(w->dst)][w->event];
    if (!flag) isa_fail("waits for a flag that no earlier set_flag set: the pipe would block forever");
    flag = false;
  }
}

void FunctionalCore::run(const std::vector<Instr>& program) {
  for (size_t i = 0; i < program.size(); ++i) {
    try {
      step(program[i]);
    } catch (const IsaError& e) {
      const std::string what = e.what();
      const std::string text = to_asm(program[i]);
      // execute() already prefixed the text; sync errors raised here are prefixed now.
      throw IsaError("instruction " + std::to_string(i) + ": " +
                     (what.rfind(text, 0) == 0 ? what : text + ": " + what));
    }
    ++executed_;
  }
}

std::vector<std::string> FunctionalCore::pending_flags() const {
  std::vector<std::string> out;
  for (int s = 0; s < kNumPipes; ++s)
    for (int d = 0; d < kNumPipes; ++d)
      for (int e = 0; e < kNumEventIds; ++e)
        if (flags_[s][d][e])
          out.push_back("set_flag " + std::string(pipe_name(static_cast<Pipe>(s))) + "->" +
                        std::string(pipe_name(static_cast<Pipe>(d))) + " event " + std::to_string(e) +
                        " is never waited for");
  return out;
}

}  // namespace npusim::isa
