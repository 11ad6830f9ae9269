// The one declaration of every hardware key: path, type, description, and where it lives in HwConfig.
#include <functional>
#include <string_view>

#include "sim/config/hw_schema.h"

namespace npusim::sim {

namespace {
template <class Sec, class T>
KeySpec key(std::string path, Sec HwConfig::*sec, T Sec::*mem, std::string desc) {
  KeySpec k;
  k.info = {std::move(path), std::is_floating_point_v<T> ? "float" : "int", std::move(desc)};
  k.ref_int = nullptr;
  if constexpr (std::is_floating_point_v<T>) k.ref_float = [sec, mem](HwConfig& c) -> double& { return (c.*sec).*mem; };
  else k.ref_int = [sec, mem](HwConfig& c) -> int64_t& { return (c.*sec).*mem; };
  return k;
}

std::vector<KeySpec> build() {
  using H = HwConfig;
  std::vector<KeySpec> v;
  KeySpec name;
  name.info = {"name", "string", "config name shown in reports"};
  v.push_back(name);
  KeySpec topo;
  topo.info = {"topology", "enum(split|coupled)",
               "split: AIC + AIVs talk through GM; coupled: one core has both units"};
  v.push_back(topo);
  v.push_back(key("chip.ai_cores", &H::chip, &H::Chip::ai_cores, "AI Cores on the chip"));
  v.push_back(
      key("chip.aiv_per_core", &H::chip, &H::Chip::aiv_per_core, "vector cores per AI Core (split: 2, coupled: 0)"));
  v.push_back(key("chip.clock_mhz", &H::chip, &H::Chip::clock_mhz, "core clock; converts cycles to microseconds"));
  v.push_back(key("core.l1_bytes", &H::core, &H::Core::l1_bytes, "L1 buffer per AIC"));
  v.push_back(key("core.l0a_bytes", &H::core, &H::Core::l0a_bytes, "L0A per AIC"));
  v.push_back(key("core.l0b_bytes", &H::core, &H::Core::l0b_bytes, "L0B per AIC"));
  v.push_back(key("core.l0c_bytes", &H::core, &H::Core::l0c_bytes, "L0C per AIC"));
  v.push_back(key("core.bt_bytes", &H::core, &H::Core::bt_bytes, "bias table per AIC"));
  v.push_back(key("core.fb_bytes", &H::core, &H::Core::fb_bytes, "FixPipe parameter buffer per AIC"));
  v.push_back(key("core.ub_bytes", &H::core, &H::Core::ub_bytes, "unified buffer per AIV"));
  v.push_back(
      key("ub.bank_bytes", &H::ub, &H::Ub::bank_bytes,
          "bytes per UB bank (its 32-byte rows); banks = ub_bytes / this, numbered group-major in rows of groups"));
  v.push_back(
      key("ub.bank_groups", &H::ub, &H::Ub::bank_groups, "UB bank groups (one 32-byte row per group per cycle)"));
  v.push_back(
      key("scalar.issue_cycles", &H::scalar, &H::Scalar::issue_cycles, "scalar-unit cycles to issue one instruction"));
  v.push_back(key("scalar.gm_load_latency_cycles", &H::scalar, &H::Scalar::gm_load_latency_cycles,
                  "scalar GM load latency (DCache miss)"));
  v.push_back(
      key("scalar.dcache_bytes", &H::scalar, &H::Scalar::dcache_bytes, "scalar data cache capacity (0: no cache)"));
  v.push_back(key("scalar.dcache_line_bytes", &H::scalar, &H::Scalar::dcache_line_bytes, "scalar data cache line"));
  v.push_back(key("scalar.dcache_hit_cycles", &H::scalar, &H::Scalar::dcache_hit_cycles,
                  "scalar load latency on a DCache hit"));
  v.push_back(key("queue.mte1_entries", &H::queue, &H::Queue::mte1_entries, "MTE1 instruction queue depth"));
  v.push_back(key("queue.m_entries", &H::queue, &H::Queue::m_entries, "cube instruction queue depth"));
  v.push_back(key("queue.fix_entries", &H::queue, &H::Queue::fix_entries, "FixPipe instruction queue depth"));
  v.push_back(key("queue.mte2_entries", &H::queue, &H::Queue::mte2_entries, "MTE2 instruction queue depth"));
  v.push_back(key("queue.mte3_entries", &H::queue, &H::Queue::mte3_entries, "MTE3 instruction queue depth"));
  v.push_back(key("queue.v_entries", &H::queue, &H::Queue::v_entries, "vector instruction queue depth"));
  v.push_back(key("cube.fractal_cycles_b16", &H::cube, &H::Cube::fractal_cycles_b16,
                  "cycles per 16x16x16 fp16/bf16 fractal step"));
  v.push_back(
      key("cube.fractal_cycles_s8", &H::cube, &H::Cube::fractal_cycles_s8, "cycles per 16x16x32 int8 fractal step"));
  v.push_back(
      key("cube.fractal_cycles_s4", &H::cube, &H::Cube::fractal_cycles_s4, "cycles per 16x16x64 int4 fractal step"));
  v.push_back(
      key("cube.fractal_cycles_f32", &H::cube, &H::Cube::fractal_cycles_f32, "cycles per 16x16x8 fp32 fractal step"));
  v.push_back(key("cube.startup_cycles", &H::cube, &H::Cube::startup_cycles, "fixed cycles per mmad"));
  v.push_back(key("mte1.l0a_bytes_per_cycle", &H::mte1, &H::Mte1::l0a_bytes_per_cycle, "L1 -> L0A rate"));
  v.push_back(key("mte1.l0b_bytes_per_cycle", &H::mte1, &H::Mte1::l0b_bytes_per_cycle, "L1 -> L0B rate"));
  v.push_back(key("mte1.startup_cycles", &H::mte1, &H::Mte1::startup_cycles, "fixed cycles per load2d"));
  v.push_back(key("mte1.bt_fb_bytes_per_cycle", &H::mte1, &H::Mte1::bt_fb_bytes_per_cycle, "L1 -> BT / FB rate"));
  v.push_back(key("mte1.bt_fb_startup_cycles", &H::mte1, &H::Mte1::bt_fb_startup_cycles,
                  "fixed cycles per L1 -> BT / FB copy"));
  v.push_back(key("fixpipe.elems_per_cycle", &H::fixpipe, &H::Fixpipe::elems_per_cycle, "output elements per cycle"));
  v.push_back(key("fixpipe.startup_cycles", &H::fixpipe, &H::Fixpipe::startup_cycles, "fixed cycles per fixpipe"));
  v.push_back(
      key("fixpipe.gm_bytes_per_cycle", &H::fixpipe, &H::Fixpipe::gm_bytes_per_cycle, "L0C -> GM write port rate"));
  v.push_back(
      key("mte2.port_bytes_per_cycle", &H::mte2, &H::Mte2::port_bytes_per_cycle, "per-core GM read port rate (HBM)"));
  v.push_back(key("mte2.l2_hit_bytes_per_cycle", &H::mte2, &H::Mte2::l2_hit_bytes_per_cycle,
                  "per-core read rate when L2 hits"));
  v.push_back(key("mte2.startup_cycles", &H::mte2, &H::Mte2::startup_cycles, "fixed cycles per MTE2 transfer"));
  v.push_back(key("mte2.segment_cycles", &H::mte2, &H::Mte2::segment_cycles,
                  "minimum MTE2 occupancy per contiguous GM segment (one burst request)"));
  v.push_back(
      key("mte3.port_bytes_per_cycle", &H::mte3, &H::Mte3::port_bytes_per_cycle, "per-core UB -> GM write rate"));
  v.push_back(key("mte3.startup_cycles", &H::mte3, &H::Mte3::startup_cycles, "fixed cycles per MTE3 transfer"));
  v.push_back(key("mte3.segment_cycles", &H::mte3, &H::Mte3::segment_cycles,
                  "minimum MTE3 occupancy per contiguous GM segment (one burst request)"));
  v.push_back(key("mte3.ub_to_l1_bytes_per_cycle", &H::mte3, &H::Mte3::ub_to_l1_bytes_per_cycle,
                  "coupled cores: UB -> L1 rate (0 on split cores)"));
  auto vec = [&](const char* cls, int64_t H::Vector::*beats, int64_t H::Vector::*lat) {
    v.push_back(key(std::string("vector.") + cls + "_beats", &H::vector, beats,
                    std::string("cycles per conflict-free repeat, ") + cls + " class"));
    v.push_back(key(std::string("vector.") + cls + "_latency_cycles", &H::vector, lat,
                    std::string("pipeline latency, ") + cls + " class"));
  };
  vec("simple", &H::Vector::simple_beats, &H::Vector::simple_latency_cycles);
  vec("binary", &H::Vector::binary_beats, &H::Vector::binary_latency_cycles);
  vec("div", &H::Vector::div_beats, &H::Vector::div_latency_cycles);
  vec("exp", &H::Vector::exp_beats, &H::Vector::exp_latency_cycles);
  vec("ln", &H::Vector::ln_beats, &H::Vector::ln_latency_cycles);
  vec("sqrt", &H::Vector::sqrt_beats, &H::Vector::sqrt_latency_cycles);
  vec("reduce", &H::Vector::reduce_beats, &H::Vector::reduce_latency_cycles);
  vec("block_reduce", &H::Vector::block_reduce_beats, &H::Vector::block_reduce_latency_cycles);
  vec("cast", &H::Vector::cast_beats, &H::Vector::cast_latency_cycles);
  v.push_back(key("vector.l0c_to_ub_bytes_per_cycle", &H::vector, &H::Vector::l0c_to_ub_bytes_per_cycle,
                  "coupled cores: L0C -> UB rate (0 on split cores)"));
  KeySpec mem;
  mem.info = {"memory.impl", "string", "memory-system model by name (sim/README.md \"Implementations\")"};
  mem.ref_string = [](HwConfig& c) -> std::string& { return c.memory.impl; };
  v.push_back(mem);
  KeySpec cost;
  cost.info = {"cost.impl", "string", "pipe cost model by name (sim/README.md \"Implementations\")"};
  cost.ref_string = [](HwConfig& c) -> std::string& { return c.cost.impl; };
  v.push_back(cost);
  v.push_back(key("l2.bytes", &H::l2, &H::L2::bytes, "shared L2 capacity"));
  v.push_back(key("l2.line_bytes", &H::l2, &H::L2::line_bytes, "L2 line (replacement unit)"));
  v.push_back(key("l2.hit_latency_cycles", &H::l2, &H::L2::hit_latency_cycles, "GM access latency on an L2 hit"));
  v.push_back(key("l2.bytes_per_cycle", &H::l2, &H::L2::bytes_per_cycle,
                  "L2 controller rate for hit bytes (reads and writes), shared by all cores"));
  v.push_back(key("l2.fill_bytes_per_cycle", &H::l2, &H::L2::fill_bytes_per_cycle,
                  "L2 controller rate for read-miss bytes (miss and allocate: the cached path's ceiling)"));
  v.push_back(key("l2.writeback_bytes_per_cycle", &H::l2, &H::L2::writeback_bytes_per_cycle,
                  "L2 controller rate for evicting dirty lines"));
  v.push_back(key("l2.write_bytes_per_cycle", &H::l2, &H::L2::write_bytes_per_cycle,
                  "L2 write path rate shared by all cores: every byte written"));
  KeySpec repl;
  repl.info = {"l2.replacement", "enum(lru|random)", "L2 replacement: least recently used, or a uniformly random slot"};
  repl.ref_string = [](HwConfig& c) -> std::string& { return c.l2.replacement; };
  v.push_back(repl);
  v.push_back(key("hbm.bytes_per_cycle", &H::hbm, &H::Hbm::bytes_per_cycle,
                  "HBM read rate shared by all cores (misses, write-backs, L2-bypass reads)"));
  v.push_back(key("hbm.min_request_bytes", &H::hbm, &H::Hbm::min_request_bytes,
                  "HBM time of an L2-bypass request shorter than this is charged as this many bytes"));
  v.push_back(key("hbm.latency_cycles", &H::hbm, &H::Hbm::latency_cycles, "GM access latency on an L2 miss"));
  v.push_back(key("gm.bytes", &H::gm, &H::Gm::bytes, "device memory capacity (inputs + outputs + workspace must fit)"));
  v.push_back(key("gm.burst_bytes", &H::gm, &H::Gm::burst_bytes, "GM access granularity; transfers round up to it"));
  v.push_back(
      key("sync.flag_latency_cycles", &H::sync, &H::Sync::flag_latency_cycles, "set_flag -> wait_flag release"));
  v.push_back(key("sync.cross_core_latency_cycles", &H::sync, &H::Sync::cross_core_latency_cycles,
                  "cross-core set -> wait release"));
  v.push_back(
      key("sync.sync_all_cycles", &H::sync, &H::Sync::sync_all_cycles, "SyncAll cost after the last core arrives"));
  v.push_back(key("sync.max_pending_cross_sets", &H::sync, &H::Sync::max_pending_cross_sets,
                  "cross-core counter limit; more is a fault"));
  for (auto [pipe, field] : {std::pair{"v", &H::Hazards::v}, std::pair{"m", &H::Hazards::m},
                             std::pair{"mte1", &H::Hazards::mte1}, std::pair{"mte2", &H::Hazards::mte2},
                             std::pair{"mte3", &H::Hazards::mte3}, std::pair{"fix", &H::Hazards::fix}}) {
    KeySpec h;
    h.info = {std::string("hazards.") + pipe, "string",
              std::string("dependences between two ") + pipe + " instructions that need pipe_barrier(" + pipe +
                  "): raw / waw / war list, or none"};
    h.ref_string = [field = field](HwConfig& c) -> std::string& { return c.hazards.*field; };
    v.push_back(h);
    if (std::string_view(pipe) == "m")
      v.push_back(key("hazards.m_self_ordered_fractals", &H::hazards, &H::Hazards::m_self_ordered_fractals,
                      "an mmad with (m / 16) * (n / 16) >= this needs no pipe_barrier(m) before its dependants"));
  }
  v.push_back(key("launch.kernel_cycles", &H::launch, &H::Launch::kernel_cycles,
                  "host launch until the first core starts: the report's task time adds it"));
  v.push_back(key("launch.block_dispatch_cycles", &H::launch, &H::Launch::block_dispatch_cycles,
                  "AI Core i starts i x this after the first"));
  v.push_back(key("launch.cold_start_cycles", &H::launch, &H::Launch::cold_start_cycles,
                  "extra start delay of every core on a first launch (launch.cold = 1)"));
  v.push_back(key("launch.cold_per_block_cycles", &H::launch, &H::Launch::cold_per_block_cycles,
                  "on a first launch, block i starts i x this later still (its code fetch waits for the others')"));
  v.push_back(key("launch.cold", &H::launch, &H::Launch::cold, "1: first launch, no warm-up launch before it (0 / 1)"));
  v.push_back(key("launch.inputs_in_l2", &H::launch, &H::Launch::inputs_in_l2,
                  "1: the op inputs are L2-resident when the launch starts, as after a prefetch (0 / 1)"));
  return v;
}
}  // namespace

const std::vector<KeySpec>& hw_key_specs() {
  static const std::vector<KeySpec> specs = build();
  return specs;
}

const std::vector<KeyInfo>& hw_keys() {
  static const std::vector<KeyInfo> infos = [] {
    std::vector<KeyInfo> out;
    for (const auto& k : hw_key_specs()) out.push_back(k.info);
    return out;
  }();
  return infos;
}

}  // namespace npusim::sim
