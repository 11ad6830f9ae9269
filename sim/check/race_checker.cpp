#include "sim/check/race_checker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_set>

#include "isa/text/asm.h"
#include "sim/check/gm_shadow.h"
#include "sim/check/instr_history.h"
#include "sim/check/local_shadow.h"
#include "sim/check/race_hits.h"

namespace npusim::sim {

namespace {

constexpr size_t kMaxDedupe = size_t{1} << 20;  // pairs remembered; beyond, every race is only counted

struct PairKey {
  uint64_t earlier, later;  // (agent << 32) | epoch of each instruction
  bool operator==(const PairKey&) const = default;
};
struct PairHash {
  size_t operator()(const PairKey& k) const { return k.earlier * 0x9E3779B97F4A7C15ull ^ k.later; }
};

uint64_t event(AgentId a, uint32_t epoch) { return (uint64_t{a} << 32) | epoch; }

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

const char* kind_name(RaceKind k) { return k == RaceKind::RAW ? "RAW" : k == RaceKind::WAR ? "WAR" : "WAW"; }

std::string describe(const InstrInfo& i) {
  return describe_instruction(i.id, i.core_name, i.pipe, i.cycle,
                              i.text.empty() ? isa::to_asm(i.instr) : i.text);  // rendered only for reports
}

}  // namespace

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string temporaries.
std::string describe_instruction(uint64_t id, std::string_view core, isa::Pipe pipe, uint64_t cycle,
                                 std::string_view text) {
  std::string s = "#";
  s += std::to_string(id);
  s += ' ';
  s += core;
  s += ' ';
  s += isa::pipe_name(pipe);
  s += " (cycle ";
  s += std::to_string(cycle);
  s += ") `";
  s += text;
  s += '`';
  return s;
}

struct RaceChecker::Impl {
  const HappensBefore& hb;
  std::vector<int> core_of_agent;
  std::vector<uint8_t> hazards;  // per agent: its same-pipe rule
  LocalShadow local;
  GmShadow gm;
  RaceHits hits;
  HistoryArena arena;                 // the rings of `history` (declared before it: outlives them)
  std::vector<InstrHistory> history;  // per agent
  std::vector<InstrInfo> agent_info;  // per agent: core name and pipe, from its first instruction
  std::unordered_set<PairKey, PairHash> reported;
  uint64_t dropped = 0;
  bool check_gm = true;
  std::vector<std::pair<uint64_t, uint64_t>> read_only;  // sorted, disjoint
  // Per agent: its last pipe_barrier, while no access has needed it (hi == 0: none open). Dense (every access
  // reads its agent's); the barrier's id and cycle apart, read only when a note names it.
  struct OpenBarrier {
    uint32_t lo = 0, hi = 0;  // it completed the agent's epochs lo+1 .. hi
  };
  std::vector<OpenBarrier> barriers;
  std::vector<std::pair<uint64_t, uint64_t>> barrier_at;  // per agent: (id, cycle) of that barrier

  Impl(const HappensBefore& h, std::vector<int> cores, bool gm_checks, std::vector<uint8_t> rules)
      : hb(h),
        core_of_agent(std::move(cores)),
        hazards(std::move(rules)),
        local(core_of_agent, hazards),
        gm(h),
        arena(core_of_agent.size()),
        history(core_of_agent.size()),
        agent_info(core_of_agent.size()),
        check_gm(gm_checks),
        barriers(core_of_agent.size()),
        barrier_at(core_of_agent.size()) {
    hazards.resize(core_of_agent.size(), 0);
  }

  // The read-only range overlapping [b, e), or nullptr.
  const std::pair<uint64_t, uint64_t>* read_only_overlap(uint64_t b, uint64_t e) const {
    auto it = std::upper_bound(read_only.begin(), read_only.end(), b,
                               [](uint64_t v, const std::pair<uint64_t, uint64_t>& r) { return v < r.second; });
    return it != read_only.end() && it->first < e ? &*it : nullptr;
  }

  void remember(AgentId a, uint32_t epoch, const InstrRef& ref) {
    if (agent_info[a].core_name.empty()) {
      agent_info[a].core = ref.core;
      agent_info[a].core_name = ref.core_name;
      agent_info[a].pipe = ref.pipe;
    }
    history[a].record(epoch, ref, arena);
  }

  std::string agent_name(AgentId a) const {
    const InstrInfo& i = agent_info[a];
    return i.core_name + ":" + std::string(isa::pipe_name(i.pipe));
  }

  std::string describe_earlier(const RaceHit& h) const {
    if (const auto i = history[h.other].find(h.other_epoch, agent_info[h.other])) return describe(*i);
    const std::string who = agent_info[h.other].core_name + " " + std::string(isa::pipe_name(agent_info[h.other].pipe));
    if (h.has_id) return "instruction #" + std::to_string(h.other_id) + " " + who + " (older than the history window)";
    return "instruction " + std::to_string(h.other_epoch) + " of " + who + " (older than the history window of " +
           std::to_string(kHistory) + " instructions)";
  }

  std::string hint(AgentId earlier, AgentId later) const {
    if (core_of_agent[earlier] == core_of_agent[later])
      return "no set_flag/wait_flag orders " + std::string(isa::pipe_name(agent_info[earlier].pipe)) + " -> " +
             std::string(isa::pipe_name(agent_info[later].pipe)) + " on " + agent_info[later].core_name;
    return "no cross-core flag or SyncAll orders " + agent_name(earlier) + " before " + agent_name(later);
  }

  // An own access of the same pipe that had not landed: the pipe does not order the dependence itself.
  std::string hazard_message(const RaceHit& h, const InstrInfo& info) const {
    const char* verb_earlier = h.kind == RaceKind::WAR ? "reads" : "writes";
    const char* verb_later = h.kind == RaceKind::RAW ? "reads" : "writes";
    const std::string pipe(isa::pipe_name(info.pipe));
    std::string m = std::string(kind_name(h.kind)) + " hazard on " + info.core_name + " " +
                    std::string(isa::buf_name(h.buf)) + " [" + hex(h.lo) + ", " + hex(h.hi) + ")";
    if (h.bytes != h.hi - h.lo) m += " (" + std::to_string(h.bytes) + " bytes in conflict)";
    m += ": " + describe_earlier(h) + " " + verb_earlier + "; " + describe(info) + " " + verb_later +
         " with no pipe_barrier(" + pipe + ") between them: the " + pipe + " pipe does not wait for the results of " +
         "its earlier instructions (hazards." + pipe + "; isa/README.md \"Same-pipe ordering\")";
    return m;
  }

  std::string message(const RaceHit& h, AgentId a, const InstrInfo& info) const {
    if (h.other == a) return hazard_message(h, info);
    const bool gm_buf = h.buf == isa::Buf::GM;
    const char* verb_earlier = h.kind == RaceKind::WAR ? "reads" : "writes";
    const char* verb_later = h.kind == RaceKind::RAW ? "reads" : "writes";
    std::string m = std::string(kind_name(h.kind)) + " race on " + (gm_buf ? "" : info.core_name + " ") +
                    std::string(isa::buf_name(h.buf)) + " [" + hex(h.lo) + ", " + hex(h.hi) + ")";
    if (h.bytes != h.hi - h.lo) m += " (" + std::to_string(h.bytes) + " bytes in conflict)";
    m += ": " + describe_earlier(h) + " " + verb_earlier + "; " + describe(info) + " " + verb_later +
         " with no ordering between them: " + hint(h.other, a);
    return m;
  }

  void emit(AgentId a, uint32_t epoch, const InstrInfo& info, std::vector<Fault>& faults) {
    for (const RaceHit& h : hits.hits()) {
      const PairKey key{event(h.other, h.other_epoch), event(a, epoch)};
      if (reported.count(key)) continue;
      if (reported.size() < kMaxDedupe) reported.insert(key);
      if (faults.size() >= kMaxFaults) {
        ++dropped;
        continue;
      }
      faults.push_back(Fault{h.other == a            ? "hazard"
                             : h.buf == isa::Buf::GM ? "gm-race"
                                                     : "race",
                             message(h, a, info)});
    }
  }

  void judge(AgentId a, OpenBarrier& b, std::vector<Fault>& notes) {
    if (b.hi != 0 && notes.size() < kMaxFaults) {
      const InstrInfo& who = agent_info[a];
      const InstrInfo info{barrier_at[a].first,       who.core, who.core_name, who.pipe, barrier_at[a].second, {},
                           isa::PipeBarrier{who.pipe}};
      const std::string pipe(isa::pipe_name(who.pipe));
      std::string m = describe(info) + " orders nothing: ";
      if (b.hi <= b.lo) {
        m += "every earlier " + pipe + " instruction had landed already (a set_flag from the pipe, a barrier or a " +
             "hand-over back to it completed them)";
      } else {
        m += "no " + pipe + " instruction after it (up to the next barrier) reads or writes what the " + pipe +
             " instructions it waits for wrote or read";
        if (const auto i = history[a].find(b.hi, agent_info[a])) m += ", the last of them " + describe(*i);
      }
      notes.push_back(Fault{"redundant-barrier", m + " (hazards." + pipe + ")"});
    }
    b.hi = 0;
  }

  void reset() {
    local.reset();
    for (OpenBarrier& b : barriers) b.hi = 0;
    gm.reset();
    for (InstrHistory& h : history) h.clear();
    reported.clear();
    dropped = 0;
  }
};

RaceChecker::RaceChecker(const HappensBefore& hb, std::vector<int> core_of_agent, bool check_gm,
                         std::vector<uint8_t> hazards)
    : impl_(new Impl(hb, std::move(core_of_agent), check_gm, std::move(hazards))) {}

void RaceChecker::on_barrier(AgentId a, uint32_t epoch, uint32_t done_before, const InstrRef& ref) {
  Impl& m = *impl_;
  Impl::OpenBarrier& b = m.barriers[a];
  m.judge(a, b, notes_);
  if (m.agent_info[a].core_name.empty())  // (a pipe whose first instruction is a barrier)
    m.agent_info[a].core = ref.core, m.agent_info[a].core_name = ref.core_name, m.agent_info[a].pipe = ref.pipe;
  b.lo = done_before;
  b.hi = epoch - 1;  // (the barrier's own epoch accesses nothing)
  m.barrier_at[a] = {ref.id, ref.cycle};
  if (b.hi <= b.lo) m.judge(a, b, notes_);  // every earlier instruction had landed already
}

void RaceChecker::close_barriers() {
  for (AgentId a = 0; a < impl_->barriers.size(); ++a) impl_->judge(a, impl_->barriers[a], notes_);
}

void RaceChecker::set_read_only(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  impl_->read_only = std::move(ranges);
}

RaceChecker::~RaceChecker() { delete impl_; }

uint64_t RaceChecker::faults_dropped() const { return impl_->dropped; }

void RaceChecker::on_access(AgentId a, uint32_t epoch, const InstrInfo& info, std::span<const AccessRange> ranges) {
  on_access(a, epoch, InstrRef{info.id, info.core, info.core_name, info.pipe, info.cycle, info.text, &info.instr},
            ranges);
}

void RaceChecker::on_access(AgentId a, uint32_t epoch, const InstrRef& ref, std::span<const AccessRange> ranges) {
  if (ranges.empty()) return;
  Impl& m = *impl_;
  m.hits.clear();
  Impl::OpenBarrier& open = m.barriers[a];
  m.local.begin(a, epoch, m.hb.clock(a), m.hb.done(a), open.lo, open.hi);
  m.gm.begin(m.hazards[a], m.hb.done(a), open.lo, open.hi);
  bool wrote_input = false;
  auto gm_segment = [&](const AccessRange& r) {
    if (const auto* ro = m.read_only_overlap(r.begin, r.end)) {
      if (r.write && !wrote_input && faults_.size() < kMaxFaults)
        faults_.push_back(Fault{"input-write", describe(ref.info()) + " writes GM [" +
                                                   hex(std::max(r.begin, ro->first)) + ", " +
                                                   hex(std::min(r.end, ro->second)) +
                                                   ") of an input allocation, which kernels may only read"});
      wrote_input |= r.write;
      if (ro->first <= r.begin && r.end <= ro->second) return;  // wholly inside: nothing else to check
    }
    checks_ += m.gm.access(a, epoch, ref.id, r, m.hits);
  };
  for (const AccessRange& r : ranges) {
    if (r.buf != isa::Buf::GM) {
      checks_ += m.local.access(r, m.hits);  // strided patterns go in whole
      continue;
    }
    if (!m.check_gm) continue;
    if (r.count == 1) {
      gm_segment(r);
      continue;
    }
    if (r.stride == r.end - r.begin) {  // back-to-back bursts (a DMA without gaps): one range, checked alike
      gm_segment(AccessRange{r.buf, r.begin, r.last_end(), r.write});
      continue;
    }
    // A strided range (a DMA's bursts): the read-only test once for its hull where it decides every burst.
    const auto* ro = m.read_only_overlap(r.begin, r.last_end());
    if (ro && !r.write && ro->first <= r.begin && r.last_end() <= ro->second) continue;  // reads of one input
    r.for_each_segment([&](uint64_t b, uint64_t e) {
      const AccessRange seg{r.buf, b, e, r.write};
      if (ro) gm_segment(seg);
      else checks_ += m.gm.access(a, epoch, ref.id, seg, m.hits);
    });
  }
  if (m.local.barrier_used() || m.gm.barrier_used()) open.hi = 0;
  m.remember(a, epoch, ref);
  if (!m.hits.empty()) m.emit(a, epoch, ref.info(), faults_);
}

void RaceChecker::reset() {
  impl_->reset();
  faults_.clear();
  notes_.clear();
  checks_ = 0;
}

}  // namespace npusim::sim
