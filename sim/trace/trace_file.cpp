#include "sim/trace/trace_file.h"

#include <pthread.h>
#include <zlib.h>

#include <filesystem>
#include <stdexcept>
#include <tuple>

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
  text_ = withheld_ = closed_disk_ = known_text_ = known_disk_ = thread_text_ = handed_ = 0;
  withhold_ = stopping_ = failed_ = false;
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
  pending_.reserve(kChunkBytes);
  open_ = true;
  thread_ = std::thread(&TraceFile::drain, this);
}

uint64_t TraceFile::disk_bytes() const {
  if (!open_) return closed_disk_;
  if (!gz_) return text_;
  if (known_text_ == 0) return 0;  // no chunk compressed yet: no ratio to count by
  return known_disk_ + uint64_t(double(text_ - known_text_) * double(known_disk_) / double(known_text_));
}

uint64_t TraceFile::estimated_bytes() const {
  const uint64_t disk = disk_bytes();
  if (text_ == 0) return disk + withheld_;
  return disk + uint64_t(double(withheld_) * double(disk) / double(text_));
}

void TraceFile::hand_over() {
  std::unique_lock lock(mutex_);
  std::string next;
  if (!spare_.empty()) next = std::move(spare_.front()), spare_.pop_front();
  queue_.push_back(std::move(pending_));
  pending_ = std::move(next);
  pending_.reserve(kChunkBytes);
  ++handed_;
  cv_.notify_all();
  if (handed_ > kLagChunks) {
    const uint64_t need = handed_ - kLagChunks;
    cv_.wait(lock, [&] { return written_.size() >= need || failed_; });
    if (!failed_) std::tie(known_text_, known_disk_) = written_[need - 1];
  }
  if (failed_) fail();
}

void TraceFile::drain() {
  pthread_setname_np(pthread_self(), "npusim-trace");  // so profilers and top tell it from the simulation
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;
    std::string chunk = std::move(queue_.front());
    queue_.pop_front();
    const bool skip = failed_;
    lock.unlock();
    bool ok = true;
    if (!skip) try {
        write_chunk(chunk);
      } catch (const std::exception&) {
        ok = false;
      }
    const uint64_t disk = gz_ ? uint64_t(std::max<z_off_t>(0, gzoffset(static_cast<gzFile>(gz_)))) : thread_text_;
    lock.lock();
    failed_ = failed_ || !ok;
    written_.emplace_back(thread_text_, disk);
    chunk.clear();
    spare_.push_back(std::move(chunk));
    cv_.notify_all();
  }
}

void TraceFile::write_chunk(const std::string& chunk) {
  thread_text_ += chunk.size();
  if (gz_) {
    if (gzwrite(static_cast<gzFile>(gz_), chunk.data(), static_cast<unsigned>(chunk.size())) !=
        static_cast<int>(chunk.size()))
      fail();
  } else {
    plain_.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!plain_) fail();
  }
}

void TraceFile::stop_thread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TraceFile::close() {
  if (!open_) return;
  open_ = false;
  if (!pending_.empty()) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(pending_));
    ++handed_;
  }
  stop_thread();
  bool failed = failed_;
  closed_disk_ = thread_text_;
  if (gz_) {
    failed = gzclose(static_cast<gzFile>(gz_)) != Z_OK || failed;
    gz_ = nullptr;
  } else {
    plain_.close();
    failed = !plain_ || failed;
  }
  queue_.clear(), spare_.clear(), written_.clear(), pending_ = std::string();
  std::error_code ec;
  if (const auto n = std::filesystem::file_size(path_, ec); !ec) closed_disk_ = n;
  if (failed) fail();
}

void TraceFile::fail() const {
  throw std::runtime_error("writing trace file '" + path_ + "' failed (disk full or removed?)");
}

}  // namespace npusim::sim
