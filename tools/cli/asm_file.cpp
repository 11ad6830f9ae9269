#include "tools/cli/asm_file.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "isa/numeric/numeric.h"
#include "isa/text/asm.h"
#include "tools/cli/cli_error.h"

namespace npusim::cli {

using namespace isa;

namespace {
[[noreturn]] void bad(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }

uint64_t parse_gm_addr(const std::string& tok, const std::string& where) {
  if (tok.rfind("gm:", 0) != 0) bad(where, "directive address '" + tok + "' must be gm:OFFSET (programs load GM only)");
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(tok.substr(3), &used, 0);
    if (used != tok.size() - 3) throw std::invalid_argument("");
    return v;
  } catch (const std::logic_error&) {
    bad(where, "bad GM offset in '" + tok + "'");
  }
}

DType parse_type(const std::string& tok, const std::string& where) {
  const auto t = parse_dtype(tok);
  if (!t || *t == DType::I4) bad(where, "unknown or unsupported dtype '" + tok + "' (f16 bf16 f32 s8 u8 s16 s32)");
  return *t;
}

double parse_num(const std::string& tok, const std::string& where) {
  try {
    size_t used = 0;
    const double v = std::stod(tok, &used);
    if (used != tok.size()) throw std::invalid_argument("");
    return v;
  } catch (const std::logic_error&) {
    bad(where, "'" + tok + "' is not a number");
  }
}

uint64_t parse_count(const std::string& tok, const std::string& where, double max) {
  const double v = parse_num(tok, where);
  if (!(v >= 0 && v <= max && v == std::floor(v)))
    bad(where, "'" + tok + "' must be a whole number in [0, " + std::to_string(static_cast<uint64_t>(max)) + "]");
  return static_cast<uint64_t>(v);
}

void directive(AsmFile& f, const std::string& line, const std::string& where, int lineno) {
  std::istringstream in(line);
  std::string name;
  in >> name;
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  if (name == ".gm_bytes" && t.size() == 1) {
    f.gm_bytes = parse_count(t[0], where, 1ull << 40);
  } else if (name == ".data" && t.size() >= 3) {
    GmWrite w{parse_gm_addr(t[0], where), parse_type(t[1], where), {}};
    for (size_t i = 2; i < t.size(); ++i) w.values.push_back(parse_num(t[i], where));
    f.writes.push_back(std::move(w));
  } else if (name == ".fill" && t.size() == 5) {
    GmWrite w{parse_gm_addr(t[0], where), parse_type(t[1], where), {}};
    const double n = static_cast<double>(parse_count(t[2], where, 1 << 28));
    const double start = parse_num(t[3], where), step = parse_num(t[4], where);
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) w.values.push_back(start + step * static_cast<double>(i));
    f.writes.push_back(std::move(w));
  } else if (name == ".print" && t.size() == 3) {
    f.prints.push_back(
        {parse_gm_addr(t[0], where), parse_type(t[1], where), parse_count(t[2], where, 1 << 28), lineno});
  } else {
    bad(where, "unknown or malformed directive '" + name +
                   "' (valid: .gm_bytes N | .data gm:OFF DTYPE V... | .fill gm:OFF DTYPE COUNT START STEP | .print "
                   "gm:OFF DTYPE COUNT)");
  }
}
}  // namespace

AsmFile load_asm_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError("program file '" + path + "' is not a regular file");
  std::ifstream in(path);
  if (!in) throw InputError("cannot read program file '" + path + "'");
  std::string text, line;
  AsmFile f;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '.') {
      directive(f, line.substr(first, line.find('#') == std::string::npos ? std::string::npos : line.find('#') - first),
                path + ":" + std::to_string(lineno), lineno);
      line.clear();  // keep the line numbering of the instructions
    }
    text += line + "\n";
  }
  try {
    f.program = parse_program(text);
  } catch (const AsmError& e) {
    throw InputError(path + ":" + std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.what());
  }
  return f;
}

std::vector<uint8_t> encode_values(const GmWrite& w, const std::string& where) {
  const int size = bytes_of(w.dtype);
  std::vector<uint8_t> out(w.values.size() * size);
  for (size_t i = 0; i < w.values.size(); ++i) {
    const double v = w.values[i];
    uint8_t* p = out.data() + i * size;
    if (w.dtype == DType::F16 || w.dtype == DType::BF16) {
      const auto bits = static_cast<uint16_t>(round_to_binary(
          v, w.dtype == DType::F16 ? 5 : 8, w.dtype == DType::F16 ? 10 : 7, RoundMode::RINT, Overflow::Ieee));
      std::memcpy(p, &bits, 2);
    } else if (w.dtype == DType::F32) {
      const auto f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else {
      const double lo = w.dtype == DType::I8    ? -128
                        : w.dtype == DType::U8  ? 0
                        : w.dtype == DType::I16 ? -32768
                                                : -2147483648.0;
      const double hi = w.dtype == DType::I8    ? 127
                        : w.dtype == DType::U8  ? 255
                        : w.dtype == DType::I16 ? 32767
                                                : 2147483647.0;
      if (v != std::floor(v) || v < lo || v > hi)
        throw InputError(where + ": value " + std::to_string(v) + " is not a " + std::string(dtype_name(w.dtype)));
      const auto iv = static_cast<int64_t>(v);
      std::memcpy(p, &iv, size);  // little-endian low bytes
    }
  }
  return out;
}

std::string format_values(const uint8_t* bytes, DType t, uint64_t count) {
  std::ostringstream os;
  const int size = bytes_of(t);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* p = bytes + i * size;
    if (i) os << (i % 8 ? " " : "\n  ");
    if (t == DType::F16 || t == DType::BF16) {
      uint16_t b;
      std::memcpy(&b, p, 2);
      os << (t == DType::F16 ? f16_to_f32(b) : bf16_to_f32(b));
    } else if (t == DType::F32) {
      float f;
      std::memcpy(&f, p, 4);
      os << f;
    } else if (t == DType::U8) {
      os << static_cast<int>(p[0]);
    } else if (t == DType::I8) {
      os << static_cast<int>(static_cast<int8_t>(p[0]));
    } else if (t == DType::I16) {
      int16_t v;
      std::memcpy(&v, p, 2);
      os << v;
    } else {
      int32_t v;
      std::memcpy(&v, p, 4);
      os << v;
    }
  }
  return os.str();
}

}  // namespace npusim::cli
