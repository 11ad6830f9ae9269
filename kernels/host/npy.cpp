// .npy reading and writing. The format (numpy/lib/format.py): magic "\x93NUMPY", major and minor
// version bytes, a little-endian header length (uint16 in 1.0, uint32 in 2.0 / 3.0), then a Python
// dict literal with 'descr', 'fortran_order' and 'shape', padded with spaces and ended by '\n'.
#include "kernels/host/npy.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "kernels/host/case_file.h"
#include "kernels/host/npy_header.h"

namespace npusim::op {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw CaseError(path + ": " + what); }

std::vector<uint8_t> slurp(const std::string& path) {
  std::error_code ec;  // a directory or a device (/dev/zero would be read forever) is not a .npy file
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    fail(path, "is not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot open .npy file (missing or unreadable)");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

uint32_t le(const std::vector<uint8_t>& b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[at + i];
  return v;
}

// Locates the header dict text; `data_at` receives the offset of the array data.
std::string header_text(const std::string& path, const std::vector<uint8_t>& b, size_t& data_at) {
  if (b.size() < 10 || std::string(b.begin(), b.begin() + kMagicLen) != std::string(kMagic, kMagicLen))
    fail(path, "not a .npy file (bad magic; expected \\x93NUMPY)");
  const int major = b[6];
  if (major < 1 || major > 3)
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(b[7]));
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (b.size() < 8 + len_bytes) fail(path, "truncated .npy header");
  const size_t start = 8 + len_bytes, len = le(b, 8, static_cast<int>(len_bytes));
  if (b.size() - start < len) fail(path, "truncated .npy header (needs " + std::to_string(len) + " bytes)");
  data_at = start + len;
  return std::string(b.begin() + static_cast<long>(start), b.begin() + static_cast<long>(data_at));
}

// C-order copy of Fortran-order data: element (i0, .., in-1) sits at sum(ik * prod(d0..dk-1)) in `src`.
std::vector<uint8_t> fortran_to_c(const std::vector<uint8_t>& src, const std::vector<int64_t>& shape, int nb) {
  std::vector<uint8_t> out(src.size());
  const size_t nd = shape.size();
  std::vector<int64_t> idx(nd, 0), fstride(nd, 1);
  for (size_t k = 1; k < nd; ++k) fstride[k] = fstride[k - 1] * shape[k - 1];
  const int64_t n = static_cast<int64_t>(src.size()) / nb;
  for (int64_t c = 0; c < n; ++c) {
    int64_t f = 0;
    for (size_t k = 0; k < nd; ++k) f += idx[k] * fstride[k];
    std::copy_n(src.begin() + f * nb, nb, out.begin() + c * nb);
    for (size_t k = nd; k-- > 0;) {  // advance the C-order counter, last index fastest
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

std::string size_text(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }
}  // namespace

HostTensor read_npy(const std::string& path) {
  const std::vector<uint8_t> b = slurp(path);
  size_t data_at = 0;
  const NpyHeader h = parse_npy_header(path, header_text(path, b, data_at));
  HostTensor t;
  t.type = h.type;
  t.shape = h.shape;
  const uint64_t need = static_cast<uint64_t>(t.numel()) * static_cast<uint64_t>(elem_bytes(t.type));
  const uint64_t have = b.size() - data_at;
  if (have < need)
    fail(path, "truncated data: shape " + npy_shape_text(t.shape) + " of " + h.descr + " needs " + size_text(need) +
                   ", the file holds " + size_text(have));
  if (have > need)
    fail(path, "shape/data size mismatch: shape " + npy_shape_text(t.shape) + " of " + h.descr + " needs " +
                   size_text(need) + ", the file holds " + size_text(have));
  t.bytes.assign(b.begin() + static_cast<long>(data_at), b.end());
  if (h.fortran_order && t.shape.size() > 1) t.bytes = fortran_to_c(t.bytes, t.shape, elem_bytes(t.type));
  if (t.type == ElemType::Bool)  // numpy reads any nonzero byte as True; HostTensor keeps bool as 0 / 1
    for (auto& v : t.bytes) v = v != 0;
  return t;
}

void write_npy(const std::string& path, const HostTensor& t) {
  std::string dict =
      "{'descr': '" + npy_descr(t.type) + "', 'fortran_order': False, 'shape': " + npy_shape_text(t.shape) + ", }";
  // numpy pads so the data starts on a 64-byte boundary; the header ends with '\n'.
  const size_t total = (kMagicLen + 4 + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - (kMagicLen + 4 + dict.size() + 1), ' ');
  dict += '\n';
  if (dict.size() > 0xffff) fail(path, "header too long for .npy version 1.0");
  std::ofstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot write .npy file");
  f.write(kMagic, kMagicLen);
  const char ver_len[4] = {1, 0, static_cast<char>(dict.size() & 0xff), static_cast<char>(dict.size() >> 8)};
  f.write(ver_len, 4);
  f.write(dict.data(), static_cast<std::streamsize>(dict.size()));
  f.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
  if (!f) fail(path, "error while writing .npy file");
}

}  // namespace npusim::op
