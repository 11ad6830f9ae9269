#include "sim/trace/trace_file.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace npusim::sim {

TraceFile::~TraceFile() {
  try {
    close();
  } catch (const std::exception&) {  // a destructor must not throw; close() explicitly to see the error
  }
}

void TraceFile::open(const std::string& path, bool gzip) {
  close();
  path_ = path;
  text_ = withheld_ = closed_disk_ = gz_disk_ = gz_disk_text_ = 0, withhold_ = false;
  if (gzip) {
    // Level 1: trace JSON is so repetitive that zlib's fastest level already compresses it 8x; the default level 6
    // (13x) takes twice as long to compress (traces/README.md "Size").
    gz_ = gzopen(path.c_str(), "wb1");
    if (!gz_) throw std::runtime_error("cannot open trace file '" + path + "' for writing");
    gzbuffer(static_cast<gzFile>(gz_), 1 << 17);
  } else {
    plain_.open(path, std::ios::binary | std::ios::trunc);
    if (!plain_) throw std::runtime_error("cannot open trace file '" + path + "' for writing");
  }
  open_ = true;
}

uint64_t TraceFile::disk_bytes() const {
  if (!open_) return closed_disk_;
  if (!gz_) return text_;
  if (text_ - gz_disk_text_ >= (uint64_t(1) << 20))
    gz_disk_ = uint64_t(std::max<z_off_t>(0, gzoffset(static_cast<gzFile>(gz_)))), gz_disk_text_ = text_;
  return gz_disk_;
}

uint64_t TraceFile::estimated_bytes() const {
  const uint64_t disk = disk_bytes();
  if (text_ == 0) return disk + withheld_;
  return disk + uint64_t(double(withheld_) * double(disk) / double(text_));
}

void TraceFile::write(std::string_view text) {
  if (!open_ || text.empty()) return;
  if (withhold_) {
    withheld_ += text.size();
    return;
  }
  text_ += text.size();
  if (gz_) {
    if (gzwrite(static_cast<gzFile>(gz_), text.data(), static_cast<unsigned>(text.size())) !=
        static_cast<int>(text.size()))
      fail();
  } else {
    plain_.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!plain_) fail();
  }
}

void TraceFile::close() {
  if (!open_) return;
  closed_disk_ = disk_bytes();
  open_ = false;
  if (gz_) {
    const int rc = gzclose(static_cast<gzFile>(gz_));
    gz_ = nullptr;
    if (rc != Z_OK) fail();
  } else {
    plain_.close();
    if (!plain_) fail();
  }
  std::error_code ec;
  if (const auto n = std::filesystem::file_size(path_, ec); !ec) closed_disk_ = n;
}

void TraceFile::fail() const {
  throw std::runtime_error("writing trace file '" + path_ + "' failed (disk full or removed?)");
}

}  // namespace npusim::sim
