#pragma once
// Internal to the race checker: the last RaceChecker::kHistory instructions of one agent that touched
// memory, indexed by epoch (dense per agent, unlike the launch-wide instruction id), to name the earlier
// instruction of a race.
// Why it looks like this: it is written for every instruction and read only when a race is reported, and
// it is the checker's largest memory (4096 records of 160 bytes per agent, a new checker per launch: about
// 150 MB on a FlashAttention launch over 72 cores). Faulting that in 4 KiB pages cost about as much as all
// the local race checks (~10 us a page fault under virtualisation), so the rings of all agents come from
// one arena mapped with transparent huge pages, handed out in segments of 512 records as they fill: the
// memory touched is packed (a short launch with a few hundred records per agent backs a few huge pages,
// not one per agent) and untouched agents cost nothing. Ordinary stores would also read every record's
// cache lines before overwriting them and push the shadows out of the cache, so records go out with
// non-temporal (streaming) stores into storage never constructed or zeroed. A record keeps only what
// differs per instruction (core and pipe are the agent's) and the text only once an instruction came with
// one (the machine passes none).
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/check/race_checker.h"

namespace npusim::sim {

// One record: the instruction as bytes (it is trivially copyable, and raw bytes need no construction).
struct alignas(32) HistoryRecord {
  uint64_t id, cycle;
  alignas(8) unsigned char instr[sizeof(isa::Instr)];
};
static_assert(std::is_trivially_copyable_v<isa::Instr>);
static_assert(sizeof(HistoryRecord) % 32 == 0, "records are streamed out 32 bytes at a time");

// Storage for the rings of up to `rings` agents: one anonymous mapping, advised to use huge pages (plain
// operator new where mmap fails). Pages are only backed once touched.
class HistoryArena {
 public:
  static constexpr size_t kSegment = 512;  // records handed out at a time
  static_assert(RaceChecker::kHistory % kSegment == 0);
  static constexpr size_t kRingBytes = sizeof(HistoryRecord) * RaceChecker::kHistory;

  explicit HistoryArena(size_t rings) : bytes_(rings * kRingBytes) {
    if (bytes_ == 0) return;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, bytes_, MADV_HUGEPAGE);  // advice only: ignored where unsupported
      base_ = static_cast<unsigned char*>(p);
    } else {
      base_ = static_cast<unsigned char*>(::operator new (bytes_, std::align_val_t{64}));
      mapped_ = false;
    }
  }
  ~HistoryArena() {
    if (!base_) return;
    if (mapped_) munmap(base_, bytes_);
    else ::operator delete (base_, std::align_val_t{64});
  }
  HistoryArena(const HistoryArena&) = delete;
  HistoryArena& operator=(const HistoryArena&) = delete;

  // The next unused segment of kSegment records; null once all are handed out (never, with a ring's
  // worth per agent).
  HistoryRecord* take_segment() {
    constexpr size_t bytes = sizeof(HistoryRecord) * kSegment;
    if (used_ + bytes > bytes_) return nullptr;
    auto* segment = reinterpret_cast<HistoryRecord*>(base_ + used_);
    used_ += bytes;
    return segment;
  }

 private:
  unsigned char* base_ = nullptr;
  size_t bytes_ = 0, used_ = 0;
  bool mapped_ = true;
};

class InstrHistory {
 public:
  static constexpr size_t kSize = RaceChecker::kHistory;

  void record(uint32_t epoch, const InstrRef& info, HistoryArena& arena) {
    if (epochs_.empty()) epochs_.assign(kSize, 0);
    const size_t slot = epoch % kSize;
    Record*& segment = segments_[slot / HistoryArena::kSegment];
    if (!segment && !(segment = arena.take_segment())) return;  // (cannot fail: see take_segment)
    Record r;
    r.id = info.id;
    r.cycle = info.cycle;
    std::memcpy(r.instr, info.instr, sizeof r.instr);
    const auto* from = reinterpret_cast<const __m256i*>(&r);
    auto* to = reinterpret_cast<__m256i*>(segment + slot % HistoryArena::kSegment);
    for (size_t i = 0; i < sizeof(Record) / 32; ++i) _mm256_stream_si256(to + i, _mm256_load_si256(from + i));
    epochs_[slot] = epoch;
    if (!info.text.empty() || !texts_.empty()) {
      texts_.resize(kSize);
      texts_[slot] = std::string(info.text);
    }
  }

  // The instruction of `epoch` as an InstrInfo of `agent` (its core and pipe), if still in the ring.
  std::optional<InstrInfo> find(uint32_t epoch, const InstrInfo& agent) const {
    const size_t slot = epoch % kSize;
    if (epochs_.empty() || epochs_[slot] != epoch) return std::nullopt;
    const Record& r = segments_[slot / HistoryArena::kSegment][slot % HistoryArena::kSegment];
    InstrInfo info{r.id, agent.core, agent.core_name, agent.pipe, r.cycle, texts_.empty() ? "" : texts_[slot], {}};
    std::memcpy(static_cast<void*>(&info.instr), r.instr, sizeof r.instr);
    return info;
  }

  void clear() { std::fill(epochs_.begin(), epochs_.end(), 0); }  // keeps the memory

 private:
  using Record = HistoryRecord;

  std::array<Record*, kSize / HistoryArena::kSegment> segments_{};  // slots, taken from the arena as used
  std::vector<uint32_t> epochs_;                                    // epoch held by each slot (0: empty)
  std::vector<std::string> texts_;  // per slot, or empty while every instruction came without text
};

}  // namespace npusim::sim
