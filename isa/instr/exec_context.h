#pragma once
// What one instruction executes against and how it fails: the core's buffers, its scalar registers, and the error
// an instruction that cannot execute raises. In instr/ because the operand checks and the footprints (this
// layer) take them as well as the semantics (isa/semantics), which build on this layer, never the reverse.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>

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

}  // namespace npusim::isa
