// The scalar unit: runs a kernel program (plain C++, on a fiber) at simulated time. Issuing costs
// scalar.issue_cycles, accumulated locally and synchronised with simulated time only when the scalar must
// observe something (a full queue, a flag, a GM load, the end of the kernel), so the program runs ahead of its
// pipes as the real scalar unit does. Each stall is one fiber yield; whatever ends it schedules the scalar's
// next event (Waker::wake_scalar).
//
// Running ahead. A queue-bound kernel used to find its queue full at nearly every instruction: its fiber was
// suspended until the pop, resumed to issue one instruction and suspended again -- two fiber switches per
// simulated instruction. Now the program keeps running when the scalar unit starts to wait for a slot: what it
// issues to the pipes is held in order in c.pending (at most kRunAheadIssues), and the scalar unit works
// through that list in its own events (replay), at the simulated time it reaches each instruction, exactly as
// the resumed program would have: same ids, issue costs, queue waits, pushes and kicks, in the same event
// order. The program is suspended only when the list is full or it needs the scalar unit itself (a scalar-side
// instruction, a rejected one, an error, its end): it then waits until the list is worked off. Nothing the
// program can observe depends on simulated time, so running it early changes no result. With a trace the
// program does not run ahead (its stage labels are numbered as it opens them).
#include <algorithm>
#include <stdexcept>

#include "isa/instr/operand.h"
#include "isa/instr/overloaded.h"
#include "isa/instr/traits.h"
#include "isa/text/asm.h"
#include "sim/machine/core_ctx.h"
#include "sim/machine/machine_impl.h"
#include "sim/machine/scalar_unit.h"

namespace npusim::sim {

using namespace isa;

namespace {
constexpr uint8_t kScratchReg = kNumScalarRegs - 1;  // load_scalar's destination; reserved for kernels

bool is_scalar_side(const Instr& in, Pipe p) {  // p = pipe_of(in)
  return p == Pipe::S || p == Pipe::ALL || std::holds_alternative<CrossWait>(in);
}

// Why a core of `kind` lacks what `in` needs (a pipe, or a set_flag / wait_flag's event), once issuable() found
// it does (out of line: rarely run).
[[gnu::cold, gnu::noinline]] std::string missing(CoreKind kind, const Instr& in, Pipe pipe) {
  const std::string lacks = "an " + std::string(core_kind_name(kind)) + " core has no ";
  if (!core_has_pipe(kind, pipe)) return lacks + std::string(pipe_name(pipe)) + " pipe";
  const auto* set = std::get_if<SetFlag>(&in);
  const auto* wait = std::get_if<WaitFlag>(&in);
  const Pipe src = set ? set->src : wait->src, dst = set ? set->dst : wait->dst;
  return lacks + "hardware event " + std::string(pipe_name(src)) + "->" + std::string(pipe_name(dst));
}
}  // namespace

// Whether `in` can be issued on this core; when it cannot and `why` is given, the reason (built only then: this
// runs for every instruction). Sync instructions have their field ranges (event ids, flag ids, modes) checked
// before they index any table.
bool ScalarRunner::issuable(CoreState& c, const Instr& in, Pipe pipe, std::string* why) const {
  if (is_sync(in)) {
    try {
      execute(in, c.ctx);
    } catch (const IsaError& e) {
      if (why) *why = e.what();
      return false;
    }
  }
  bool ok = core_has_pipe(c.kind, pipe);
  if (auto* f = std::get_if<SetFlag>(&in); ok && f) ok = event_pair_valid(f->src, f->dst, c.kind);
  if (auto* w = std::get_if<WaitFlag>(&in); ok && w) ok = event_pair_valid(w->src, w->dst, c.kind);
  if (!ok && why) *why = missing(c.kind, in, pipe);
  return ok;
}

// The issue cost of one instruction; returns the scalar unit's (decoupled) time at issue.
uint64_t ScalarRunner::charge_issue(CoreState& c) {
  const uint64_t cost = clock_.timed(res_.hw.scalar.issue_cycles);
  c.local_offset += cost;
  auto& sstat = c.stats.pipes[static_cast<size_t>(Pipe::S)];
  sstat.busy_cycles += cost;
  ++sstat.instructions;
  return clock_.now() + c.local_offset;
}

// The queue of `pipe` is full: one wait for both conditions, the scalar's own (decoupled) time `own` and a free
// slot. It resumes at the later of the pipe's next pop and that time -- the cycle at which catching up with
// simulated time and then waiting for a pop would resume it, with one wake instead of two (most of a
// queue-bound kernel's). Only the scalar unit pushes: the queue stays full until the pop.
void ScalarRunner::wait_for_slot(CoreState& c, Pipe pipe, uint64_t id, uint64_t own) {
  c.local_offset = 0;
  c.wait = ScalarWait::Queue;
  c.wait_pipe = pipe;
  c.wait_not_before = own;
  c.wait_id = id;
}

// A known copy of an instruction on its way to a pipe (core_state.h KnownInstr): its memo entry, pinned for
// the queue slot or pending issue that will refer to it, or a shared flag instruction. Looked up here, where
// the instruction is still in the host's cache.
KnownInstr ScalarRunner::known(const CoreState& c, const Instr& in) {
  if (side_of(in) == Side::Pipe) {
    const InstrMemo::Entry* e = res_.memo.find(in, c.kind);
    if (!e) return {};
    res_.memo.pin(*e);
    return {&e->in, e};
  }
  return {res_.memo.shared_flag(in), nullptr};
}

void ScalarRunner::push(CoreState& c, PipeState& p, const Instr& in, KnownInstr known, uint64_t id, uint64_t ready,
                        uint32_t stage) {
  p.q.emplace_back(in, known, id, std::max(ready, clock_.now()), stage);
  if (res_.trace && res_.trace->counters_on())
    res_.trace->queue_depth(c.index, p.pipe, clock_.now(), uint32_t(p.q.size()));
  pipes_.kick(c, p);
}

// After a wait for a slot that began at the scalar's own time `own` (now is the resume).
void ScalarRunner::count_queue_full(CoreState& c, Pipe pipe, uint64_t own) {
  if (clock_.now() > own) c.stats.pipes[size_t(pipe)].queue_full_cycles += clock_.now() - own;
}

void ScalarRunner::replay(CoreState& c) {
  while (!c.pending.empty()) {
    PendingIssue& e = c.pending.front();
    PipeState& p = c.pipes[size_t(e.pipe)];
    uint64_t ready = e.own;
    if (e.waited) {  // woken by the pop it waited for
      count_queue_full(c, e.pipe, e.own);
    } else {
      e.id = counters_.next_id++;
      ready = charge_issue(c);
      if (p.q.size() >= p.depth) {
        wait_for_slot(c, e.pipe, e.id, ready);
        e.waited = true, e.own = ready;
        return;
      }
    }
    push(c, p, c.pending.instr(e), e.known, e.id, ready, e.stage);
    c.pending.pop_front();
  }
}

void ScalarRunner::catch_up(CoreState& c) {
  while (!c.pending.empty()) block(c, ScalarWait::Queue, c.wait_id);  // replay resumes it once the list is empty
}

void ScalarRunner::fail_after_catch_up(CoreState& c, const Fault& f) {
  try {
    catch_up(c);
  } catch (const AbortLaunch&) {
    return;  // another fault ended the launch first: the program would not have got this far
  }
  faults_.fault(f.kind, f.message, true);
}

void ScalarRunner::block(CoreState& c, ScalarWait why, uint64_t id, uint64_t* waited) {
  (void)why;
  c.wait_id = id;
  const uint64_t began = clock_.now();
  c.fiber->yield();
  if (waited) *waited += clock_.now() - began;
  if (faults_.fatal) throw AbortLaunch{};
}

void ScalarRunner::sync_time(CoreState& c) {
  if (c.local_offset) {
    c.wait = ScalarWait::Time;
    clock_.wake_scalar(c, clock_.now() + c.local_offset);
    c.local_offset = 0;
    block(c, ScalarWait::Time, 0);
  }
  if (faults_.fatal) throw AbortLaunch{};
}

void ScalarRunner::drain(CoreState& c) {
  sync_time(c);
  while (!PipeRunner::drained(c)) {
    c.wait = ScalarWait::Drain;  // the pipe that empties last wakes it
    block(c, ScalarWait::Drain, 0, &c.stats.scalar_waits.drain);
  }
  uint64_t done = clock_.now();
  for (const auto& p : c.pipes) done = std::max(done, p.last_completion);
  if (done > clock_.now()) {
    c.wait = ScalarWait::Time;
    clock_.wake_scalar(c, done);
    block(c, ScalarWait::Time, 0, &c.stats.scalar_waits.drain);
  }
  // Everything the pipes did is now ordered before whatever the scalar unit issues or releases next.
  if (!checks_.checking()) return;
  const AgentId s = checks_.agent(c.index, Pipe::S);
  for (const auto& p : c.pipes)
    if (p.pipe != Pipe::S && p.pipe != Pipe::ALL) checks_.hb->acquire(s, checks_.hb->clock(p.agent));
}

void ScalarRunner::reject(CoreState& c, uint64_t id, const Instr& in, const std::string& why) {
  faults_.fault("isa", c.name + " instruction #" + std::to_string(id) + " '" + to_asm(in) + "': " + why, true);
  throw AbortLaunch{};
}

void ScalarRunner::issue(CoreState& c, const Instr& in) {
  if (faults_.fatal) throw AbortLaunch{};
  const Pipe pipe = pipe_of(in);
  const bool to_pipe = !is_scalar_side(in, pipe);
  if (!c.pending.empty()) {  // running ahead (see the top of this file)
    if (to_pipe && issuable(c, in, pipe)) {
      PendingIssue& e = c.pending.push_back(in, known(c, in));
      e.pipe = pipe, e.waited = false, e.stage = c.stage;
      if (c.pending.full()) catch_up(c);
      return;
    }
    catch_up(c);
  }
  const uint64_t id = counters_.next_id++;
  if (!issuable(c, in, pipe)) {  // refused: ask again for the reason, built only then
    std::string why;
    issuable(c, in, pipe, &why);
    reject(c, id, in, why);
  }
  const uint64_t ready = charge_issue(c);
  if (to_pipe) {
    PipeState& p = c.pipes[static_cast<size_t>(pipe)];
    const KnownInstr k = known(c, in);
    if (p.q.size() >= p.depth) {
      wait_for_slot(c, pipe, id, ready);
      if (res_.run_ahead && !res_.trace) {  // run ahead: this instruction waits in the list for the pop
        PendingIssue& e = c.pending.push_back(in, k);
        e.pipe = pipe, e.waited = true, e.stage = c.stage, e.id = id, e.own = ready;
        return;
      }
      block(c, ScalarWait::Queue, id);
      count_queue_full(c, pipe, ready);
    }
    push(c, p, in, k, id, ready, c.stage);
    return;
  }
  ++counters_.instructions;
  if (std::holds_alternative<SMov>(in) || std::holds_alternative<SAlu>(in)) {
    try {
      execute(in, c.ctx);
    } catch (const IsaError& e) {
      reject(c, id, in, e.what());
    }
    return;
  }
  const QueuedInstr q{&in, nullptr, id, ready, c.stage};
  sync_time(c);
  scalar_side(c, in, q);
}

// A scalar GM load / store: executed now against GM (timing mode: against the materialised allocation only),
// race-checked as an access of the scalar agent; a load stalls until its data returns, a store is posted.
void ScalarRunner::memory_access(CoreState& c, const Instr& in, const QueuedInstr& q, bool load) {
  auto& scratch = res_.scratch;
  scratch.clear();
  footprint(in, &c.regs, scratch);
  auto& gm = res_.gm;
  if (!gm.backs_everything() && !gm.backed(scratch[0].begin, scratch[0].end - scratch[0].begin))
    reject(c, q.id, in, "accesses GM that is not materialised in timing mode (allocate it with materialize = true)");
  try {
    if (gm.backs_everything()) {
      isa::ExecContext ctx = c.ctx;
      ctx.mem[Buf::GM] = gm.span();
      execute(in, ctx);
    } else {
      uint8_t* ptr = gm.ptr(scratch[0].begin, scratch[0].end - scratch[0].begin);
      isa::ExecContext tiny = c.ctx;
      tiny.mem[Buf::GM] = std::span<uint8_t>(ptr - scratch[0].begin, scratch[0].end);
      execute(in, tiny);
    }
  } catch (const IsaError& e) {
    reject(c, q.id, in, e.what());
  }
  const uint64_t begin = clock_.now();
  if (checks_.checking()) {
    const AgentId s = checks_.agent(c.index, Pipe::S);
    const uint32_t epoch = checks_.hb->tick(s);
    checks_.races->on_access(s, epoch, AccessEvent{q.id, c.index, Pipe::S, begin, in}, scratch);
  }
  if (!load) return;
  const auto& sc = res_.hw.scalar;
  const uint64_t line = sc.dcache_line_bytes > 0 ? scratch[0].begin / uint64_t(sc.dcache_line_bytes) : 0;
  const int64_t tracked = c.dcache.tracked_lines();
  const bool hit =
      sc.dcache_line_bytes > 0 && c.dcache.access(line, checks_.checking() && !checks_.is_input(scratch[0].begin));
  checks_.dcache_tracked += c.dcache.tracked_lines() - tracked;
  if (hit && checks_.checking()) stale_hit(c, in, q, line);
  const uint64_t latency = clock_.timed(hit ? sc.dcache_hit_cycles : sc.gm_load_latency_cycles);
  if (latency == 0) return;
  c.wait = ScalarWait::Time;
  clock_.wake_scalar(c, begin + latency);
  block(c, ScalarWait::Time, q.id, &c.stats.scalar_waits.gm_load);
}

// A load that hit a line a DMA store made stale: the device returns the cached (old) bytes (dcache.h).
void ScalarRunner::stale_hit(CoreState& c, const Instr& in, const QueuedInstr& q, uint64_t line) {
  const std::string by = c.dcache.take_stale(line);
  if (by.empty()) return;
  const uint64_t lb = uint64_t(res_.hw.scalar.dcache_line_bytes);
  char range[64];
  std::snprintf(range, sizeof range, "[0x%llx, 0x%llx)", static_cast<unsigned long long>(line * lb),
                static_cast<unsigned long long>((line + 1) * lb));
  std::string m = describe_instruction(q.id, c.name, Pipe::S, clock_.now(), to_asm(in));
  m += " reads GM line ";
  m += range;
  m += " from the scalar data cache, which holds it from before ";
  m += by;
  m += " wrote it: on the device the load returns the old bytes. Drop the line after the store has completed (dcci "
       "addr=gm:... ; Ascend C DataCacheCleanAndInvalid) before reading it";
  faults_.fault("stale-dcache", m, false);
}

// dcci: drops the line (or the whole cache); the next load of it reads GM.
void ScalarRunner::invalidate(CoreState& c, const Dcci& d, const QueuedInstr& q) {
  if (!d.all && (d.addr.buf != Buf::GM || d.addr.off >= res_.gm.used_bytes()))  // (timing mode keeps no GM bytes)
    reject(c, q.id, Instr{d},
           "addr must be a byte of the allocated GM (" + std::to_string(res_.gm.used_bytes()) + " bytes)");
  const int64_t lb = res_.hw.scalar.dcache_line_bytes;
  if (lb <= 0) return;
  const int64_t tracked = c.dcache.tracked_lines();
  if (d.all) c.dcache.invalidate_all();
  else c.dcache.invalidate(d.addr.off / uint64_t(lb));
  checks_.dcache_tracked += c.dcache.tracked_lines() - tracked;
}

void ScalarRunner::scalar_side(CoreState& c, const Instr& in, const QueuedInstr& q) {
  PipeState& s = c.pipes[static_cast<size_t>(Pipe::S)];
  const uint64_t begin = clock_.now();
  // One overload per scalar-memory and sync kind: a new one fails to compile here until it is handled.
  // clang-format 14 mis-indents a lambda with a requires clause: this visit is formatted by hand.
  // clang-format off
  std::visit(Overloaded{
                 [&](const SLoad&) { memory_access(c, in, q, true); },
                 [&](const SStore&) { memory_access(c, in, q, false); },
                 [&](const Dcci& d) { invalidate(c, d, q); },
                 [&](const SetFlag& f) { sync_.set_flag(c, s, f, q); },
                 [&](const WaitFlag& w) {
                   for (;;) {
                     c.wait = ScalarWait::Flag, c.wait_pipe = w.src, c.wait_arg = w.event;
                     if (sync_.wait_flag(c, s, w, q, begin)) break;
                     block(c, ScalarWait::Flag, q.id, &c.stats.pipes[size_t(Pipe::S)].flag_wait_cycles);
                   }
                   c.wait = ScalarWait::None;
                 },
                 [&](const CrossSet& x) { sync_.cross_set(c, s, x, q); },
                 [&](const CrossWait& x) {
                   for (;;) {
                     c.wait = ScalarWait::Cross, c.wait_arg = x.flag_id;
                     if (sync_.cross_wait(c, s, x, q, begin)) break;
                     block(c, ScalarWait::Cross, q.id, &c.stats.scalar_waits.cross_wait);
                   }
                   c.wait = ScalarWait::None;
                 },
                 [&](const PipeBarrier& b) {
                   if (b.pipe == Pipe::ALL) drain(c);
                 },
                 [&](const SyncAll&) {
                   drain(c);
                   const uint64_t arrived = clock_.now();
                   c.wait = ScalarWait::SyncAll;
                   sync_.sync_all_arrive(c, s, q);  // the last arrival schedules every core's release
                   block(c, ScalarWait::SyncAll, q.id, &c.stats.scalar_waits.sync_all);
                   sync_.sync_all_leave(c, s, q, arrived);
                 },
                 // issue() queues pipe kinds and runs the scalar ALU itself: neither comes here.
                 []<class T>(const T&)
                   requires(InstrRow<T>::side == Side::Pipe || InstrRow<T>::side == Side::ScalarAlu) {
                   throw std::logic_error("scalar_side called for a pipe or scalar-ALU instruction");
                 }},
             in);
// clang-format on
if (faults_.fatal) throw AbortLaunch{};
const bool is_set = std::holds_alternative<SetFlag>(in) || std::holds_alternative<CrossSet>(in);
// Every scalar-side instruction gets a row (zero-length when it took no simulated time: the scalar unit runs
// ahead on its local clock), so the trace and instructions.csv count what the report counts; the waits draw
// theirs in sync_exec.cpp.
if (res_.trace && !std::holds_alternative<CrossWait>(in) && !std::holds_alternative<WaitFlag>(in) &&
    !std::holds_alternative<SyncAll>(in)) {
  TraceSlice sl{c.index, c.name, Pipe::S, begin, clock_.now(), q.id, to_asm(in), 0, 0};
  if (is_set) sl.flow_out = q.id;  // the arrow to the wait this set releases starts here
  sl.stage = q.stage;
  res_.trace->slice(sl);
}
}

void ScalarRunner::finish_core(CoreState& c) {
  catch_up(c);
  drain(c);
  for (int s = 0; s < kNumPipes; ++s)
    for (int d = 0; d < kNumPipes; ++d)
      for (int e = 0; e < kNumEventIds; ++e) {
        FlagSlot& f = c.flags[size_t(s)][size_t(d)][size_t(e)];
        if (!f.set) continue;
        const SetFlag set{static_cast<Pipe>(s), static_cast<Pipe>(d), uint8_t(e)};  // the one that set the slot
        faults_.fault("flags-pending",
                      c.name + ": flag " + std::string(pipe_name(set.src)) + "->" + std::string(pipe_name(set.dst)) +
                          " event " + std::to_string(e) + " set by #" + std::to_string(f.set_id) + " '" + to_asm(set) +
                          "' at cycle " + std::to_string(f.set_cycle) +
                          " is still set at kernel end (never waited for)",
                      false);
      }
  c.done = true;
  c.stats.end_cycle = clock_.now();
}

int64_t ScalarRunner::load_scalar(CoreState& c, DType t, Addr a) {
  issue(c, SLoad{t, kScratchReg, a, -1});
  return c.regs[kScratchReg];
}

// ---- CoreCtx implementation ----------------------------------------------------------------------

ScalarCtx::ScalarCtx(const MachineResources& res, ScalarRunner& scalar, CoreState& c)
    : res_(res), scalar_(scalar), c_(c) {}

int ScalarCtx::block_idx() const { return c_.block_idx; }
int ScalarCtx::block_num() const { return c_.block_num; }
int ScalarCtx::sub_block_idx() const { return c_.sub_block; }
isa::CoreKind ScalarCtx::kind() const { return c_.kind; }
const HwConfig& ScalarCtx::hw() const { return res_.hw; }
std::string ScalarCtx::name() const { return c_.name; }

uint64_t ScalarCtx::capacity(Buf b) const { return c_.local_bytes[static_cast<size_t>(b)]; }

Addr ScalarCtx::alloc(Buf b, uint64_t bytes, const std::string& what, uint64_t align) {
  if (b == Buf::GM) throw KernelInputError("alloc: GM is allocated by the host, not by kernels ('" + what + "')");
  const uint64_t al = align ? align : buf_alignment(b);
  uint64_t& top = c_.alloc_top[static_cast<size_t>(b)];
  const uint64_t off = (top + al - 1) / al * al;
  const uint64_t cap = capacity(b);
  if (off + bytes > cap)
    throw KernelInputError(c_.name + ": '" + what + "' needs " + std::to_string(bytes) + " bytes of " +
                           std::string(buf_name(b)) + " at offset " + std::to_string(off) + " but the buffer holds " +
                           std::to_string(cap) + " bytes (" + std::to_string(cap - std::min(cap, off)) + " free)");
  top = off + bytes;
  uint64_t& peak = c_.stats.buffer_peak[static_cast<size_t>(b)];
  peak = std::max(peak, top);
  return {b, off};
}

void ScalarCtx::free_all(Buf b) { c_.alloc_top[static_cast<size_t>(b)] = 0; }

Addr ScalarCtx::gm(const std::string& name, uint64_t offset) const {
  return {Buf::GM, res_.gm.find(name).offset + offset};
}

void ScalarCtx::issue(const Instr& in) {
  note_outstanding(in);
  scalar_.issue(c_, in);
}

// What completes a pipe's earlier instructions: its barrier, a set from it (it waits for them), a drain.
void ScalarCtx::note_outstanding(const Instr& in) {
  if (const auto* b = std::get_if<PipeBarrier>(&in)) {
    if (b->pipe == Pipe::ALL) outstanding_.fill(false);
    else outstanding_[size_t(b->pipe)] = false;
  } else if (const auto* f = std::get_if<SetFlag>(&in)) {
    outstanding_[size_t(f->src)] = false;
  } else if (const auto* x = std::get_if<CrossSet>(&in)) {
    if (x->pipe != Pipe::ALL) outstanding_[size_t(x->pipe)] = false;
  } else if (std::holds_alternative<SyncAll>(in)) {
    outstanding_.fill(false);
  } else if (!std::holds_alternative<WaitFlag>(in) && !std::holds_alternative<CrossWait>(in)) {
    outstanding_[size_t(pipe_of(in))] = true;
  }
}

int64_t ScalarCtx::load_scalar(DType t, Addr a) { return scalar_.load_scalar(c_, t, a); }

void ScalarCtx::stage(std::string_view name, int64_t unit, int64_t block) {
  if (!res_.trace) return;
  std::string label(name);
  if (unit >= 0) label += " u" + std::to_string(unit);
  if (block >= 0) label += " b" + std::to_string(block);
  c_.stage = res_.trace->open_stage(c_.index, std::move(label));
}

}  // namespace npusim::sim
