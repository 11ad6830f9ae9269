#include "kernels/fia/fia_op.h"

#include "kernels/attention/attn_reference.h"
#include "kernels/fia/fia_int4_view.h"
#include "kernels/fia/fia_launch.h"
#include "kernels/fia/fia_params.h"
#include "kernels/fia/fia_tiling.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"

namespace npusim::op {

NPUSIM_REGISTER_OP(FiaOp);

std::vector<ParamSpec> FiaOp::params() const { return fia_param_specs(); }
const TilingSpace& FiaOp::tiling_space() const { return fia::fia_tiling_space(); }

Prepared FiaOp::prepare(const CaseFile& given, sim::Machine& m) const {
  check_param_names(*this, given);
  std::optional<CaseFile> view;
  const CaseFile& c = fia::int4_view(given, view);  // int32-packed int4 K / V as int4
  const attn::AttnProblem problem = parse_fia(c);
  return fia_prepare(problem, c, m);
}

std::vector<Reference> FiaOp::reference(const CaseFile& given) const {
  std::optional<CaseFile> view;
  const CaseFile& c = fia::int4_view(given, view);
  return fia_references(parse_fia(c), c);
}

}  // namespace npusim::op
