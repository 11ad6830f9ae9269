// The scalar unit: runs a kernel program (plain C++) at simulated time. Issuing costs scalar.issue_cycles,
// accumulated locally and synchronised with simulated time only when the scalar must observe something
// (a full queue, a flag, a GM load, the end of the kernel), so the program runs ahead of its pipes as the
// real scalar unit does.
#include "isa/text/asm.h"
#include "isa/instr/operand.h"
#include "isa/instr/traits.h"
#include "sim/machine/core_ctx.h"
#include "sim/machine/machine_impl.h"
#include "sim/machine/scalar_unit.h"

namespace npusim::sim {

using namespace isa;

namespace {
constexpr uint8_t kScratchReg = kNumScalarRegs - 1;  // load_scalar's destination; reserved for kernels

bool is_scalar_side(const Instr& in) {
  const Pipe p = pipe_of(in);
  return p == Pipe::S || p == Pipe::ALL || std::holds_alternative<CrossWait>(in);
}
}  // namespace

void Machine::Impl::scalar_sync(CoreState& c) {
  if (c.local_offset) {
    sc_core::wait(sc_core::sc_time::from_value(c.local_offset));
    c.local_offset = 0;
  }
  if (fatal) throw AbortLaunch{};
}

void Machine::Impl::drain(CoreState& c) {
  scalar_sync(c);
  for (auto& p : c.pipes) {
    while (!p.q.empty() || p.active) {
      c.scalar_blocked_on = "draining pipe " + std::string(pipe_name(p.pipe));
      sc_core::wait(p.progressed | abort_ev);
      if (fatal) throw AbortLaunch{};
    }
  }
  uint64_t done = now_cycles();
  for (const auto& p : c.pipes) done = std::max(done, p.last_completion);
  wait_until(done);
  c.scalar_blocked_on.clear();
  // Everything the pipes did is now ordered before whatever the scalar unit issues or releases next.
  const AgentId s = agent(c.index, Pipe::S);
  for (const auto& p : c.pipes)
    if (p.pipe != Pipe::S && p.pipe != Pipe::ALL) hb->acquire(s, hb->clock(p.agent));
}

void Machine::Impl::scalar_issue(CoreState& c, const Instr& in) {
  if (fatal) throw AbortLaunch{};
  const Pipe pipe = pipe_of(in);
  const uint64_t id = next_id++;
  auto reject = [&](const std::string& why) {
    fault("isa", c.name + " instruction #" + std::to_string(id) + " '" + to_asm(in) + "': " + why, true);
    throw AbortLaunch{};
  };
  if (is_sync(in)) {  // field ranges (event ids, flag ids, modes) before they index any table
    try {
      execute(in, c.ctx);
    } catch (const IsaError& e) {
      reject(e.what());
    }
  }
  if (!core_has_pipe(c.kind, pipe))
    reject("an " + std::string(core_kind_name(c.kind)) + " core has no " + std::string(pipe_name(pipe)) + " pipe");
  auto check_event = [&](Pipe src, Pipe dst) {
    if (!event_pair_valid(src, dst, c.kind))
      reject("an " + std::string(core_kind_name(c.kind)) + " core has no hardware event " + std::string(pipe_name(src)) +
             "->" + std::string(pipe_name(dst)));
  };
  if (auto* f = std::get_if<SetFlag>(&in)) check_event(f->src, f->dst);
  if (auto* f = std::get_if<WaitFlag>(&in)) check_event(f->src, f->dst);
  const uint64_t issue = mode == SimMode::Functional ? 0 : hw.scalar.issue_cycles;
  c.local_offset += issue;
  auto& sstat = c.stats.pipes[static_cast<int>(Pipe::S)];
  sstat.busy_cycles += issue;
  ++sstat.instructions;
  QueuedInstr q{in, id, now_cycles() + c.local_offset};
  if (!is_scalar_side(in)) {
    PipeState& p = c.pipes[static_cast<int>(pipe)];
    if (p.q.size() >= p.depth) scalar_sync(c);  // catch up with simulated time, then look again
    while (p.q.size() >= p.depth) {
      c.scalar_blocked_on = "queue of pipe " + std::string(pipe_name(pipe)) + " full";
      sc_core::wait(p.progressed | abort_ev);
      if (fatal) throw AbortLaunch{};
    }
    q.ready = std::max(q.ready, now_cycles());
    c.scalar_blocked_on.clear();
    p.q.push_back(std::move(q));
    p.pushed.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  PipeState& s = c.pipes[static_cast<int>(Pipe::S)];
  ++instructions;
  if (std::holds_alternative<SMov>(in) || std::holds_alternative<SAlu>(in)) {
    try {
      execute(in, c.ctx);
    } catch (const IsaError& e) {
      reject(e.what());
    }
    return;
  }
  scalar_sync(c);
  const uint64_t begin = now_cycles();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, SLoad> || std::is_same_v<T, SStore>) {
          scratch.clear();
          footprint(in, &c.regs, scratch);
          if (!gm.backs_everything() && !gm.backed(scratch[0].begin, scratch[0].end - scratch[0].begin))
            reject("accesses GM that is not materialised in timing mode (allocate it with materialize = true)");
          isa::ExecContext ctx = c.ctx;
          ctx.mem[Buf::GM] = gm.backs_everything() ? gm.span() : std::span<uint8_t>();
          try {
            if (gm.backs_everything()) execute(in, ctx);
            else {  // timing mode: execute against the materialised allocation only
              uint8_t* ptr = gm.ptr(scratch[0].begin, scratch[0].end - scratch[0].begin);
              isa::ExecContext tiny = c.ctx;
              tiny.mem[Buf::GM] = std::span<uint8_t>(ptr - scratch[0].begin, scratch[0].end);
              execute(in, tiny);
            }
          } catch (const IsaError& e) {
            reject(e.what());
          }
          const uint32_t epoch = hb->tick(s.agent);
          races->on_access(s.agent, epoch, InstrInfo{id, c.index, c.name, Pipe::S, begin, "", in},
                           scratch);  // the footprint already marks a store as a write
          // A load stalls the scalar unit until its data returns; a store is posted.
          if (std::is_same_v<T, SLoad>) {
            const bool hit = hw.scalar.dcache_line_bytes > 0 &&
                             c.dcache.access(scratch[0].begin / uint64_t(hw.scalar.dcache_line_bytes));
            wait_until(begin + timed(hit ? hw.scalar.dcache_hit_cycles : hw.scalar.gm_load_latency_cycles));
          }
        } else if constexpr (std::is_same_v<T, SetFlag>) {
          do_set_flag(c, s, x, q);
        } else if constexpr (std::is_same_v<T, WaitFlag>) {
          do_wait_flag(c, s, x, q);
        } else if constexpr (std::is_same_v<T, CrossSet>) {
          do_cross_set(c, s, x, q);
        } else if constexpr (std::is_same_v<T, CrossWait>) {
          do_cross_wait(c, s, x, q);
        } else if constexpr (std::is_same_v<T, PipeBarrier>) {
          if (x.pipe == Pipe::ALL) drain(c);
        } else if constexpr (std::is_same_v<T, SyncAll>) {
          drain(c);
          do_sync_all(c, s, q);
        }
      },
      in);
  if (fatal) throw AbortLaunch{};
  const bool is_set = std::holds_alternative<SetFlag>(in) || std::holds_alternative<CrossSet>(in);
  if (trace && (now_cycles() > begin || is_set) && !std::holds_alternative<CrossWait>(in) &&
      !std::holds_alternative<WaitFlag>(in) && !std::holds_alternative<SyncAll>(in)) {
    TraceSlice sl{c.index, c.name, Pipe::S, begin, now_cycles(), id, to_asm(in), 0, 0};
    if (is_set) sl.flow_out = id;  // the arrow to the wait this set releases starts here
    trace->slice(sl);
  }
}

void Machine::Impl::finish_core(CoreState& c) {
  drain(c);
  for (int s = 0; s < kNumPipes; ++s)
    for (int d = 0; d < kNumPipes; ++d)
      for (int e = 0; e < kNumEventIds; ++e) {
        FlagSlot& f = c.flags[s][d][e];
        if (f.set)
          fault("flags-pending", c.name + ": flag " + std::string(pipe_name(static_cast<Pipe>(s))) + "->" +
                                     std::string(pipe_name(static_cast<Pipe>(d))) + " event " + std::to_string(e) +
                                     " set by #" + std::to_string(f.set_id) + " '" + f.set_text + "' at cycle " +
                                     std::to_string(f.set_cycle) + " is still set at kernel end (never waited for)",
                false);
      }
  c.done = true;
  c.stats.end_cycle = now_cycles();
}

// ---- CoreCtx implementation ----------------------------------------------------------------------

ScalarCtx::ScalarCtx(Machine::Impl& m, CoreState& c) : m_(m), c_(c) {}

int ScalarCtx::block_idx() const { return c_.block_idx; }
int ScalarCtx::block_num() const { return c_.block_num; }
int ScalarCtx::sub_block_idx() const { return c_.sub_block; }
isa::CoreKind ScalarCtx::kind() const { return c_.kind; }
const HwConfig& ScalarCtx::hw() const { return m_.hw; }
std::string ScalarCtx::name() const { return c_.name; }

uint64_t ScalarCtx::capacity(Buf b) const { return c_.local[static_cast<int>(b)].size(); }

Addr ScalarCtx::alloc(Buf b, uint64_t bytes, const std::string& what, uint64_t align) {
  if (b == Buf::GM) throw KernelInputError("alloc: GM is allocated by the host, not by kernels ('" + what + "')");
  const uint64_t al = align ? align : buf_alignment(b);
  uint64_t& top = c_.alloc_top[static_cast<int>(b)];
  const uint64_t off = (top + al - 1) / al * al;
  const uint64_t cap = capacity(b);
  if (off + bytes > cap)
    throw KernelInputError(c_.name + ": '" + what + "' needs " + std::to_string(bytes) + " bytes of " +
                           std::string(buf_name(b)) + " at offset " + std::to_string(off) + " but the buffer holds " +
                           std::to_string(cap) + " bytes (" + std::to_string(cap - std::min(cap, off)) + " free)");
  top = off + bytes;
  return {b, off};
}

void ScalarCtx::free_all(Buf b) { c_.alloc_top[static_cast<int>(b)] = 0; }

Addr ScalarCtx::gm(const std::string& name, uint64_t offset) const {
  return {Buf::GM, m_.gm.find(name).offset + offset};
}

void ScalarCtx::issue(const Instr& in) { m_.scalar_issue(c_, in); }

int64_t ScalarCtx::load_scalar(DType t, Addr a) {
  m_.scalar_issue(c_, SLoad{t, kScratchReg, a, -1});
  return c_.regs[kScratchReg];
}

}  // namespace npusim::sim
