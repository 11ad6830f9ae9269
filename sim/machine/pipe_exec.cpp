// The pipes as state machines. A pipe pops its queue in order; the popped instruction starts when its issue
// time has come and the pipe is free (sync instructions also wait for earlier results); it executes at its
// start cycle (arithmetic, checks, cost), and the next one is popped at once. Only a wait_flag can stop a pipe
// in the middle; the set that satisfies it schedules the pipe's next event.
#include <stdexcept>

#include "isa/instr/overloaded.h"
#include "isa/instr/traits.h"
#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"

namespace npusim::sim {

using namespace isa;

namespace {
bool waits_for_results(const Instr& in) {
  return std::holds_alternative<SetFlag>(in) || std::holds_alternative<PipeBarrier>(in) ||
         std::holds_alternative<CrossSet>(in);
}

uint64_t bytes_moved(const std::vector<Access>& acc) {
  uint64_t b = 0;
  for (const auto& a : acc)
    if (a.write) b += a.bytes();
  return b;
}
}  // namespace

bool PipeRunner::drained(const CoreState& c) {
  for (const auto& p : c.pipes)
    if (!p.q.empty() || p.active()) return false;
  return true;
}

void PipeRunner::kick(CoreState& c, PipeState& p) {
  if (!p.active()) clock_.wake_pipe(c, p, clock_.now());
}

void PipeRunner::step(CoreState& c, PipeState& p) {
  while (!faults_.fatal) {
    if (p.activity == PipeActivity::Idle) {
      if (p.q.empty()) {
        if (c.wait == ScalarWait::Drain && drained(c)) clock_.wake_scalar(c, clock_.now());
        return;
      }
      if (const QueuedInstr* done = p.q.popped(); done && done->memo) res_.memo.unpin(*done->memo);  // (its last use)
      const QueuedInstr& cur = p.q.pop_front();
      if (res_.trace && res_.trace->counters_on())
        res_.trace->queue_depth(c.index, p.pipe, clock_.now(), uint32_t(p.q.size()));
      p.activity = PipeActivity::Starting;
      if (c.wait == ScalarWait::Queue && c.wait_pipe == p.pipe)  // a slot is free
        clock_.wake_scalar(c, std::max(clock_.now(), c.wait_not_before));
      uint64_t start = std::max({clock_.now(), cur.ready, p.next_free});
      if (waits_for_results(cur.instr())) start = std::max(start, p.last_completion);
      p.start = start;
    }
    if (p.activity == PipeActivity::Starting && p.start > clock_.now()) return clock_.wake_pipe(c, p, p.start);
    if (!run_popped(c, p)) return;  // a wait_flag: the set that satisfies it wakes this pipe
    p.activity = PipeActivity::Idle;
  }
}

// A sync instruction on its pipe at `start` (a wait_flag moves it to its release); false while a wait_flag must keep
// waiting. One overload per sync kind: a new one fails to compile here until it is handled.
bool PipeRunner::run_sync(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t& start) {
  // clang-format 14 mis-indents a lambda with a requires clause: this visit is formatted by hand.
  // clang-format off
  return std::visit(
      Overloaded{
          [&](const WaitFlag& w) {
            p.activity = PipeActivity::Waiting;
            if (!sync_.wait_flag(c, p, w, q, p.start)) return false;
            start = clock_.now();  // the wait has no cost of its own
            c.stats.pipes[size_t(p.pipe)].flag_wait_cycles += start - p.start;
            return true;
          },
          [&](const SetFlag& f) { return sync_.set_flag(c, p, f, q), true; },
          [&](const CrossSet& x) { return sync_.cross_set(c, p, x, q), true; },
          [&](const PipeBarrier&) {
            if (checks_.checking()) {  // its timing is the start rule; its pipe's results have all landed
              const uint32_t before = checks_.hb->done(p.agent), epoch = checks_.hb->tick(p.agent);
              checks_.hb->complete(p.agent);
              checks_.races->on_barrier(p.agent, epoch, before, AccessEvent{q.id, c.index, p.pipe, start, q.instr()});
            }
            return true;
          },
          // The scalar unit runs these (scalar_unit.cpp, is_scalar_side), as it runs every instruction of no pipe.
          [](const CrossWait&) -> bool { throw std::logic_error("cross_wait reached a pipe queue"); },
          [](const SyncAll&) -> bool { throw std::logic_error("sync_all reached a pipe queue"); },
          []<class T>(const T&) -> bool requires(InstrRow<T>::side != Side::Sync) {
            throw std::logic_error("run_sync called for an instruction that is not a sync kind");
          }},
      q.instr());
// clang-format on
}

// Runs the popped instruction at its start cycle; false when it is a wait_flag that must keep waiting.
bool PipeRunner::run_popped(CoreState& c, PipeState& p) {
  const QueuedInstr& q = p.cur();
  if (p.activity == PipeActivity::Starting && checks_.checking()) {
    const AgentId scalar = checks_.agent(c.index, Pipe::S);
    if (checks_.hb->version(scalar) != p.scalar_version_seen) {  // issued after everything the scalar acquired
      checks_.hb->acquire(p.agent, checks_.hb->clock(scalar));
      p.scalar_version_seen = checks_.hb->version(scalar);
    }
  }
  uint64_t start = p.start;
  PipeCost cost;
  uint64_t bytes = 0;
  switch (side_of(q.instr())) {
    case Side::Sync:
      if (!run_sync(c, p, q, start)) return false;
      break;
    case Side::Pipe:
      cost = execute_and_cost(c, p, q, start);
      if (res_.trace) bytes = bytes_moved(res_.scratch);  // (for the trace slice alone)
      break;
    case Side::ScalarAlu:
    case Side::ScalarMem: break;  // never queued: the scalar unit runs them (scalar_unit.cpp)
  }
  if (faults_.fatal) return true;
  p.next_free = start + cost.occupancy;
  p.last_completion = std::max(p.last_completion, p.next_free + cost.latency);
  finished(c, p, cost, p.start, bytes);
  return true;
}

void PipeRunner::finished(CoreState& c, PipeState& p, const PipeCost& cost, uint64_t slice_start, uint64_t bytes) {
  auto& st = c.stats.pipes[static_cast<size_t>(p.pipe)];
  st.busy_cycles += cost.occupancy;
  st.conflict_beats += cost.conflict_beats;
  ++st.instructions;
  ++counters_.instructions;
  if (!res_.trace) return;
  const QueuedInstr& q = p.cur();
  TraceSlice sl{c.index,
                c.name,
                p.pipe,
                slice_start,
                p.next_free,
                q.id,
                to_asm(q.instr()),
                bytes,
                std::holds_alternative<Mmad>(q.instr()) ? mmad_flops(std::get<Mmad>(q.instr())) : 0};
  if (std::holds_alternative<SetFlag>(q.instr()) || std::holds_alternative<CrossSet>(q.instr())) sl.flow_out = q.id;
  sl.stage = q.stage;
  res_.trace->slice(sl);
}

void PipeRunner::stale_dcaches(const CoreState& c, const PipeState& p, const QueuedInstr& q, uint64_t start) {
  const int64_t lb = res_.hw.scalar.dcache_line_bytes;
  if (lb <= 0 || checks_.dcache_tracked == 0) return;  // (the common case: no core caches a line a DMA may write)
  const auto who = [&] { return describe_instruction(q.id, c.name, p.pipe, start, to_asm(q.instr())); };
  for (const auto& core : res_.cores) {
    if (core->dcache.tracked_lines() == 0) continue;
    for (const Access& a : res_.scratch)
      if (a.buf == Buf::GM && a.write)
        a.for_each_segment(
            [&](uint64_t b, uint64_t e) { core->dcache.mark_stale(b / uint64_t(lb), (e + lb - 1) / lb, who); });
  }
}

void PipeRunner::trace_traffic(const MemStats& before, uint64_t start, uint64_t end) {
  const MemStats& after = res_.mem->stats();
  res_.trace->traffic(start, end,
                      {double(after.bytes_read - before.bytes_read), double(after.bytes_written - before.bytes_written),
                       double(after.l2_hit_bytes - before.l2_hit_bytes), double(after.hbm_bytes - before.hbm_bytes)});
}

void PipeRunner::check_bounds(const CoreState& c, const std::vector<Access>& acc) {
  for (const auto& a : acc) {
    const uint64_t size = a.buf == Buf::GM ? res_.gm.used_bytes() : c.local_bytes[static_cast<size_t>(a.buf)];
    if (a.last_end() > size)
      throw IsaError(std::string("operand range [") + std::to_string(a.begin) + ", " + std::to_string(a.last_end()) +
                     ") of " + std::string(buf_name(a.buf)) + " exceeds its size " + std::to_string(size));
  }
}

PipeCost PipeRunner::execute_and_cost(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t start) {
  const uint32_t epoch = checks_.checking() ? checks_.hb->tick(p.agent) : 0;
  auto& scratch = res_.scratch;
  scratch.clear();
  // Seen before (found at issue, or since): footprint in bounds, cost known.
  const InstrMemo::Entry* known = q.memo ? q.memo : res_.memo.find(q.instr(), c.kind);
  try {
    if (clock_.mode != SimMode::Timing) {
      const auto t0 = std::chrono::steady_clock::now();
      execute(q.instr(), c.ctx);
      counters_.exec_time[static_cast<size_t>(p.pipe)] += std::chrono::steady_clock::now() - t0;
    }
    if (known) {  // (its footprint is needed only by the race checker and the trace's byte counts)
      if (checks_.checking() || res_.trace)
        scratch.assign(res_.memo.accesses(*known), res_.memo.accesses(*known) + known->n);
    } else {
      footprint(q.instr(), &c.regs, scratch);
      if (clock_.mode == SimMode::Timing) check_bounds(c, scratch);
    }
  } catch (const IsaError& e) {
    faults_.fault("bounds",
                  c.name + " " + std::string(pipe_name(p.pipe)) + " at cycle " + std::to_string(start) +
                      ", instruction #" + std::to_string(q.id) + ": " + e.what(),
                  true);
    return {};
  }
  if (checks_.checking()) {
    checks_.races->on_access(p.agent, epoch, AccessEvent{q.id, c.index, p.pipe, start, q.instr()}, scratch);
    if (!known) stale_dcaches(c, p, q, start);  // (a memoised instruction has no GM operand)
  }
  if (auto* mm = std::get_if<Mmad>(&q.instr())) {
    counters_.flops += mmad_flops(*mm);
    counters_.executed_flops += mmad_executed_flops(*mm);
    // A large mmad orders its dependants itself (Ascend C Mmad, "sync optimisation"; hazards.m_self_ordered_fractals).
    if (checks_.checking() && (mm->m / 16) * (mm->n / 16) >= res_.hw.hazards.m_self_ordered_fractals)
      checks_.hb->complete(p.agent);
  }
  if (clock_.mode == SimMode::Functional) return {};
  if (known) return known->cost();
  auto &gm_reads = res_.gm_reads, &gm_writes = res_.gm_writes;  // reused buffers: this runs for every instruction
  gm_reads.clear();
  gm_writes.clear();
  for (const auto& a : scratch)
    if (a.buf == Buf::GM) (a.write ? gm_writes : gm_reads).push_back(a);
  const auto& hw = res_.hw;
  const bool traffic = res_.trace && res_.trace->counters_on();
  const MemStats before = traffic ? res_.mem->stats() : MemStats{};
  if (cost_class_of(q.instr()) == CostClass::Dma) {
    if (!gm_reads.empty()) {
      const auto t = res_.mem->read(gm_reads, start,
                                    {double(hw.mte2.port_bytes_per_cycle), double(hw.mte2.l2_hit_bytes_per_cycle),
                                     uint64_t(hw.mte2.startup_cycles), uint64_t(hw.mte2.segment_cycles)});
      if (traffic) trace_traffic(before, start, start + t.occupancy);
      return {t.occupancy, t.latency};
    }
    if (!gm_writes.empty()) {
      const auto t = res_.mem->write(gm_writes, start,
                                     {double(hw.mte3.port_bytes_per_cycle), 0, uint64_t(hw.mte3.startup_cycles),
                                      uint64_t(hw.mte3.segment_cycles)});
      if (traffic) trace_traffic(before, start, start + t.occupancy);
      return {t.occupancy, t.latency};
    }
  }
  PipeCost cost = res_.cost->local(q.instr());
  if (gm_reads.empty() && gm_writes.empty()) res_.memo.store(q.instr(), c.kind, scratch, cost);
  if (auto* f = std::get_if<Fixpipe>(&q.instr()); f && !gm_writes.empty()) {
    const auto t = res_.mem->write(gm_writes, start,
                                   {res_.cost->fixpipe_bytes_per_cycle(*f), 0, uint64_t(hw.fixpipe.startup_cycles), 0});
    if (traffic) trace_traffic(before, start, start + t.occupancy);
    cost.occupancy = std::max(cost.occupancy, t.occupancy);
    cost.latency = std::max(cost.latency, t.latency);
  }
  return cost;
}

}  // namespace npusim::sim
