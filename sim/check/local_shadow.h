#pragma once
// Internal to the race checker: shadow state of the local buffers (L1, L0A, L0B, L0C, BT, FB, UB) of every
// core at the granularity of the smallest unit accessed there: 32-byte blocks, 512 B in L0A / L0B and 64 B
// in L0C. An access touching any byte of a granule counts as touching the granule, so an access range is
// rounded out to whole granules. Each (core, buffer) is a RunShadow (run_shadow.h): runs of granules with
// equal state, so an access costs per run it overlaps, not per granule.
// Only the agents (pipes) of one core touch its buffers, at most 8 of them, so a state stores epochs indexed
// by a per-core slot. Instruction ids are not stored (that would triple the state); the checker finds the
// instruction from (agent, epoch) in its history.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"
#include "sim/check/run_shadow.h"

namespace npusim::sim {

class LocalShadow {
 public:
  static constexpr int kMaxSlots = GranuleState::kSlots;
  static constexpr uint64_t kMaxBufferBytes = uint64_t{256} << 20;  // sanity bound on a local buffer

  // Shadow granule of a buffer: the smallest unit any instruction accesses there, so checking per granule
  // is as exact as per byte. L0A / L0B are only touched in whole 512-byte fractals (load2d, mmad), L0C in
  // 64-byte rows of 16 accumulators (mmad fractals, FixPipe rows); everything else in 32-byte blocks.
  // As log2 (ranges are rounded with shifts: divisions showed in profiles) and in bytes.
  static constexpr unsigned granule_shift(isa::Buf b) {
    static_assert(isa::kFractalBytes == 512 && isa::kBlockBytes == 32);
    return b == isa::Buf::L0A || b == isa::Buf::L0B ? 9 : b == isa::Buf::L0C ? 6 : 5;
  }
  static constexpr uint64_t granule(isa::Buf b) { return uint64_t{1} << granule_shift(b); }
  // The granules [first, last) a byte range covers.
  static constexpr uint64_t first_granule(const AccessRange& r) { return r.begin >> granule_shift(r.buf); }
  static constexpr uint64_t end_granule(const AccessRange& r) {
    return (r.end + granule(r.buf) - 1) >> granule_shift(r.buf);
  }

  explicit LocalShadow(const std::vector<int>& core_of_agent);
  // Prepares the checks of one instruction of agent `a` at `epoch`; `clock` is a's current clock.
  void begin(AgentId a, uint32_t epoch, const VectorClock& clock);
  // Checks one local range of that instruction against the shadow and records it; returns the number of
  // granules it covers (the unit of RaceChecker::checks_run, whatever the work per run).
  uint64_t access(const AccessRange& r, RaceHits& hits);
  void reset();
  // The runs of one core's buffer (tests).
  std::vector<RunShadow::Run> runs(int core, isa::Buf buf) const {
    return shadows_[static_cast<size_t>(core) * isa::kNumBufs + static_cast<size_t>(buf)].runs();
  }

 private:
  void report(RaceKind kind, uint32_t slot, uint32_t epoch, uint64_t first, uint64_t last, const AccessRange& r,
              uint64_t g, RaceHits& hits) const;

  std::vector<uint8_t> slot_of_agent_;
  std::vector<int> core_of_agent_;
  std::vector<std::array<AgentId, kMaxSlots>> agent_of_slot_;  // per core
  std::vector<uint8_t> slots_used_;                            // per core
  std::vector<RunShadow> shadows_;                             // [core * kNumBufs + buf]

  // The instruction being checked. clk_[s] is its agent's clock entry for slot s's agent, projected once
  // per instruction so a run check is a table lookup; its own slot (and unused ones) hold the maximum,
  // because an in-order pipe never races with itself.
  int core_ = 0;
  uint32_t own_slot_ = 0;
  uint32_t epoch_ = 0;
  alignas(32) uint32_t clk_[kMaxSlots] = {};
  // Hull of the granules this instruction touched so far in buffer touched_buf_: only there can the runs
  // left by an access equal a neighbour (see RunShadow::Merge).
  isa::Buf touched_buf_ = isa::Buf::GM;
  uint64_t touched_first_ = 0, touched_last_ = 0;
};

}  // namespace npusim::sim
