#pragma once
// Lowering of PTO tile instructions to npusim instructions: shared geometry of tiles and GlobalTensors, and the
// two halves (lower_cube.cpp: GM <-> L1 / L0 / L0C and the cube; lower_vec.cpp: GM <-> UB and the vector unit).
#include <string>

#include "isa/instr/instr.h"
#include "kernels/pto/include/pto/npusim/abi.hpp"
#include "sim/machine/core_ctx.h"

namespace npusim::pto {

using npusim_pto::Call;
using npusim_pto::GmRef;
using npusim_pto::TileRef;

// One instruction being lowered: the core it runs on and the call, with the error helpers every rule uses.
struct Lowering {
  sim::CoreCtx& c;
  const Call& k;
  [[noreturn]] void fail(const std::string& why) const;  // PtoError "TLOAD at FILE:LINE: why"
  void require(bool ok, const std::string& why) const {
    if (!ok) fail(why);
  }
  isa::DType dtype(npusim_pto::Elem e) const;  // fails for element types npusim has no instructions for
  isa::Addr at(const TileRef& t) const;        // the tile's bound address (fails if never TASSIGNed)
  isa::Addr at(const GmRef& g) const;          // the GlobalTensor's GM address
  const TileRef& tile(int i) const { return k.t[i]; }
};

// The 2-D extent of the call's GlobalTensor: its last two dimensions (the outer three must be 1).
struct Gm2 {
  int64_t rows, cols, row_stride, col_stride;  // strides in elements
};
Gm2 gm2(const Lowering& l);

std::string describe(const TileRef& t);  // "Mat f16 128x256 (valid 128x256) NZ"
bool is_nz(const TileRef& t);            // outer col-major, inner row-major fractals (ND loads into it)
bool is_zn(const TileRef& t);            // outer row-major, inner col-major fractals (DN loads into it)

// Each returns false when the call is not one of its instructions.
bool lower_cube(const Lowering& l);
bool lower_vec(const Lowering& l);

}  // namespace npusim::pto
