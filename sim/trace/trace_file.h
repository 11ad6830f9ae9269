#pragma once
// One output file of the trace, plain or gzip-compressed (zlib): the writer streams text into it either way.
// A gzip trace is about 8x smaller; Perfetto and npusim report open `trace.json.gz` directly.
//
// Writing, and above all compressing, runs on a thread of the file's own, so the simulation does not wait for it
// (zlib took 40% of a gzip-traced run when it ran inline): write() appends to a chunk of kChunkBytes, a full
// chunk goes to the thread, and the caller waits only when the thread is more than kLagChunks chunks behind, which
// also bounds the memory a trace holds (traces/README.md "Size").
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace npusim::sim {

class TraceFile {
 public:
  static constexpr size_t kChunkBytes = size_t(1) << 20;
  static constexpr uint64_t kLagChunks = 2;

  TraceFile() = default;
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
  // Opens `path` for writing (gzip when `gzip`); throws std::runtime_error naming the path when it cannot.
  void open(const std::string& path, bool gzip);
  bool is_open() const { return open_; }
  // Throws std::runtime_error naming the path when a write failed (disk full, file removed): the thread's
  // failure shows at the next write() or close() after it.
  void write(std::string_view text) {
    append([text](std::string& chunk) { chunk += text; });
  }
  // write() of the text fill(chunk) appends, formatted straight into the chunk (no copy: the trace formats a line
  // per instruction).
  template <class Fill>
  void append(Fill&& fill) {
    if (!open_) return;
    const size_t at = pending_.size();
    fill(pending_);
    const size_t n = pending_.size() - at;
    if (withhold_) {
      withheld_ += n;
      pending_.resize(at);
      return;
    }
    text_ += n;
    if (pending_.size() >= kChunkBytes) hand_over();
  }
  void close();  // flushes, joins the thread; throws like write() when the last bytes cannot be written
  const std::string& path() const { return path_; }
  // Bytes in the file so far: plain, the text written; gzip, the compressed size of the chunks the thread finished
  // up to kLagChunks behind the last handed over (the same chunks on every run: the figure, and the cycle at
  // which a size limit trips, do not depend on thread timing), the text after them counted at their ratio.
  uint64_t disk_bytes() const;
  uint64_t text_bytes() const { return text_; }
  // From now on write() only counts (a trace over its size limit): withheld_text() bytes were not written.
  void withhold() { withhold_ = true; }
  uint64_t withheld_text() const { return withheld_; }
  // The file's size had everything been written: the withheld text at the compression ratio so far.
  uint64_t estimated_bytes() const;

 private:
  void hand_over();  // the pending chunk to the thread; waits while it is more than kLagChunks behind
  void drain();      // the thread's loop: writes chunks in order until told to stop
  void write_chunk(const std::string& chunk);
  void stop_thread();
  void fail() const;

  std::string path_;
  bool open_ = false, withhold_ = false;
  uint64_t text_ = 0, withheld_ = 0, closed_disk_ = 0;
  uint64_t known_text_ = 0, known_disk_ = 0;  // text and compressed bytes of the chunks disk_bytes() counts
  std::string pending_;                       // the chunk being filled

  // Shared with the thread (under mutex_).
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_, spare_;  // chunks to write; written ones kept for reuse (no allocation per MiB)
  std::vector<std::pair<uint64_t, uint64_t>> written_;  // per written chunk: text and file bytes after it
  uint64_t handed_ = 0;                                 // chunks handed over
  bool stopping_ = false, failed_ = false;
  std::thread thread_;

  // The thread's own once it runs.
  std::ofstream plain_;
  void* gz_ = nullptr;  // gzFile (zlib.h stays out of this header)
  uint64_t thread_text_ = 0;
};

}  // namespace npusim::sim
