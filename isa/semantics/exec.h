#pragma once
// Functional execution of one instruction over a view of the buffers. Pure with respect to host state:
// the same instruction on the same bytes gives the same bytes on every x86-64 host.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "isa/instr/instr.h"

namespace npusim::isa {

// An instruction that cannot execute: out of bounds, misaligned, a forbidden overlap, an unsupported
// type or parameter. The message names the instruction (its assembly text) and the operand.
class IsaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The buffers one core sees. An empty span means the buffer does not exist on this core (e.g. UB on an
// AIC of a split core); touching it is an IsaError.
struct MemView {
  std::array<std::span<uint8_t>, kNumBufs> buf{};
  std::span<uint8_t>& operator[](Buf b) { return buf[static_cast<int>(b)]; }
  const std::span<uint8_t>& operator[](Buf b) const { return buf[static_cast<int>(b)]; }
};

using ScalarRegs = std::array<int64_t, kNumScalarRegs>;

struct ExecContext {
  MemView mem;
  ScalarRegs* regs = nullptr;  // required by scalar instructions only
  bool coupled = false;        // coupled-core paths (L0C -> UB, UB -> L1) are legal
};

// Which implementation runs the arithmetic. Both give identical bits (tests prove it); Reference is the
// plain scalar definition, Fast the vectorised one used by default.
enum class ExecPath : uint8_t { Reference, Fast };
void set_exec_path(ExecPath p);
ExecPath exec_path();

// Executes `in` on `ctx`. Sync instructions are no-ops here (the machine model implements them).
// Throws IsaError prefixed with the instruction's assembly text.
void execute(const Instr& in, ExecContext& ctx);

}  // namespace npusim::isa
