// Flags, cross-core counters and SyncAll: the machine's ordering primitives, with their happens-before
// edges for the race checker and their flow arrows for the trace.
#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"

namespace npusim::sim {

using namespace isa;

namespace {
std::string flag_name(Pipe s, Pipe d, int e) {
  return std::string(pipe_name(s)) + "->" + std::string(pipe_name(d)) + " event " + std::to_string(e);
}
}  // namespace

void Machine::Impl::do_set_flag(CoreState& c, PipeState& p, const SetFlag& f, const QueuedInstr& q) {
  hb->tick(p.agent);
  FlagSlot& slot = c.flags[static_cast<int>(f.src)][static_cast<int>(f.dst)][f.event];
  if (slot.set) {
    fault("flag", c.name + ": set_flag " + flag_name(f.src, f.dst, f.event) + " (instruction #" + std::to_string(q.id) +
                      " at cycle " + std::to_string(now_cycles()) + ") while it is still set by #" +
                      std::to_string(slot.set_id) + " '" + slot.set_text + "' at cycle " + std::to_string(slot.set_cycle) +
                      ": the hardware loses one of the two sets",
          true);
    return;
  }
  slot.set = true;
  slot.set_id = q.id;
  slot.set_cycle = now_cycles() + timed(hw.sync.flag_latency_cycles);
  slot.set_text = to_asm(q.in);
  slot.vc = hb->release(p.agent);
  slot.ev.notify(sc_core::sc_time::from_value(timed(hw.sync.flag_latency_cycles)));
}

void Machine::Impl::do_wait_flag(CoreState& c, PipeState& p, const WaitFlag& f, const QueuedInstr& q) {
  FlagSlot& slot = c.flags[static_cast<int>(f.src)][static_cast<int>(f.dst)][f.event];
  const uint64_t begin = now_cycles();
  while (!slot.set || slot.set_cycle > now_cycles()) {
    p.blocked_on = "wait_flag " + flag_name(f.src, f.dst, f.event) + " (instruction #" + std::to_string(q.id) + ")";
    if (slot.set) wait_until(slot.set_cycle);
    else sc_core::wait(slot.ev | abort_ev);
    if (fatal) return;
  }
  p.blocked_on.clear();
  slot.set = false;
  hb->acquire(p.agent, slot.vc);
  hb->tick(p.agent);
  if (trace) {
    trace->flow(slot.set_id, c.index, f.src, slot.set_cycle, c.index, f.dst, now_cycles());
    // Pipe-side waits get their slice from run_instr; a scalar-side wait (dst = s) draws its own.
    if (p.pipe == Pipe::S && now_cycles() > begin)
      trace->slice({c.index, c.name, p.pipe, begin, now_cycles(), q.id, to_asm(q.in), 0, 0});
  }
}

void Machine::Impl::deliver_cross(int core, int flag, const VectorClock& vc, const QueuedInstr& q, int from_core,
                                  Pipe from_pipe) {
  CoreState& t = *cores[core];
  CrossCounter& ctr = t.cross[flag];
  if (ctr.visible_at.size() >= static_cast<size_t>(hw.sync.max_pending_cross_sets)) {
    fault("cross-flag-overflow", t.name + ": cross-core flag " + std::to_string(flag) + " already holds " +
                                     std::to_string(ctr.visible_at.size()) + " pending sets (limit sync.max_pending_cross_sets = " +
                                     std::to_string(hw.sync.max_pending_cross_sets) + "); set by " +
                                     cores[from_core]->name + " " + std::string(pipe_name(from_pipe)) + " #" +
                                     std::to_string(q.id) + " '" + to_asm(q.in) + "' at cycle " +
                                     std::to_string(now_cycles()) + ": the hardware would hang",
          true);
    return;
  }
  ctr.visible_at.push_back(now_cycles() + timed(hw.sync.cross_core_latency_cycles));
  ctr.vc.join(vc);
  ctr.last_set_id = q.id;
  ctr.last_set_core = from_core;
  ctr.last_set_pipe = from_pipe;
  ctr.last_set_cycle = now_cycles() + timed(hw.sync.cross_core_latency_cycles);
  ctr.ev.notify(sc_core::sc_time::from_value(timed(hw.sync.cross_core_latency_cycles)));
}

void Machine::Impl::do_cross_set(CoreState& c, PipeState& p, const CrossSet& s, const QueuedInstr& q) {
  hb->tick(p.agent);
  const VectorClock vc = hb->release(p.agent);
  const int id = s.flag_id;
  auto bad_mode = [&](const std::string& why) {
    fault("cross-flag", c.name + ": cross_set mode " + std::to_string(s.mode) + " (instruction #" + std::to_string(q.id) +
                            "): " + why, true);
  };
  // Partners whose sets must all arrive before the counters move (mode 1, mode 2 from AIVs, mode 0).
  auto gather = [&](PartnerSets& ps, const std::vector<int>& group, const std::vector<int>& targets) {
    ps.pending[c.index][id]++;
    ps.vcs[c.index][id].join(vc);
    for (int g : group)
      if (ps.pending[g][id] == 0) return;
    VectorClock all(hb->agents());
    for (int g : group) {
      --ps.pending[g][id];
      all.join(ps.vcs[g][id]);
      if (ps.pending[g][id] == 0) ps.vcs[g][id] = VectorClock(hb->agents());
    }
    for (int t : targets) deliver_cross(t, id, all, q, c.index, p.pipe);
  };
  const bool split = hw.topology == Topology::Split;
  std::vector<int> aivs, same_kind;
  if (split)
    for (int k = 0; k < hw.chip.aiv_per_core; ++k) aivs.push_back(hw.chip.ai_cores + c.ai_core * hw.chip.aiv_per_core + k);
  for (const auto& core : cores)
    if (core->in_launch && core->kind == c.kind) same_kind.push_back(core->index);
  if (s.mode == 2) {
    if (!split) return bad_mode("mode 2 (AIC <-> AIV pair) needs the split topology");
    if (c.kind == CoreKind::Cube) {
      for (int v : aivs) deliver_cross(v, id, vc, q, c.index, p.pipe);
    } else {
      gather(partners_mode2, aivs, {c.ai_core});
    }
  } else if (s.mode == 1) {
    if (c.kind != CoreKind::Vector) return bad_mode("mode 1 synchronises the AIVs of one AI Core; this is not an AIV");
    gather(partners_mode1, aivs, aivs);
  } else {
    gather(partners_mode0, same_kind, same_kind);
  }
}

void Machine::Impl::do_cross_wait(CoreState& c, PipeState& p, const CrossWait& w, const QueuedInstr& q) {
  CrossCounter& ctr = c.cross[w.flag_id];
  const uint64_t begin = now_cycles();
  while (ctr.visible_at.empty() || ctr.visible_at.front() > now_cycles()) {
    p.blocked_on = "cross_wait flag " + std::to_string(w.flag_id) + " (instruction #" + std::to_string(q.id) + ")";
    c.scalar_blocked_on = p.blocked_on;
    if (!ctr.visible_at.empty()) wait_until(ctr.visible_at.front());
    else sc_core::wait(ctr.ev | abort_ev);
    if (fatal) return;
  }
  p.blocked_on.clear();
  c.scalar_blocked_on.clear();
  ctr.visible_at.pop_front();
  hb->acquire(p.agent, ctr.vc);
  hb->tick(p.agent);
  if (trace) {
    trace->flow(ctr.last_set_id, ctr.last_set_core, ctr.last_set_pipe, ctr.last_set_cycle, c.index, Pipe::S, now_cycles());
    if (now_cycles() > begin) trace->slice({c.index, c.name, Pipe::S, begin, now_cycles(), q.id, to_asm(q.in), 0, 0});
  }
}

void Machine::Impl::do_sync_all(CoreState& c, PipeState& p, const QueuedInstr& q) {
  hb->tick(p.agent);
  sync_all_vc.join(hb->release(p.agent));
  const uint64_t gen = sync_all_generation;
  const uint64_t begin = now_cycles();
  if (++sync_all_arrived == sync_all_expected) {
    sync_all_released = sync_all_vc;
    sync_all_vc = VectorClock(hb->agents());
    sync_all_arrived = 0;
    ++sync_all_generation;
    sync_all_ev.notify(sc_core::sc_time::from_value(timed(hw.sync.sync_all_cycles)));
    sc_core::wait(sc_core::sc_time::from_value(timed(hw.sync.sync_all_cycles)));
  } else {
    while (sync_all_generation == gen) {
      c.scalar_blocked_on = "sync_all (instruction #" + std::to_string(q.id) + ")";
      sc_core::wait(sync_all_ev | abort_ev);
      if (fatal) return;
    }
  }
  c.scalar_blocked_on.clear();
  hb->acquire(p.agent, sync_all_released);
  hb->tick(p.agent);
  if (trace) trace->slice({c.index, c.name, Pipe::S, begin, now_cycles(), q.id, to_asm(q.in), 0, 0});
}

}  // namespace npusim::sim
