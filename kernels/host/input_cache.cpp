#include "kernels/host/input_cache.h"

#include <xxhash.h>

#include <unistd.h>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace npusim::op {

namespace {
namespace fs = std::filesystem;

// Bump when the generator's algorithm changes (case_generate.cpp): old entries then never match.
constexpr const char* kGeneratorVersion = "npusim-generate-v1";
constexpr uint64_t kMagic = 0x31565f4e49505355ull;  // "USPIN_V1"

// Every parameter that decides the bits, doubles as their bit patterns.
std::string key_text(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init) {
  std::string k = kGeneratorVersion;  // (appends only: GCC 12 warns falsely on chained string +)
  k.append("|").append(elem_type_name(t)).append("|");
  for (int64_t d : shape) k.append(std::to_string(d)).append(",");
  k.append("|").append(init.dist).append("|").append(std::to_string(init.seed));
  for (double v : {init.mean, init.std, init.low, init.high, init.p})
    k.append("|").append(std::to_string(std::bit_cast<uint64_t>(v)));
  return k;
}

bool cache_on() {
  const char* v = std::getenv("NPUSIM_INPUT_CACHE");
  return !(v && std::string(v) == "0");
}

// The entry's file layout: magic, key length, key, data length, XXH3 of the data, data.
bool read_entry(const std::string& path, const std::string& key, HostTensor& h) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  uint64_t magic = 0, klen = 0, dlen = 0, hash = 0;
  f.read(reinterpret_cast<char*>(&magic), 8).read(reinterpret_cast<char*>(&klen), 8);
  if (!f || magic != kMagic || klen != key.size()) return false;
  std::string k(klen, '\0');
  f.read(k.data(), std::streamsize(klen))
      .read(reinterpret_cast<char*>(&dlen), 8)
      .read(reinterpret_cast<char*>(&hash), 8);
  if (!f || k != key || dlen != h.bytes.size()) return false;
  f.read(reinterpret_cast<char*>(h.bytes.data()), std::streamsize(dlen));
  return f && XXH3_64bits(h.bytes.data(), h.bytes.size()) == hash;
}

void write_entry(const std::string& path, const std::string& key, const HostTensor& h) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = std::string(path).append(".tmp.").append(std::to_string(getpid()));
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return;
    const uint64_t klen = key.size(), dlen = h.bytes.size(), hash = XXH3_64bits(h.bytes.data(), h.bytes.size());
    f.write(reinterpret_cast<const char*>(&kMagic), 8).write(reinterpret_cast<const char*>(&klen), 8);
    f.write(key.data(), std::streamsize(klen)).write(reinterpret_cast<const char*>(&dlen), 8);
    f.write(reinterpret_cast<const char*>(&hash), 8)
        .write(reinterpret_cast<const char*>(h.bytes.data()), std::streamsize(dlen));
    if (!f) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);  // atomic: concurrent runs see the old state or the whole entry
  if (ec) fs::remove(tmp, ec);
}
}  // namespace

std::string cache_subdir(const std::string& sub) {
  if (const char* d = std::getenv("NPUSIM_CACHE_DIR"); d && *d) return (fs::path(d) / sub).string();
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "npusim" / sub).string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "npusim" / sub).string();
  return "";
}

std::string input_cache_dir() { return cache_on() ? cache_subdir("inputs") : ""; }

std::string input_cache_entry(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init) {
  const std::string dir = input_cache_dir(), key = key_text(t, shape, init);
  if (dir.empty()) return "";
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())));
  return (fs::path(dir) / name).string();
}

HostTensor generate_cached(ElemType t, const std::vector<int64_t>& shape, const InitSpec& init) {
  check_generator(t, shape, init);
  HostTensor h = HostTensor::zeros(t, shape);
  const std::string path = h.bytes.size() >= kMinCacheBytes ? input_cache_entry(t, shape, init) : "";
  if (init.dist == "zeros") return h;
  if (path.empty()) return generate(t, shape, init);
  const std::string key = key_text(t, shape, init);
  if (read_entry(path, key, h)) return h;
  h = generate(t, shape, init);
  write_entry(path, key, h);
  return h;
}

}  // namespace npusim::op
