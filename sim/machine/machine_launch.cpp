// One launch: choose the cores, reset their per-launch state, run their scalar programs to completion.
#include <chrono>
#include <cstdio>

#include "sim/machine/machine_impl.h"
#include "sim/machine/scalar_unit.h"

namespace npusim::sim {

using namespace isa;

namespace {
struct Selection {
  std::vector<int> cores;
  std::vector<bool> runs_cube;  // parallel to cores: which program the core runs
};

Selection select_cores(const Machine::Impl& m, const LaunchSpec& spec) {
  const auto& hw = m.hw;
  const int aics = static_cast<int>(hw.chip.ai_cores);
  const bool split = hw.topology == Topology::Split;
  const int aivs = split ? aics * static_cast<int>(hw.chip.aiv_per_core) : 0;
  const int limit = split && spec.mix == MixMode::VectorOnly ? aivs : aics;
  if (spec.block_dim < 1 || spec.block_dim > limit)
    throw KernelInputError("launch '" + spec.name + "': block_dim = " + std::to_string(spec.block_dim) +
                           " must be in [1, " + std::to_string(limit) + "] on " + hw.name);
  Selection s;
  if (!split) {
    if (!spec.cube) throw KernelInputError("launch '" + spec.name + "': a coupled core runs the cube program, which is empty");
    for (int i = 0; i < spec.block_dim; ++i) s.cores.push_back(i), s.runs_cube.push_back(true);
    return s;
  }
  const bool want_cube = spec.mix != MixMode::VectorOnly, want_vec = spec.mix != MixMode::CubeOnly;
  if (want_cube && !spec.cube) throw KernelInputError("launch '" + spec.name + "': the mix mode needs a cube program");
  if (want_vec && !spec.vector) throw KernelInputError("launch '" + spec.name + "': the mix mode needs a vector program");
  if (spec.mix == MixMode::VectorOnly) {
    for (int j = 0; j < spec.block_dim; ++j) s.cores.push_back(aics + j), s.runs_cube.push_back(false);
    return s;
  }
  for (int i = 0; i < spec.block_dim; ++i) {
    s.cores.push_back(i), s.runs_cube.push_back(true);
    if (want_vec)
      for (int k = 0; k < hw.chip.aiv_per_core; ++k)
        s.cores.push_back(aics + i * static_cast<int>(hw.chip.aiv_per_core) + k), s.runs_cube.push_back(false);
  }
  return s;
}

void reset_core(CoreState& c, std::span<uint8_t> gm_span, int64_t dcache_lines) {
  for (auto& p : c.pipes) {
    p.next_free = p.last_completion = now_cycles();
    p.blocked_on.clear();
    p.scalar_version_seen = UINT64_MAX;
  }
  for (auto& s : c.flags)
    for (auto& d : s)
      for (auto& f : d) f.set = false;
  for (auto& x : c.cross) x.visible_at.clear();
  c.alloc_top.fill(0);
  c.dcache.reset(dcache_lines);
  c.ctx.mem[Buf::GM] = gm_span;
  c.done = false;
  c.local_offset = 0;
  c.scalar_blocked_on.clear();
  c.stats.pipes = {};
  c.stats.used = true;
}
}  // namespace

LaunchResult Machine::launch(const LaunchSpec& spec) {
  Impl& m = *impl_;
  if (m.unusable) throw std::logic_error("the machine stopped after a fatal fault or deadlock; start a new process");
  const auto wall0 = std::chrono::steady_clock::now();
  const Selection sel = select_cores(m, spec);
  for (auto& c : m.cores) c->in_launch = false, c->stats.used = false;
  m.core_agent_base.assign(m.cores.size(), -1);
  std::vector<int> core_of_agent;
  for (int core : sel.cores) {
    m.core_agent_base[core] = static_cast<int>(core_of_agent.size());
    for (int p = 0; p < kNumPipes; ++p) core_of_agent.push_back(core);
  }
  const size_t agents = core_of_agent.size();
  m.hb = std::make_unique<HappensBefore>(agents);
  m.races = std::make_unique<RaceChecker>(*m.hb, core_of_agent);
  m.faults.clear();
  m.flops = m.executed_flops = m.instructions = 0;
  m.mem.reset_stats();
  m.launch_start = now_cycles();
  m.progress_printed = false;
  for (auto* ps : {&m.partners_mode0, &m.partners_mode1, &m.partners_mode2}) {
    ps->pending.assign(m.cores.size(), {});
    ps->vcs.assign(m.cores.size(), {});
    for (auto& row : ps->vcs) row.fill(VectorClock(agents));
  }
  m.sync_all_arrived = 0;
  m.sync_all_expected = static_cast<int>(sel.cores.size());
  m.sync_all_vc = VectorClock(agents);
  int cube_blocks = 0, vec_blocks = 0;
  for (size_t i = 0; i < sel.cores.size(); ++i) {
    CoreState& c = *m.cores[sel.cores[i]];
    reset_core(c, m.gm.span(), m.hw.scalar.dcache_line_bytes > 0 ? m.hw.scalar.dcache_bytes / m.hw.scalar.dcache_line_bytes : 0);
    if (m.trace && m.trace_named.insert(c.index).second) m.trace->name_core(c.index, c.name);
    c.in_launch = true;
    for (int p = 0; p < kNumPipes; ++p) c.pipes[p].agent = m.agent(c.index, static_cast<Pipe>(p));
    const bool vec_only = spec.mix == MixMode::VectorOnly && m.hw.topology == Topology::Split;
    c.block_num = spec.block_dim;
    if (sel.runs_cube[i]) c.block_idx = cube_blocks++, c.sub_block = 0;
    else if (vec_only) c.block_idx = vec_blocks++, c.sub_block = 0;
    else c.block_idx = c.ai_core, c.sub_block = c.sub;
    const KernelFn fn = sel.runs_cube[i] ? spec.cube : spec.vector;
    sc_core::sc_spawn_options opt;
    opt.set_stack_size(1 << 20);
    CoreState* cs = &c;
    sc_core::sc_spawn(
        [&m, cs, fn] {
          ScalarCtx ctx(m, *cs);
          try {
            fn(ctx);
            m.finish_core(*cs);
          } catch (const AbortLaunch&) {
          } catch (const KernelInputError& e) {
            m.fault("input", e.what(), true);
          } catch (const std::exception& e) {
            m.fault("internal", cs->name + ": " + e.what(), true);
          }
        },
        (spec.name + "_" + c.name + "_scalar").c_str(), &opt);
  }
  m.progress_wall0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  if (m.progress_printed) std::fprintf(stderr, "\n");
  bool all_done = true;
  for (int core : sel.cores) all_done &= m.cores[core]->done;
  if (!all_done && !m.fatal) m.fault("deadlock", m.deadlock_report(), true);
  if (all_done)
    for (int core : sel.cores)
      for (int id = 0; id < kNumCrossFlags; ++id)
        if (const auto& x = m.cores[core]->cross[id]; !x.visible_at.empty())
          m.fault("cross-flags-pending", m.cores[core]->name + ": cross-core flag " + std::to_string(id) + " holds " +
                                             std::to_string(x.visible_at.size()) + " set(s) never waited for; the last by #" +
                                             std::to_string(x.last_set_id) + " on " + m.cores[x.last_set_core]->name +
                                             " " + std::string(pipe_name(x.last_set_pipe)),
                  false);
  if (m.fatal) m.unusable = true;
  LaunchResult r;
  // The launch ends when its last core does (a progress thread may have moved time a little further).
  uint64_t end = all_done ? m.launch_start : now_cycles();
  for (int core : sel.cores) end = std::max(end, m.cores[core]->stats.end_cycle);
  r.cycles = end - m.launch_start;
  for (const auto& c : m.cores) {
    r.cores.push_back(c->stats);
    if (c->in_launch) r.cores.back().end_cycle -= std::min(r.cores.back().end_cycle, m.launch_start);
  }
  r.mem = m.mem.stats();
  r.l2_hit_rate = m.mem.l2_hit_rate();
  r.flops = m.flops;
  r.executed_flops = m.executed_flops;
  r.instructions = m.instructions;
  for (const auto& f : m.races->faults()) m.faults.push_back(f);
  r.faults = m.faults;
  r.race_checks = m.races->checks_run();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace npusim::sim
