// Machine construction, shared state, faults and the deadlock report.
#include <sstream>

#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"
#include "sim/registry.h"

namespace npusim::sim {

using namespace isa;

std::string sim_mode_name(SimMode m) {
  switch (m) {
    case SimMode::Full: return "full";
    case SimMode::Functional: return "functional";
    case SimMode::Timing: return "timing";
  }
  return "?";
}

std::string checks_name(Checks c) {
  switch (c) {
    case Checks::All: return "all";
    case Checks::Local: return "local";
    case Checks::Off: return "off";
  }
  return "?";
}

namespace {
size_t queue_depth(const HwConfig& hw, Pipe p) {
  switch (p) {
    case Pipe::MTE1: return size_t(hw.queue.mte1_entries);
    case Pipe::M: return size_t(hw.queue.m_entries);
    case Pipe::FIX: return size_t(hw.queue.fix_entries);
    case Pipe::MTE2: return size_t(hw.queue.mte2_entries);
    case Pipe::MTE3: return size_t(hw.queue.mte3_entries);
    default: return size_t(hw.queue.v_entries);
  }
}

uint64_t buffer_bytes(const HwConfig& hw, CoreKind k, Buf b) {
  const bool cube = k != CoreKind::Vector, vec = k != CoreKind::Cube;
  switch (b) {
    case Buf::L1: return cube ? uint64_t(hw.core.l1_bytes) : 0;
    case Buf::L0A: return cube ? uint64_t(hw.core.l0a_bytes) : 0;
    case Buf::L0B: return cube ? uint64_t(hw.core.l0b_bytes) : 0;
    case Buf::L0C: return cube ? uint64_t(hw.core.l0c_bytes) : 0;
    case Buf::BT: return cube ? uint64_t(hw.core.bt_bytes) : 0;
    case Buf::FB: return cube ? uint64_t(hw.core.fb_bytes) : 0;
    case Buf::UB: return vec ? uint64_t(hw.core.ub_bytes) : 0;
    case Buf::GM: return 0;
  }
  return 0;
}

std::string flag_text(Pipe src, Pipe dst, int e) {
  return std::string(pipe_name(src)) + "->" + std::string(pipe_name(dst)) + " event " + std::to_string(e);
}

// What a blocked scalar unit waits for, in the words of the deadlock report.
std::string scalar_wait_text(const CoreState& c) {
  const std::string in = " (instruction #" + std::to_string(c.wait_id) + ")";
  switch (c.wait) {
    case ScalarWait::None: return "blocked";
    case ScalarWait::Time: return "waiting for its issue time";
    case ScalarWait::Queue: return "queue of pipe " + std::string(pipe_name(c.wait_pipe)) + " full";
    case ScalarWait::Drain: {
      for (const auto& p : c.pipes)
        if (!p.q.empty() || p.active()) return "draining pipe " + std::string(pipe_name(p.pipe));
      return "draining its pipes";
    }
    case ScalarWait::Flag: return "wait_flag " + flag_text(c.wait_pipe, Pipe::S, c.wait_arg) + in;
    case ScalarWait::Cross: return "cross_wait flag " + std::to_string(c.wait_arg) + in;
    case ScalarWait::SyncAll: return "sync_all" + in;
  }
  return "?";
}
}  // namespace

std::string topology_name(Topology t) { return t == Topology::Split ? "split" : "coupled"; }

std::unique_ptr<TopologyModel> make_topology(const HwConfig& hw) {
  return ImplRegistry<TopologyModel>::instance().create("topology", topology_name(hw.topology), hw);
}

MachineResources::MachineResources(HwConfig h, SimMode mode)
    : hw(std::move(h)),
      gm(static_cast<uint64_t>(hw.gm.bytes), mode != SimMode::Timing),
      mem(make_memory_model(hw)),
      cost(make_cost_model(hw)),
      topology(make_topology(hw)) {
  const std::vector<CoreSlot> slots = topology->cores();
  for (size_t i = 0; i < slots.size(); ++i) {
    auto c = std::make_unique<CoreState>();
    c->index = static_cast<int>(i);
    c->kind = slots[i].kind;
    c->ai_core = slots[i].ai_core;
    c->sub = slots[i].sub;
    c->name = slots[i].name;
    for (int b = 1; b < kNumBufs; ++b) {
      c->local_bytes[size_t(b)] = buffer_bytes(hw, c->kind, static_cast<Buf>(b));
      if (mode == SimMode::Timing) continue;
      c->local[size_t(b)].assign(c->local_bytes[size_t(b)], 0);
      c->ctx.mem.buf[size_t(b)] = std::span<uint8_t>(c->local[size_t(b)]);
    }
    c->ctx.regs = &c->regs;
    c->ctx.coupled = topology->coupled_datapaths();
    for (int p = 0; p < kNumPipes; ++p) {
      c->pipes[size_t(p)].pipe = static_cast<Pipe>(p);
      c->pipes[size_t(p)].depth = queue_depth(hw, static_cast<Pipe>(p));
      c->pipes[size_t(p)].q.reset(c->pipes[size_t(p)].depth);
    }
    c->pending.reset(kRunAheadIssues);
    c->stats.name = c->name;
    cores.push_back(std::move(c));
  }
}

bool CheckHooks::is_input(uint64_t b) const {
  const auto it = std::upper_bound(input_ranges.begin(), input_ranges.end(), b,
                                   [](uint64_t v, const std::pair<uint64_t, uint64_t>& r) { return v < r.second; });
  return it != input_ranges.end() && it->first <= b;
}

void FaultSink::fault(const std::string& kind, const std::string& msg, bool fatal_fault) {
  faults.push_back({kind, msg});
  if (fatal_fault && !fatal) {
    fatal = true;
    stop_engine->stop();
  }
}

void Waker::wake_scalar(CoreState& c, uint64_t cycle) {
  c.wait = ScalarWait::None;  // satisfied (or about to be, at `cycle`): nothing else may wake it again
  if (c.scalar_scheduled) return;
  c.scalar_scheduled = true;
  engine->schedule(std::max(cycle, now()), uint32_t(c.index), EventKind::Scalar);
}

void Waker::wake_pipe(CoreState& c, PipeState& p, uint64_t cycle) {
  if (p.step_scheduled) return;
  p.step_scheduled = true;
  engine->schedule(std::max(cycle, now()), uint32_t(c.index), EventKind::Pipe, uint8_t(p.pipe));
}

Machine::Impl::Impl(HwConfig hw, SimMode mode) : s(std::move(hw), mode), engine(*this) { s.set_engine(&engine); }

void Machine::Impl::on_event(const Event& e) {
  CoreState& c = *s.cores[e.core];
  if (e.kind == EventKind::Pipe) {
    PipeState& p = c.pipes[e.pipe];
    p.step_scheduled = false;
    pipes.step(c, p);
    return;
  }
  c.scalar_scheduled = false;
  if (!c.pending.empty() && !s.fatal) {  // the program ran ahead: the scalar unit issues what it has reached
    scalar.replay(c);
    if (!c.pending.empty()) return;  // waiting for another slot; the program stays suspended
  }
  if (c.fiber && !c.fiber->done()) c.fiber->resume();
}

std::string Machine::Impl::deadlock_report() const {
  std::ostringstream os;
  os << "deadlock at cycle " << s.now() << ": every process is blocked";
  for (const auto& c : s.cores) {
    if (!c->in_launch || c->done) continue;
    os << "\n  " << c->name << " scalar: " << scalar_wait_text(*c);
    for (const auto& p : c->pipes) {
      const auto* w = p.activity == PipeActivity::Waiting ? std::get_if<WaitFlag>(&p.cur().instr()) : nullptr;
      if (w)
        os << "\n  " << c->name << " " << pipe_name(p.pipe) << ": blocked in wait_flag "
           << flag_text(w->src, w->dst, w->event) << " (instruction #" << p.cur().id << ")";
      if (!p.q.empty())
        os << "\n  " << c->name << " " << pipe_name(p.pipe) << ": " << p.q.size() << " queued, head #" << p.q.front().id
           << " '" << to_asm(p.q.front().instr()) << "'";
    }
  }
  return os.str();
}

void Machine::Impl::tick() {
  if (progress) maybe_progress();
  if (!interrupt_poll) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - interrupt_last < std::chrono::milliseconds(50)) return;
  interrupt_last = now;
  if (interrupt_poll())
    s.fault("interrupted",
            "the host stopped the launch at cycle " + std::to_string(s.now() - s.launch_start) + " (" +
                std::to_string(s.instructions) + " instructions run)",
            true);
}

void Machine::Impl::maybe_progress() {
  const auto now = std::chrono::steady_clock::now();
  if (now - progress_last < std::chrono::milliseconds(500)) return;
  progress_last = now;
  const double secs = std::chrono::duration<double>(now - progress_wall0).count();
  std::fprintf(stderr, "\r[npusim] cycle %llu, %llu instructions, %.2f M instructions/s   ",
               static_cast<unsigned long long>(s.now() - s.launch_start),
               static_cast<unsigned long long>(s.instructions),
               secs > 0 ? static_cast<double>(s.instructions) / secs / 1e6 : 0.0);
  progress_printed = true;
}

Machine::Machine(HwConfig hw, SimMode mode) : impl_(std::make_unique<Impl>(std::move(hw), mode)) {}

Machine::~Machine() = default;
const HwConfig& Machine::hw() const { return impl_->s.hw; }
SimMode Machine::mode() const { return impl_->s.mode; }
GlobalMemory& Machine::gm() { return impl_->s.gm; }
void Machine::set_trace(TraceWriter* t) {
  impl_->s.trace = t;
  impl_->s.trace_named.clear();
}
void Machine::set_progress(bool on) { impl_->progress = on; }
void Machine::set_interrupt(std::function<bool()> poll) { impl_->interrupt_poll = std::move(poll); }
void Machine::set_checks(Checks c) { impl_->s.checks = c; }
void Machine::set_reverse_ties(bool on) { impl_->engine.set_reverse_ties(on); }
void Machine::set_check_thread(bool on) { impl_->s.check_thread = on; }
void Machine::set_run_ahead(bool on) { impl_->s.run_ahead = on; }
int Machine::num_cores() const { return static_cast<int>(impl_->s.cores.size()); }
std::string Machine::core_name(int core) const { return impl_->s.cores.at(size_t(core))->name; }
LaunchResult Machine::launch(const LaunchSpec& spec) { return impl_->launch(spec); }

}  // namespace npusim::sim
