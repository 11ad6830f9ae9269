#include "isa/instr/instr.h"

namespace npusim::isa {

namespace {
constexpr std::string_view kBufNames[] = {"gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"};
constexpr std::string_view kPipeNames[] = {"s", "v", "m", "mte1", "mte2", "mte3", "fix", "all"};
}  // namespace

std::string_view buf_name(Buf b) { return kBufNames[static_cast<int>(b)]; }
std::string_view pipe_name(Pipe p) { return kPipeNames[static_cast<int>(p)]; }

// pipe_of and mnemonic are defined with the description rows (traits.cpp).

}  // namespace npusim::isa
