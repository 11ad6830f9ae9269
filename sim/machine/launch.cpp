// One launch: choose the cores, reset their per-launch state, run their kernel programs (fibers) and the pipes
// on the engine until every core is done, a fatal fault stops it or nothing can move (a deadlock).
#include <chrono>
#include <cstdio>
#include <optional>

#include "sim/machine/machine_impl.h"
#include "sim/machine/scalar_unit.h"

namespace npusim::sim {

using namespace isa;

namespace {
constexpr size_t kKernelStackBytes = size_t{1} << 20;  // kernels/README.md "Mind the stack"

void reset_core(CoreState& c, std::span<uint8_t> gm_span, int64_t dcache_lines, uint64_t now) {
  for (auto& p : c.pipes) {
    p.next_free = p.last_completion = now;
    p.activity = PipeActivity::Idle;
    p.step_scheduled = false;
    p.q.clear();
    p.scalar_version_seen = UINT64_MAX;
  }
  for (auto& s : c.flags)
    for (auto& d : s)
      for (auto& f : d) f.set = false;
  for (auto& x : c.cross) x.visible_at.clear();
  c.stage = 0;
  c.pending.clear();
  c.alloc_top.fill(0);
  c.dcache.reset(dcache_lines);
  c.ctx.mem[Buf::GM] = gm_span;
  c.done = false;
  c.local_offset = 0;
  c.wait = ScalarWait::None;
  c.scalar_scheduled = false;
  c.stats.pipes = {};
  c.stats.scalar_waits = {};
  c.stats.buffer_peak = {};
  c.stats.used = true;
}
}  // namespace

LaunchResult Machine::Impl::launch(const LaunchSpec& spec) {
  MachineState& m = s;
  if (m.unusable)
    throw std::logic_error("the machine stopped after a fatal fault, deadlock or interruption; build a new Machine");
  const auto wall0 = std::chrono::steady_clock::now();
  const std::vector<LaunchPlacement> placed = m.topology->place(spec);
  std::vector<int> launch_cores;
  for (const auto& pl : placed) launch_cores.push_back(pl.core);
  for (auto& c : m.cores) c->in_launch = false, c->stats.used = false;
  m.core_agent_base.assign(m.cores.size(), -1);
  std::vector<int> core_of_agent;
  std::vector<uint8_t> hazards;  // per agent: its pipe's same-pipe rule
  for (int core : launch_cores) {
    m.core_agent_base[size_t(core)] = static_cast<int>(core_of_agent.size());
    for (int p = 0; p < kNumPipes; ++p) core_of_agent.push_back(core), hazards.push_back(same_pipe_rule(m.hw, p));
  }
  const size_t agents = core_of_agent.size();
  m.input_ranges = m.gm.read_only_ranges();  // (sorted: the race checker and the DCache model both search it)
  std::sort(m.input_ranges.begin(), m.input_ranges.end());
  m.dcache_tracked = 0;  // (every core's DCache starts empty: reset_core)
  m.hb.reset();
  m.races.reset();
  if (m.checks != Checks::Off) {
    m.hb = std::make_unique<HappensBefore>(agents);
    std::vector<std::string> names;
    for (const auto& c : m.cores) names.push_back(c->name);
    m.races = std::make_unique<CheckRunner>(*m.hb, core_of_agent, std::move(names), m.checks == Checks::All,
                                            m.check_thread, std::move(hazards));
    m.races->set_read_only(m.input_ranges);
  }
  m.faults.clear();
  m.flops = m.executed_flops = m.instructions = 0;
  m.exec_time = {};
  m.mem->reset_stats();
  m.mem->set_bypass(m.gm.l2_bypass_ranges());
  if (m.hw.launch.inputs_in_l2)
    for (const auto& [lo, hi] : m.input_ranges) m.mem->warm(lo, hi);
  m.launch_start = engine.now();
  progress_printed = false;
  sync.reset(launch_cores, m.checking() ? agents : 0);
  m.memo.clear_pins();  // every queue starts empty (a core outside this launch is reset before its next one)
  for (const LaunchPlacement& pl : placed) {
    CoreState& c = *m.cores[size_t(pl.core)];
    reset_core(c, m.gm.span(),
               m.hw.scalar.dcache_line_bytes > 0 ? m.hw.scalar.dcache_bytes / m.hw.scalar.dcache_line_bytes : 0,
               engine.now());
    if (m.trace && m.trace_named.insert(c.index).second) m.trace->name_core(c.index, c.name);
    c.in_launch = true;
    for (int p = 0; p < kNumPipes; ++p)
      c.pipes[size_t(p)].agent = m.checking() ? m.agent(c.index, static_cast<Pipe>(p)) : 0;
    c.block_num = spec.block_dim;
    c.block_idx = pl.block_idx, c.sub_block = pl.sub_block;
    const KernelFn fn = pl.runs_cube ? spec.cube : spec.vector;
    CoreState* cs = &c;
    const int stride = pl.block_stride, blocks = spec.block_dim;
    c.fiber = std::make_unique<Fiber>(
        [this, cs, fn, stride, blocks] {
          ScalarCtx ctx(s, scalar, *cs);
          std::optional<Fault> failed;  // reported outside the handler: reporting may suspend the fiber
          try {
            fn(ctx);
            // More blocks than cores: this core runs its next block once the last one's pipes have drained, with
            // a fresh buffer layout (each block is a new run of the kernel program).
            for (int b = cs->block_idx + stride; stride > 0 && b < blocks; b += stride) {
              ctx.pipe_barrier(Pipe::ALL);
              cs->block_idx = b;
              cs->alloc_top.fill(0);
              fn(ctx);
            }
            scalar.finish_core(*cs);
          } catch (const AbortLaunch&) {
          } catch (const KernelInputError& e) {
            failed = Fault{"input", e.what()};
          } catch (const KernelFault& e) {
            failed = Fault{e.kind, cs->name + ": " + e.what()};
          } catch (const std::exception& e) {
            failed = Fault{"internal", cs->name + ": " + e.what()};
          }
          if (failed) scalar.fail_after_catch_up(*cs, *failed);
        },
        kKernelStackBytes);
    // Blocks start one dispatch interval apart; a first launch also fills every core's ICache / TLBs.
    const auto& l = m.hw.launch;
    const uint64_t block = static_cast<uint64_t>(c.block_idx);
    const uint64_t start_delay =
        m.mode == SimMode::Functional
            ? 0  // functional mode has no time
            : block * uint64_t(l.block_dispatch_cycles) +
                  (l.cold ? uint64_t(l.cold_start_cycles) + block * uint64_t(l.cold_per_block_cycles) : 0);
    c.stats.start_cycle = engine.now() + start_delay;
    m.wake_scalar(c, c.stats.start_cycle);
  }
  progress_wall0 = std::chrono::steady_clock::now();
  engine.run([this] { tick(); }, progress || interrupt_poll ? 1 : 0);
  if (progress_printed) std::fprintf(stderr, "\n");
  bool all_done = true;
  for (int core : launch_cores) all_done &= m.cores[size_t(core)]->done;
  if (!all_done && !m.fatal) m.fault("deadlock", deadlock_report(), true);
  // Unwind every kernel program still blocked: it sees the fatal state and throws AbortLaunch to its end.
  for (int core : launch_cores)
    if (auto& f = m.cores[size_t(core)]->fiber; f && !f->done()) f->resume();
  for (int core : launch_cores) m.cores[size_t(core)]->fiber.reset();
  if (all_done)
    for (int core : launch_cores)
      for (int id = 0; id < kNumCrossFlags; ++id)
        if (const auto& x = m.cores[size_t(core)]->cross[size_t(id)]; !x.visible_at.empty())
          m.fault("cross-flags-pending",
                  m.cores[size_t(core)]->name + ": cross-core flag " + std::to_string(id) + " holds " +
                      std::to_string(x.visible_at.size()) + " set(s) never waited for; the last by #" +
                      std::to_string(x.last_set_id) + " on " + m.cores[size_t(x.last_set_core)]->name + " " +
                      std::string(pipe_name(x.last_set_pipe)),
                  false);
  if (m.fatal) m.unusable = true;
  LaunchResult r;
  uint64_t end = m.launch_start;  // the launch ends when its last core does
  for (int core : launch_cores) end = std::max(end, m.cores[size_t(core)]->stats.end_cycle);
  if (!all_done) end = std::max(end, engine.now());
  r.cycles = end - m.launch_start;
  for (const auto& c : m.cores) {
    r.cores.push_back(c->stats);
    if (c->in_launch)
      for (uint64_t* t : {&r.cores.back().start_cycle, &r.cores.back().end_cycle}) *t -= std::min(*t, m.launch_start);
  }
  r.mem = m.mem->stats();
  r.l2_hit_rate = m.mem->l2_hit_rate();
  r.flops = m.flops;
  r.executed_flops = m.executed_flops;
  r.instructions = m.instructions;
  if (m.races) {
    try {
      m.races->finish();  // the checker thread has checked everything logged
    } catch (const std::exception& e) {
      m.faults.push_back(Fault{"internal", std::string("race checker: ") + e.what()});
    }
    for (const auto& f : m.races->faults()) m.faults.push_back(f);
    r.notes = m.races->notes();
    r.race_checks = m.races->checks_run();
  }
  r.faults = m.faults;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  for (size_t k = 0; k < m.exec_time.size(); ++k) {
    r.exec_pipe_s[k] = std::chrono::duration<double>(m.exec_time[k]).count();
    r.exec_s += r.exec_pipe_s[k];
  }
  return r;
}

}  // namespace npusim::sim
