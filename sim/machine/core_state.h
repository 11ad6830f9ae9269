#pragma once
// The state of the simulated cores (internal to sim/machine): per core its pipes with their in-order queues,
// flag slots, cross-core counters, local buffers, scalar registers and what its scalar unit waits for.
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "isa/instr/sync_rules.h"
#include "isa/semantics/exec.h"
#include "sim/check/happens_before.h"
#include "sim/engine/fiber.h"
#include "sim/machine/dcache.h"
#include "sim/machine/instr_memo.h"
#include "sim/machine/machine.h"

namespace npusim::sim {

// A stable copy of an instruction found at issue, so that the queues need not copy it: its entry in the
// instruction memo (pinned there until the pipe is done with it), or the memo's shared copy of a flag
// instruction. Most of a kernel's instructions are one or the other (instr_memo.h).
struct KnownInstr {
  const isa::Instr* in = nullptr;          // the copy, or null: unknown, the queue keeps its own
  const InstrMemo::Entry* memo = nullptr;  // the memo entry that holds it, or null
};

// An issued instruction, as its pipe's queue holds it: a 40-byte record pointing at a known copy of the
// instruction or at the queue's own copy (KnownInstr). Written at issue and read at the pop, dozens of
// instructions later with 72 cores' queues in between, a 136-byte record holding the instruction was mostly
// two or three host cache misses each way (sim/README.md "Simulator speed", stop 32).
struct QueuedInstr {
  const isa::Instr* in = nullptr;          // the instruction (in the memo's entry or the queue's own storage)
  const InstrMemo::Entry* memo = nullptr;  // the memo entry found at issue, pinned; null when not found
  uint64_t id = 0;
  uint64_t ready = 0;  // the scalar unit's (decoupled) time at issue
  uint32_t stage = 0;  // the trace stage it was issued under (TraceWriter::open_stage; 0 = none)
  const isa::Instr& instr() const { return *in; }
};

// A FIFO over a fixed array (no allocation once reset): the pipes' queues and the scalar unit's pending issues.
template <class T>
class Ring {
 public:
  void reset(size_t capacity) {
    slots_.resize(capacity);
    head_ = size_ = 0;
  }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == slots_.size(); }
  size_t size() const { return size_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& push_back() { return slots_[wrap(head_ + size_++)]; }  // the new last slot, to be filled; callers keep !full()
  // Removes the head; the slot keeps its contents until a push reaches it again.
  T& pop_front() {
    T& t = slots_[head_];
    head_ = wrap(head_ + 1);
    --size_;
    return t;
  }
  void clear() { head_ = size_ = 0; }
  size_t index_of(const T& t) const { return size_t(&t - slots_.data()); }  // t: one of this ring's slots

 private:
  // An index below twice the ring size, wrapped (a modulo by a size that is not a power of two is a division
  // per issue and per pop).
  size_t wrap(size_t i) const { return i >= slots_.size() ? i - slots_.size() : i; }
  std::vector<T> slots_;
  size_t head_ = 0, size_ = 0;
};

// A pipe's instruction queue: a ring over a fixed array (its depth is the config's), so issuing and popping
// never allocate. The ring has one slot more than the depth: the instruction popped last stays where it is,
// untouched by pushes, until the next pop, so the pipe executes it in place instead of copying it out (a
// copy of a cold 168-byte record per simulated instruction was the largest cost of a pipe step).
class InstrQueue {
 public:
  void reset(size_t depth) {
    ring_.reset(std::max<size_t>(depth, 1) + 1);
    own_.resize(std::max<size_t>(depth, 1) + 1);
    popped_ = nullptr;
  }
  bool empty() const { return ring_.empty(); }
  size_t size() const { return ring_.size(); }
  QueuedInstr& front() { return ring_.front(); }
  const QueuedInstr& front() const { return ring_.front(); }
  // Appends `in`, copied into the slot's own storage unless a known copy is given. Callers keep size() < depth.
  void emplace_back(const isa::Instr& in, KnownInstr known, uint64_t id, uint64_t ready, uint32_t stage) {
    QueuedInstr& q = ring_.push_back();
    if (known.in) {
      q.in = known.in;
    } else {
      isa::Instr& own = own_[ring_.index_of(q)];
      own = in;
      q.in = &own;
    }
    q.memo = known.memo, q.id = id, q.ready = ready, q.stage = stage;
  }
  // Removes the head and returns it; the reference stays valid until the next pop_front / reset / clear.
  const QueuedInstr& pop_front() { return *(popped_ = &ring_.pop_front()); }
  // The instruction popped last (null before the first pop).
  const QueuedInstr* popped() const { return popped_; }
  void clear() {
    ring_.clear();
    popped_ = nullptr;
  }

 private:
  Ring<QueuedInstr> ring_;
  std::vector<isa::Instr> own_;  // beside ring_, slot for slot: the instructions the memo did not know
  const QueuedInstr* popped_ = nullptr;
};

// What a pipe's head instruction is doing.
enum class PipeActivity : uint8_t {
  Idle,      // nothing popped (queue empty, or a pop is scheduled)
  Starting,  // popped; waits for its start cycle (issue time, pipe free, earlier results for sync)
  Waiting,   // a wait_flag whose flag is not set (or not visible) yet
};

struct PipeState {
  isa::Pipe pipe = isa::Pipe::S;
  InstrQueue q;
  size_t depth = 32;
  uint64_t next_free = 0, last_completion = 0;
  PipeActivity activity = PipeActivity::Idle;
  bool step_scheduled = false;                            // a pipe event for this pipe is in the engine's queue
  const QueuedInstr& cur() const { return *q.popped(); }  // the popped instruction (activity != Idle)
  uint64_t start = 0;                                     // its start cycle
  AgentId agent = 0;
  uint64_t scalar_version_seen = UINT64_MAX;
  bool active() const { return activity != PipeActivity::Idle; }
};

// The pipe (or the scalar unit) waiting on a flag slot; at most one: a slot is waited by its destination pipe.
// (The set_flag that set it is the slot's own (src, dst, event): fault messages rebuild its text from those.)
struct FlagSlot {
  bool set = false;
  uint64_t set_id = 0, set_cycle = 0;  // set_cycle: when the set becomes visible
  VectorClock vc;
};

struct CrossCounter {
  std::deque<uint64_t> visible_at;  // one entry per pending set: the cycle it becomes visible, oldest first
  VectorClock vc;
  uint64_t last_set_id = 0;
  int last_set_core = 0;
  isa::Pipe last_set_pipe = isa::Pipe::S;
  uint64_t last_set_cycle = 0;
};

// An instruction the kernel program issued while its scalar unit was, in simulated time, still waiting for a
// full queue (scalar_unit.cpp "Running ahead"): held in issue order until the scalar unit reaches it.
struct PendingIssue {
  KnownInstr known;  // none: the instruction is in the list's own storage
  isa::Pipe pipe = isa::Pipe::S;
  bool waited = false;  // found its queue full: id, issue cost and `own` are settled; it waits for a pop
  uint32_t stage = 0;
  uint64_t id = 0;
  uint64_t own = 0;  // waited: the scalar's own (decoupled) time when it found the queue full
};

// How far a kernel program may run ahead of its scalar unit, in pipe instructions: each suspension of the
// program then covers up to this many issues (a queue-bound kernel's used to cover one).
inline constexpr size_t kRunAheadIssues = 32;

// The pending issues, in the program's order (reset to kRunAheadIssues); as in a pipe's queue, a known
// instruction is not copied.
class PendingIssues {
 public:
  void reset(size_t capacity) {
    ring_.reset(capacity);
    own_.resize(capacity);
  }
  bool empty() const { return ring_.empty(); }
  bool full() const { return ring_.full(); }
  PendingIssue& front() { return ring_.front(); }
  // Appends `in`, copied unless a known copy is given; callers keep !full().
  PendingIssue& push_back(const isa::Instr& in, KnownInstr known) {
    PendingIssue& e = ring_.push_back();
    e.known = known;
    if (!known.in) own_[ring_.index_of(e)] = in;
    return e;
  }
  const isa::Instr& instr(const PendingIssue& e) const { return e.known.in ? *e.known.in : own_[ring_.index_of(e)]; }
  void pop_front() { ring_.pop_front(); }
  void clear() { ring_.clear(); }

 private:
  Ring<PendingIssue> ring_;
  std::vector<isa::Instr> own_;  // beside ring_, slot for slot
};

// What the scalar unit is blocked on (the deadlock report renders it).
enum class ScalarWait : uint8_t { None, Time, Queue, Drain, Flag, Cross, SyncAll };

struct CoreState {
  int index = 0;
  isa::CoreKind kind = isa::CoreKind::Cube;
  std::string name;
  int ai_core = 0;  // the AI Core this core belongs to
  int sub = 0;      // 0 / 1 for the AIVs of an AI Core
  std::array<PipeState, isa::kNumPipes> pipes;
  // The local buffers' sizes, and their bytes outside timing mode (timing mode moves no data: allocating and
  // zeroing ~65 MB of buffers for 72 cores was most of its setup time and resident memory).
  std::array<uint64_t, isa::kNumBufs> local_bytes{};
  std::array<std::vector<uint8_t>, isa::kNumBufs> local;
  std::array<uint64_t, isa::kNumBufs> alloc_top{};
  isa::ExecContext ctx;
  isa::ScalarRegs regs{};
  DCache dcache;  // scalar loads: timing only
  std::array<std::array<std::array<FlagSlot, isa::kNumEventIds>, isa::kNumPipes>, isa::kNumPipes> flags;
  std::array<CrossCounter, isa::kNumCrossFlags> cross;
  // per launch
  bool in_launch = false, done = false;
  int block_idx = 0, block_num = 0, sub_block = 0;
  uint64_t local_offset = 0;  // scalar cycles not yet synchronised with simulated time
  std::unique_ptr<Fiber> fiber;
  bool scalar_scheduled = false;  // a scalar event for this core is in the engine's queue
  ScalarWait wait = ScalarWait::None;
  isa::Pipe wait_pipe = isa::Pipe::S;  // Queue: the full queue's pipe; Flag: the slot's src pipe
  uint64_t wait_not_before = 0;        // Queue: the scalar's own issue time; a pop before it wakes it then
  int wait_arg = 0;                    // Flag: event id; Cross: flag id
  uint64_t wait_id = 0;                // the instruction it waits in (reports)
  uint32_t stage = 0;                  // the trace stage its next instructions belong to (0 = none)
  PendingIssues pending;               // issued by the program, not yet by the scalar unit (running ahead)
  CoreStats stats;
  FlagSlot& flag(isa::Pipe src, isa::Pipe dst, int e) { return flags[size_t(src)][size_t(dst)][size_t(e)]; }
};

}  // namespace npusim::sim
