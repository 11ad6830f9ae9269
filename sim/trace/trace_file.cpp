#include "sim/trace/trace_file.h"

#include <zlib.h>

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

void TraceFile::write(std::string_view text) {
  if (!open_ || text.empty()) return;
  if (gz_) {
    if (gzwrite(static_cast<gzFile>(gz_), text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size()))
      fail();
  } else {
    plain_.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!plain_) fail();
  }
}

void TraceFile::close() {
  if (!open_) return;
  open_ = false;
  if (gz_) {
    const int rc = gzclose(static_cast<gzFile>(gz_));
    gz_ = nullptr;
    if (rc != Z_OK) fail();
  } else {
    plain_.close();
    if (!plain_) fail();
  }
}

void TraceFile::fail() const {
  throw std::runtime_error("writing trace file '" + path_ + "' failed (disk full or removed?)");
}

}  // namespace npusim::sim
