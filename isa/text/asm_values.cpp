// Value syntax of the text form: one printer and one parser per field type (isa/README.md "Text form").
// Printed values are canonical; the parser also accepts a few non-canonical spellings (hex integers,
// decimal address offsets) and rejects anything that does not fit the field's C++ type.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "isa/instr/overloaded.h"
#include "isa/text/asm_fields.h"

namespace npusim::isa::asm_detail {

namespace {

[[noreturn]] void fail(size_t offset, std::string msg) { throw ValueError{offset, std::move(msg)}; }
// Built by appending: GCC 12 reports a false -Wrestrict on "'" + std::string(s).
std::string in_quotes(std::string_view s) {
  std::string q(1, '\'');
  q += s;
  q += '\'';
  return q;
}

// ---- enums: one name list per type -------------------------------------------------------------
template <class E>
struct EnumInfo;
template <>
struct EnumInfo<DType> {
  static constexpr std::string_view what = "dtype";
  static constexpr int count = 8;
  static std::string_view name(DType e) { return dtype_name(e); }
};
template <>
struct EnumInfo<Pipe> {
  static constexpr std::string_view what = "pipe";
  static constexpr int count = kNumPipes;
  static std::string_view name(Pipe e) { return pipe_name(e); }
};
template <>
struct EnumInfo<Buf> {
  static constexpr std::string_view what = "buffer";
  static constexpr int count = kNumBufs;
  static std::string_view name(Buf e) { return buf_name(e); }
};
template <>
struct EnumInfo<RoundMode> {
  static constexpr std::string_view what = "rounding mode";
  static constexpr int count = 6;
  static std::string_view name(RoundMode e) { return round_mode_name(e); }
};
template <>
struct EnumInfo<Quant> {
  static constexpr std::string_view what = "quant mode";
  static constexpr int count = 3;
  static std::string_view name(Quant e) {
    constexpr std::string_view n[] = {"none", "scalar", "vector"};
    return n[static_cast<int>(e)];
  }
};
template <>
struct EnumInfo<CmpOp> {
  static constexpr std::string_view what = "compare op";
  static constexpr int count = 6;
  static std::string_view name(CmpOp e) {
    constexpr std::string_view n[] = {"lt", "gt", "eq", "le", "ge", "ne"};
    return n[static_cast<int>(e)];
  }
};

// An enum holding a value outside its range prints as ?N: to_asm must not fail inside an error message.
template <class E>
void append_enum(std::string& out, E e) {
  const int i = static_cast<int>(e);
  if (i < EnumInfo<E>::count) {
    out += EnumInfo<E>::name(e);
  } else {
    out += '?';
    out += std::to_string(i);
  }
}

template <class E>
E parse_enum(std::string_view text) {
  std::string valid;
  for (int i = 0; i < EnumInfo<E>::count; ++i) {
    const std::string_view name = EnumInfo<E>::name(static_cast<E>(i));
    if (name == text) return static_cast<E>(i);
    if (i) valid += ' ';
    valid += name;
  }
  fail(0, "unknown " + std::string(EnumInfo<E>::what) + " " + in_quotes(text) + " (valid: " + valid + ")");
}

// ---- integers ----------------------------------------------------------------------------------
void append_hex(std::string& out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  out += "0x";
  out.append(buf, r.ptr);
}

enum class NumStatus { Ok, Malformed, TooLarge };

// Unsigned decimal, or hexadecimal with a 0x prefix.
NumStatus parse_u64(std::string_view s, uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return NumStatus::Malformed;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  if (r.ec == std::errc::result_out_of_range) return NumStatus::TooLarge;
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) return NumStatus::Malformed;
  return NumStatus::Ok;
}

template <class T>
[[noreturn]] void out_of_range(std::string_view text) {
  fail(0, in_quotes(text) + " is out of range [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
              std::to_string(std::numeric_limits<T>::max()) + "]");
}

// [-]digits into T; a value T cannot hold is an error, never a silent truncation.
template <class T>
T parse_integer(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t magnitude = 0;
  const NumStatus st = parse_u64(text.substr(negative ? 1 : 0), magnitude);
  if (st == NumStatus::Malformed) fail(0, "malformed integer " + in_quotes(text));
  if (st == NumStatus::TooLarge) out_of_range<T>(text);
  if (!negative) {
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<T>::max())) out_of_range<T>(text);
    return static_cast<T>(magnitude);
  }
  if (magnitude == 0) return 0;
  if constexpr (std::is_unsigned_v<T>) {
    out_of_range<T>(text);
  } else {
    // |min| = max + 1 in two's complement.
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1) out_of_range<T>(text);
    return static_cast<T>(0 - magnitude);  // modular conversion, defined since C++20
  }
}

uint64_t parse_u64_part(std::string_view text, size_t offset, std::string_view what) {
  uint64_t v = 0;
  const NumStatus st = parse_u64(text, v);
  if (st == NumStatus::TooLarge) fail(offset, std::string(what) + " " + in_quotes(text) + " does not fit 64 bits");
  if (st != NumStatus::Ok) fail(offset, "malformed " + std::string(what) + " " + in_quotes(text));
  return v;
}

// ---- doubles: shortest text that reads back to the same bits (NaN payloads are not kept) -------
void append_double(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "nan";
    return;
  }
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, r.ptr);
}

double parse_double(std::string_view text) {
  double d = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), d, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) fail(0, in_quotes(text) + " is out of range for a double");
  if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size())
    fail(0, "malformed number " + in_quotes(text));
  return d;
}

bool parse_bool(std::string_view text) {
  if (text == "0" || text == "1") return text == "1";
  fail(0, "expected 0 or 1, got " + in_quotes(text));
}

// ---- addresses and masks -----------------------------------------------------------------------
void append_addr(std::string& out, const Addr& a) {
  append_enum(out, a.buf);
  out += ':';
  append_hex(out, a.off);
}

Addr parse_addr(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) fail(0, "malformed address " + in_quotes(text) + " (expected buf:0xOFFSET)");
  const uint64_t off = parse_u64_part(text.substr(colon + 1), colon + 1, "address offset");
  if (off > Addr::kMaxOff)
    fail(colon + 1, "address offset " + in_quotes(text.substr(colon + 1)) + " is beyond 2^" +
                        std::to_string(Addr::kOffBits) + " - 1 (the largest offset an address holds)");
  return Addr{parse_enum<Buf>(text.substr(0, colon)), off};
}

// Normal: 0xHI:0xLO. Counter: count:N, plus :0xHI when hi is not all ones (hi is unused in counter
// mode but kept so that the text form is lossless).
void append_mask(std::string& out, const VecMask& m) {
  if (m.counter) {
    out += "count:";
    out += std::to_string(m.lo);
    if (m.hi != ~0ull) {
      out += ':';
      append_hex(out, m.hi);
    }
    return;
  }
  append_hex(out, m.hi);
  out += ':';
  append_hex(out, m.lo);
}

VecMask parse_mask(std::string_view text) {
  constexpr std::string_view kCount = "count:";
  VecMask m;
  if (text.substr(0, kCount.size()) == kCount) {
    m.counter = true;
    const std::string_view rest = text.substr(kCount.size());
    const size_t colon = rest.find(':');
    m.lo = parse_u64_part(rest.substr(0, colon), kCount.size(), "mask count");
    if (colon != std::string_view::npos)
      m.hi = parse_u64_part(rest.substr(colon + 1), kCount.size() + colon + 1, "mask hi word");
    return m;
  }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    fail(0, "malformed mask " + in_quotes(text) + " (expected 0xHI:0xLO or count:N)");
  m.hi = parse_u64_part(text.substr(0, colon), 0, "mask hi word");
  m.lo = parse_u64_part(text.substr(colon + 1), colon + 1, "mask lo word");
  return m;
}

}  // namespace

void append_value(std::string& out, const ValueRef& v) {
  std::visit(Overloaded{[&](const bool* p) { out += *p ? '1' : '0'; }, [&](const double* p) { append_double(out, *p); },
                        [&](const Addr* p) { append_addr(out, *p); }, [&](const VecMask* p) { append_mask(out, *p); },
                        [&]<class T>(const T* p) {
                          if constexpr (std::is_enum_v<T>) append_enum(out, *p);
                          else out += std::to_string(*p);
                        }},
             v);
}

bool same_value(const ValueRef& a, const ValueRef& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&]<class T>(const T* pa) {
        const T* pb = std::get<T*>(b);
        if constexpr (std::is_same_v<T, double>) return std::memcmp(pa, pb, sizeof(double)) == 0;
        else return *pa == *pb;
      },
      a);
}

void parse_value(const ValueRef& v, std::string_view text) {
  std::visit(Overloaded{[&](bool* p) { *p = parse_bool(text); }, [&](double* p) { *p = parse_double(text); },
                        [&](Addr* p) { *p = parse_addr(text); }, [&](VecMask* p) { *p = parse_mask(text); },
                        [&]<class T>(T* p) {
                          if constexpr (std::is_enum_v<T>) *p = parse_enum<T>(text);
                          else *p = parse_integer<T>(text);
                        }},
             v);
}

}  // namespace npusim::isa::asm_detail
