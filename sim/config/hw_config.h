#pragma once
// Typed hardware description. Every key is declared once in hw_schema.cpp (type, unit in the name,
// one-line description); configs/README.md documents them. Hardware numbers live only in
// configs/hw/*.yaml: nothing here has a default value.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace npusim::sim {

// Bad configuration input: unknown / mistyped / missing key, bad --set, unreadable file. Exit status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Topology : uint8_t { Split, Coupled };

struct HwConfig {
  std::string name;
  Topology topology = Topology::Split;
  struct Chip {
    int64_t ai_cores = 0;      // AI Cores (split: one AIC each)
    int64_t aiv_per_core = 0;  // vector cores per AI Core (split: 2; coupled: 0)
    double clock_mhz = 0;
  } chip;
  struct Core {
    int64_t l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0, bt_bytes = 0, fb_bytes = 0, ub_bytes = 0;
  } core;
  struct Ub {
    int64_t bank_bytes = 0, bank_groups = 0;  // one bank = bank_bytes of 32-byte rows; a bank row = groups x bank_bytes
  } ub;
  struct Scalar {
    int64_t issue_cycles = 0, gm_load_latency_cycles = 0;
    int64_t dcache_bytes = 0, dcache_line_bytes = 0, dcache_hit_cycles = 0;
  } scalar;
  struct Queue {
    int64_t mte1_entries = 0, m_entries = 0, fix_entries = 0, mte2_entries = 0, mte3_entries = 0, v_entries = 0;
  } queue;
  struct Cube {
    int64_t fractal_cycles_b16 = 0, fractal_cycles_s8 = 0, fractal_cycles_s4 = 0, fractal_cycles_f32 = 0;
    int64_t startup_cycles = 0;
  } cube;
  struct Mte1 {
    int64_t l0a_bytes_per_cycle = 0, l0b_bytes_per_cycle = 0, startup_cycles = 0;
    int64_t bt_fb_bytes_per_cycle = 0, bt_fb_startup_cycles = 0;  // L1 -> bias table / FixPipe buffer
  } mte1;
  struct Fixpipe {
    int64_t elems_per_cycle = 0, startup_cycles = 0;
    int64_t gm_bytes_per_cycle = 0;  // the write port L0C -> GM (caps elems x bytes)
  } fixpipe;
  struct Mte2 {
    int64_t port_bytes_per_cycle = 0, l2_hit_bytes_per_cycle = 0, startup_cycles = 0;
    int64_t segment_cycles = 0;  // minimum occupancy per contiguous GM segment of a transfer
  } mte2;
  struct Mte3 {
    int64_t port_bytes_per_cycle = 0, startup_cycles = 0;
    int64_t segment_cycles = 0;
    int64_t ub_to_l1_bytes_per_cycle = 0;  // coupled only
  } mte3;
  struct Vector {
    int64_t simple_beats = 0, simple_latency_cycles = 0;  // one tile operand (and a scalar)
    int64_t binary_beats = 0, binary_latency_cycles = 0;  // two tile operands
    int64_t div_beats = 0, div_latency_cycles = 0;
    int64_t exp_beats = 0, exp_latency_cycles = 0;
    int64_t ln_beats = 0, ln_latency_cycles = 0;
    int64_t sqrt_beats = 0, sqrt_latency_cycles = 0;
    int64_t reduce_beats = 0, reduce_latency_cycles = 0;              // whole-repeat reductions (vcadd / vcmax / vcmin)
    int64_t block_reduce_beats = 0, block_reduce_latency_cycles = 0;  // per-block (vcg*) and pair (vcpadd) reductions
    int64_t cast_beats = 0, cast_latency_cycles = 0;
    int64_t l0c_to_ub_bytes_per_cycle = 0;  // coupled only
  } vector;
  struct Memory {
    std::string impl;  // the memory-system model (a registered name, sim/registry.h)
  } memory;
  struct Cost {
    std::string impl;  // the pipes' cost model (a registered name, sim/registry.h; sim/machine/cost_model.h)
  } cost;
  struct L2 {
    int64_t bytes = 0, line_bytes = 0, hit_latency_cycles = 0;
    // Measured chip-wide rates, so fractional (calibration.md §6 quotes them from GB/s): the memory system runs on
    // double time (sim/machine/memsys.cpp).
    double bytes_per_cycle = 0;            // L2 controller rate for hits (reads and writes), shared by all cores
    double fill_bytes_per_cycle = 0;       // ... for read misses: miss-and-allocate, the cached path's ceiling
    double writeback_bytes_per_cycle = 0;  // ... for a dirty line evicted
    double write_bytes_per_cycle = 0;      // the L2's write path: every byte written
    std::string replacement;               // lru | random
  } l2;
  struct Hbm {
    double bytes_per_cycle = 0;  // fractional, as the L2 rates
    int64_t latency_cycles = 0;
    int64_t min_request_bytes = 0;  // an L2-bypass read request costs at least this much HBM time
  } hbm;
  struct Gm {
    int64_t bytes = 0, burst_bytes = 0;
  } gm;
  struct Sync {
    int64_t flag_latency_cycles = 0, cross_core_latency_cycles = 0, sync_all_cycles = 0, max_pending_cross_sets = 0;
  } sync;
  // Same-pipe rules (sim/check/same_pipe_rule.h): per pipe, which dependences between two of its own
  // instructions need a pipe_barrier on that pipe ("raw,waw", "none", ...).
  struct Hazards {
    std::string v, m, mte1, mte2, mte3, fix;
    int64_t m_self_ordered_fractals = 0;  // an mmad with (m / 16) * (n / 16) >= this orders its dependants itself
  } hazards;
  // The launch and its measurement conditions (configs/README.md "Launch"): none of it changes a kernel's
  // instructions, only when cores start and what the report's task time adds.
  struct Launch {
    int64_t kernel_cycles = 0;          // host launch until the first core starts (task time - kernel time)
    int64_t block_dispatch_cycles = 0;  // AI Core i starts i x this after the first
    int64_t cold_start_cycles = 0;      // added to every core's start when `cold` (ICache / TLB fill)
    int64_t cold_per_block_cycles = 0;  // when `cold`, block i starts i x this later still (serialised fills)
    int64_t cold = 0;                   // 1: the first launch of the kernel (no warm-up launch before it)
    int64_t inputs_in_l2 = 0;           // 1: the op inputs are L2-resident at the start (prefetched)
  } launch;
};

struct KeyInfo {
  std::string path;         // dotted, e.g. "core.ub_bytes"
  std::string type;         // int | float | string | enum(split|coupled)
  std::string description;  // one line
};
const std::vector<KeyInfo>& hw_keys();

// Resolves NAME (configs/hw/NAME.yaml) or a file path, applies `base:` inheritance, then `sets`
// ("core.ub_bytes=131072"; an optional leading "hw." is accepted), then validates every key.
HwConfig load_hw(const std::string& name_or_file, const std::vector<std::string>& sets = {});
std::vector<std::string> bundled_hw_names();
std::string default_hw_name();              // ascend910b2
std::string hw_to_yaml(const HwConfig& c);  // resolved config, every key
// Where each key of a config got its value: the source tag and comment of the defining line with its file:line
// ("[DOC] ini cube_freq (ascend910b2.yaml:9)"), or the --set. Throws ConfigError as load_hw does.
std::map<std::string, std::string> hw_key_sources(const std::string& name_or_file,
                                                  const std::vector<std::string>& sets = {});
double cycles_to_us(const HwConfig& c, uint64_t cycles);
// The same-pipe rule bits (SamePipeRule) of pipe `pipe` (an isa::Pipe's index); 0 for the scalar unit and `all`.
uint8_t same_pipe_rule(const HwConfig& c, int pipe);

}  // namespace npusim::sim
