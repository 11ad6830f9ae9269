// Bit-for-bit comparison with an expected tensor (bit_compare.h).
#include "kernels/accuracy/bit_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <cstring>
#include <map>
#include "kernels/accuracy/indexing.h"

namespace npusim::op {

namespace {

uint64_t bits_at(const HostTensor& t, int64_t i) {
  const int e = elem_bytes(t.type);
  uint64_t v = 0;
  std::memcpy(&v, &t.bytes[size_t(i * e)], size_t(e));  // little endian
  return v;
}

bool is_float(ElemType t) { return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32; }

// Position of a float bit pattern on the number line (sign-magnitude to a signed order), so that the distance of
// two positions is the number of representable values between them.
int64_t float_order(uint64_t bits, int width) {
  const uint64_t sign = uint64_t(1) << (width - 1), mag = bits & (sign - 1);
  return (bits & sign) ? -int64_t(mag) : int64_t(mag);
}

int64_t ulp_distance(const HostTensor& a, const HostTensor& b, int64_t i) {
  if (!is_float(a.type)) return int64_t(std::llabs(int64_t(a.get(i)) - int64_t(b.get(i))));
  if (std::isnan(a.get(i)) || std::isnan(b.get(i))) return -1;
  const int w = elem_bytes(a.type) * 8;
  return std::llabs(float_order(bits_at(a, i), w) - float_order(bits_at(b, i), w));
}

const char* bucket(int64_t ulp) {
  if (ulp < 0) return "NaN";
  if (ulp == 0) return "0 (+0 / -0)";
  if (ulp == 1) return "1";
  if (ulp < 4) return "2-3";
  if (ulp < 16) return "4-15";
  if (ulp < 256) return "16-255";
  if (ulp < 65536) return "256-65535";
  return ">= 65536";
}

std::vector<IndexCount> top_of(const std::map<std::vector<int64_t>, int64_t>& m, size_t top) {
  std::vector<IndexCount> v;
  for (const auto& [k, c] : m) v.push_back({k, c});
  std::stable_sort(v.begin(), v.end(), [](const IndexCount& a, const IndexCount& b) { return a.count > b.count; });
  if (v.size() > top) v.resize(top);
  return v;
}

std::string hex(uint64_t bits, ElemType t) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", elem_bytes(t) * 2, static_cast<unsigned long long>(bits));
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string mismatch_text(const BitMismatch& m, ElemType t) {
  return coords(m.index) + ": got " + num(m.got) + " (" + hex(m.got_bits, t) + "), expected " + num(m.expect) + " (" +
         hex(m.expect_bits, t) + "), " + (m.ulp < 0 ? std::string("NaN") : std::to_string(m.ulp) + " ULP");
}

}  // namespace

std::string BitTolerance::text() const {
  std::string s;
  if (ulp >= 0) s += "--ulp " + std::to_string(ulp);
  if (atol >= 0) s += (s.empty() ? "--atol " : ", --atol ") + num(atol);
  return s;
}

namespace {
bool within(const BitTolerance& t, const BitMismatch& m) {
  if (std::isnan(m.got) || std::isnan(m.expect)) return std::isnan(m.got) && std::isnan(m.expect);
  return (t.ulp >= 0 && m.ulp >= 0 && m.ulp <= t.ulp) || (t.atol >= 0 && std::fabs(m.got - m.expect) <= t.atol);
}
}  // namespace

BitCompare compare_bits(const std::string& output, const HostTensor& got, const HostTensor& expect, size_t top,
                        const BitTolerance& tolerance, const GroupView* view) {
  BitCompare r;
  r.output = output;
  r.type = got.type;
  r.shape = got.shape;
  r.elements = got.numel();
  if (got.type != expect.type)
    r.shape_error = "element types differ: " + elem_type_name(got.type) + " vs expected " + elem_type_name(expect.type);
  else if (got.shape != expect.shape)
    r.shape_error = "shapes differ: " + coords(got.shape) + " vs expected " + coords(expect.shape);
  if (!r.shape_error.empty()) return r;
  r.tolerance = tolerance;
  // The breakdown's shape and group axes: the view's, else the leading two indices (one for a matrix).
  const std::vector<int64_t>& vshape = view ? view->shape : got.shape;
  const size_t rank = vshape.size();
  std::vector<size_t> axes = view ? view->axes : std::vector<size_t>{};
  if (!view)
    for (size_t d = 0; d < (rank >= 3 ? 2u : rank == 2 ? 1u : 0u); ++d) axes.push_back(d);
  r.group_label = view ? view->label : "";
  r.group_rank = int64_t(axes.size());
  const int64_t last = rank ? vshape.back() : 1;
  r.rows_total = last > 0 ? r.elements / last : 0;
  r.groups_total = 1;
  for (size_t a : axes) r.groups_total *= vshape[a];
  std::map<std::string, int64_t> hist;
  std::map<std::vector<int64_t>, int64_t> groups, rows;
  for (int64_t i = 0; i < r.elements; ++i) {
    const uint64_t a = bits_at(got, i), b = bits_at(expect, i);
    if (a == b) {
      ++r.exact;
      continue;
    }
    BitMismatch m{unravel(i, got.shape), got.get(i), expect.get(i), a, b, ulp_distance(got, expect, i)};
    if (tolerance.any() && !within(tolerance, m)) ++r.beyond_tolerance;
    ++hist[bucket(m.ulp)];
    const std::vector<int64_t> vi = view ? unravel(i, vshape) : m.index;
    std::vector<int64_t> key;
    for (size_t ax : axes) key.push_back(vi[ax]);
    ++groups[key];
    if (rank >= 2) ++rows[std::vector<int64_t>(vi.begin(), vi.end() - 1)];
    const bool worse = !r.has_mismatch || (r.worst.ulp >= 0 && (m.ulp < 0 || m.ulp > r.worst.ulp));
    if (!r.has_mismatch) r.first = m;
    if (worse) r.worst = m;
    r.has_mismatch = true;
  }
  for (const char* b : {"0 (+0 / -0)", "1", "2-3", "4-15", "16-255", "256-65535", ">= 65536", "NaN"})
    if (hist.count(b)) r.ulp_histogram.emplace_back(b, hist[b]);
  r.groups_with_mismatch = int64_t(groups.size());
  r.rows_with_mismatch = int64_t(rows.size());
  if (r.group_rank > 0) r.groups = top_of(groups, top);
  r.rows = top_of(rows, top);
  return r;
}

std::string format_bit_compare(const BitCompare& r) {
  std::string s = "output " + r.output + " (" + elem_type_name(r.type) + " " + coords(r.shape) + ") vs expected: ";
  if (!r.shape_error.empty()) return s + "MISMATCH: " + r.shape_error + "\n";
  s += std::to_string(r.exact) + " of " + std::to_string(r.elements) + " elements bit-exact";
  if (r.exact == r.elements) return s + ": MATCH\n";
  const std::string differ = std::to_string(r.elements - r.exact) + " differ";
  if (!r.tolerance.any()) s += ": MISMATCH (" + differ + ")\n";
  else if (r.match()) s += ": WITHIN TOLERANCE (" + differ + ", all within " + r.tolerance.text() + ")\n";
  else
    s += ": MISMATCH (" + differ + ", " + std::to_string(r.beyond_tolerance) + " beyond " + r.tolerance.text() + ")\n";
  s += "  first  " + mismatch_text(r.first, r.type) + "\n";
  s += "  worst  " + mismatch_text(r.worst, r.type) + "\n";
  s += "  ULP distance:";
  for (const auto& [b, c] : r.ulp_histogram) s += " " + b + ": " + std::to_string(c) + ";";
  s += "\n";
  if (r.group_rank > 0) {
    s += (r.group_label.empty()
              ? "  by leading index " + coords(std::vector<int64_t>(r.shape.begin(), r.shape.begin() + r.group_rank))
              : "  by " + r.group_label) +
         ": " + std::to_string(r.groups_with_mismatch) + " of " + std::to_string(r.groups_total) + " differ;";
    for (const auto& g : r.groups)
      s.append(" ").append(coords(g.key)).append(" ").append(std::to_string(g.count)).append(";");
    s += "\n";
  }
  if (!r.rows.empty()) {
    s += "  by row (every index but the last): " + std::to_string(r.rows_with_mismatch) + " of " +
         std::to_string(r.rows_total) + " differ;";
    for (const auto& g : r.rows)
      s.append(" ").append(coords(g.key)).append(" ").append(std::to_string(g.count)).append(";");
    s += "\n";
  }
  return s;
}

}  // namespace npusim::op
