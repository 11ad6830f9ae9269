#pragma once
// Internal to the race checker: the conflicts one instruction's accesses found, merged per
// (kind, buffer, earlier instruction) so that a 2040-block operand racing with one earlier
// instruction yields one report with the byte range of the overlap, not 2040.
#include <cstdint>
#include <vector>

#include "isa/instr/instr.h"
#include "sim/check/happens_before.h"

namespace npusim::sim {

enum class RaceKind : uint8_t { RAW, WAR, WAW };  // named as earlier access -> later (current) access

struct RaceHit {
  RaceKind kind;
  isa::Buf buf;
  AgentId other;         // agent of the earlier, unordered access
  uint32_t other_epoch;  // its epoch (identifies the instruction within that agent)
  bool has_id;           // whether other_id is known (GM shadow stores it; local blocks do not)
  uint64_t other_id;
  uint64_t lo, hi;  // hull of the conflicting bytes
  uint64_t bytes;   // conflicting bytes within the hull
};

class RaceHits {
 public:
  void clear() { hits_.clear(); }
  const std::vector<RaceHit>& hits() const { return hits_; }
  bool empty() const { return hits_.empty(); }

  void add(RaceKind kind, isa::Buf buf, AgentId other, uint32_t epoch, bool has_id, uint64_t id, uint64_t lo,
           uint64_t hi) {
    // Search from the back: consecutive blocks usually hit the entry added last.
    for (auto it = hits_.rbegin(); it != hits_.rend(); ++it) {
      if (it->kind == kind && it->buf == buf && it->other == other && it->other_epoch == epoch) {
        it->lo = lo < it->lo ? lo : it->lo;
        it->hi = hi > it->hi ? hi : it->hi;
        it->bytes += hi - lo;
        return;
      }
    }
    hits_.push_back(RaceHit{kind, buf, other, epoch, has_id, id, lo, hi, hi - lo});
  }

 private:
  std::vector<RaceHit> hits_;  // cleared per instruction; keeps its capacity (no allocation when quiet)
};

}  // namespace npusim::sim
