#pragma once
// One output file of the trace, plain or gzip-compressed (zlib): the writer streams text into it either way.
// A gzip trace is about 8x smaller; Perfetto and npusim report open `trace.json.gz` directly.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

namespace npusim::sim {

class TraceFile {
 public:
  TraceFile() = default;
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
  // Opens `path` for writing (gzip when `gzip`); throws std::runtime_error naming the path when it cannot.
  void open(const std::string& path, bool gzip);
  bool is_open() const { return open_; }
  // Throws std::runtime_error naming the path when the write fails (disk full, file removed).
  void write(std::string_view text);
  void close();  // flushes; throws like write() when the last bytes cannot be written
  const std::string& path() const { return path_; }
  // Bytes in the file so far (gzip: compressed, up to zlib's buffer, re-read from the file once per MiB of text: each
  // read is a system call, and the trace writer asks after every slice) and text bytes written into it.
  uint64_t disk_bytes() const;
  uint64_t text_bytes() const { return text_; }
  // From now on write() only counts (a trace over its size limit): withheld_text() bytes were not written.
  void withhold() { withhold_ = true; }
  uint64_t withheld_text() const { return withheld_; }
  // The file's size had everything been written: the withheld text at the compression ratio so far.
  uint64_t estimated_bytes() const;

 private:
  void fail() const;
  std::string path_;
  bool open_ = false, withhold_ = false;
  uint64_t text_ = 0, withheld_ = 0, closed_disk_ = 0;
  mutable uint64_t gz_disk_ = 0, gz_disk_text_ = 0;  // the last compressed offset read, and text_ when it was read
  std::ofstream plain_;
  void* gz_ = nullptr;  // gzFile (zlib.h stays out of this header)
};

}  // namespace npusim::sim
