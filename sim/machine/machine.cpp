// Machine construction (the SystemC module tree, once per process) and launches.
#include <chrono>
#include <sstream>

#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"
#include "sim/machine/scalar_unit.h"

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

namespace {
bool g_machine_built = false;
constexpr Pipe kQueuedPipes[] = {Pipe::V, Pipe::M, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::FIX};

size_t queue_depth(const HwConfig& hw, Pipe p) {
  switch (p) {
    case Pipe::MTE1: return hw.queue.mte1_entries;
    case Pipe::M: return hw.queue.m_entries;
    case Pipe::FIX: return hw.queue.fix_entries;
    case Pipe::MTE2: return hw.queue.mte2_entries;
    case Pipe::MTE3: return hw.queue.mte3_entries;
    default: return hw.queue.v_entries;
  }
}

uint64_t buffer_bytes(const HwConfig& hw, CoreKind k, Buf b) {
  const bool cube = k != CoreKind::Vector, vec = k != CoreKind::Cube;
  switch (b) {
    case Buf::L1: return cube ? hw.core.l1_bytes : 0;
    case Buf::L0A: return cube ? hw.core.l0a_bytes : 0;
    case Buf::L0B: return cube ? hw.core.l0b_bytes : 0;
    case Buf::L0C: return cube ? hw.core.l0c_bytes : 0;
    case Buf::BT: return cube ? hw.core.bt_bytes : 0;
    case Buf::FB: return cube ? hw.core.fb_bytes : 0;
    case Buf::UB: return vec ? hw.core.ub_bytes : 0;
    case Buf::GM: return 0;
  }
  return 0;
}
}  // namespace

// The module tree: one SC_THREAD per pipe of every core; scalar programs are spawned per launch.
class ChipModule : public sc_core::sc_module {
 public:
  ChipModule(sc_core::sc_module_name n, Machine::Impl& m) : sc_module(n) {
    for (auto& c : m.cores)
      for (Pipe p : kQueuedPipes) {
        if (!core_has_pipe(c->kind, p)) continue;
        CoreState* cs = c.get();
        PipeState* ps = &c->pipes[static_cast<int>(p)];
        sc_core::sc_spawn_options opt;
        sc_core::sc_spawn([&m, cs, ps] { m.pipe_thread(*cs, *ps); },
                          (cs->name + "_" + std::string(pipe_name(p))).c_str(), &opt);
      }
  }
};

Machine::Impl::Impl(HwConfig h, SimMode m)
    : hw(std::move(h)), mode(m), gm(static_cast<uint64_t>(hw.gm.bytes), m != SimMode::Timing), mem(hw) {
  const bool split = hw.topology == Topology::Split;
  const int aics = static_cast<int>(hw.chip.ai_cores);
  const int aivs = split ? static_cast<int>(hw.chip.ai_cores * hw.chip.aiv_per_core) : 0;
  for (int i = 0; i < aics + aivs; ++i) {
    auto c = std::make_unique<CoreState>();
    c->index = i;
    c->kind = !split ? CoreKind::Coupled : (i < aics ? CoreKind::Cube : CoreKind::Vector);
    c->ai_core = i < aics ? i : (i - aics) / static_cast<int>(hw.chip.aiv_per_core);
    c->sub = i < aics ? 0 : (i - aics) % static_cast<int>(hw.chip.aiv_per_core);
    c->name = !split ? "core" + std::to_string(i) : (i < aics ? "aic" + std::to_string(i) : "aiv" + std::to_string(i - aics));
    for (int b = 1; b < kNumBufs; ++b) c->local[b].assign(buffer_bytes(hw, c->kind, static_cast<Buf>(b)), 0);
    for (int b = 1; b < kNumBufs; ++b) c->ctx.mem.buf[b] = std::span<uint8_t>(c->local[b]);
    c->ctx.regs = &c->regs;
    c->ctx.coupled = !split;
    for (int p = 0; p < kNumPipes; ++p) {
      c->pipes[p].pipe = static_cast<Pipe>(p);
      c->pipes[p].depth = queue_depth(hw, static_cast<Pipe>(p));
    }
    c->stats.name = c->name;
    cores.push_back(std::move(c));
  }
  chip = std::make_unique<ChipModule>("npusim_chip", *this);
}

void Machine::Impl::fault(const std::string& kind, const std::string& msg, bool fatal_fault) {
  faults.push_back({kind, msg});
  if (fatal_fault && !fatal) {
    fatal = true;
    abort_ev.notify(sc_core::SC_ZERO_TIME);
  }
}

std::string Machine::Impl::deadlock_report() const {
  std::ostringstream os;
  os << "deadlock at cycle " << now_cycles() << ": every process is blocked";
  for (const auto& c : cores) {
    if (!c->in_launch || c->done) continue;
    os << "\n  " << c->name << " scalar: " << (c->scalar_blocked_on.empty() ? "blocked" : c->scalar_blocked_on);
    for (const auto& p : c->pipes) {
      if (!p.blocked_on.empty()) os << "\n  " << c->name << " " << pipe_name(p.pipe) << ": blocked in " << p.blocked_on;
      if (!p.q.empty())
        os << "\n  " << c->name << " " << pipe_name(p.pipe) << ": " << p.q.size() << " queued, head #" << p.q.front().id
           << " '" << to_asm(p.q.front().in) << "'";
    }
  }
  return os.str();
}

Machine::Machine(HwConfig hw, SimMode mode) {
  if (g_machine_built)
    throw std::logic_error("one Machine per process: SystemC cannot elaborate a second module tree");
  g_machine_built = true;
  sc_core::sc_set_time_resolution(1, sc_core::SC_NS);  // one resolution unit = one core cycle
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_INSTANCE_EXISTS_, sc_core::SC_DO_NOTHING);
  impl_ = std::make_unique<Impl>(std::move(hw), mode);
}

Machine::~Machine() = default;
const HwConfig& Machine::hw() const { return impl_->hw; }
SimMode Machine::mode() const { return impl_->mode; }
GlobalMemory& Machine::gm() { return impl_->gm; }
void Machine::set_trace(TraceWriter* t) {
  impl_->trace = t;
  impl_->trace_named.clear();
}
void Machine::set_progress(bool on) { impl_->progress = on; }
int Machine::num_cores() const { return static_cast<int>(impl_->cores.size()); }
std::string Machine::core_name(int core) const { return impl_->cores.at(core)->name; }

}  // namespace npusim::sim
