#pragma once
// Op `matmul`: c = a . b (+ bias), inputs a (M, K) or (K, M) with transpose_a, b (K, N) or (N, K) with
// transpose_b, optional bias (N). Kernel, tiling and supported matrix: kernels/matmul/README.md.
#include "kernels/op/op.h"

namespace npusim::op {

class MatmulOp final : public Op {
 public:
  std::string name() const override { return "matmul"; }
  std::string summary() const override { return "c = a . b (+ bias) on the cube units"; }
  std::vector<ParamSpec> params() const override;
  const TilingSpace& tiling_space() const override;
  Prepared prepare(const CaseFile& c, sim::Machine& m) const override;
  std::vector<Reference> reference(const CaseFile& c) const override;
};

}  // namespace npusim::op
