#include "isa/instr/instr.h"

#include <stdexcept>
#include <string>

namespace npusim::isa {

namespace {
constexpr std::string_view kBufNames[] = {"gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"};
constexpr std::string_view kPipeNames[] = {"s", "v", "m", "mte1", "mte2", "mte3", "fix", "all"};
}  // namespace

std::string_view buf_name(Buf b) { return kBufNames[static_cast<int>(b)]; }
std::string_view pipe_name(Pipe p) { return kPipeNames[static_cast<int>(p)]; }

void Addr::offset_too_large(Buf b, uint64_t offset) {
  const auto i = static_cast<unsigned>(b);
  throw std::out_of_range("address offset " + std::to_string(offset) + " in " +
                          (i < std::size(kBufNames) ? std::string(kBufNames[i]) : "buffer " + std::to_string(i)) +
                          " is beyond 2^" + std::to_string(kOffBits) + " - 1, the largest an address holds");
}

// pipe_of and mnemonic are defined with the description rows (traits.cpp).

}  // namespace npusim::isa
