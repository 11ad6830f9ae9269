// Host-side tensor access of an attention problem at logical coordinates (attn_data.h).
#include "kernels/attention/attn_data.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "isa/numeric/numeric.h"

namespace npusim::op::attn {

namespace {

// Every read goes through here: an index outside the tensor is a bug in the problem or its addressing, and
// must not read neighbouring memory silently.
double at(const HostTensor& t, int64_t idx, const char* name) {
  if (idx < 0 || idx >= t.numel())
    throw std::out_of_range(std::string("attention data: ") + name + " index " + std::to_string(idx) + " outside its " +
                            std::to_string(t.numel()) + " elements");
  return t.get(idx);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("attention data: " + what);
}

void require_size(const HostTensor* t, int64_t min_numel, const std::string& name) {
  require(t != nullptr, name + " is missing");
  require(t->numel() >= min_numel,
          name + " has " + std::to_string(t->numel()) + " elements, the problem needs " + std::to_string(min_numel));
}

// Index (row, col) of a (rows, cols) matrix, rejecting columns past the row (they would alias the next row).
int64_t matrix_index(int64_t row, int64_t col, int64_t rows, int64_t cols, const char* name) {
  if (row < 0 || row >= rows || col < 0 || col >= cols)
    throw std::out_of_range(std::string("attention data: ") + name + " (" + std::to_string(row) + ", " +
                            std::to_string(col) + ") outside its last two dims (" + std::to_string(rows) + ", " +
                            std::to_string(cols) + ")");
  return row * cols + col;
}

}  // namespace

AttnData::AttnData(const AttnProblem& p, AttnTensors t) : p_(p), t_(std::move(t)) {
  const int64_t q_rows = p_.layout == Layout::TND ? p_.Sq : p_.B * p_.Sq;
  require_size(t_.query, q_rows * p_.N * p_.D, "query");
  check_kv(t_.key, t_.key_prefix, p_.D, "key");
  check_kv(t_.value, t_.value_prefix, p_.Dv, "value");
  if (p_.pse) require_size(t_.pse_shift, p_.pse_b * p_.N * p_.pse_sq * p_.pse_skv, "pse_shift");
  if (p_.uses_mask_tensor())
    require_size(t_.atten_mask, (p_.mask_per_batch ? p_.B : 1) * p_.mask_sq * p_.mask_skv, "atten_mask");
  if (p_.Dr > 0) {
    require(p_.kv == KvStorage::Dense && !p_.prefix, "a second Q / K pair (rope) needs dense K without a prefix");
    require_size(t_.query_rope, q_rows * p_.N * p_.Dr, "query_rope");
    require_size(t_.key_rope, (p_.layout == Layout::TND ? 1 : p_.B) * p_.kv_s * p_.KV_N * p_.Dr, "key_rope");
  }
  if (p_.antiquant.on) {
    require(p_.Dv == p_.D, "KV antiquantisation needs Dv = D");
    for (const bool value : {false, true}) {
      // Every element the mode can address: the last index of the tensor's (K's or V's) part, plus one (per-token
      // parameters of an empty K / V: nothing).
      const int m = p_.antiquant.mode(value);
      if (((m == 1 || m == 3) && p_.antiquant.token_s == 0) || (m >= 4 && p_.block_num == 0)) continue;
      const int64_t t_last =
          std::max<int64_t>(p_.antiquant.mode(value) >= 4 ? p_.block_size : p_.antiquant.token_s, 1) - 1;
      const int64_t last =
          p_.antiquant_index(value, p_.B - 1, p_.KV_N - 1, t_last, std::max<int64_t>(p_.block_num, 1) - 1, p_.D - 1);
      for (const bool offset : {false, true})
        if (!offset || p_.antiquant.offset)
          require_size(antiquant_param(value, offset), last + 1, p_.antiquant_tensor(value, offset));
    }
  }
  if (p_.post_quant.on) {
    const int64_t channels = p_.post_quant.per_channel ? p_.N * p_.Dv : 1;
    require_size(t_.quant_scale2, channels, "quant_scale2");
    if (p_.post_quant.offset) require_size(t_.quant_offset2, channels, "quant_offset2");
  }
}

double AttnData::quant_scale(int64_t n, int64_t dv) const {
  return at(*t_.quant_scale2, p_.post_quant.per_channel ? n * p_.Dv + dv : 0, "quant_scale2");
}

double AttnData::quant_offset(int64_t n, int64_t dv) const {
  if (!p_.post_quant.offset) return 0;
  return at(*t_.quant_offset2, p_.post_quant.per_channel ? n * p_.Dv + dv : 0, "quant_offset2");
}

void AttnData::check_kv(const std::vector<const HostTensor*>& kv, const HostTensor* prefix, int64_t dim,
                        const char* name) const {
  const std::string n = name;
  if (p_.kv == KvStorage::List) {
    require(int64_t(kv.size()) == p_.B, n + " must be a list of B = " + std::to_string(p_.B) + " tensors");
    for (int64_t b = 0; b < p_.B; ++b) require_size(kv[size_t(b)], p_.KV_N * p_.list_s[size_t(b)] * dim, n);
  } else {
    require(kv.size() == 1, n + " must be one tensor");
    const bool paged = p_.kv == KvStorage::PagedBsH || p_.kv == KvStorage::PagedNBsD;
    const int64_t rows = paged ? p_.block_num * p_.block_size : (p_.layout == Layout::TND ? 1 : p_.B) * p_.kv_s;
    require_size(kv[0], rows * p_.KV_N * dim, n);
    if (paged) require_size(t_.block_table, p_.B * p_.max_blocks, "block_table");
  }
  if (p_.prefix) require_size(prefix, p_.KV_N * p_.prefix_s * dim, n + "_shared_prefix");
}

double AttnData::q(int64_t b, int64_t n, int64_t i, int64_t d) const {
  if (d >= p_.D) {
    const Strides s = layout_strides(p_.layout, p_.N, p_.Sq, p_.Dr);
    return at(*t_.query_rope, b * s.b + n * s.n + (p_.q_start(b) + i) * s.s + d - p_.D, "query_rope");
  }
  const Strides s = layout_strides(p_.layout, p_.N, p_.Sq, p_.D);
  return at(*t_.query, b * s.b + n * s.n + (p_.q_start(b) + i) * s.s + d, "query");
}

double AttnData::k(int64_t b, int64_t n2, int64_t j, int64_t d) const {
  if (d < p_.D) return dequant(kv_at(t_.key, t_.key_prefix, p_.D, b, n2, j, d), false, b, n2, j, d);
  const Strides s = layout_strides(p_.layout, p_.KV_N, p_.kv_s, p_.Dr);
  return at(*t_.key_rope, b * s.b + n2 * s.n + (p_.kv_start(b) + j) * s.s + d - p_.D, "key_rope");
}

double AttnData::kv_at(const std::vector<const HostTensor*>& kv, const HostTensor* prefix, int64_t dim, int64_t b,
                       int64_t n2, int64_t j, int64_t d) const {
  if (j < p_.prefix_len) {  // the shared prefix: batch 1, the query's layout, prefix_s rows
    const Strides s = layout_strides(p_.layout, p_.KV_N, p_.prefix_s, dim);
    return at(*prefix, n2 * s.n + j * s.s + d, "shared prefix");
  }
  const KvPos pos = kv_pos(b, j);
  const int64_t tok = pos.tok;
  switch (p_.kv) {
    case KvStorage::Dense: {
      const Strides s = layout_strides(p_.layout, p_.KV_N, p_.kv_s, dim);
      return at(*kv[0], b * s.b + n2 * s.n + tok * s.s + d, "key/value");
    }
    case KvStorage::List: {
      const Strides s = layout_strides(p_.layout, p_.KV_N, p_.list_s[size_t(b)], dim);
      return at(*kv[size_t(b)], n2 * s.n + tok * s.s + d, "key/value list");
    }
    case KvStorage::PagedBsH:
    case KvStorage::PagedNBsD: break;
  }
  const int64_t blk = pos.blk, off = tok % p_.block_size;
  const int64_t idx = p_.kv == KvStorage::PagedBsH ? (blk * p_.block_size + off) * p_.KV_N * dim + n2 * dim + d
                                                   : ((blk * p_.KV_N + n2) * p_.block_size + off) * dim + d;
  return at(*kv[0], idx, "paged key/value");
}

std::vector<double> AttnData::q_rows(int64_t b, int64_t n) const {
  const int64_t w = p_.qk_dim();
  std::vector<double> r(size_t(p_.act_q[size_t(b)] * w));
  for (int64_t i = 0; i < p_.act_q[size_t(b)]; ++i)
    for (int64_t d = 0; d < w; ++d) r[size_t(i * w + d)] = q(b, n, i, d);
  return r;
}

const HostTensor* AttnData::antiquant_param(bool value, bool offset) const {
  if (!p_.antiquant.separated) return offset ? t_.antiquant_offset : t_.antiquant_scale;
  if (value) return offset ? t_.value_antiquant_offset : t_.value_antiquant_scale;
  return offset ? t_.key_antiquant_offset : t_.key_antiquant_scale;
}

AttnData::KvPos AttnData::kv_pos(int64_t b, int64_t j) const {
  KvPos r;
  if (j < p_.prefix_len) return {j, -1};  // a prefix row (its own dense tensor)
  r.tok = p_.kv_start(b) + j - p_.prefix_len;
  if (p_.kv == KvStorage::PagedBsH || p_.kv == KvStorage::PagedNBsD)
    r.blk = int64_t(at(*t_.block_table, b * p_.max_blocks + r.tok / p_.block_size, "block_table"));
  return r;
}

int64_t AttnData::param_index(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const {
  const int m = p_.antiquant.mode(value);
  if (m == 1 || m == 3) {
    const auto [pb, t] = p_.token_param_at(b, j);
    return p_.antiquant_index(value, pb, n2, t, 0, d);
  }
  const KvPos pos = kv_pos(b, j);
  return p_.antiquant_index(value, b, n2, pos.tok, pos.blk, d);
}

double AttnData::antiquant_scale(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const {
  if (!p_.antiquant.on) return 1.0;
  return at(*antiquant_param(value, false), param_index(value, b, n2, j, d), "antiquant scale");
}

double AttnData::antiquant_offset(bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const {
  if (!p_.antiquant.on || !p_.antiquant.offset) return 0.0;
  return at(*antiquant_param(value, true), param_index(value, b, n2, j, d), "antiquant offset");
}

double AttnData::dequant(double x, bool value, int64_t b, int64_t n2, int64_t j, int64_t d) const {
  if (!p_.antiquant.on || kv_values_ == KvValues::Stored) return x;
  const double scale = antiquant_scale(value, b, n2, j, d), offset = antiquant_offset(value, b, n2, j, d);
  auto f16 = [](float v) { return isa::f16_to_f32(isa::f16_round(v)); };
  switch (kv_values_) {
    case KvValues::Stored:
    case KvValues::Exact: return (x + offset) * scale;
    case KvValues::Fp16: {  // the vector unit: vadd.f16 then vmul.f16, each in fp32 and rounded to fp16
      const float sum = f16(float(x) + float(offset));
      return f16(sum * float(scale));
    }
  }
  return x;
}

std::vector<double> AttnData::k_rows(int64_t b, int64_t n2) const {
  const int64_t w = p_.qk_dim();
  std::vector<double> r(size_t(p_.skv_eff(b) * w));
  for (int64_t j = 0; j < p_.skv_eff(b); ++j)
    for (int64_t d = 0; d < w; ++d) r[size_t(j * w + d)] = k(b, n2, j, d);
  return r;
}

std::vector<double> AttnData::v_rows(int64_t b, int64_t n2) const {
  std::vector<double> r(size_t(p_.skv_eff(b) * p_.Dv));
  for (int64_t j = 0; j < p_.skv_eff(b); ++j)
    for (int64_t d = 0; d < p_.Dv; ++d) r[size_t(j * p_.Dv + d)] = v(b, n2, j, d);
  return r;
}

double AttnData::pse(int64_t b, int64_t n, int64_t i, int64_t j) const {
  if (!p_.pse) return 0.0;
  const int64_t plane = (p_.pse_b > 1 ? b : 0) * p_.N + n;
  const int64_t rc = matrix_index(p_.mask_row(b, i), p_.mask_col(b, j), p_.pse_sq, p_.pse_skv, "pse_shift");
  return at(*t_.pse_shift, plane * p_.pse_sq * p_.pse_skv + rc, "pse_shift");
}

bool AttnData::mask_tensor_masks(int64_t b, int64_t i, int64_t j) const {
  if (!p_.uses_mask_tensor()) return false;
  const int64_t rc = matrix_index(p_.mask_row(b, i), p_.mask_col(b, j), p_.mask_sq, p_.mask_skv, "atten_mask");
  return at(*t_.atten_mask, p_.mask_plane(b) + rc, "atten_mask") != 0;
}

bool AttnData::visible(int64_t b, int64_t i, int64_t j) const {
  const auto [lo, hi] = p_.visible_cols(b, i);
  return j >= lo && j < hi && !mask_tensor_masks(b, i, j);
}

int64_t AttnData::out_index(int64_t b, int64_t n, int64_t s, int64_t dv) const {
  const Layout l = p_.out_layout == Layout::BNSD_BSND ? Layout::BSND : p_.out_layout;
  const Strides st = layout_strides(l, p_.N, p_.Sq, p_.Dv);
  return b * st.b + n * st.n + s * st.s + dv;
}

std::vector<int64_t> AttnData::out_shape() const {
  switch (p_.out_layout) {
    case Layout::BSH: return {p_.B, p_.Sq, p_.N * p_.Dv};
    case Layout::BNSD: return {p_.B, p_.N, p_.Sq, p_.Dv};
    case Layout::TND: return {p_.Sq, p_.N, p_.Dv};
    case Layout::BSND:
    case Layout::BNSD_BSND: break;
  }
  return {p_.B, p_.Sq, p_.N, p_.Dv};
}

int64_t AttnData::lse_index(int64_t b, int64_t n, int64_t s) const {
  if (p_.layout == Layout::TND) return s * p_.N + n;
  return (b * p_.N + n) * p_.Sq + s;
}

std::vector<int64_t> AttnData::lse_shape() const {
  if (p_.layout == Layout::TND) return {p_.Sq, p_.N, 1};
  return {p_.B, p_.N, p_.Sq, 1};
}

}  // namespace npusim::op::attn
