// Op `toy_scale`: y = alpha * x on the vector cores. The smallest complete operator: the worked example of
// kernels/README.md "How to add an operator", kept as a test (tests/toy_op/test_toy_op.cpp). Everything it
// needs is in this folder; tests/CMakeLists.txt adds the folder with one line.
#include <algorithm>

#include "kernels/op/gm_inputs.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"
#include "kernels/tile/events.h"
#include "kernels/tile/vec_ops.h"
#include "kernels/tile/views.h"

namespace npusim::op {
namespace {

using namespace isa;

constexpr KeyName kChunk{"chunk"};  // the op's own tiling key (block_dim is op::keys::block_dim)

struct ScalePlan {
  DType t = DType::F32;
  int64_t n = 0, chunk = 0, block_dim = 0;
  double alpha = 1;
  uint64_t x_gm = 0, y_gm = 0;
};

// Each AIV takes a contiguous range of chunks; two UB slots let MTE2 load chunk i + 1 while V scales chunk i.
void scale_vector(sim::CoreCtx& c, const ScalePlan& p) {
  // A slot is free once MTE3 has stored it; loaded (MTE2 -> V) and scaled (V -> MTE3) hand it along.
  constexpr tile::Event kFree{Pipe::MTE3, Pipe::MTE2, 0}, kLoaded{Pipe::MTE2, Pipe::V, 0},
      kScaled{Pipe::V, Pipe::MTE3, 0};
  const int64_t e = bytes_of(p.t), chunks = ceil_div(p.n, p.chunk), per = ceil_div(chunks, p.block_dim);
  const int64_t first = c.block_idx() * per, last = std::min(chunks, first + per);
  if (first >= last) return;
  const Addr slot[2] = {c.alloc(Buf::UB, uint64_t(p.chunk * e), "tiling.chunk"),
                        c.alloc(Buf::UB, uint64_t(p.chunk * e), "tiling.chunk")};
  tile::VecOps ops(c);
  for (int s = 0; s < 2; ++s) tile::set(c, kFree.at(s));
  for (int64_t k = first; k < last; ++k) {
    const int s = int(k % 2);
    const int64_t len = std::min(p.chunk, p.n - k * p.chunk);
    const Addr gx{Buf::GM, p.x_gm + uint64_t(k * p.chunk * e)}, gy{Buf::GM, p.y_gm + uint64_t(k * p.chunk * e)};
    tile::wait(c, kFree.at(s));
    c.issue(tile::copy_bytes(slot[s], gx, len * e));
    tile::handover(c, kLoaded.at(s));
    ops.scalar(VScalarOp::Muls, p.t, slot[s], slot[s], p.alpha, len);
    tile::handover(c, kScaled.at(s));
    c.issue(tile::copy_bytes(gy, slot[s], len * e));
    tile::set(c, kFree.at(s));
  }
  for (int s = 0; s < 2; ++s) tile::wait(c, kFree.at(s));
}

class ToyScaleOp final : public Op {
 public:
  std::string name() const override { return "toy_scale"; }
  std::string summary() const override { return "y = alpha * x on the vector cores (the worked example of a new op)"; }
  std::vector<ParamSpec> params() const override {
    return {{"x", "tensor", true, "", "1-D, float16 or float32"},
            {"alpha", "float", false, "1.0", "the scale, rounded to x's dtype", 1.0}};
  }
  const TilingSpace& tiling_space() const override {
    static const TilingSpace space("toy_scale", {{.name = kChunk,
                                                  .lo = 128,
                                                  .hi = 16320,
                                                  .multiple_of = 128,
                                                  .default_rule = "min(8192, n rounded up to 128)",
                                                  .doc = "elements per UB chunk"},
                                                 {.name = keys::block_dim,
                                                  .lo = 1,
                                                  .hi_is_ai_cores = true,
                                                  .default_rule = "min(AI cores, chunks)",
                                                  .doc = "vector cores used"}});
    return space;
  }
  Prepared prepare(const CaseFile& c, sim::Machine& m) const override {
    check_param_names(*this, c);
    const TensorEntry& x = c.inputs.at("x")[0];
    if (x.shape.size() != 1 || (x.dtype != ElemType::F16 && x.dtype != ElemType::F32))
      throw CaseError("inputs.x must be 1-D float16 or float32");
    Tiling t(tiling_space(), c, m.hw());
    ScalePlan p{.t = x.dtype == ElemType::F16 ? DType::F16 : DType::F32, .n = x.shape[0]};
    p.alpha = attr_float(c, "alpha");
    p.chunk = t.choose(kChunk, std::min<int64_t>(8192, round_up(std::max<int64_t>(p.n, 1), int64_t(128))));
    p.block_dim = t.choose(keys::block_dim,
                           std::min<int64_t>(m.hw().chip.ai_cores, ceil_div(std::max<int64_t>(p.n, 1), p.chunk)));
    p.x_gm = load_input(m, "x", x);
    p.y_gm = m.gm().allocate("y", uint64_t(p.n * bytes_of(p.t)));
    Prepared r;
    r.tiling = t.used();
    r.launch = sim::LaunchSpec{.name = "toy_scale", .block_dim = int(p.block_dim), .mix = sim::MixMode::VectorOnly};
    r.launch.vector = [p](sim::CoreCtx& ctx) { scale_vector(ctx, p); };
    r.outputs = {{"y", x.dtype, {p.n}, "y"}};
    r.min_gm_bytes = 2 * uint64_t(p.n * bytes_of(p.t));
    r.cores = int(p.block_dim);
    return r;
  }
  std::vector<Reference> reference(const CaseFile& c) const override {
    const HostTensor& x = c.inputs.at("x")[0].data;
    const double alpha = attr_float(c, "alpha");
    Reference r{.output = "y", .working = x.type, .reduction_len = 1};
    for (int64_t i = 0; i < x.numel(); ++i) r.ref64.push_back(alpha * x.get(i)), r.naive.push_back(alpha * x.get(i));
    return {r};
  }
};

NPUSIM_REGISTER_OP(ToyScaleOp);

}  // namespace
}  // namespace npusim::op
