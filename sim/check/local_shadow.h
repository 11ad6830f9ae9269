#pragma once
// Internal to the race checker: shadow state of the local buffers (L1, L0A, L0B, L0C, BT, FB, UB) of every
// core at 32-byte-block granularity (512 B in L0A / L0B and 64 B in L0C: the smallest units accessed
// there). Only the agents (pipes) of one core touch its buffers, at most 8 of them, so each block stores epochs indexed by a per-core slot: one dense array per (core, buffer),
// allocated at first touch and grown to the highest block touched. Instruction ids are not stored (that
// would triple the block); the checker finds the instruction from (agent, epoch) in its history.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/check/race_checker.h"
#include "sim/check/race_hits.h"

namespace npusim::sim {

class LocalShadow {
 public:
  static constexpr int kMaxSlots = 8;
  static constexpr uint64_t kMaxBufferBytes = uint64_t{256} << 20;  // sanity bound on a local buffer

  explicit LocalShadow(const std::vector<int>& core_of_agent);
  // Prepares the checks of one instruction of agent `a` at `epoch`; `clock` is a's current clock.
  void begin(AgentId a, uint32_t epoch, const VectorClock& clock);
  // Checks one local range of that instruction against the shadow and records it; returns blocks checked.
  uint64_t access(const AccessRange& r, RaceHits& hits);
  void reset();

 private:
  struct Block {
    uint32_t read[kMaxSlots];  // epoch of each slot's last read since the last write (0: none)
    uint32_t w_epoch;          // epoch of the last write (0: none)
    uint32_t w_slot;           // slot of the last writer
  };

  Block* blocks(isa::Buf buf, uint64_t end_block);
  void report(RaceKind kind, isa::Buf buf, uint32_t slot, uint32_t epoch, uint64_t block, const AccessRange& r,
              RaceHits& hits) const;
  void read_blocks(Block* b, uint64_t first, uint64_t last, const AccessRange& r, RaceHits& hits);
  void write_blocks(Block* b, uint64_t first, uint64_t last, const AccessRange& r, RaceHits& hits);

  std::vector<uint8_t> slot_of_agent_;
  std::vector<int> core_of_agent_;
  std::vector<std::array<AgentId, kMaxSlots>> agent_of_slot_;  // per core
  std::vector<uint8_t> slots_used_;                            // per core
  std::vector<std::vector<Block>> shadows_;                    // [core * kNumBufs + buf]

  // The instruction being checked. clk_[s] is its agent's clock entry for slot s's agent, projected once
  // per instruction so a block check is a table lookup; its own slot (and unused ones) hold the maximum,
  // because an in-order pipe never races with itself.
  int core_ = 0;
  uint32_t own_slot_ = 0;
  uint32_t epoch_ = 0;
  uint32_t clk_[kMaxSlots] = {};
};

}  // namespace npusim::sim
