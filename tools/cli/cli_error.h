#pragma once
// Exit statuses of the npusim command line (design.md): 0 success, 2 invalid input, 3 the kernel faulted in
// simulation, 1 internal error.
#include <stdexcept>
#include <string>

namespace npusim::cli {

inline constexpr int kExitOk = 0, kExitInternal = 1, kExitInput = 2, kExitFault = 3;

// Invalid input: the message names the parameter, the value and the rule (or the file and line).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace npusim::cli
