#include "tools/cli/report.h"

#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "isa/instr/instr.h"

namespace npusim::cli {

using nlohmann::json;

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

namespace {
std::string kind_of(const std::string& core_name) {
  return core_name.rfind("aic", 0) == 0 ? "aic" : core_name.rfind("aiv", 0) == 0 ? "aiv" : "core";
}
}  // namespace

namespace {
// Host seconds in the ISA semantics per pipe that executed anything (full / functional mode).
json exec_by_pipe(const sim::LaunchResult& r) {
  json j = json::object();
  for (int k = 0; k < isa::kNumPipes; ++k)
    if (r.exec_pipe_s[size_t(k)] > 0)
      j[std::string(isa::pipe_name(static_cast<isa::Pipe>(k)))] = r.exec_pipe_s[size_t(k)];
  return j;
}
}  // namespace

namespace {
// The local-buffer bytes the kernel allocated (the most of any core of a kind) against each buffer's capacity.
json buffer_use(const sim::HwConfig& hw, const sim::LaunchResult& r) {
  const std::map<std::string, uint64_t> cap = {
      {"l1", hw.core.l1_bytes}, {"l0a", hw.core.l0a_bytes}, {"l0b", hw.core.l0b_bytes}, {"l0c", hw.core.l0c_bytes},
      {"ub", hw.core.ub_bytes}, {"bt", hw.core.bt_bytes},   {"fb", hw.core.fb_bytes}};
  json out = json::object();
  for (const auto& c : r.cores) {
    if (!c.used) continue;
    for (int b = 0; b < isa::kNumBufs; ++b) {
      const std::string name(isa::buf_name(static_cast<isa::Buf>(b)));
      if (!c.buffer_peak[size_t(b)] || !cap.count(name)) continue;
      json& e = out[kind_of(c.name)][name];
      const uint64_t prev = e.is_object() ? e["peak_bytes"].get<uint64_t>() : 0;
      e["peak_bytes"] = std::max(prev, c.buffer_peak[size_t(b)]);
      e["capacity_bytes"] = cap.at(name);
    }
  }
  return out;
}
}  // namespace

namespace {
// Where each core's time went, per pipe (busy, waiting on a flag, the scalar unit blocked on its full queue, UB
// bank-conflict beats) and for the scalar unit's other waits; per_kind sums the cores of a kind (divide by
// `cores` and the launch's cycles for a mean fraction).
json pipe_summary(const sim::LaunchResult& r) {
  json per_core = json::object(), per_kind = json::object();
  auto add = [](json& into, const char* k, uint64_t v) {
    if (!into.is_object()) into = json::object();
    into[k] = into.value(k, uint64_t{0}) + v;
  };
  for (const auto& c : r.cores) {
    if (!c.used) continue;
    json core = json::object();
    json& kind = per_kind[kind_of(c.name)];
    add(kind, "cores", 1);
    for (int p = 0; p < isa::kNumPipes; ++p) {
      const auto& ps = c.pipes[size_t(p)];
      if (!ps.instructions && !ps.queue_full_cycles) continue;
      const std::string pn(isa::pipe_name(static_cast<isa::Pipe>(p)));
      core[pn] = {{"busy_cycles", ps.busy_cycles},
                  {"instructions", ps.instructions},
                  {"flag_wait_cycles", ps.flag_wait_cycles},
                  {"queue_full_cycles", ps.queue_full_cycles},
                  {"conflict_beats", ps.conflict_beats}};
      json& k = kind["pipes"][pn];
      for (const auto& [key, v] : core[pn].items()) add(k, key.c_str(), v.get<uint64_t>());
    }
    const auto& w = c.scalar_waits;
    core["scalar_waits"] = {{"cross_wait_cycles", w.cross_wait},
                            {"sync_all_cycles", w.sync_all},
                            {"drain_cycles", w.drain},
                            {"gm_load_cycles", w.gm_load}};
    for (const auto& [key, v] : core["scalar_waits"].items()) add(kind["scalar_waits"], key.c_str(), v.get<uint64_t>());
    core["start_cycle"] = c.start_cycle;  // the block's dispatch
    core["end_cycle"] = c.end_cycle;
    per_core[c.name] = core;
  }
  return {{"per_kind", per_kind}, {"per_core", per_core}};
}

// Balance by time: each AI core's finish cycle (the last end_cycle of its AIC and AIVs, counted from the launch's
// start, so a late dispatch and idle waits count), max / mean over the AI cores the launch used. Busy-cycle ratios
// measure how the work was split; this measures what the slowest core costs the launch (issue 36 item 2).
json finish_balance(const sim::HwConfig& hw, const sim::LaunchResult& r) {
  std::map<int, uint64_t> finish;  // AI core -> its last end_cycle
  for (const auto& c : r.cores) {
    if (!c.used) continue;
    const std::string k = kind_of(c.name);
    const int i = std::stoi(c.name.substr(k.size()));
    const int core = k == "aiv" ? i / int(std::max<int64_t>(hw.chip.aiv_per_core, 1)) : i;
    finish[core] = std::max(finish[core], c.end_cycle);
  }
  if (finish.empty()) return json::object();
  uint64_t most = 0;
  double sum = 0;
  for (const auto& [core, f] : finish) most = std::max(most, f), sum += static_cast<double>(f);
  const double mean = sum / static_cast<double>(finish.size());
  return {{"ai_cores", finish.size()},
          {"max_finish_cycle", most},
          {"mean_finish_cycle", mean},
          {"ratio", mean > 0 ? static_cast<double>(most) / mean : 1.0}};
}
}  // namespace

json launch_report(const sim::Machine& m, const sim::LaunchResult& r, const std::string& op,
                   const std::string& case_name) {
  const auto& hw = m.hw();
  json j;
  j["op"] = op;
  j["hw"] = hw.name;
  j["case"] = case_name;
  j["mode"] = sim::sim_mode_name(m.mode());
  j["cycles"] = r.cycles;
  j["time_us"] = sim::cycles_to_us(hw, r.cycles);
  // What a device profiler's task duration covers: the launch (hw.launch.kernel_cycles) before the kernel.
  j["task_cycles"] = r.cycles + static_cast<uint64_t>(hw.launch.kernel_cycles);
  j["task_time_us"] = sim::cycles_to_us(hw, r.cycles + static_cast<uint64_t>(hw.launch.kernel_cycles));
  json busy = json::object(), util = json::object();  // utilisation = busy / (cycles x cores of the kind)
  std::map<std::string, std::map<std::string, uint64_t>> per_kind;
  std::map<std::string, int> cores_of_kind;
  int used = 0;
  for (const auto& c : r.cores) {
    if (!c.used) continue;
    ++used;
    const std::string k = kind_of(c.name);
    ++cores_of_kind[k];
    json pipes = json::object();
    for (int p = 0; p < isa::kNumPipes; ++p) {
      const auto& ps = c.pipes[p];
      if (!ps.instructions) continue;
      const std::string pn(isa::pipe_name(static_cast<isa::Pipe>(p)));
      pipes[pn] = ps.busy_cycles;
      per_kind[k][pn] += ps.busy_cycles;
    }
    busy[c.name] = pipes;
  }
  std::string bound;
  double best = -1;
  for (const auto& [k, pipes] : per_kind)
    for (const auto& [pn, cycles] : pipes) {
      const double u = r.cycles ? static_cast<double>(cycles) / (static_cast<double>(r.cycles) * cores_of_kind[k]) : 0;
      util[k][pn] = u;
      if (u > best && u > 0 && pn != "s") best = u, bound = k + "." + pn;
    }
  j["cores_used"] = used;
  j["buffers"] = buffer_use(hw, r);
  j["busy_cycles"] = busy;
  j["utilisation"] = util;
  j["pipe_summary"] = pipe_summary(r);
  j["finish_balance"] = finish_balance(hw, r);
  j["bound"] = bound;
  j["gm_bytes_read"] = r.mem.bytes_read;
  j["gm_bytes_written"] = r.mem.bytes_written;
  j["hbm_bytes"] = r.mem.hbm_bytes;
  j["l2_hit_rate"] = r.l2_hit_rate;
  j["flops"] = r.flops;
  j["executed_flops"] = r.executed_flops;
  const double secs = sim::cycles_to_us(hw, r.cycles) * 1e-6;
  j["achieved_tflops"] = secs > 0 ? static_cast<double>(r.flops) / secs * 1e-12 : 0.0;
  json faults = json::array();
  std::map<std::string, int> counts;
  for (const auto& f : r.faults) {
    faults.push_back({{"kind", f.kind}, {"message", f.message}});
    ++counts[f.kind];
  }
  json notes = json::array();  // findings that are not faults, e.g. a redundant pipe_barrier
  for (const auto& n : r.notes) notes.push_back({{"kind", n.kind}, {"message", n.message}});
  // Checks run: every instruction's operands (bounds, alignment, buffer kind; capacity at allocation), every
  // shadow granule the race checker visited, the flags / cross-core counters of every core at its end, and the
  // deadlock test at the end of the launch.
  j["checks"] = {{"run",
                  {{"operand_checks", r.instructions},
                   {"race_granules", r.race_checks},
                   {"end_of_kernel_flag_checks", used},
                   {"deadlock_checks", 1}}},
                 {"race_checks_run", r.race_checks},
                 {"faults", counts},
                 {"fault_list", faults},
                 {"notes", notes}};
  j["sim"] = {{"wall_s", r.wall_s},
              {"exec_s", r.exec_s},
              {"exec_s_by_pipe", exec_by_pipe(r)},
              {"arith_s", r.exec_pipe_s[size_t(isa::Pipe::M)] + r.exec_pipe_s[size_t(isa::Pipe::V)]},
              {"peak_rss_bytes", peak_rss_bytes()},
              {"instructions", r.instructions},
              {"instructions_per_s", r.wall_s > 0 ? r.instructions / r.wall_s : 0.0},
              {"cycles_per_s", r.wall_s > 0 ? r.cycles / r.wall_s : 0.0}};
  return j;
}

std::string fault_summary_text(const json& j) {
  std::ostringstream os;
  os << j["case"].get<std::string>() << " on " << j["hw"].get<std::string>() << " (" << j["mode"].get<std::string>()
     << " mode): stopped by a fault after " << j["cycles"].get<uint64_t>() << " cycles and "
     << j["sim"]["instructions"].get<uint64_t>() << " instructions (faults on stderr); no outputs written\n";
  return os.str();
}

std::string summary_text(const json& j) {
  std::ostringstream os;
  os << j["case"].get<std::string>() << " on " << j["hw"].get<std::string>() << " (" << j["mode"].get<std::string>()
     << " mode): " << j["cycles"].get<uint64_t>() << " cycles = " << j["time_us"].get<double>() << " us, "
     << j["sim"]["instructions"].get<uint64_t>() << " instructions";
  if (!j["bound"].get<std::string>().empty()) os << ", busiest pipe " << j["bound"].get<std::string>();
  if (j["flops"].get<uint64_t>()) os << ", " << j["achieved_tflops"].get<double>() << " TFLOPS";
  os << "\n";
  return os.str();
}

}  // namespace npusim::cli
