#pragma once
// An assembly program file for `npusim asm`: instructions (isa/README.md "Text form") plus host directives
// that prepare and show GM, since programs touch data only through instructions:
//   .gm_bytes N                       size of the program's GM region (default 1 MiB), at gm:0x0
//   .data gm:OFF DTYPE v1 v2 ...      write values (rounded to DTYPE with RINT) before the run
//   .fill gm:OFF DTYPE COUNT START STEP   write START, START+STEP, ... before the run
//   .print gm:OFF DTYPE COUNT         print COUNT values after the run
#include <cstdint>
#include <string>
#include <vector>

#include "isa/instr/instr.h"

namespace npusim::cli {

struct GmWrite {
  uint64_t offset;
  isa::DType dtype;
  std::vector<double> values;
};
struct GmPrint {
  uint64_t offset;
  isa::DType dtype;
  uint64_t count;
  int line;
};

struct AsmFile {
  std::vector<isa::Instr> program;
  uint64_t gm_bytes = 1 << 20;
  std::vector<GmWrite> writes;
  std::vector<GmPrint> prints;
};

// Throws InputError "FILE:LINE:COL: message" for parse errors and bad directives.
AsmFile load_asm_file(const std::string& path);
// Encodes the values into bytes of `dtype` (floats RINT with IEEE overflow; integers must be integral and in
// range); decodes bytes back for printing.
std::vector<uint8_t> encode_values(const GmWrite& w, const std::string& where);
std::string format_values(const uint8_t* bytes, isa::DType t, uint64_t count);

}  // namespace npusim::cli
