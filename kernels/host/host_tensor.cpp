// Host tensors: element access in each case dtype's own little-endian encoding.
#include "kernels/host/host_tensor.h"

#include <array>
#include <cmath>
#include <sstream>

#include "isa/numeric/numeric.h"
#include "kernels/host/case_file.h"

namespace npusim::op {

namespace {
using isa::Overflow;
using isa::RoundMode;

constexpr std::array<const char*, 11> kNames = {"float16", "bfloat16", "float32", "int8",   "uint8", "int32",
                                                "int64",   "bool",     "int4",    "uint16", "uint64"};
constexpr std::array<int, 11> kBytes = {2, 2, 4, 1, 1, 4, 8, 1, 1, 2, 8};

// Explicit byte assembly instead of memcpy so the stored order is little-endian whatever the host.
uint64_t load_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int b = n - 1; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

void store_le(uint8_t* p, int n, uint64_t v) {
  for (int b = 0; b < n; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}

double f32_value(uint32_t bits) { return static_cast<double>(isa::f32_from_bits(bits)); }

// Sign-extends the low `bytes` bytes of v.
int64_t sign_extend(uint64_t v, int bytes) {
  const int shift = 64 - 8 * bytes;
  return static_cast<int64_t>(v << shift) >> shift;
}

// The inclusive range of an integer type as doubles; int64's upper end is the largest double below 2^63.
void int_range(ElemType t, double& lo, double& hi) {
  switch (t) {
    case ElemType::I8: lo = -128, hi = 127; return;
    case ElemType::U8: lo = 0, hi = 255; return;
    case ElemType::I32: lo = -2147483648.0, hi = 2147483647.0; return;
    case ElemType::I64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; return;
    case ElemType::Bool: lo = 0, hi = 1; return;
    case ElemType::I4: lo = -8, hi = 7; return;
    case ElemType::U16: lo = 0, hi = 65535; return;
    case ElemType::U64: lo = 0, hi = 9007199254740992.0; return;  // 2^53: every integer below is a double
    default: lo = hi = 0; return;
  }
}

bool is_float(ElemType t) { return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32; }
}  // namespace

std::string elem_type_name(ElemType t) { return kNames[static_cast<size_t>(t)]; }

bool parse_elem_type(const std::string& s, ElemType& out) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (s == kNames[i]) {
      out = static_cast<ElemType>(i);
      return true;
    }
  return false;
}

int elem_bytes(ElemType t) { return kBytes[static_cast<size_t>(t)]; }

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const int nb = elem_bytes(type);
  const uint64_t raw = load_le(bytes.data() + i * nb, nb);
  switch (type) {
    case ElemType::F16: return isa::f16_to_f32(static_cast<uint16_t>(raw));
    case ElemType::BF16: return isa::bf16_to_f32(static_cast<uint16_t>(raw));
    case ElemType::F32: return f32_value(static_cast<uint32_t>(raw));
    case ElemType::U8:
    case ElemType::Bool:
    case ElemType::U16:
    case ElemType::U64: return static_cast<double>(raw);
    default: return static_cast<double>(sign_extend(raw, nb));
  }
}

namespace {
// double -> float16 / bfloat16 / float32 rounded once (RNE, IEEE overflow), through the exact float conversions
// when that gives the same bits: rounding to float first can only go wrong when it lands exactly on a tie of
// the narrower format (its grid points are float values, so nearest-rounding never jumps over one), or in the
// narrower format's subnormal range where its tie bit sits lower. Those cases, and non-finite values, take
// the general rounding. (tests/op/test_case_generate.cpp checks both paths agree on ties and random values.)
bool round_via_float(ElemType t, double v, uint64_t& bits) {
  const float f = static_cast<float>(v);  // IEEE: RNE, overflow to infinity
  if (!std::isfinite(v)) return false;
  if (t == ElemType::F32) {
    bits = isa::f32_bits(f);
    return true;
  }
  const int drop = t == ElemType::F16 ? 13 : 16;  // float mantissa bits the narrower format lacks
  const uint32_t low = isa::f32_bits(f) & ((1u << drop) - 1);
  const bool exact = static_cast<double>(f) == v;
  const bool small = std::fabs(f) < (t == ElemType::F16 ? 0x1p-14f : 0x1p-126f);
  if (!exact && (low == 1u << (drop - 1) || small)) return false;
  bits = t == ElemType::F16 ? isa::f16_round(f) : isa::bf16_round(f);
  return true;
}
}  // namespace

void HostTensor::set(int64_t i, double v) {
  const int nb = elem_bytes(type);
  uint8_t* p = bytes.data() + i * nb;
  if (uint64_t bits = 0; is_float(type) && round_via_float(type, v, bits)) {
    store_le(p, nb, bits);
    return;
  }
  if (is_float(type)) {
    const int exp_bits = type == ElemType::F16 ? 5 : 8;
    const int man_bits = type == ElemType::F16 ? 10 : (type == ElemType::BF16 ? 7 : 23);
    store_le(p, nb, isa::round_to_binary(v, exp_bits, man_bits, RoundMode::RINT, Overflow::Ieee));
    return;
  }
  double lo, hi;
  int_range(type, lo, hi);
  // v == v rejects NaN; the int64 cast below is exact for integral values in range.
  if (!(v == v && v >= lo && v <= hi && static_cast<double>(static_cast<int64_t>(v)) == v)) {
    std::ostringstream msg;
    msg.precision(17);
    msg << "value " << v << " is not a " << elem_type_name(type) << " (an integer in [" << lo << ", " << hi << "])";
    throw CaseError(msg.str());
  }
  store_le(p, nb, static_cast<uint64_t>(static_cast<int64_t>(v)));
}

HostTensor HostTensor::zeros(ElemType t, std::vector<int64_t> shape) {
  HostTensor h;
  h.type = t;
  h.shape = std::move(shape);
  for (int64_t d : h.shape)
    if (d < 0) throw CaseError("tensor shape has a negative size " + std::to_string(d));
  h.bytes.assign(static_cast<size_t>(h.numel() * elem_bytes(t)), 0);
  return h;
}

}  // namespace npusim::op
