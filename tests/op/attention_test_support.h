#pragma once
// Attention test problems: a problem plus its physical tensors, filled with deterministic random values at every
// position a valid (b, head, row) maps to and NaN everywhere else (padding rows, rows past the actual lengths,
// unused cache pages), so any addressing mistake reaches the output as NaN. The physical index formulas here are
// written independently of kernels/attention/attn_data.cpp, straight from the spec's shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "isa/numeric/numeric.h"
#include "kernels/attention/attn_data.h"
#include "kernels/attention/attn_problem.h"
#include "kernels/host/det_math.h"
#include "kernels/host/host_tensor.h"

namespace npusim::op::attntest {

using namespace npusim::op::attn;

inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// SplitMix64 (the case generator's, kernels/op/det_math.h): the same values on every host.
struct Rng : SplitMix64 {
  double uniform(double lo, double hi) { return lo + (hi - lo) * SplitMix64::uniform(); }
};

// (b, n, s, d) of a tensor with `heads` heads and `rows` rows per batch: BSH / BSND s-major, BNSD n-major.
inline int64_t bf_index(Layout l, int64_t heads, int64_t rows, int64_t dim, int64_t b, int64_t n, int64_t s,
                        int64_t d) {
  if (l == Layout::BNSD || l == Layout::BNSD_BSND) return ((b * heads + n) * rows + s) * dim + d;
  return ((b * rows + s) * heads + n) * dim + d;
}

inline std::vector<int64_t> layout_shape(Layout l, int64_t b, int64_t heads, int64_t rows, int64_t dim) {
  if (l == Layout::BSH) return {b, rows, heads * dim};
  if (l == Layout::BSND) return {b, rows, heads, dim};
  return {b, heads, rows, dim};
}

struct AttnCase {
  AttnProblem p;
  HostTensor q, pse, mask, bt, kp, vp;
  HostTensor qs2, qo2;         // post-quant scale / offset (p.post_quant)
  HostTensor deq1, qs1, deq2;  // full quantisation (p.full_quant): [1] each, float32 or uint64 words
  HostTensor aqs, aqo;         // KV antiquant (p.antiquant): antiquant_scale / antiquant_offset, (2, ...) float16,
  HostTensor vaqs, vaqo;       // ... or, separated, K's (aqs / aqo) and V's (vaqs / vaqo), (1, ...) each
  std::vector<HostTensor> k, v;

  AttnData data() const {
    AttnTensors t;
    t.query = &q;
    for (const HostTensor& x : k) t.key.push_back(&x);
    for (const HostTensor& x : v) t.value.push_back(&x);
    if (p.pse) t.pse_shift = &pse;
    if (p.mask != MaskKind::None) t.atten_mask = &mask;
    if (p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD) t.block_table = &bt;
    if (p.prefix) t.key_prefix = &kp, t.value_prefix = &vp;
    if (p.post_quant.on) t.quant_scale2 = &qs2;
    if (p.post_quant.offset) t.quant_offset2 = &qo2;
    set_antiquant(t);
    return AttnData(p, t);
  }
  void set_antiquant(AttnTensors& t) const {
    if (!p.antiquant.on) return;
    if (!p.antiquant.separated) {
      t.antiquant_scale = &aqs;
      if (p.antiquant.offset) t.antiquant_offset = &aqo;
      return;
    }
    t.key_antiquant_scale = &aqs, t.value_antiquant_scale = &vaqs;
    if (p.antiquant.offset) t.key_antiquant_offset = &aqo, t.value_antiquant_offset = &vaqo;
  }
  int64_t q_start(int64_t b) const { return p.left_pad ? p.Sq - p.q_pad - p.act_q[size_t(b)] : 0; }
  int64_t kv_rows(int64_t b) const { return p.kv == KvStorage::List ? p.list_s[size_t(b)] : p.kv_s; }
  int64_t kv_start(int64_t b) const { return p.left_pad ? kv_rows(b) - p.kv_pad - p.act_kv[size_t(b)] : 0; }
  // Physical (tensor, index) of K (dim D) or V (dim Dv) for logical column j over [prefix || kv].
  std::pair<HostTensor*, int64_t> kv_ref(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) {
    const int64_t dim = value ? p.Dv : p.D;
    if (j < p.prefix_len) return {value ? &vp : &kp, bf_index(p.layout, p.KV_N, p.prefix_s, dim, 0, n2, j, d)};
    std::vector<HostTensor>& t = value ? v : k;
    const int64_t tok = kv_start(b) + j - p.prefix_len;
    if (p.kv == KvStorage::Dense) return {&t[0], bf_index(p.layout, p.KV_N, p.kv_s, dim, b, n2, tok, d)};
    if (p.kv == KvStorage::List)
      return {&t[size_t(b)], bf_index(p.layout, p.KV_N, p.list_s[size_t(b)], dim, 0, n2, tok, d)};
    const auto blk = int64_t(bt.get(b * p.max_blocks + tok / p.block_size));
    const int64_t off = tok % p.block_size;
    if (p.kv == KvStorage::PagedBsH) return {&t[0], ((blk * p.block_size + off) * p.KV_N + n2) * dim + d};
    return {&t[0], ((blk * p.KV_N + n2) * p.block_size + off) * dim + d};
  }
  double qv(int64_t b, int64_t n, int64_t i, int64_t d) const {
    return q.get(bf_index(p.layout, p.N, p.Sq, p.D, b, n, q_start(b) + i, d));
  }
  double kvv(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) {
    const auto [t, idx] = kv_ref(value, b, n2, j, d);
    return t->get(idx);
  }
};

// Unused positions: NaN, or -128 in int8 tensors (an addressing mistake then moves the result off the golden).
inline HostTensor nan_tensor(ElemType t, std::vector<int64_t> shape) {
  HostTensor h = HostTensor::zeros(t, std::move(shape));
  for (int64_t e = 0; e < h.numel(); ++e) h.set(e, t == ElemType::I8 ? -128.0 : t == ElemType::I4 ? -8.0 : kNan);
  return h;
}

// A value uniform in [lo, hi): floats as drawn, int8 (full quantisation) as round(32 x) (a per-tensor int8
// quantisation of the float draw with scale 1 / 32), int4 as round(4 x) clamped to [-8, 7].
inline double draw(Rng& r, ElemType t, double lo, double hi) {
  const double x = r.uniform(lo, hi);
  if (t == ElemType::I4) return std::clamp(std::nearbyint(4 * x), -8.0, 7.0);
  return t == ElemType::I8 ? std::clamp(std::nearbyint(32 * x), -127.0, 127.0) : x;
}

// Allocates and fills every tensor of c.p (set the problem first). Paged: a shuffled block table over
// block_num = needed + 2 blocks, unused entries -1. Mask: 1 with probability mask_density.
inline void fill(AttnCase& c, uint64_t seed, double mask_density = 0.3) {
  AttnProblem& p = c.p;
  Rng r{seed};
  c.q = nan_tensor(p.in, layout_shape(p.layout, p.B, p.N, p.Sq, p.D));
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t i = 0; i < p.act_q[size_t(b)]; ++i)
        for (int64_t d = 0; d < p.D; ++d)
          c.q.set(bf_index(p.layout, p.N, p.Sq, p.D, b, n, c.q_start(b) + i, d), draw(r, p.in, -2, 2));
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  if (paged) {
    std::vector<int64_t> need(size_t(p.B));
    for (int64_t b = 0; b < p.B; ++b) need[size_t(b)] = (p.act_kv[size_t(b)] + p.block_size - 1) / p.block_size;
    p.block_num = std::accumulate(need.begin(), need.end(), int64_t{0}) + 2;
    p.max_blocks = *std::max_element(need.begin(), need.end()) + 1;
    std::vector<int64_t> ids(size_t(p.block_num));
    std::iota(ids.begin(), ids.end(), 0);
    for (size_t a = ids.size(); a > 1; --a) std::swap(ids[a - 1], ids[size_t(r.next() % a)]);
    c.bt = HostTensor::zeros(ElemType::I32, {p.B, p.max_blocks});
    size_t used = 0;
    for (int64_t b = 0; b < p.B; ++b)
      for (int64_t t = 0; t < p.max_blocks; ++t)
        c.bt.set(b * p.max_blocks + t, t < need[size_t(b)] ? double(ids[used++]) : -1.0);
  }
  for (bool value : {false, true}) {
    const int64_t dim = value ? p.Dv : p.D;
    std::vector<HostTensor>& t = value ? c.v : c.k;
    t.clear();
    const ElemType kt = p.kv_in();  // int8 with antiquantisation
    if (p.kv == KvStorage::Dense) t.push_back(nan_tensor(kt, layout_shape(p.layout, p.B, p.KV_N, p.kv_s, dim)));
    if (p.kv == KvStorage::List)
      for (int64_t b = 0; b < p.B; ++b)
        t.push_back(nan_tensor(kt, layout_shape(p.layout, 1, p.KV_N, p.list_s[size_t(b)], dim)));
    if (p.kv == KvStorage::PagedBsH) t.push_back(nan_tensor(kt, {p.block_num, p.block_size, p.KV_N * dim}));
    if (p.kv == KvStorage::PagedNBsD) t.push_back(nan_tensor(kt, {p.block_num, p.KV_N, p.block_size, dim}));
    if (p.prefix) (value ? c.vp : c.kp) = nan_tensor(kt, layout_shape(p.layout, 1, p.KV_N, p.prefix_s, dim));
    for (int64_t b = 0; b < p.B; ++b)
      for (int64_t n2 = 0; n2 < p.KV_N; ++n2)
        for (int64_t j = 0; j < p.skv_eff(b); ++j)
          for (int64_t d = 0; d < dim; ++d) {
            const auto [tt, idx] = c.kv_ref(value, b, n2, j, d);
            tt->set(idx, value ? draw(r, p.kv_in(), -1, 1) : draw(r, p.kv_in(), -2, 2));
          }
  }
  if (p.pse) {
    c.pse = HostTensor::zeros(p.in == ElemType::I8 ? ElemType::F16 : p.in, {p.pse_b, p.N, p.pse_sq, p.pse_skv});
    for (int64_t e = 0; e < c.pse.numel(); ++e) c.pse.set(e, r.uniform(-1, 1));
  }
  if (p.mask != MaskKind::None) {
    c.mask = HostTensor::zeros(ElemType::Bool, {p.mask_per_batch ? p.B : 1, p.mask_sq, p.mask_skv});
    for (int64_t e = 0; e < c.mask.numel(); ++e) c.mask.set(e, r.uniform(0, 1) < mask_density ? 1.0 : 0.0);
  }
}

// Post-quantisation of an already filled case: int8 output, scales uniform in [lo, hi] (fp32, or bf16 for a
// bf16 query when `bf16` is set), offsets uniform in [-4, 4] when `offset`. Per-channel shape `shape` (N * D
// elements; empty: [N, D]), per-tensor [1]. Per-channel turns softmax_lse off (the operator forbids both).
inline void add_post_quant(AttnCase& c, bool per_channel, bool offset, uint64_t seed, double lo = 40, double hi = 300,
                           bool bf16 = false, std::vector<int64_t> shape = {}) {
  PostQuant& q = c.p.post_quant;
  q.on = true, q.per_channel = per_channel, q.offset = offset, q.dtype = bf16 ? ElemType::BF16 : ElemType::F32;
  c.p.out = ElemType::I8;
  if (per_channel) c.p.lse = false;  // per-channel post-quant excludes softmax_lse (spec §1.7)
  if (shape.empty()) shape = per_channel ? std::vector<int64_t>{c.p.N, c.p.D} : std::vector<int64_t>{1};
  Rng r{seed};
  c.qs2 = HostTensor::zeros(q.dtype, shape);
  c.qo2 = HostTensor::zeros(q.dtype, shape);
  for (int64_t e = 0; e < c.qs2.numel(); ++e) c.qs2.set(e, r.uniform(lo, hi));
  for (int64_t e = 0; e < c.qo2.numel() && offset; ++e) c.qo2.set(e, r.uniform(-4, 4));
  q.scale = c.qs2.get(0), q.offset_value = offset ? c.qo2.get(0) : 0.0;
}

// Full quantisation of an int8 case (fill with p.in = I8 first): the scales of the per-tensor int8 quantisation
// draw() models (Q, K and V at 1 / 32), deq1 = 1 / 32^2, P at qs1 = 127 and deq2 = 1 / (127 * 32), times the
// factors given; fp16 output unless post-quant follows. `u64`: the dequant scales as aclnnTransQuantParam words.
inline void add_full_quant(AttnCase& c, bool u64 = false, double f1 = 1, double f2 = 1, double fq = 1) {
  c.p.out = ElemType::F16;
  c.p.full_quant.on = true, c.p.high_perf = true;
  auto scalar = [](ElemType t, double v) {
    HostTensor h = HostTensor::zeros(t, {1});
    if (t == ElemType::F32) h.set(0, v);
    else h.set(0, double((isa::f32_bits(float(v)) & 0xFFFFE000u) | (uint64_t(1) << 46)));
    return h;
  };
  const ElemType dt = u64 ? ElemType::U64 : ElemType::F32;
  c.deq1 = scalar(dt, f1 / 1024), c.qs1 = scalar(ElemType::F32, 127 * fq), c.deq2 = scalar(dt, f2 / (127 * 32));
}

// KV antiquant parameters for a problem with p.antiquant set (before fill): (2) per-tensor or the layout's
// per-channel shape, float16 scales around 1 / 32 (int8 K, V near +-64 dequantise to about +-2) and, with an
// offset, fractional float16 offsets in [-3, 3], so the kernel's two fp16 roundings differ from the exact value.
// Separated (p.antiquant.separated): K's in aqs / aqo and V's in vaqs / vaqo, (1, ...) each.
inline void add_antiquant(AttnCase& c, uint64_t seed) {
  const AttnProblem& p = c.p;
  const int64_t first = p.antiquant.separated ? 1 : 2;
  std::vector<int64_t> shape = {2};
  if (!p.antiquant.per_tensor)
    shape = p.layout == Layout::BSH    ? std::vector<int64_t>{first, p.KV_N * p.D}
            : p.layout == Layout::BSND ? std::vector<int64_t>{first, p.KV_N, p.D}
                                       : std::vector<int64_t>{first, p.KV_N, 1, p.D};
  Rng r{seed * 7919 + 17};
  auto f16 = [](double v) { return double(isa::f16_to_f32(isa::f16_round(float(v)))); };
  for (HostTensor* t : {&c.aqs, &c.aqo, &c.vaqs, &c.vaqo}) *t = HostTensor::zeros(ElemType::F16, shape);
  for (int64_t e = 0; e < c.aqs.numel(); ++e)
    for (auto [s, o] : {std::pair{&c.aqs, &c.aqo}, {&c.vaqs, &c.vaqo}}) {
      s->set(e, f16(r.uniform(0.5, 1.5) / 32));
      o->set(e, f16(r.uniform(-3, 3)));
    }
}

// MSD (query S = 1) antiquant parameters for a filled case with p.antiquant.msd and its modes set: each side's shape
// per its mode (spec §1.6; per-tensor when p.antiquant.per_tensor), the query's dtype for the per-channel family and
// float32 per token, scales around 1 / 32 and offsets in [-3, 3] (rounded to the dtype). Combined (not separated):
// one (2, ...) tensor in aqs / aqo with K's part first. Sets token_s to the KV rows a batch addresses (after a
// shared prefix's rows at query S = 1).
inline void add_msd_antiquant(AttnCase& c, uint64_t seed) {
  AttnProblem& p = c.p;
  AntiQuant& a = p.antiquant;
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  const bool prompt = p.Sq > 1;  // the prompt kernel's MSD mode: per-token (B, S), per-channel (KV_N, 1, D)
  // (decode with a shared prefix: its rows first, AttnProblem::token_param_at)
  a.token_s = paged ? p.max_blocks * p.block_size : p.kv_s + (p.prefix && !prompt ? p.prefix_len : 0);
  const int64_t first = a.separated ? 1 : 2;
  auto shape_of_mode = [&](int m) -> std::vector<int64_t> {
    if (prompt) return m == 1 ? std::vector<int64_t>{p.B, a.token_s} : std::vector<int64_t>{p.KV_N, 1, p.D};
    switch (m) {
      case 1: return {first, p.B, a.token_s};
      case 2: return {p.KV_N};
      case 3: return {p.B, p.KV_N, a.token_s};
      case 4: return {p.block_num, p.block_size};
      case 5: return {p.block_num, p.KV_N, p.block_size};
      default: return a.per_tensor ? std::vector<int64_t>{first} : std::vector<int64_t>{first, p.KV_N, 1, p.D};
    }
  };
  Rng r{seed * 7919 + 29};
  auto make = [&](bool value, bool offset) {
    const int m = a.mode(value);
    const ElemType t = a.per_token(value) ? ElemType::F32 : p.in;
    HostTensor h = HostTensor::zeros(t, shape_of_mode(m));
    for (int64_t e = 0; e < h.numel(); ++e)
      h.set(e, offset ? r.uniform(-3, 3) : r.uniform(0.5, 1.5) / 32);  // set() rounds
    return h;
  };
  a.k_dtype = a.per_token(false) ? ElemType::F32 : p.in;
  a.v_dtype = a.per_token(true) ? ElemType::F32 : p.in;
  c.aqs = make(false, false), c.aqo = make(false, true);
  if (a.separated) c.vaqs = make(true, false), c.vaqo = make(true, true);
}

// Per-channel scales exactly halfway between two f16 values ((2k + 1) / 32 in [64, 128), where the f16 step is
// 1 / 16), so a case tells the ties-away and the RINT cast of the parameters apart.
inline void tie_scales(AttnCase& c) {
  for (int64_t e = 0; e < c.qs2.numel(); ++e) c.qs2.set(e, 64 + double(2 * (e % 1000) + 1) / 32);
  c.p.post_quant.scale = c.qs2.get(0);
}

// A dense problem with defaults: right padding off (actual = full), scale 1/sqrt(D), out = in, no mask.
inline AttnProblem dense_problem(int64_t B, int64_t N, int64_t KV_N, int64_t Sq, int64_t Skv, int64_t D, Layout l,
                                 ElemType in = ElemType::F16) {
  AttnProblem p;
  p.B = B, p.N = N, p.KV_N = KV_N, p.G = N / KV_N, p.Sq = Sq, p.kv_s = Skv, p.D = D, p.Dv = D;
  p.layout = l, p.out_layout = l == Layout::BNSD_BSND ? Layout::BSND : l;
  p.in = p.out = in;
  p.act_q.assign(size_t(B), Sq), p.act_kv.assign(size_t(B), Skv);
  p.scale = 1.0 / std::sqrt(double(D));
  return p;
}

}  // namespace npusim::op::attntest
