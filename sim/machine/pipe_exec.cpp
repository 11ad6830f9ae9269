// The pipe side of the machine: each pipe drains its in-order queue at simulated time. An instruction
// starts when the pipe is free (occupancy of the previous one) and its issue time has come; sync
// instructions also wait for earlier results (latency). Arithmetic happens at the start cycle.
#include <cstdio>

#include "isa/text/asm.h"
#include "sim/machine/machine_impl.h"

namespace npusim::sim {

using namespace isa;

void wait_until(uint64_t cycle) {
  const uint64_t now = now_cycles();
  if (cycle > now) sc_core::wait(sc_core::sc_time::from_value(cycle - now));
}

namespace {
template <class... F> struct Overloaded : F... { using F::operator()...; };

bool waits_for_results(const Instr& in) {
  return std::holds_alternative<SetFlag>(in) || std::holds_alternative<PipeBarrier>(in) ||
         std::holds_alternative<CrossSet>(in);
}

uint64_t bytes_moved(const std::vector<Access>& acc) {
  uint64_t b = 0;
  for (const auto& a : acc)
    if (a.write) b += a.end - a.begin;
  return b;
}
}  // namespace

void Machine::Impl::pipe_thread(CoreState& c, PipeState& p) {
  for (;;) {
    while (p.q.empty()) sc_core::wait(p.pushed);
    const QueuedInstr q = std::move(p.q.front());
    p.q.pop_front();
    p.active = true;
    p.progressed.notify(sc_core::SC_ZERO_TIME);
    if (!fatal) run_instr(c, p, q);
    if (progress && (++progress_tick & 0xfff) == 0) maybe_progress();
    p.active = false;
    p.progressed.notify(sc_core::SC_ZERO_TIME);
  }
}

void Machine::Impl::maybe_progress() {
  const auto now = std::chrono::steady_clock::now();
  if (now - progress_last < std::chrono::milliseconds(500)) return;
  progress_last = now;
  const double s = std::chrono::duration<double>(now - progress_wall0).count();
  std::fprintf(stderr, "\r[npusim] cycle %llu, %llu instructions, %.2f M instructions/s   ",
               static_cast<unsigned long long>(now_cycles() - launch_start), static_cast<unsigned long long>(instructions),
               s > 0 ? static_cast<double>(instructions) / s / 1e6 : 0.0);
  progress_printed = true;
}

void Machine::Impl::run_instr(CoreState& c, PipeState& p, const QueuedInstr& q) {
  uint64_t start = std::max({now_cycles(), q.ready, p.next_free});
  if (waits_for_results(q.in)) start = std::max(start, p.last_completion);
  wait_until(start);
  if (fatal) return;
  const AgentId scalar = agent(c.index, Pipe::S);
  if (hb->version(scalar) != p.scalar_version_seen) {  // issued after everything the scalar acquired
    hb->acquire(p.agent, hb->clock(scalar));
    p.scalar_version_seen = hb->version(scalar);
  }
  PipeCost cost;
  uint64_t bytes = 0;
  const uint64_t slice_start = start;  // a wait's slice spans its stall
  std::visit(Overloaded{[&](const SetFlag& f) { do_set_flag(c, p, f, q); },
                        [&](const WaitFlag& f) { do_wait_flag(c, p, f, q); start = now_cycles(); },
                        [&](const CrossSet& s) { do_cross_set(c, p, s, q); },
                        [&](const PipeBarrier&) { hb->tick(p.agent); },
                        [&](const auto&) {
                          cost = execute_and_cost(c, p, q, start);
                          bytes = bytes_moved(scratch);
                        }},
             q.in);
  if (fatal) return;
  p.next_free = start + cost.occupancy;
  p.last_completion = std::max(p.last_completion, p.next_free + cost.latency);
  auto& st = c.stats.pipes[static_cast<int>(p.pipe)];
  st.busy_cycles += cost.occupancy;
  ++st.instructions;
  ++instructions;
  if (trace) {
    TraceSlice sl{c.index, c.name, p.pipe, slice_start, start + cost.occupancy, q.id, to_asm(q.in), bytes,
                  std::holds_alternative<Mmad>(q.in) ? mmad_flops(std::get<Mmad>(q.in)) : 0};
    if (std::holds_alternative<SetFlag>(q.in) || std::holds_alternative<CrossSet>(q.in)) sl.flow_out = q.id;
    trace->slice(sl);
  }
}

void Machine::Impl::check_bounds(const CoreState& c, const std::vector<Access>& acc) {
  for (const auto& a : acc) {
    const uint64_t size = a.buf == Buf::GM ? gm.used_bytes() : c.local[static_cast<int>(a.buf)].size();
    if (a.end > size)
      throw IsaError(std::string("operand range [") + std::to_string(a.begin) + ", " + std::to_string(a.end) + ") of " +
                     std::string(buf_name(a.buf)) + " exceeds its size " + std::to_string(size));
  }
}

PipeCost Machine::Impl::execute_and_cost(CoreState& c, PipeState& p, const QueuedInstr& q, uint64_t start) {
  const uint32_t epoch = hb->tick(p.agent);
  scratch.clear();
  try {
    if (mode != SimMode::Timing) execute(q.in, c.ctx);
    footprint(q.in, &c.regs, scratch);
    if (mode == SimMode::Timing) check_bounds(c, scratch);
  } catch (const IsaError& e) {
    fault("bounds", c.name + " " + std::string(pipe_name(p.pipe)) + " at cycle " + std::to_string(start) +
                        ", instruction #" + std::to_string(q.id) + ": " + e.what(),
          true);
    return {};
  }
  InstrInfo inf{q.id, c.index, c.name, p.pipe, start, "", q.in};
  races->on_access(p.agent, epoch, inf, scratch);
  if (auto* m = std::get_if<Mmad>(&q.in)) {
    flops += mmad_flops(*m);
    executed_flops += mmad_executed_flops(*m);
  }
  if (mode == SimMode::Functional) return {};
  gm_reads.clear();  // reused buffers: this runs for every instruction
  gm_writes.clear();
  for (const auto& a : scratch)
    if (a.buf == Buf::GM) (a.write ? gm_writes : gm_reads).push_back(a);
  if (std::holds_alternative<DataCopy>(q.in) || std::holds_alternative<Nd2Nz>(q.in)) {
    if (!gm_reads.empty()) {
      const auto t = mem.read(gm_reads, start, hw.mte2.port_bytes_per_cycle, hw.mte2.l2_hit_bytes_per_cycle,
                              hw.mte2.startup_cycles);
      return {t.occupancy, t.latency};
    }
    if (!gm_writes.empty()) {
      const auto t = mem.write(gm_writes, start, hw.mte3.port_bytes_per_cycle, hw.mte3.startup_cycles);
      return {t.occupancy, t.latency};
    }
  }
  PipeCost cost = local_cost(q.in, hw);
  if (auto* f = std::get_if<Fixpipe>(&q.in); f && !gm_writes.empty()) {
    const auto t = mem.write(gm_writes, start, fixpipe_bytes_per_cycle(*f, hw), hw.fixpipe.startup_cycles);
    cost.occupancy = std::max(cost.occupancy, t.occupancy);
    cost.latency = std::max(cost.latency, t.latency);
  }
  return cost;
}

}  // namespace npusim::sim
