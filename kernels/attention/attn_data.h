#pragma once
// Host-side access to an attention problem's tensors at logical coordinates (attn_problem.h), shared by the fp64
// reference, the naive low-precision result and the golden model: the physical addressing of every storage
// (layouts, left padding, prefix, pages, tensor lists) is written once, here.
#include <cstdint>
#include <vector>

#include "kernels/attention/attn_problem.h"
#include "kernels/host/host_tensor.h"

namespace npusim::op::attn {

// The input tensors (not owned; they must outlive the AttnData). key / value: one tensor (dense or paged) or
// B tensors (list). Optional ones are null when absent.
struct AttnTensors {
  const HostTensor* query = nullptr;
  std::vector<const HostTensor*> key, value;
  const HostTensor* pse_shift = nullptr;
  const HostTensor* atten_mask = nullptr;
  const HostTensor* block_table = nullptr;
  const HostTensor* key_prefix = nullptr;
  const HostTensor* value_prefix = nullptr;
  const HostTensor* query_rope = nullptr;  // the second Q / K pair (Dr > 0): query's / key's layout with Dr
  const HostTensor* key_rope = nullptr;
  const HostTensor* quant_scale2 = nullptr;      // post-quant (p.post_quant.on): 1 or N * Dv elements
  const HostTensor* quant_offset2 = nullptr;     // ... optional, same size
  const HostTensor* antiquant_scale = nullptr;   // KV antiquant (p.antiquant.on): (2, ...) K's then V's
  const HostTensor* antiquant_offset = nullptr;  // ... optional, same shape
  // Separated (p.antiquant.separated): K's and V's parameters in tensors of their own.
  const HostTensor* key_antiquant_scale = nullptr;
  const HostTensor* key_antiquant_offset = nullptr;
  const HostTensor* value_antiquant_scale = nullptr;
  const HostTensor* value_antiquant_offset = nullptr;
};

// What k() / v() return for antiquantised (int8) K and V: the exact dequantisation (x + offset) * scale for the
// fp64 reference, or the dequantisation evaluated in fp16 one operation at a time, f16(f16(x + offset) * scale):
// the operator's own definition in its working dtype, which both the naive low-precision result and the golden
// model (the kernel's vadd.f16 / vmul.f16) use. Without antiquantisation both are the stored value.
// Stored: the int8 values themselves (the MSD golden model dequantises the way the decode kernel does).
enum class KvValues { Exact, Fp16, Stored };

class AttnData {
 public:
  // Checks that every tensor the problem uses is present and large enough for the problem's addressing
  // (std::invalid_argument naming the tensor), so a wrong problem fails here instead of reading out of bounds.
  AttnData(const AttnProblem& p, AttnTensors t);

  const AttnProblem& problem() const { return p_; }
  void set_kv_values(KvValues v) { kv_values_ = v; }

  // Logical row i of batch b (physical row q_start(b) + i), head n, dim d < D + Dr: d >= D reads the rope
  // tensor at d - D (the second pair's columns follow the first's, as in the kernel's Q tile).
  double q(int64_t b, int64_t n, int64_t i, int64_t d) const;
  // Logical column j over [prefix || kv] of KV head n2: j < prefix_len reads the prefix (its batch 0), else kv
  // token t = kv_start(b) + j - prefix_len of batch b (through the block table when paged). d < D + Dr for k
  // (d >= D: key_rope, dense only), d < Dv for v.
  double k(int64_t b, int64_t n2, int64_t j, int64_t d) const;
  double v(int64_t b, int64_t n2, int64_t j, int64_t d) const {
    return dequant(kv_at(t_.value, t_.value_prefix, p_.Dv, b, n2, j, d), true, b, n2, j, d);
  }
  // The antiquant scale / offset that K's (value = false) or V's element (b, n2, j, d) is dequantised with, per
  // the problem's mode (1 / 0 without antiquantisation; the offset 0 when not given).
  double antiquant_scale(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const;
  double antiquant_offset(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const;
  // Whole matrices of one (b, head), row-major, for loops that visit every element many times: q_rows (act_q[b]
  // x qk_dim), k_rows (skv_eff(b) x qk_dim), v_rows (skv_eff(b) x Dv).
  std::vector<double> q_rows(int64_t b, int64_t n) const;
  std::vector<double> k_rows(int64_t b, int64_t n2) const;
  std::vector<double> v_rows(int64_t b, int64_t n2) const;
  // pse_shift at its physical [b or 0][n][mask_row(b, i)][mask_col(b, j)]; 0 without pse.
  double pse(int64_t b, int64_t n, int64_t i, int64_t j) const;
  // The mask tensor's verdict (uses_mask_tensor() only; false otherwise): nonzero = masked.
  bool mask_tensor_masks(int64_t b, int64_t i, int64_t j) const;
  // j inside visible_cols(b, i) and not masked by the tensor.
  bool visible(int64_t b, int64_t i, int64_t j) const;

  // Post-quant scale / offset of output channel (head n, dv): element n * Dv + dv, or 0 per-tensor; the
  // offset is 0 when not given.
  double quant_scale(int64_t n, int64_t dv) const;
  double quant_offset(int64_t n, int64_t dv) const;

  // attention_out element (b, n, physical row s, dv) in out_layout with Dv: flat index in C order.
  int64_t out_index(int64_t b, int64_t n, int64_t s, int64_t dv) const;
  std::vector<int64_t> out_shape() const;
  // softmax_lse element (b, n, physical row s) of (B, N, Sq, 1) (TND: (T, N, 1)).
  int64_t lse_index(int64_t b, int64_t n, int64_t s) const;
  std::vector<int64_t> lse_shape() const;
  // softmax_max / softmax_sum (FA, TND): (T1, N, 8) fp32 whose words are laid out per batch segment as
  // [n][i][8] from q_start(b) * N * 8 (spec FA V3 §2.3); the first of the 8 copies of row i of head n.
  int64_t stat_index(int64_t b, int64_t n, int64_t i) const {
    return (p_.q_start(b) * p_.N + n * p_.act_q[size_t(b)] + i) * 8;
  }
  std::vector<int64_t> stat_shape() const { return {p_.Sq, p_.N, 8}; }

 private:
  double kv_at(const std::vector<const HostTensor*>& kv, const HostTensor* prefix, int64_t dim, int64_t b, int64_t n2,
               int64_t j, int64_t d) const;
  double dequant(double stored, bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const;  // KvValues applied
  struct KvPos {
    int64_t tok = 0, blk = -1;  // physical row of batch b's own K / V (or of the prefix); its page (paged storage)
  };
  KvPos kv_pos(int64_t b, int64_t j) const;
  const HostTensor* antiquant_param(bool value, bool offset) const;  // K's / V's scale or offset tensor
  int64_t param_index(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const;  // its element of column j
  KvValues kv_values_ = KvValues::Exact;
  void check_kv(const std::vector<const HostTensor*>& kv, const HostTensor* prefix, int64_t dim,
                const char* name) const;

  AttnProblem p_;  // a copy: the problem is small and the data must not depend on the caller keeping it alive
  AttnTensors t_;
};

}  // namespace npusim::op::attn
