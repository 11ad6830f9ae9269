#pragma once
// A sequential functional interpreter: runs an instruction list on one core's buffers in program order.
// It is the ISA-level reference for small programs, tests and the text-form demo. Program order is a
// legal schedule of any correctly synchronised program, so results equal a timed run of the same program.
// Flags are tracked so that a wait with no earlier matching set (a certain deadlock on hardware) and
// flags left set at the end are reported.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/instr/sync_rules.h"
#include "isa/semantics/exec.h"

namespace npusim::isa {

struct BufferSizes {
  std::array<uint64_t, kNumBufs> bytes{};  // 0 = the core has no such buffer; GM is sized separately
};

class FunctionalCore {
 public:
  FunctionalCore(CoreKind kind, const BufferSizes& sizes, std::vector<uint8_t>& gm);

  // Executes the program; throws IsaError naming the instruction index and text on the first fault.
  void run(const std::vector<Instr>& program);
  // Flags still set after run(), one line each ("set_flag mte2->v event 0 is never waited for").
  std::vector<std::string> pending_flags() const;

  std::vector<uint8_t>& buffer(Buf b) { return local_[static_cast<int>(b)]; }
  ScalarRegs& regs() { return regs_; }
  uint64_t executed() const { return executed_; }

 private:
  void step(const Instr& in);
  void check_pipe(const Instr& in) const;

  CoreKind kind_;
  std::array<std::vector<uint8_t>, kNumBufs> local_;
  ExecContext ctx_;
  ScalarRegs regs_{};
  std::array<std::array<std::array<bool, kNumEventIds>, kNumPipes>, kNumPipes> flags_{};
  uint64_t executed_ = 0;
};

}  // namespace npusim::isa
