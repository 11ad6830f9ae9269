// Golden model of the MSD antiquant path (attention_golden.h "MSD"): the decode kernel's and the prompt kernel's MSD
// mode as plain loops over the int8 K / V as stored, sharing the rest of the golden model (attention_golden_parts.h).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "isa/mathfn/mathfn.h"
#include "isa/numeric/numeric.h"
#include "tests/golden/attention_golden_parts.h"

namespace npusim::golden::parts {

namespace {
// The limbs of one row: R = round half away (saturating: NaN -> 0), limb = s8(f16(R)) (int4 K / V: s4(f16(R))); the
// next A = (A - R) * E.
std::vector<std::vector<float>> msd_limbs(std::vector<float> a, int limbs, float e, bool int4) {
  std::vector<std::vector<float>> out(size_t(limbs), std::vector<float>(a.size()));
  std::vector<float> r(a.size(), 0.0f);
  for (int i = 0; i < limbs; ++i)
    for (size_t k = 0; k < a.size(); ++k) {
      if (i > 0) a[k] = (a[k] - r[k]) * e;  // vsub, then vmuls: two fp32 roundings
      const float x = a[k];
      r[k] = std::isnan(x)   ? 0.0f
             : std::isinf(x) ? std::copysign(FLT_MAX, x)
                             : isa::f32_round_integral(x, RoundMode::ROUND);
      const uint16_t h = isa::f32_to_f16(r[k], RoundMode::RINT, Overflow::Saturate);
      out[size_t(i)][k] =
          float(int4 ? isa::f32_to_s4(isa::f16_to_f32(h), RoundMode::ROUND) : isa::f16_to_s8(h, RoundMode::ROUND));
    }
  return out;
}

struct Msd {
  const AttnProblem& p;
  const AttnData& d;      // KvValues::Stored: the int8 K / V
  int64_t b, n, n2, row;  // row: the logical query row (0 at query S = 1)
  float mask;
  int L;
  std::vector<float> s;  // limb weights s_0 = 1, s_i = s_{i-1} / E (scalar fp32 divisions)
  float c1, e, c2;       // 127, 254, 1 / 127 (decode); 127.49, 254.98, 1 / 127.49 (prompt)
  // Per-row state of the query pre-processing.
  std::vector<std::vector<float>> q_limbs;
  float amax1 = 0, rq = 0, corr = 0;
  bool has_corr = false;

  Msd(const AttnProblem& p_, const AttnData& d_, int64_t b_, int64_t n_, int64_t i_ = 0)
      : p(p_),
        d(d_),
        b(b_),
        n(n_),
        n2(n_ / p_.G),
        row(i_),
        mask(p_.mask_value()),
        L(p_.antiquant.limbs),
        c1(p_.antiquant.coef),
        e(p_.antiquant.expand),
        c2(1.0f / p_.antiquant.coef) {
    s.push_back(1.0f);
    for (int i = 1; i < L; ++i) s.push_back(s.back() / e);
  }
  int64_t dw() const { return (p.D + 63) / 64 * 64; }  // fp32 rows of q in UB: whole 256-byte repeats
  float kscale(int64_t j, int64_t c) const { return float(d.antiquant_scale(false, b, n2, j, c)); }
  float koff(int64_t j, int64_t c) const { return float(d.antiquant_offset(false, b, n2, j, c)); }
  float vscale(int64_t j, int64_t c) const { return float(d.antiquant_scale(true, b, n2, j, c)); }
  float voff(int64_t j, int64_t c) const { return float(d.antiquant_offset(true, b, n2, j, c)); }

  void prepare_query() {
    const bool ktok = p.antiquant.per_token(false);
    std::vector<float> qs(size_t(dw()), 0.0f);
    for (int64_t c = 0; c < p.D; ++c) {
      const float qf = float(d.q(b, n, row, c));
      qs[size_t(c)] = ktok ? qf : kscale(0, c) * qf;
    }
    if (ktok && p.antiquant.offset) rq = lane_row_sum(qs, VecMath{});
    if (!ktok && p.antiquant.offset && p.lse) {  // per-channel K offset: only the lse sees it
      std::vector<float> t(qs.size(), 0.0f);
      for (int64_t c = 0; c < p.D; ++c) t[size_t(c)] = qs[size_t(c)] * koff(0, c);
      corr = lane_row_sum(t, VecMath{}) * float(p.scale), has_corr = true;
    }
    amax1 = 0.0f;
    for (float v : qs) amax1 = vmax(amax1, std::fabs(v));
    const float k1 = isa::hw_div(c1, amax1);
    std::vector<float> a(size_t(p.D));
    for (int64_t c = 0; c < p.D; ++c) a[size_t(c)] = qs[size_t(c)] * k1;
    q_limbs = msd_limbs(a, L, e, p.antiquant.int4);
  }

  // C0 + C1 s1 + ... (each product rounded, then the sum), then * c2.
  float combine(const std::vector<int64_t>& acc) const {
    float x = float(double(acc[0]));
    for (int i = 1; i < L; ++i) x = x + float(double(acc[size_t(i)])) * s[size_t(i)];
    return x * c2;
  }

  // Scores of one block (c real columns of cw): combined, K's parameters, scale, pse, mask.
  std::vector<float> scores(int64_t j0, int64_t c, int64_t cw) const {
    std::vector<float> x(size_t(cw), mask);
    const bool ktok = p.antiquant.per_token(false);
    for (int64_t t = 0; t < c; ++t) {
      const int64_t j = j0 + t;
      std::vector<int64_t> acc(size_t(L), 0);
      for (int i = 0; i < L; ++i)
        for (int64_t k = 0; k < p.D; ++k)
          acc[size_t(i)] += int64_t(q_limbs[size_t(i)][size_t(k)]) * int64_t(d.k(b, n2, j, k));
      float v = combine(acc) * amax1;
      if (ktok) {
        if (p.antiquant.offset) v = v + koff(j, 0) * rq;
        v = v * kscale(j, 0);
      }
      v = v * float(p.scale);
      if (p.pse) v = v + float(d.pse(b, n, row, j));
      x[size_t(t)] = d.visible(b, row, j) ? v : mask;
    }
    return x;
  }

  // P V of one block through the P limbs; per-token V folds its scale (and offset) in here.
  std::vector<float> pv(const std::vector<float>& pr, int64_t j0, int64_t c) const {
    const bool vtok = p.antiquant.per_token(true);
    std::vector<float> x(pr.size(), 0.0f);
    float amax2 = 0, r2 = 0;
    if (vtok) {
      std::vector<float> t(pr.size(), 0.0f);
      for (int64_t k = 0; k < c; ++k) x[size_t(k)] = pr[size_t(k)] * vscale(j0 + k, 0);
      for (int64_t k = 0; k < c; ++k) t[size_t(k)] = x[size_t(k)] * voff(j0 + k, 0);
      if (p.antiquant.offset) r2 = lane_row_sum(t, VecMath{});
      for (float v : x) amax2 = vmax(amax2, std::fabs(v));
      const float k2 = isa::hw_div(c1, amax2);
      for (int64_t k = 0; k < c; ++k) x[size_t(k)] = x[size_t(k)] * k2;
    } else {
      for (size_t k = 0; k < pr.size(); ++k) x[k] = pr[k] * c1;
    }
    const std::vector<std::vector<float>> pl =
        msd_limbs(std::vector<float>(x.begin(), x.begin() + c), L, e, p.antiquant.int4);
    std::vector<float> o(size_t(p.Dv));
    for (int64_t dv = 0; dv < p.Dv; ++dv) {
      std::vector<int64_t> acc(size_t(L), 0);
      for (int i = 0; i < L; ++i)
        for (int64_t k = 0; k < c; ++k)
          acc[size_t(i)] += int64_t(pl[size_t(i)][size_t(k)]) * int64_t(d.v(b, n2, j0 + k, dv));
      float ob = combine(acc);
      if (vtok) {
        ob = ob * amax2;
        if (p.antiquant.offset) ob = ob + r2;
      }
      o[size_t(dv)] = ob;
    }
    return o;
  }

  // Blocks [first, end): the online softmax over the MSD scores; returns O / l with V's per-channel parameters
  // applied, m and l.
  Partial split(int64_t first, int64_t end, int64_t s2_block) const {
    const int64_t skv = p.skv_eff(b);
    float m = 0, l = 0;
    std::vector<float> o;
    for (int64_t k = first; k < end; ++k) {
      const int64_t j0 = k * s2_block, c = std::min(s2_block, skv - j0), cw = (c + kPadTo - 1) / kPadTo * kPadTo;
      const std::vector<float> x = scores(j0, c, cw);
      float rmax = x[0];
      for (size_t t = 1; t < x.size(); ++t) rmax = vmax(rmax, x[t]);
      const float m_new = k == first ? rmax : vmax(m, rmax);
      std::vector<float> e(x.size(), 0.0f);
      for (int64_t t = 0; t < c; ++t) e[size_t(t)] = isa::hw_exp(x[size_t(t)] - m_new);
      const float l_blk = softmax_row_sum(e, VecMath{});
      const std::vector<float> ob = pv(e, j0, c);
      if (k == first) {
        l = l_blk, o = ob;
      } else {
        const float alpha = isa::hw_exp(m - m_new);
        l = l * alpha + l_blk;
        for (int64_t dv = 0; dv < p.Dv; ++dv) {
          const float scaled = o[size_t(dv)] * alpha;
          o[size_t(dv)] = scaled + ob[size_t(dv)];
        }
      }
      m = m_new;
    }
    return Partial{o, m, l};
  }

  // O / lden with V's per-channel parameters; `factor` (invalid-row correction with V per-channel: 0 for an invalid
  // row, 1 otherwise) multiplies last.
  std::vector<float> finish(const std::vector<float>& o, float lden, float factor = 1.0f,
                            bool use_factor = false) const {
    std::vector<float> r(size_t(p.Dv));
    const bool vchan = !p.antiquant.per_token(true);
    for (int64_t dv = 0; dv < p.Dv; ++dv) {
      float v = isa::hw_div(o[size_t(dv)], lden);
      if (vchan && p.antiquant.offset) v = v + voff(0, dv);
      if (vchan) v = v * vscale(0, dv);
      if (vchan && use_factor) v = v * factor;
      r[size_t(dv)] = v;
    }
    return r;
  }

  // One row's end without flash-decoding (kernel finish_rows): invalid rows (row_fix, m still the mask value) divide
  // by +inf and get lse +inf; written to out / lse at physical row s.
  void write(const Partial& pt, int64_t s_row, AttnGoldenOut& r) const {
    const bool invalid = p.row_fix && pt.m == mask;
    const std::vector<float> o = finish(pt.o, invalid ? kInf : pt.l, invalid ? 0.0f : 1.0f, p.row_fix);
    for (int64_t dv = 0; dv < p.Dv; ++dv)
      put(r.out, d.out_index(b, n, s_row, dv), op::elem_bytes(p.out),
          p.post_quant.on ? post_quant_bits(p, d, n, dv, o[size_t(dv)]) : to_bits(o[size_t(dv)], p.out, out_round(p)));
    float lse = isa::hw_ln(pt.l) + pt.m;
    if (has_corr) lse = lse + corr;
    put(r.lse, d.lse_index(b, n, s_row), 4, isa::f32_bits(invalid ? kInf : lse));
  }
};

}  // namespace

// MSD (p.antiquant.msd): batch b's heads over ns splits of nb blocks (nb > 0), then the output cast or the combine.
void msd_batch(const AttnProblem& p, const AttnData& d, int64_t b, int64_t s2_block, int64_t nb, int64_t ns,
               AttnGoldenOut& r) {
  AttnData raw = d;
  raw.set_kv_values(op::attn::KvValues::Stored);
  for (int64_t n = 0; n < p.N; ++n) {
    Msd m(p, raw, b, n);
    m.prepare_query();
    std::vector<Partial> parts;
    for (int64_t k = 0; k < ns; ++k) parts.push_back(m.split(k * nb / ns, (k + 1) * nb / ns, s2_block));
    if (ns == 1) {
      m.write(parts[0], 0, r);
      continue;
    }
    for (Partial& pt : parts) {  // a split's partial: O / l with V's per-channel parameters, m with the lse term
      pt.o = m.finish(pt.o, pt.l);
      if (m.has_corr) pt.m = pt.m + m.corr;
    }
    combine(p, d, b, n, parts, r);
  }
}

// MSD with query S > 1 (the prompt kernel's MSD mode): per (b, n), units of s1_block physical rows from 0; each
// computed row runs the unit's visited blocks (the union of its rows' bands) as one MSD row.
void msd_prompt(const AttnProblem& p, const AttnData& d, int64_t s1_block, int64_t s2_block, AttnGoldenOut& r) {
  AttnData raw = d;
  raw.set_kv_values(op::attn::KvValues::Stored);
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t row0 = 0; row0 < p.Sq; row0 += s1_block) {
        const std::vector<int64_t> rows = computed_rows(p, b, row0, std::min(row0 + s1_block, p.Sq));
        if (rows.empty()) continue;
        int64_t c_lo = std::numeric_limits<int64_t>::max(), c_hi = 0;
        for (int64_t i : rows) {
          const auto [lo, hi] = p.visible_cols(b, i);
          c_lo = std::min(c_lo, lo), c_hi = std::max(c_hi, hi);
        }
        for (int64_t i : rows) {
          Msd m(p, raw, b, n, i);
          m.prepare_query();
          m.write(m.split(c_lo / s2_block, (c_hi + s2_block - 1) / s2_block, s2_block), p.q_start(b) + i, r);
        }
      }
}

}  // namespace npusim::golden::parts
