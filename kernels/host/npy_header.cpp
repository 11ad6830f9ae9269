// Hand parser for the .npy header dict: string keys, and values that are a string, True / False or a
// tuple of non-negative integers. Nothing else occurs in files numpy writes for plain arrays.
#include "kernels/host/npy_header.h"

#include <cctype>

#include "kernels/host/case_file.h"

namespace npusim::op {

namespace {
struct DescrCode {
  const char* code;  // kind + size, without the byte-order character
  ElemType type;
};
constexpr DescrCode kCodes[] = {{"f2", ElemType::F16},  {"f4", ElemType::F32}, {"i1", ElemType::I8},
                                {"u1", ElemType::U8},   {"i4", ElemType::I32}, {"i8", ElemType::I64},
                                {"b1", ElemType::Bool}, {"u2", ElemType::U16}, {"u8", ElemType::U64}};
constexpr const char* kSupported = "<f2 <f4 |i1 |u1 <i4 <i8 |b1 <u2";
constexpr int64_t kMaxElems = int64_t{1} << 50;  // far beyond host memory; keeps byte counts exact

class DictParser {
 public:
  DictParser(const std::string& path, const std::string& text) : path_(path), s_(text) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen[3] = {false, false, false};
    expect('{');
    while (skip_ws(), peek() != '}') {
      const std::string key = string_lit();
      expect(':');
      const int k = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
      if (k < 0) fail("unexpected key '" + key + "' in the .npy header (expected descr, fortran_order, shape)");
      if (seen[k]) fail("key '" + key + "' appears twice in the .npy header");
      seen[k] = true;
      if (k == 0) descr(h);
      else if (k == 1) h.fortran_order = boolean();
      else h.shape = tuple();
      skip_ws();
      if (peek() != '}') expect(',');
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the .npy header dict");
    for (int k = 0; k < 3; ++k)
      if (!seen[k])
        fail(std::string("the .npy header lacks '") + (k == 0 ? "descr" : k == 1 ? "fortran_order" : "shape") + "'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw CaseError(path_ + ": " + what); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c)
      fail("malformed .npy header: expected '" + std::string(1, c) + "' at offset " + std::to_string(pos_));
    ++pos_;
  }

  std::string string_lit() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"')
      fail("malformed .npy header: expected a quoted string at offset " + std::to_string(pos_));
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("malformed .npy header: unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }

  bool boolean() {
    skip_ws();
    for (const char* w : {"True", "False"})
      if (s_.compare(pos_, std::string(w).size(), w) == 0) {
        pos_ += std::string(w).size();
        return w[0] == 'T';
      }
    fail("malformed .npy header: fortran_order must be True or False");
  }

  int64_t integer() {
    skip_ws();
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      fail("malformed .npy header: shape entries must be non-negative integers");
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + (s_[pos_++] - '0');
      if (v > kMaxElems) fail("shape entry too large");
    }
    if (peek() == 'L') ++pos_;  // Python 2 long literal in old files
    return v;
  }

  std::vector<int64_t> tuple() {
    std::vector<int64_t> out;
    expect('(');
    int64_t n = 1;
    while (skip_ws(), peek() != ')') {
      out.push_back(integer());
      if (out.back() != 0 && n > kMaxElems / out.back())
        fail("shape " + npy_shape_text(out) + "... has too many elements");
      n *= out.back();
      skip_ws();
      if (peek() != ')') expect(',');
    }
    ++pos_;
    return out;
  }

  void descr(NpyHeader& h) {
    skip_ws();
    if (peek() == '[') fail("structured dtypes are not supported (expected one of " + std::string(kSupported) + ")");
    h.descr = string_lit();
    const std::string& d = h.descr;
    for (const auto& c : kCodes) {
      if (d.size() != 3 || d.compare(1, 2, c.code) != 0) continue;
      const bool one_byte = c.code[1] == '1';
      // '=' (native) is read as little-endian: numpy itself always writes '<' or '|'.
      if (d[0] == '<' || d[0] == '=' || (one_byte && (d[0] == '|' || d[0] == '>'))) {
        h.type = c.type;
        return;
      }
      if (d[0] == '>')
        fail("big-endian dtype '" + d + "' is not supported (save it little-endian, e.g. a.astype('<" + c.code + "'))");
    }
    fail("unsupported dtype '" + d + "' (supported: " + kSupported + ")");
  }

  const std::string& path_;
  const std::string& s_;
  size_t pos_ = 0;
};
}  // namespace

NpyHeader parse_npy_header(const std::string& path, const std::string& text) { return DictParser(path, text).parse(); }

std::string npy_descr(ElemType t) {
  if (t == ElemType::BF16) return "<u2";
  if (t == ElemType::I4) return "|i1";
  for (const auto& c : kCodes)
    if (c.type == t) return std::string(c.code[1] == '1' ? "|" : "<") + c.code;
  return "";
}

std::string npy_shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace npusim::op
