// Bit-for-bit comparison with an expected tensor (bit_compare.h).
#include "kernels/accuracy/bit_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/accuracy/indexing.h"
#include <cstring>
#include <map>

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

BitCompare compare_bits(const std::string& output, const HostTensor& got, const HostTensor& expect, size_t top) {
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
  const size_t rank = got.shape.size();
  r.group_rank = rank >= 3 ? 2 : rank == 2 ? 1 : 0;
  const int64_t last = rank ? got.shape.back() : 1;
  r.rows_total = last > 0 ? r.elements / last : 0;
  r.groups_total = 1;
  for (int64_t d = 0; d < r.group_rank; ++d) r.groups_total *= got.shape[size_t(d)];
  std::map<std::string, int64_t> hist;
  std::map<std::vector<int64_t>, int64_t> groups, rows;
  for (int64_t i = 0; i < r.elements; ++i) {
    const uint64_t a = bits_at(got, i), b = bits_at(expect, i);
    if (a == b) {
      ++r.exact;
      continue;
    }
    BitMismatch m{unravel(i, got.shape), got.get(i), expect.get(i), a, b, ulp_distance(got, expect, i)};
    ++hist[bucket(m.ulp)];
    ++groups[std::vector<int64_t>(m.index.begin(), m.index.begin() + r.group_rank)];
    if (rank >= 2) ++rows[std::vector<int64_t>(m.index.begin(), m.index.end() - 1)];
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
  if (r.match()) return s + ": MATCH\n";
  s += ": MISMATCH (" + std::to_string(r.elements - r.exact) + " differ)\n";
  s += "  first  " + mismatch_text(r.first, r.type) + "\n";
  s += "  worst  " + mismatch_text(r.worst, r.type) + "\n";
  s += "  ULP distance:";
  for (const auto& [b, c] : r.ulp_histogram) s += " " + b + ": " + std::to_string(c) + ";";
  s += "\n";
  if (r.group_rank > 0) {
    s += "  by leading index " + coords(std::vector<int64_t>(r.shape.begin(), r.shape.begin() + r.group_rank)) + ": " +
         std::to_string(r.groups_with_mismatch) + " of " + std::to_string(r.groups_total) + " differ;";
    for (const auto& g : r.groups) s.append(" ").append(coords(g.key)).append(" ").append(std::to_string(g.count)).append(";");
    s += "\n";
  }
  if (!r.rows.empty()) {
    s += "  by row (every index but the last): " + std::to_string(r.rows_with_mismatch) + " of " +
         std::to_string(r.rows_total) + " differ;";
    for (const auto& g : r.rows) s.append(" ").append(coords(g.key)).append(" ").append(std::to_string(g.count)).append(";");
    s += "\n";
  }
  return s;
}

}  // namespace npusim::op
