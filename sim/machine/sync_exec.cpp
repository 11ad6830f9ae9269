// Flags, cross-core counters and SyncAll: the machine's ordering primitives, with their happens-before edges
// for the race checker and their flow arrows for the trace. A wait that cannot be satisfied yet returns false
// and its waiter blocks; the set that satisfies it schedules the waiter at the cycle the set becomes visible.
#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"

namespace npusim::sim {

using namespace isa;

namespace {
std::string flag_name(Pipe s, Pipe d, int e) {
  return std::string(pipe_name(s)) + "->" + std::string(pipe_name(d)) + " event " + std::to_string(e);
}
}  // namespace

void SyncFabric::reset(const std::vector<int>& launch_cores, size_t agents) {
  for (auto* ps : {&mode0_, &mode1_, &mode2_}) {
    ps->pending.assign(res_.cores.size(), {});
    ps->vcs.assign(res_.cores.size(), {});
    for (auto& row : ps->vcs) row.fill(VectorClock(agents));
  }
  sync_all_arrived_ = 0;
  sync_all_expected_ = static_cast<int>(launch_cores.size());
  sync_all_vc_ = VectorClock(agents);
  waiting_all_.clear();
}

void SyncFabric::set_flag(CoreState& c, PipeState& p, const SetFlag& f, const QueuedInstr& q) {
  if (checks_.checking()) checks_.hb->tick(p.agent);
  FlagSlot& slot = c.flag(f.src, f.dst, f.event);
  if (slot.set) {
    faults_.fault("flag",
                  c.name + ": set_flag " + flag_name(f.src, f.dst, f.event) + " (instruction #" + std::to_string(q.id) +
                      " at cycle " + std::to_string(clock_.now()) + ") while it is still set by #" +
                      std::to_string(slot.set_id) + " '" + to_asm(f) + "' at cycle " + std::to_string(slot.set_cycle) +
                      ": the hardware loses one of the two sets",
                  true);
    return;
  }
  slot.set = true;
  slot.set_id = q.id;
  slot.set_cycle = clock_.now() + clock_.timed(res_.hw.sync.flag_latency_cycles);
  if (checks_.checking()) slot.vc = checks_.hb->release(p.agent);
  // The one possible waiter is the destination: its pipe (blocked in this wait_flag) or the scalar unit.
  if (f.dst == Pipe::S) {
    if (c.wait == ScalarWait::Flag && c.wait_pipe == f.src && c.wait_arg == f.event)
      clock_.wake_scalar(c, slot.set_cycle);
    return;
  }
  PipeState& w = c.pipes[size_t(f.dst)];
  if (w.activity == PipeActivity::Waiting) {
    const auto* wf = std::get_if<WaitFlag>(&w.cur().instr());
    if (wf && wf->src == f.src && wf->event == f.event) clock_.wake_pipe(c, w, slot.set_cycle);
  }
}

bool SyncFabric::wait_flag(CoreState& c, PipeState& p, const WaitFlag& f, const QueuedInstr& q, uint64_t wait_began) {
  FlagSlot& slot = c.flag(f.src, f.dst, f.event);
  if (!slot.set) return false;  // the set wakes the waiter (set_flag)
  if (slot.set_cycle > clock_.now()) {
    if (p.pipe == Pipe::S) clock_.wake_scalar(c, slot.set_cycle);
    else clock_.wake_pipe(c, p, slot.set_cycle);
    return false;
  }
  slot.set = false;
  if (checks_.checking()) {
    checks_.hb->acquire(p.agent, slot.vc);
    checks_.hb->tick(p.agent);
  }
  if (res_.trace) {
    res_.trace->flow(slot.set_id, c.index, f.src, slot.set_cycle, c.index, f.dst, clock_.now());
    // Pipe-side waits get their slice from the pipe; a scalar-side wait (dst = s) draws its own, zero-length
    // when it did not wait, so that the trace has one row per counted instruction.
    if (p.pipe == Pipe::S)
      res_.trace->slice(
          {c.index, c.name, p.pipe, wait_began, clock_.now(), q.id, to_asm(q.instr()), 0, 0, std::nullopt, q.stage});
  }
  return true;
}

void SyncFabric::deliver_cross(int core, int flag, const VectorClock& vc, const QueuedInstr& q, int from_core,
                               Pipe from_pipe) {
  CoreState& t = *res_.cores[size_t(core)];
  CrossCounter& ctr = t.cross[size_t(flag)];
  if (ctr.visible_at.size() >= static_cast<size_t>(res_.hw.sync.max_pending_cross_sets)) {
    faults_.fault("cross-flag-overflow",
                  t.name + ": cross-core flag " + std::to_string(flag) + " already holds " +
                      std::to_string(ctr.visible_at.size()) + " pending sets (limit sync.max_pending_cross_sets = " +
                      std::to_string(res_.hw.sync.max_pending_cross_sets) + "); set by " +
                      res_.cores[size_t(from_core)]->name + " " + std::string(pipe_name(from_pipe)) + " #" +
                      std::to_string(q.id) + " '" + to_asm(q.instr()) + "' at cycle " + std::to_string(clock_.now()) +
                      ": the hardware would hang",
                  true);
    return;
  }
  const uint64_t visible = clock_.now() + clock_.timed(res_.hw.sync.cross_core_latency_cycles);
  ctr.visible_at.push_back(visible);
  if (checks_.checking()) ctr.vc.join(vc);
  ctr.last_set_id = q.id;
  ctr.last_set_core = from_core;
  ctr.last_set_pipe = from_pipe;
  ctr.last_set_cycle = visible;
  if (t.wait == ScalarWait::Cross && t.wait_arg == flag) clock_.wake_scalar(t, ctr.visible_at.front());
}

// Partners whose sets must all arrive before the counters move (mode 1, mode 2 from AIVs, mode 0).
void SyncFabric::gather(PartnerSets& ps, CoreState& c, PipeState& p, int id, const VectorClock& vc,
                        const std::vector<int>& group, const std::vector<int>& targets, const QueuedInstr& q) {
  ps.pending[size_t(c.index)][size_t(id)]++;
  if (checks_.checking()) ps.vcs[size_t(c.index)][size_t(id)].join(vc);
  for (int g : group)
    if (ps.pending[size_t(g)][size_t(id)] == 0) return;
  VectorClock all(checks_.checking() ? checks_.hb->agents() : 0);
  for (int g : group) {
    --ps.pending[size_t(g)][size_t(id)];
    if (!checks_.checking()) continue;
    all.join(ps.vcs[size_t(g)][size_t(id)]);
    if (ps.pending[size_t(g)][size_t(id)] == 0) ps.vcs[size_t(g)][size_t(id)] = VectorClock(checks_.hb->agents());
  }
  for (int t : targets) deliver_cross(t, id, all, q, c.index, p.pipe);
}

void SyncFabric::cross_set(CoreState& c, PipeState& p, const CrossSet& s, const QueuedInstr& q) {
  static const VectorClock kNone;
  if (checks_.checking()) checks_.hb->tick(p.agent);
  const VectorClock& vc = checks_.checking() ? checks_.hb->release(p.agent) : kNone;
  const int id = s.flag_id;
  auto bad_mode = [&](const std::string& why) {
    faults_.fault(
        "cross-flag",
        c.name + ": cross_set mode " + std::to_string(s.mode) + " (instruction #" + std::to_string(q.id) + "): " + why,
        true);
  };
  const std::vector<int> aivs = res_.topology->vector_cores_of(c.ai_core);
  std::vector<int> same_kind;
  if (s.mode == 2) {
    if (aivs.empty()) return bad_mode("mode 2 (AIC <-> AIV pair) needs the split topology");
    if (c.kind == CoreKind::Cube) {
      for (int v : aivs) deliver_cross(v, id, vc, q, c.index, p.pipe);
    } else {
      gather(mode2_, c, p, id, vc, aivs, {c.ai_core}, q);
    }
  } else if (s.mode == 1) {
    if (c.kind != CoreKind::Vector) return bad_mode("mode 1 synchronises the AIVs of one AI Core; this is not an AIV");
    gather(mode1_, c, p, id, vc, aivs, aivs, q);
  } else {
    for (const auto& core : res_.cores)
      if (core->in_launch && core->kind == c.kind) same_kind.push_back(core->index);
    gather(mode0_, c, p, id, vc, same_kind, same_kind, q);
  }
}

bool SyncFabric::cross_wait(CoreState& c, PipeState& p, const CrossWait& w, const QueuedInstr& q, uint64_t wait_began) {
  CrossCounter& ctr = c.cross[w.flag_id];
  if (ctr.visible_at.empty()) return false;  // the delivery wakes the waiter (deliver_cross)
  if (ctr.visible_at.front() > clock_.now()) {
    clock_.wake_scalar(c, ctr.visible_at.front());
    return false;
  }
  ctr.visible_at.pop_front();
  if (checks_.checking()) {
    checks_.hb->acquire(p.agent, ctr.vc);
    checks_.hb->tick(p.agent);
  }
  if (res_.trace) {
    res_.trace->flow(ctr.last_set_id, ctr.last_set_core, ctr.last_set_pipe, ctr.last_set_cycle, c.index, Pipe::S,
                     clock_.now());
    res_.trace->slice(
        {c.index, c.name, Pipe::S, wait_began, clock_.now(), q.id, to_asm(q.instr()), 0, 0, std::nullopt, q.stage});
  }
  return true;
}

bool SyncFabric::sync_all_arrive(CoreState& c, PipeState& p, const QueuedInstr& q) {
  (void)q;
  if (checks_.checking()) {
    checks_.hb->tick(p.agent);
    sync_all_vc_.join(checks_.hb->release(p.agent));
  }
  if (++sync_all_arrived_ < sync_all_expected_) {
    waiting_all_.push_back(c.index);
    return false;
  }
  // The last arrival releases every core at the same cycle.
  sync_all_released_ = sync_all_vc_;
  sync_all_vc_ = VectorClock(checks_.checking() ? checks_.hb->agents() : 0);
  sync_all_arrived_ = 0;
  ++sync_all_generation_;
  sync_all_release_ = clock_.now() + clock_.timed(res_.hw.sync.sync_all_cycles);
  for (int w : waiting_all_) clock_.wake_scalar(*res_.cores[size_t(w)], sync_all_release_);
  waiting_all_.clear();
  clock_.wake_scalar(c, sync_all_release_);  // the last arrival waits the SyncAll cost too
  return false;
}

void SyncFabric::sync_all_leave(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t began) {
  if (checks_.checking()) {
    checks_.hb->acquire(p.agent, sync_all_released_);
    checks_.hb->tick(p.agent);
  }
  if (res_.trace)
    res_.trace->slice(
        {c.index, c.name, Pipe::S, began, clock_.now(), q.id, to_asm(q.instr()), 0, 0, std::nullopt, q.stage});
}

}  // namespace npusim::sim
