#pragma once
// Exit statuses of the npusim command line (design.md): 0 success, 2 invalid input, 3 the kernel faulted in
// simulation, 4 an output failed its check, 1 internal error.
#include <stdexcept>
#include <string>

namespace npusim::cli {

inline constexpr int kExitOk = 0, kExitInternal = 1, kExitInput = 2, kExitFault = 3;
inline constexpr int kExitMismatch =
    4;  // check / diff ran, but an output failed the accuracy policy or the bits differ

// Invalid input: the message names the parameter, the value and the rule (or the file and line).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace npusim::cli
