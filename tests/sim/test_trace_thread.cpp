// The trace file's writing thread (sim/trace/trace_file.h): chunks arrive whole and in order, the size the trace
// limit reads is the same on every run, a failed write on the thread reaches the caller. Its own executable so that
// the ThreadSanitizer tree (tools/build.sh tsan) builds only this of the trace tests.
#include <filesystem>
#include <string_view>
#include <vector>

#include "tests/sim/trace_test_support.h"

namespace npusim::test {
namespace {

// Lines that differ, so that zlib's output size depends on every byte.
std::string numbered_text(int lines) {
  std::string t;
  for (int64_t i = 0; i < lines; ++i)
    t += "line " + std::to_string(i) + " value " + std::to_string(i * 7919 % 100003) + "\n";
  return t;
}

// Many chunks through the thread, in pieces of uneven sizes: the file holds exactly the text, in order.
TEST(TraceFileThread, ManyChunksArriveWholeAndInOrder) {
  const std::string text = numbered_text(400000);  // about 10 MiB
  ASSERT_GT(text.size(), 8 * sim::TraceFile::kChunkBytes);
  for (const bool zip : {false, true}) {
    TempFile f(zip ? ".txt.gz" : ".txt");
    sim::TraceFile file;
    file.open(f.path(), zip);
    for (size_t at = 0, n = 1; at < text.size(); at += n, n = n * 3 % 40000 + 1)
      file.write(std::string_view(text).substr(at, n));
    EXPECT_EQ(file.text_bytes(), text.size());
    file.close();
    EXPECT_EQ(zip ? gunzip(f.path()) : read_text(f.path()), text);
    EXPECT_EQ(file.disk_bytes(), std::filesystem::file_size(f.path()));
  }
}

// The compressed size the size limit reads does not depend on how far the thread got: two runs see the same
// figure after every write, and the last one (an estimate: the text after the counted chunks at their ratio) is
// within 10% of the file's size.
TEST(TraceFileThread, CompressedSizeSoFarIsTheSameOnEveryRun) {
  const std::string text = numbered_text(400000);
  std::vector<uint64_t> seen[2];
  uint64_t closed = 0;
  for (auto& sizes : seen) {
    TempFile f(".txt.gz");
    sim::TraceFile file;
    file.open(f.path(), true);
    for (size_t at = 0; at < text.size(); at += 4096) {
      file.write(std::string_view(text).substr(at, 4096));
      sizes.push_back(file.disk_bytes());
    }
    file.close();
    closed = file.disk_bytes();
  }
  EXPECT_EQ(seen[0], seen[1]);
  ASSERT_GT(closed, 0u);
  EXPECT_LT(closed, text.size() / 2);
  EXPECT_NEAR(double(seen[0].back()), double(closed), 0.1 * double(closed));
}

// A write the thread cannot make (the device is full) reaches the caller as an error naming the file, at the
// latest when it closes, and the thread still ends.
TEST(TraceFileThread, AFailedWriteOnTheThreadIsReported) {
  for (const bool zip : {false, true}) {
    sim::TraceFile file;
    file.open("/dev/full", zip);
    const std::string text = numbered_text(200000);
    try {
      file.write(text);
      file.write(text);
      file.close();
      ADD_FAILURE() << "no error on a full device (gzip " << zip << ")";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("'/dev/full' failed"), std::string::npos) << e.what();
    }
    try {
      file.close();  // the file stays bad: a second close may say so again, but it ends the thread either way
    } catch (const std::runtime_error&) {}
    EXPECT_FALSE(file.is_open());
  }
}

}  // namespace
}  // namespace npusim::test
