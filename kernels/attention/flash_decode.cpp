// The flash-decoding combine of the attention kernel (vec_blocks.h): after SyncAll, the AIVs take the (b, KV
// head) groups with more than one KV split round-robin and merge the splits' partials (O_k = O / l, m_k, l_k).
#include <utility>

#include "kernels/attention/seq_addr.h"
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::UbRows;

void VecBlocks::load_wait(const DataCopy& d) {
  c_.issue(d);
  tile::handover(c_, kCombineLoaded);
}

// V reads of the staging done before MTE2 refills it.
void VecBlocks::buffer_free() { tile::handover(c_, kCombineFree); }

// One (b, KV head) group: M = max m_k, w_k = l_k exp(m_k - M), W = sum w_k, out = sum O_k (w_k / W),
// lse = M + ln W (kernels/attention/README.md "Flash-decoding").
void VecBlocks::combine_group(int64_t b, int64_t n2) {
  const int64_t ns = pl_.fd_splits[size_t(b)], g = p_.G, gp = pl_.g_pad(), dv = pl_.dv_pad;
  const uint64_t at0 = uint64_t(pl_.fd_off[size_t(b * p_.KV_N + n2)]), sb = pl_.fd_split_bytes();
  const uint64_t m_at = L_.x[0], l_at = L_.x[0] + uint64_t(ns * gp * 4), w_at = L_.x[0] + uint64_t(2 * ns * gp * 4);
  buffer_free();
  for (const auto& [dst, off] : {std::pair{m_at, gp * dv}, std::pair{l_at, gp * dv + gp}})
    c_.issue(tile::copy_in({c_.gm(pl_.gm.fd_workspace, at0 + uint64_t(off * 4)), DType::F32, ns, g, int64_t(sb / 4)},
                           {ub(dst), DType::F32, ns, gp}));
  tile::handover(c_, kCombineLoaded);
  auto at = [&](uint64_t arr, int64_t k) { return ub(arr, k * gp * 4); };
  const Addr M = ub(L_.mnew), W = ub(L_.tmp), t = ub(L_.alpha[0]), Wd = ub(L_.rsum), lse = ub(L_.lse);
  // A chain: a V barrier wherever a step reads or overwrites what an earlier, uncompleted step touched.
  ops_.copy(DType::F32, M, at(m_at, 0), g);
  for (int64_t k = 1; k < ns; ++k) ops_.barrier(), ops_.binary(VBinOp::Max, DType::F32, M, M, at(m_at, k), g);
  for (int64_t k = 0; k < ns; ++k) {
    ops_.barrier();
    ops_.binary(VBinOp::Sub, DType::F32, t, at(m_at, k), M, g);
    ops_.barrier();
    ops_.unary(VUnaryOp::Exp, DType::F32, t, t, g);
    ops_.barrier();
    ops_.binary(VBinOp::Mul, DType::F32, at(w_at, k), at(l_at, k), t, g);
  }
  if (ns == 1) ops_.barrier();  // (with more splits, w_0 is complete and the adds below wait for the last w_k)
  ops_.copy(DType::F32, W, at(w_at, 0), g);
  for (int64_t k = 1; k < ns; ++k) ops_.barrier(), ops_.binary(VBinOp::Add, DType::F32, W, W, at(w_at, k), g);
  ops_.barrier();
  ops_.copy(DType::F32, Wd, W, g);
  if (p_.row_fix) {
    ops_.dup(DType::F32, ub(L_.acc), pl_.mask_value, 64);
    ops_.barrier();
    ops_.cmp_scalar_vec(CmpOp::NE, DType::F32, ub(L_.bits), M, ub(L_.acc), g);
    ops_.barrier();
    ops_.select(DType::F32, Wd, W, ub(L_.bits), kInf, g);
  }
  ops_.barrier();
  for (int64_t k = 0; k < ns; ++k) ops_.binary(VBinOp::Div, DType::F32, at(w_at, k), at(w_at, k), Wd, g);
  const WorkUnit grp{b, n2 * p_.G, 0, g};
  if (p_.lse) {  // (W and M are complete: no barrier before the ln, which the divisions do not touch)
    tile::wait(c_, kLseFree);
    ops_.unary(VUnaryOp::Ln, DType::F32, lse, W, g);
    ops_.barrier();
    ops_.binary(VBinOp::Add, DType::F32, lse, lse, M, g);
    if (p_.row_fix) ops_.barrier(), ops_.select(DType::F32, lse, lse, ub(L_.bits), kInf, g);
    tile::handover(c_, kLseFull);
    c_.issue(tile::copy_bytes(c_.gm(pl_.outputs.lse, row_lse_elem(pl_, grp, 0) * 4), lse, g * 4));
    tile::set(c_, kLseFree);
  }
  const UbRows o{ub(L_.x[1]), DType::F32, g, dv};
  for (int64_t k = 0; k < ns; ++k) {
    if (k) buffer_free();
    load_wait(tile::copy_bytes(o.at, c_.gm(pl_.gm.fd_workspace, at0 + uint64_t(k) * sb), g * dv * 4));
    ops_.barrier();  // (the weights' divisions, when nothing completed them yet)
    ops_.brcb(DType::F32, at(w_at, k), ub(L_.obrcb), g);
    ops_.barrier();
    ops_.row_bcast(o, ub(L_.obrcb), VBinOp::Mul, p_.Dv);
    ops_.barrier();
    if (k == 0) ops_.copy(DType::F32, ub(L_.oacc), o.at, g * dv);
    else ops_.binary(VBinOp::Add, DType::F32, ub(L_.oacc), ub(L_.oacc), o.at, g * dv);
  }
  cast_store({ub(L_.oacc), DType::F32, g, dv}, grp, 0);
}

void VecBlocks::combine() {
  const int64_t me = int64_t(c_.block_idx()) * 2 + c_.sub_block_idx(), aivs = pl_.t.block_dim * 2;
  int64_t idx = 0;
  for (int64_t b = 0; b < p_.B; ++b)
    for (int64_t n2 = 0; n2 < p_.KV_N; ++n2)
      if (pl_.fd_off[size_t(b * p_.KV_N + n2)] >= 0 && idx++ % aivs == me) combine_group(b, n2);
}

}  // namespace npusim::op::attn
