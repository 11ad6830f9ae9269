#pragma once
// Scripted scenes for the race checker tests: agents of two vector cores and one cube core, and the
// clock movements the machine performs (tick per executed instruction, release at set_flag / cross_set,
// acquire at wait_flag / cross_wait, acquire of the scalar clock when the scalar unit issues to a pipe).
#include <string>
#include <vector>

#include "sim/check/happens_before.h"
#include "sim/check/race_checker.h"

namespace npusim::sim {
namespace race_test {

using isa::Buf;
using isa::Pipe;

enum : AgentId {
  kAivS,
  kAivV,
  kAivMte2,
  kAivMte3,
  kAicS,
  kAicM,
  kAicMte1,
  kAicMte2,
  kAicFix,
  kAiv1S,
  kAiv1V,
  kAiv1Mte2,
  kAiv1Mte3,
  kAgents
};

struct AgentDesc {
  int core;
  const char* core_name;
  Pipe pipe;
};
constexpr AgentDesc kDesc[kAgents] = {
    {0, "aiv0", Pipe::S},    {0, "aiv0", Pipe::V}, {0, "aiv0", Pipe::MTE2}, {0, "aiv0", Pipe::MTE3},
    {1, "aic0", Pipe::S},    {1, "aic0", Pipe::M}, {1, "aic0", Pipe::MTE1}, {1, "aic0", Pipe::MTE2},
    {1, "aic0", Pipe::FIX},  {2, "aiv1", Pipe::S}, {2, "aiv1", Pipe::V},    {2, "aiv1", Pipe::MTE2},
    {2, "aiv1", Pipe::MTE3},
};

inline std::vector<int> cores_of_agents() {
  std::vector<int> cores;
  for (const AgentDesc& d : kDesc) cores.push_back(d.core);
  return cores;
}

inline AccessRange rd(Buf b, uint64_t begin, uint64_t end) { return {b, begin, end, false}; }
inline AccessRange wr(Buf b, uint64_t begin, uint64_t end) { return {b, begin, end, true}; }
inline AccessRange block(Buf b, uint64_t index, bool write) { return {b, index * 32, index * 32 + 32, write}; }

class Scene {
 public:
  HappensBefore hb{kAgents};
  RaceChecker rc{hb, cores_of_agents()};
  uint64_t cycle = 100;

  // Executes one instruction of agent a with the given footprint; returns its id.
  uint64_t run(AgentId a, std::vector<AccessRange> ranges, const std::string& text = "") {
    const uint32_t epoch = hb.tick(a);
    InstrInfo info{next_id_,      kDesc[a].core, kDesc[a].core_name,
                   kDesc[a].pipe, cycle,         text.empty() ? "instr" + std::to_string(next_id_) : text};
    cycle += 7;
    rc.on_access(a, epoch, info, ranges);
    return next_id_++;
  }
  // set_flag on `from` + wait_flag on `to` (also cross_set / cross_wait: the same clock movement).
  void flag(AgentId from, AgentId to) {
    hb.tick(from);
    const VectorClock snapshot = hb.release(from);
    hb.tick(to);
    hb.acquire(to, snapshot);
  }
  // The scalar unit issues to a pipe: the pipe's next instruction is ordered after everything S did.
  void issue(AgentId scalar, AgentId pipe) { hb.acquire(pipe, hb.clock(scalar)); }
  // SyncAll among the given agents: every arrival's clock reaches every leaver.
  void sync_all(std::vector<AgentId> agents) {
    VectorClock barrier(kAgents);
    for (AgentId a : agents) {
      hb.tick(a);
      barrier.join(hb.release(a));
    }
    for (AgentId a : agents) hb.acquire(a, barrier);
  }
  const std::vector<Fault>& faults() const { return rc.faults(); }
  std::string all_messages() const {
    std::string s;
    for (const Fault& f : rc.faults()) s += f.kind + ": " + f.message + "\n";
    return s;
  }

 private:
  uint64_t next_id_ = 1;
};

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace race_test
}  // namespace npusim::sim
