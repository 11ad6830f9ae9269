// Golden FIA kernel (prompt and decode): the contract of attention_golden.h as plain loops, one function per step;
// the MSD antiquant path is attention_golden_msd.cpp.
#include "tests/golden/attention_golden.h"
#include "tests/golden/attention_golden_parts.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "isa/mathfn/mathfn.h"
#include "isa/numeric/numeric.h"

namespace npusim::golden::parts {

// (the using-declarations and shared declarations: attention_golden_parts.h)
constexpr int kFractalK = 16;  // K depth of one fp16 / bf16 cube fractal

// ---- scalar primitives ----

// IEEE 754-2019 maximum, the vector unit's max: only +-0 depend on it (+0 wins). NaN cannot occur here.
float vmax(float a, float b) {
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// Rounding to a storage dtype (RINT, or CAST_ROUND for FA; saturating), as FixPipe / vconv store it; returns
// the raw bits.
uint32_t to_bits(float x, ElemType t, RoundMode m) {
  if (t == ElemType::F16) return isa::f32_to_f16(x, m, Overflow::Saturate);
  if (t == ElemType::BF16) return isa::f32_to_bf16(x, m, Overflow::Saturate);
  return isa::f32_bits(x);
}
float widen(uint32_t bits, ElemType t) {
  if (t == ElemType::F16) return isa::f16_to_f32(uint16_t(bits));
  if (t == ElemType::BF16) return isa::bf16_to_f32(uint16_t(bits));
  return isa::f32_from_bits(bits);
}

// The final cast: MSD's fp16 output (decode) and every prompt MSD output tie away (the vendor's CAST_ROUND), else RINT.
RoundMode out_round(const AttnProblem& p) {
  const bool round =
      p.antiquant.msd && (p.out == ElemType::F16 || !p.incremental());  // prompt MSD: bf16 CAST_ROUND too
  return round ? RoundMode::ROUND : RoundMode::RINT;
}

// ---- post-quantisation (int8 output; attention_golden.h "POST-QUANT") ----

float f16_value(double x, RoundMode m, Overflow o) {
  return isa::f16_to_f32(uint16_t(isa::round_to_binary(x, 5, 10, m, o)));
}

// Output channel (n, dv) of final fp32 value o -> the int8 bits.
uint32_t post_quant_bits(const AttnProblem& p, const AttnData& d, int64_t n, int64_t dv, float o) {
  const op::attn::PostQuant& q = p.post_quant;
  const double s = d.quant_scale(n, dv), off = d.quant_offset(n, dv);  // fp32 / bf16 values, exact in double
  if (p.incremental() && q.per_channel) {  // fp32 multiply-add, then f16 and int8 both ties away
    float t = o * float(s);
    if (q.offset) t = t + float(off);
    return uint8_t(isa::f16_to_s8(isa::f32_to_f16(t, RoundMode::ROUND, Overflow::Saturate), RoundMode::ROUND));
  }
  // In half: the parameters as f16 (per-channel by a saturating vconv, ties away in the fp16 high-performance
  // compute type; per-tensor as a vector scalar, RINT), every step rounded to f16 (IEEE overflow).
  const RoundMode pm = p.high_perf ? RoundMode::ROUND : RoundMode::RINT;
  const float sh = q.per_channel ? f16_value(s, pm, Overflow::Saturate) : f16_value(s, RoundMode::RINT, Overflow::Ieee);
  const float oh = q.per_channel ? (q.offset ? f16_value(off, pm, Overflow::Saturate) : 0.0f)
                                 : f16_value(off, RoundMode::RINT, Overflow::Ieee);
  float h = isa::f16_to_f32(isa::f32_to_f16(o, RoundMode::RINT, Overflow::Saturate));
  h = isa::f16_to_f32(isa::f16_round(h * sh));
  h = isa::f16_to_f32(isa::f16_round(h + oh));
  return uint8_t(isa::f16_to_s8(isa::f32_to_f16(h, RoundMode::RINT, Overflow::Ieee), RoundMode::RINT));
}

// Balanced pairwise tree, level by level over adjacent pairs; `r` rounds every node (Mmad: fp32, vcadd f16).
template <class Round>
float tree_sum(float* v, int64_t count, Round r) {
  for (; count > 1; count /= 2)
    for (int64_t q = 0; q < count / 2; ++q) v[q] = r(v[2 * q] + v[2 * q + 1]);
  return v[0];
}

// Mmad: fp32 products of exactly widened inputs, one tree per 16-deep K fractal (lanes past k are +0), the
// fractal sums added in K order starting from +0.
float mmad_dot(const float* a, int64_t a_stride, const float* b, int64_t b_stride, int64_t k) {
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < k; k0 += kFractalK) {
    float prod[kFractalK];
    for (int t = 0; t < kFractalK; ++t) prod[t] = k0 + t < k ? a[(k0 + t) * a_stride] * b[(k0 + t) * b_stride] : 0.0f;
    acc = acc + tree_sum(prod, kFractalK, [](float x) { return x; });
  }
  return acc;
}

// Full quantisation: the exact int32 sum of int8 products (the cube's integer accumulation), and the FixPipe's
// dequantisation of an int32 accumulator: fp32 (RINT) times the effective scale in fp32.
int64_t int_dot(const float* a, int64_t a_stride, const float* b, int64_t b_stride, int64_t k) {
  int64_t acc = 0;
  for (int64_t t = 0; t < k; ++t) acc += int64_t(a[t * a_stride]) * int64_t(b[t * b_stride]);
  return acc;
}
float dequant(int64_t acc, float scale) { return float(double(acc)) * scale; }

// A row reduction (row_reduce in kernels/tile/vec_ops.h): the lane chunks summed lane-wise in order, then the vcadd
// tree over the lanes. e.size() is a multiple of the lanes.
float lane_row_sum(const std::vector<float>& e, VecMath vm) {
  const int64_t lanes = vm.lanes(), chunks = int64_t(e.size()) / lanes;
  std::vector<float> acc(e.begin(), e.begin() + lanes);
  for (int64_t k = 1; k < chunks; ++k)
    for (int64_t l = 0; l < lanes; ++l) acc[size_t(l)] = vm.r(acc[size_t(l)] + e[size_t(k * lanes + l)]);
  return tree_sum(acc.data(), lanes, [vm](float v) { return vm.r(v); });
}

float block_row_sum(const std::vector<float>& e) {
  constexpr int64_t kLanes = 64, kPerBlock = 8;
  const int64_t groups = int64_t(e.size()) / kLanes;
  std::vector<float> s(e.size() / kPerBlock);  // s[g * 8 + b]: block b of lane group g
  for (size_t q = 0; q < s.size(); ++q) {
    float blk[kPerBlock];
    std::copy_n(e.begin() + int64_t(q) * kPerBlock, kPerBlock, blk);
    s[q] = tree_sum(blk, kPerBlock, [](float v) { return v; });
  }
  for (int64_t n = groups; n > 1; n /= 2)  // group j <- groups 2j, 2j + 1, lane by lane
    for (int64_t j = 0; j < n / 2; ++j)
      for (int64_t b = 0; b < kPerBlock; ++b)
        s[size_t(j * kPerBlock + b)] = s[size_t(2 * j * kPerBlock + b)] + s[size_t((2 * j + 1) * kPerBlock + b)];
  return tree_sum(s.data(), kPerBlock, [](float v) { return v; });
}

float softmax_row_sum(const std::vector<float>& e, VecMath vm) {
  return !vm.f16 && (e.size() == 128 || e.size() == 256) ? block_row_sum(e) : lane_row_sum(e, vm);
}

void put(HostTensor& t, int64_t idx, int bytes, uint32_t v) {
  for (int k = 0; k < bytes; ++k) t.bytes[size_t(idx * bytes + k)] = uint8_t(v >> (8 * k));
}

// ---- one work unit ----

struct Head {  // the widened operands of one (b, n): q (act_q x qk_dim), k (skv x qk_dim), v (skv x Dv)
  std::vector<float> q, k, v;
};

struct RowState {
  int64_t i = 0;  // logical row
  float m = 0, l = 0;
  std::vector<float> o;
};

struct Unit {
  const AttnProblem& p;
  const AttnData& d;
  const Head& h;
  VecMath vm;
  int64_t b, n;
  float mask;

  // x_j of a row over one block: scaled scores (+ pse), MASKVAL where invisible and in the pad columns.
  std::vector<float> scores(int64_t i, int64_t j0, int64_t c, int64_t cw) const {
    std::vector<float> x(size_t(cw), mask);
    const float scale32 = float(p.scale);  // vmuls.f32: the scalar rounded to fp32 first
    for (int64_t t = 0; t < c; ++t) {
      const int64_t j = j0 + t;
      if (!d.visible(b, i, j)) continue;
      const int64_t w = p.qk_dim();  // D, then the rope pair's Dr: one accumulation (the kernel's Q / K tiles)
      const float s = p.full_quant.on
                          ? dequant(int_dot(&h.q[size_t(i * w)], 1, &h.k[size_t(j * w)], 1, w), p.full_quant.deq1)
                          : mmad_dot(&h.q[size_t(i * w)], 1, &h.k[size_t(j * w)], 1, w);
      if (vm.f16) {
        x[size_t(t)] = vm.r(widen(to_bits(s, ElemType::F16), ElemType::F16) * f16_scale());
        if (p.pse) x[size_t(t)] = vm.r(x[size_t(t)] + float(d.pse(b, n, i, j)));  // full quantisation: fp16 pse
      } else {
        x[size_t(t)] = s * scale32;
        if (p.pse) x[size_t(t)] = x[size_t(t)] + float(d.pse(b, n, i, j));
      }
    }
    return x;
  }
  RoundMode round_mode() const { return p.cast_round ? RoundMode::ROUND : RoundMode::RINT; }
  float f16_scale() const {  // vmuls.f16: the scalar rounded to f16 (RINT, IEEE) first
    return isa::f16_to_f32(uint16_t(isa::round_to_binary(p.scale, 5, 10, RoundMode::RINT, Overflow::Ieee)));
  }

  float row_max(const std::vector<float>& x) const {
    float m = x[0];
    for (size_t t = 1; t < x.size(); ++t) m = vmax(m, x[t]);
    return m;
  }

  // p_j = exp(x_j - m) on the c real columns, +0 on the pad columns (overwritten after the exp).
  std::vector<float> exps(const std::vector<float>& x, float m, int64_t c) const {
    std::vector<float> e(x.size(), 0.0f);
    for (int64_t t = 0; t < c; ++t) e[size_t(t)] = vm.r(isa::hw_exp(vm.r(x[size_t(t)] - m)));
    return e;
  }

  float row_sum(const std::vector<float>& e) const { return softmax_row_sum(e, vm); }

  // O_blk = P (rounded to the input dtype; full quantisation: quantised to int8, the P V block dequantised to
  // f16 by the FixPipe) . V over the block's c columns, Mmad order.
  std::vector<float> pv(const std::vector<float>& e, int64_t j0, int64_t c) const {
    std::vector<float> pr(static_cast<size_t>(c));
    for (int64_t t = 0; t < c; ++t)
      pr[size_t(t)] =
          p.full_quant.on ? quantize_p(e[size_t(t)]) : widen(to_bits(e[size_t(t)], p.in, round_mode()), p.in);
    std::vector<float> o(size_t(p.Dv));
    for (int64_t dv = 0; dv < p.Dv; ++dv) {
      const float* v = &h.v[size_t(j0 * p.Dv + dv)];
      o[size_t(dv)] = p.full_quant.on
                          ? widen(to_bits(dequant(int_dot(pr.data(), 1, v, p.Dv, c), p.full_quant.deq2), ElemType::F16),
                                  ElemType::F16)
                          : mmad_dot(pr.data(), 1, v, p.Dv, c);
    }
    return o;
  }
  // P8 = s8(f16(f16(P * f16(qs1)) + 0)), RINT: AscendQuant<half> per tensor (the scalar rounded to f16 first).
  float quantize_p(float e) const {
    const float qs = f16_value(p.full_quant.qs1, RoundMode::RINT, Overflow::Ieee);
    const float h = vm.r(vm.r(e * qs) + 0.0f);
    return float(isa::f16_to_s8(isa::f32_to_f16(h, RoundMode::RINT, Overflow::Ieee), RoundMode::RINT));
  }

  // One row through one block: the online-softmax update.
  void step(RowState& st, int64_t j0, int64_t c, bool first) const {
    const int64_t cw = (c + kPadTo - 1) / kPadTo * kPadTo;
    const std::vector<float> x = scores(st.i, j0, c, cw);
    const float rmax = row_max(x), m_new = first ? rmax : vmax(st.m, rmax);
    const std::vector<float> e = exps(x, m_new, c);
    const float l_blk = row_sum(e);
    const std::vector<float> o_blk = pv(e, j0, c);
    if (first) {
      st.l = l_blk, st.o = o_blk;
    } else {
      const float alpha = vm.r(isa::hw_exp(vm.r(st.m - m_new)));
      st.l = vm.r(vm.r(st.l * alpha) + l_blk);
      const VecMath om{p.full_quant.on};  // O in fp32, or in fp16 with full quantisation
      for (int64_t dv = 0; dv < p.Dv; ++dv) {
        const float scaled = om.r(st.o[size_t(dv)] * alpha);  // two operations (vmul, vadd), never fused
        st.o[size_t(dv)] = om.r(scaled + o_blk[size_t(dv)]);
      }
    }
    st.m = m_new;
  }

  // End of the unit: normalise, store out and lse (FA: max and sum, 8 copies each).
  void finish(const RowState& st, AttnGoldenOut& r) const {
    const bool invalid = p.row_fix && st.m == mask;
    const float lden = invalid ? kInf : st.l;
    const int64_t s = p.q_start(b) + st.i;
    const int ob = op::elem_bytes(p.out);
    for (int64_t dv = 0; dv < p.Dv; ++dv) {
      float o = VecMath{p.full_quant.on}.r(isa::hw_div(st.o[size_t(dv)], lden));  // fp16 vdiv with full quantisation
      if (p.max_sum && invalid) o = o + 0.0f;  // FA: +0 for the invalid rows (-0 + +0 = +0, vadds)
      put(r.out, d.out_index(b, n, s, dv), ob,
          p.post_quant.on ? post_quant_bits(p, d, n, dv, o) : to_bits(o, p.out, round_mode()));
    }
    const float lse = invalid ? kInf : st.m + isa::hw_ln(st.l);
    put(r.lse, d.lse_index(b, n, s), 4, isa::f32_bits(lse));
    if (p.max_sum) put_stats(r, d.stat_index(b, n, st.i), st.m, invalid ? FLT_MAX : st.l);
  }
  static void put_stats(AttnGoldenOut& r, int64_t at, float m, float l) {
    for (int k = 0; k < 8; ++k) put(r.max, at + k, 4, isa::f32_bits(m)), put(r.sum, at + k, 4, isa::f32_bits(l));
  }
};

Head gather(const AttnData& d, int64_t b, int64_t n) {
  Head h;
  const auto to_f = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };  // exact
  h.q = to_f(d.q_rows(b, n));
  h.k = to_f(d.k_rows(b, d.problem().kv_n_of(n)));
  h.v = to_f(d.v_rows(b, d.problem().kv_n_of(n)));
  return h;
}

// The computed rows (logical indices) among physical rows [row0, row_end) of batch b.
std::vector<int64_t> computed_rows(const AttnProblem& p, int64_t b, int64_t row0, int64_t row_end) {
  std::vector<int64_t> rows;
  for (int64_t r = row0; r < row_end; ++r) {
    const int64_t i = r - p.q_start(b);
    if (i < 0 || i >= p.act_q[size_t(b)]) continue;
    const auto [lo, hi] = p.visible_cols(b, i);
    if (lo < hi) rows.push_back(i);
  }
  return rows;
}

void run_unit(const Unit& u, const std::vector<int64_t>& rows, int64_t s2_block, AttnGoldenOut& r) {
  int64_t c_lo = std::numeric_limits<int64_t>::max(), c_hi = 0;
  for (int64_t i : rows) {
    const auto [lo, hi] = u.p.visible_cols(u.b, i);
    c_lo = std::min(c_lo, lo), c_hi = std::max(c_hi, hi);
  }
  std::vector<RowState> st(rows.size());
  for (size_t q = 0; q < rows.size(); ++q) st[q].i = rows[q];
  const int64_t skv = u.p.skv_eff(u.b);
  for (int64_t k = c_lo / s2_block; k * s2_block < c_hi; ++k) {
    const int64_t j0 = k * s2_block, c = std::min(s2_block, skv - j0);
    for (RowState& s : st) u.step(s, j0, c, k == c_lo / s2_block);
  }
  for (const RowState& s : st) u.finish(s, r);
}

// ---- query S = 1 (decode): KV splits and their combine ----

constexpr float kEmptyKvLse = -3.4e38f;  // lse of every head of a batch with empty KV at S = 1 (spec Decisions)

// Row 0 of the unit's head over score blocks [blk_first, blk_end): the prompt kernel's per-block steps,
// started fresh on the split's first block, then O / l.
Partial decode_split(const Unit& u, int64_t blk_first, int64_t blk_end, int64_t s2_block) {
  RowState st;  // i = 0
  const int64_t skv = u.p.skv_eff(u.b);
  for (int64_t k = blk_first; k < blk_end; ++k) {
    const int64_t j0 = k * s2_block;
    u.step(st, j0, std::min(s2_block, skv - j0), k == blk_first);
  }
  Partial r{std::vector<float>(size_t(u.p.Dv)), st.m, st.l};
  for (int64_t dv = 0; dv < u.p.Dv; ++dv) r.o[size_t(dv)] = isa::hw_div(st.o[size_t(dv)], st.l);
  return r;
}

// Flash-decoding combine of one row's partials in split order (every operation rounded to fp32, as the
// vector unit's vmax / vsub / vexp / vmul / vadd / vdiv / vln run it), written to out / lse of row 0.
void combine(const AttnProblem& p, const AttnData& d, int64_t b, int64_t n, const std::vector<Partial>& parts,
             AttnGoldenOut& r) {
  const size_t ns = parts.size();
  float m_all = parts[0].m;
  for (size_t k = 1; k < ns; ++k) m_all = vmax(m_all, parts[k].m);
  std::vector<float> w(ns);
  for (size_t k = 0; k < ns; ++k) w[k] = parts[k].l * isa::hw_exp(parts[k].m - m_all);
  float w_sum = w[0];
  for (size_t k = 1; k < ns; ++k) w_sum = w_sum + w[k];
  const bool invalid = p.row_fix && m_all == p.mask_value();  // every split fully masked: out 0, lse +inf
  std::vector<float> sk(ns);
  for (size_t k = 0; k < ns; ++k) sk[k] = isa::hw_div(w[k], invalid ? kInf : w_sum);
  const int ob = op::elem_bytes(p.out);
  for (int64_t dv = 0; dv < p.Dv; ++dv) {
    float acc = parts[0].o[size_t(dv)] * sk[0];
    for (size_t k = 1; k < ns; ++k) {
      const float prod = parts[k].o[size_t(dv)] * sk[k];  // vmul then vadd (-ffp-contract=off: never fused)
      acc = acc + prod;
    }
    put(r.out, d.out_index(b, n, 0, dv), ob,
        p.post_quant.on ? post_quant_bits(p, d, n, dv, acc) : to_bits(acc, p.out, out_round(p)));
  }
  const float lse = invalid ? kInf : isa::hw_ln(w_sum) + m_all;
  put(r.lse, d.lse_index(b, n, 0), 4, isa::f32_bits(lse));
}

// Batch b at query S = 1: every head's row over ns splits of the nb score blocks (ns = 1: the prompt unit).
void decode_batch(const AttnProblem& p, const AttnData& d, int64_t b, int64_t s2_block, int64_t kv_splits,
                  AttnGoldenOut& r) {
  const int64_t nb = (p.skv_eff(b) + s2_block - 1) / s2_block;
  if (nb == 0) {  // empty KV: out +0 (int8 output: an O of zeros quantised)
    for (int64_t n = 0; n < p.N; ++n) {
      put(r.lse, d.lse_index(b, n, 0), 4, isa::f32_bits(kEmptyKvLse));
      for (int64_t dv = 0; dv < p.Dv && p.post_quant.on; ++dv)
        put(r.out, d.out_index(b, n, 0, dv), 1, post_quant_bits(p, d, n, dv, 0.0f));
    }
    return;
  }
  const int64_t ns = std::max<int64_t>(1, std::min(kv_splits, nb));
  if (p.antiquant.msd) return msd_batch(p, d, b, s2_block, nb, ns, r);
  for (int64_t n = 0; n < p.N; ++n) {
    const Head h = gather(d, b, n);
    const Unit u{p, d, h, VecMath{p.high_perf}, b, n, p.mask_value()};
    if (ns == 1) {
      run_unit(u, {0}, s2_block, r);  // the kernel computes every head's row 0 when the KV is not empty
      continue;
    }
    std::vector<Partial> parts;
    for (int64_t k = 0; k < ns; ++k) parts.push_back(decode_split(u, k * nb / ns, (k + 1) * nb / ns, s2_block));
    combine(p, d, b, n, parts, r);
  }
}

}  // namespace npusim::golden::parts

namespace npusim::golden {

using namespace parts;

AttnGoldenOut attention_golden(const AttnProblem& p, const AttnData& d, int64_t s1_block, int64_t s2_block,
                               int64_t kv_splits) {
  if (s1_block <= 0 || s2_block <= 0) throw std::invalid_argument("attention_golden: block sizes must be positive");
  if (kv_splits <= 0) throw std::invalid_argument("attention_golden: kv_splits must be positive");
  if (p.in != ElemType::F16 && p.in != ElemType::BF16 && !(p.in == ElemType::I8 && p.full_quant.on))
    throw std::invalid_argument(
        "attention_golden: input dtype must be float16 or bfloat16 (int8 with full quantisation)");
  AttnGoldenOut r;
  r.out = HostTensor::zeros(p.out, d.out_shape());  // +0 for every row no unit computes
  r.lse = HostTensor::zeros(ElemType::F32, d.lse_shape());
  for (int64_t e = 0; e < r.lse.numel(); ++e) put(r.lse, e, 4, isa::f32_bits(kInf));
  if (p.max_sum) {  // FA: 0 / 0 for empty KV and rows past the batches; -FLT_MAX / +FLT_MAX for rows with KV
    r.max = HostTensor::zeros(ElemType::F32, d.stat_shape());  // nobody computes (filled below)
    r.sum = HostTensor::zeros(ElemType::F32, d.stat_shape());
    for (int64_t b = 0; b < p.B; ++b)
      for (int64_t n = 0; n < p.N && p.skv_eff(b) > 0; ++n)
        for (int64_t i = 0; i < p.act_q[size_t(b)]; ++i) Unit::put_stats(r, d.stat_index(b, n, i), -FLT_MAX, FLT_MAX);
  }
  if (p.antiquant.msd && !p.incremental()) {
    msd_prompt(p, d, s1_block, s2_block, r);
    return r;
  }
  if (p.incremental()) {  // decode: units are (b, KV head, split); the rows of a unit are independent heads
    for (int64_t b = 0; b < p.B; ++b) decode_batch(p, d, b, s2_block, kv_splits, r);
    return r;
  }
  const VecMath vm{p.high_perf};
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n) {
      const Head h = gather(d, b, n);
      const Unit u{p, d, h, vm, b, n, p.mask_value()};
      // Units: s1_block rows from 0 (padded layouts) or from the batch's first row (TND: each batch's own rows).
      const int64_t first = p.layout == op::attn::Layout::TND ? p.q_start(b) : 0;
      const int64_t end = p.layout == op::attn::Layout::TND ? first + p.act_q[size_t(b)] : p.Sq;
      for (int64_t row0 = first; row0 < end; row0 += s1_block) {
        const std::vector<int64_t> rows = computed_rows(p, b, row0, std::min(row0 + s1_block, end));
        if (!rows.empty()) run_unit(u, rows, s2_block, r);
      }
    }
  return r;
}

}  // namespace npusim::golden
