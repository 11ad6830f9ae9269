#include "kernels/micro/micro.h"

#include <stdexcept>

#include "sim/machine/core_ctx.h"

namespace npusim::kernels::micro {

using namespace isa;
using sim::CoreCtx;
using sim::LaunchSpec;
using sim::MixMode;

// `overwrites`: the kernel streams one unit into one destination again and again to measure its rate. Nothing
// reads the results, on the device either, so the same-pipe hazards between those writes are the benchmark's
// intent, not a bug: such a launch runs without the race and hazard checks (bounds and flags are still checked).
sim::LaunchResult run(sim::Machine& m, LaunchSpec spec, bool overwrites) {
  if (overwrites) m.set_checks(sim::Checks::Off);
  auto r = m.launch(spec);
  if (overwrites) m.set_checks(sim::Checks::All);
  if (!r.ok()) throw std::runtime_error("microbenchmark '" + spec.name + "' faulted: " + r.faults[0].message);
  return r;
}

MicroResult mte2_bandwidth(sim::Machine& m, int cores, uint64_t bytes_per_core, uint64_t chunk) {
  const uint64_t src = m.gm().allocate("mte2_src_" + std::to_string(cores), bytes_per_core * cores);
  LaunchSpec s{.name = "mte2_bandwidth", .block_dim = cores, .mix = MixMode::CubeOnly};
  s.cube = [=](CoreCtx& c) {
    const Addr buf = c.alloc(Buf::L1, chunk, "chunk");
    const uint64_t base = src + c.block_idx() * bytes_per_core;
    for (uint64_t off = 0; off < bytes_per_core; off += chunk)
      c.issue(DataCopy{.dst = buf, .src = {Buf::GM, base + off}, .burst_bytes = static_cast<uint32_t>(chunk)});
  };
  const auto r = run(m, s, true);
  const auto& hw = m.hw();
  // a cold read through the L2: the ports, the L2's miss-and-allocate rate or HBM, whichever is lowest
  const double expected = std::min<double>({double(cores * hw.mte2.port_bytes_per_cycle),
                                            double(hw.l2.fill_bytes_per_cycle), double(hw.hbm.bytes_per_cycle)});
  return {"mte2_bandwidth_" + std::to_string(cores) + "core",
          r.cycles,
          static_cast<double>(bytes_per_core * cores) / r.cycles,
          expected,
          "B/cycle",
          r.instructions};
}

MicroResult mte3_bandwidth(sim::Machine& m, uint64_t bytes) {
  const uint64_t chunk = 96 * 1024;
  const uint64_t dst = m.gm().allocate("mte3_dst", bytes);
  LaunchSpec s{.name = "mte3_bandwidth", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [=](CoreCtx& c) {
    const Addr buf = c.alloc(Buf::UB, chunk, "chunk");
    for (uint64_t off = 0; off < bytes; off += chunk)
      c.issue(DataCopy{.dst = {Buf::GM, dst + off}, .src = buf, .burst_bytes = static_cast<uint32_t>(chunk)});
  };
  const auto r = run(m, s);
  return {"mte3_bandwidth",
          r.cycles,
          static_cast<double>(bytes) / r.cycles,
          static_cast<double>(m.hw().mte3.port_bytes_per_cycle),
          "B/cycle",
          r.instructions};
}

MicroResult mte1_bandwidth(sim::Machine& m, Buf dst, int loads) {
  LaunchSpec s{.name = "mte1_bandwidth", .block_dim = 1, .mix = MixMode::CubeOnly};
  s.cube = [=](CoreCtx& c) {
    const Addr l1 = c.alloc(Buf::L1, 64 * 1024, "src");
    const Addr l0 = c.alloc(dst, 64 * 1024, "dst");
    for (int i = 0; i < loads; ++i) c.issue(Load2d{.dst = l0, .src = l1, .repeat = 128});
  };
  const auto r = run(m, s);
  const auto& hw = m.hw();
  const double expected = dst == Buf::L0A ? hw.mte1.l0a_bytes_per_cycle : hw.mte1.l0b_bytes_per_cycle;
  return {std::string("mte1_bandwidth_") + std::string(buf_name(dst)),
          r.cycles,
          static_cast<double>(loads) * 64 * 1024 / r.cycles,
          expected,
          "B/cycle",
          r.instructions};
}

MicroResult mmad_peak(sim::Machine& m, int mmads) {
  LaunchSpec s{.name = "mmad_peak", .block_dim = 1, .mix = MixMode::CubeOnly};
  s.cube = [=](CoreCtx& c) {
    const Addr a = c.alloc(Buf::L0A, 32 * 1024, "a"), b = c.alloc(Buf::L0B, 32 * 1024, "b");
    const Addr o = c.alloc(Buf::L0C, 64 * 1024, "c");
    for (int i = 0; i < mmads; ++i) c.issue(Mmad{.c = o, .a = a, .b = b, .m = 128, .n = 128, .k = 128, .init = i == 0});
  };
  const auto r = run(m, s);
  const auto& cube = m.hw().cube;
  const double steps = 8.0 * 8 * 8;  // 128 x 128 x 128 in 16 x 16 x 16 fractals, plus the fixed cost per mmad
  return {"mmad_peak",
          r.cycles,
          static_cast<double>(mmads) * 128 * 128 * 128 / r.cycles,
          4096.0 * steps / (steps * cube.fractal_cycles_b16 + cube.startup_cycles),
          "MAC/cycle",
          r.instructions};
}

MicroResult fixpipe_rate(sim::Machine& m, int ops) {
  LaunchSpec s{.name = "fixpipe_rate", .block_dim = 1, .mix = MixMode::CubeOnly};
  s.cube = [=](CoreCtx& c) {
    const Addr l0c = c.alloc(Buf::L0C, 64 * 1024, "acc"), l1 = c.alloc(Buf::L1, 32 * 1024, "out");
    for (int i = 0; i < ops; ++i)
      c.issue(
          Fixpipe{.dst = l1, .src = l0c, .m = 128, .n = 128, .src_m_stride = 128, .dst_stride = 128, .nz2nd = false});
  };
  const auto r = run(m, s, true);
  return {"fixpipe_rate",
          r.cycles,
          static_cast<double>(ops) * 128 * 128 / r.cycles,
          static_cast<double>(m.hw().fixpipe.elems_per_cycle),
          "elements/cycle",
          r.instructions};
}

MicroResult vector_rate(sim::Machine& m, VectorMicro kind, int ops) {
  static const char* const names[] = {"vadd_rate", "vmuls_rate", "vexp_rate", "vcmax_rate", "vcgmax_rate"};
  const char* name = names[int(kind)];
  LaunchSpec s{.name = name, .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [=](CoreCtx& c) {
    // Sources and destination 64 KiB apart: different banks, so repeats are conflict-free.
    const Addr x = c.alloc(Buf::UB, 65536, "x"), y = c.alloc(Buf::UB, 65536, "y"), z = c.alloc(Buf::UB, 65280, "z");
    for (int i = 0; i < ops; ++i) {
      if (kind == VectorMicro::Exp)
        c.issue(VUnary{.op = VUnaryOp::Exp, .dtype = DType::F32, .dst = z, .src = x, .repeat = 255});
      else if (kind == VectorMicro::WholeReduce)
        c.issue(VReduce{.op = VRedOp::Max, .dtype = DType::F32, .dst = z, .src = x, .repeat = 255});
      else if (kind == VectorMicro::BlockReduce)
        c.issue(VBlockReduce{.op = VRedOp::Max, .dtype = DType::F32, .dst = z, .src = x, .repeat = 255});
      else if (kind == VectorMicro::Muls)
        c.issue(VScalar{.op = VScalarOp::Muls, .dtype = DType::F32, .dst = z, .src = x, .scalar = 2.0, .repeat = 255});
      else
        c.issue(VBinary{.op = VBinOp::Add,
                        .dtype = DType::F32,
                        .dst = z,
                        .src0 = x,
                        .src1 = {Buf::UB, y.off + 0x100},
                        .repeat = 255});
    }
  };
  const auto r = run(m, s, true);
  const auto& v = m.hw().vector;
  const double beats = kind == VectorMicro::Exp           ? v.exp_beats
                       : kind == VectorMicro::Muls        ? v.simple_beats
                       : kind == VectorMicro::WholeReduce ? v.reduce_beats
                       : kind == VectorMicro::BlockReduce ? v.block_reduce_beats
                                                          : v.binary_beats;
  return {name, r.cycles, static_cast<double>(ops) * 255 / r.cycles, 1.0 / beats, "repeats/cycle", r.instructions};
}

MicroResult vector_dependent(sim::Machine& m, int ops, int repeats) {
  LaunchSpec s{.name = "vadd_dependent", .block_dim = 1, .mix = MixMode::VectorOnly};
  s.vector = [=](CoreCtx& c) {
    const Addr x = c.alloc(Buf::UB, 65536, "x"), y = c.alloc(Buf::UB, 65536, "y"), z = c.alloc(Buf::UB, 65536, "z");
    for (int i = 0; i < ops; ++i) {  // z = x + y, x = z + y, ...: each reads what the one before wrote
      if (i > 0) c.pipe_barrier(Pipe::V);
      const bool odd = i % 2;
      c.issue(VBinary{.op = VBinOp::Add,
                      .dtype = DType::F32,
                      .dst = odd ? x : z,
                      .src0 = odd ? z : x,
                      .src1 = {Buf::UB, y.off + 0x100},
                      .repeat = uint8_t(repeats)});
    }
  };
  const auto r = run(m, s);
  const auto& v = m.hw().vector;
  return {"vadd_dependent",
          r.cycles,
          static_cast<double>(r.cycles) / ops,
          double(repeats * v.binary_beats + v.binary_latency_cycles),
          "cycles/dependent op",
          r.instructions};
}

MicroResult cross_flag_pingpong(sim::Machine& m, int rounds) {
  LaunchSpec s{.name = "cross_flag_pingpong", .block_dim = 1, .mix = MixMode::Mix1_2};
  s.cube = [=](CoreCtx& c) {
    for (int i = 0; i < rounds; ++i) {
      c.cross_set(2, 1, Pipe::S);
      c.cross_wait(2);
    }
  };
  s.vector = [=](CoreCtx& c) {
    for (int i = 0; i < rounds; ++i) {
      c.cross_wait(1);
      c.cross_set(2, 2, Pipe::S);
    }
  };
  const auto r = run(m, s);
  const auto& hw = m.hw();
  // A round trip: AIC set (issue) -> latency -> AIV wait (issue) -> AIV set (issue) -> latency -> AIC wait.
  const double expected = 2.0 * hw.sync.cross_core_latency_cycles + 2.0 * hw.scalar.issue_cycles;
  return {"cross_flag_pingpong", r.cycles,      static_cast<double>(r.cycles) / rounds, expected,
          "cycles/round trip",   r.instructions};
}

std::vector<std::string> micro_names() {
  return {"mte2_1core",
          "mte2_allcores",
          "mte3",
          "mte1_l0a",
          "mte1_l0b",
          "mmad",
          "fixpipe",
          "vadd",
          "vmuls",
          "vexp",
          "vcmax",
          "vcgmax",
          "vadd_dependent",
          "pingpong",
          "mem_read_8mb",
          "mem_read_32mb",
          "mem_read_128mb",
          "mem_read_cold",
          "mem_bypass_8mb",
          "mem_bypass_cold",
          "mem_bypass_rows",
          "mem_read_aic",
          "mem_read_aic_aiv",
          "mem_write",
          "mem_read_plus_write"};
}

MicroResult run_micro(sim::Machine& m, const std::string& name) {
  const int cores = static_cast<int>(m.hw().chip.ai_cores);
  const uint64_t l2 = static_cast<uint64_t>(m.hw().l2.bytes);
  if (name == "mte2_1core") return mte2_bandwidth(m, 1, 16 << 20);
  if (name == "mte2_allcores") return mte2_bandwidth(m, cores, (l2 * 3 / 2 / cores + 0x3ffff) & ~uint64_t{0x3ffff});
  if (name == "mte3") return mte3_bandwidth(m, 96 * 1024 * 256);
  if (name == "mte1_l0a") return mte1_bandwidth(m, Buf::L0A, 1000);
  if (name == "mte1_l0b") return mte1_bandwidth(m, Buf::L0B, 1000);
  if (name == "mmad") return mmad_peak(m, 1000);
  if (name == "fixpipe") return fixpipe_rate(m, 1000);
  if (name == "vadd") return vector_rate(m, VectorMicro::Add, 2000);
  if (name == "vmuls") return vector_rate(m, VectorMicro::Muls, 2000);
  if (name == "vexp") return vector_rate(m, VectorMicro::Exp, 2000);
  if (name == "vcmax") return vector_rate(m, VectorMicro::WholeReduce, 2000);
  if (name == "vcgmax") return vector_rate(m, VectorMicro::BlockReduce, 2000);
  if (name == "vadd_dependent") return vector_dependent(m, 1000, 8);
  if (name == "pingpong") return cross_flag_pingpong(m, 1000);
  // calibration.md §6's figures (GB/s on a 910B2)
  constexpr uint64_t MB = 1000000;
  if (name == "mem_read_8mb") return memory_read(m, 8 * MB, false, 4618);
  if (name == "mem_read_32mb") return memory_read(m, 32 * MB, false, 3406);
  if (name == "mem_read_128mb") return memory_read(m, 128 * MB, false, 1664);
  if (name == "mem_read_cold") return memory_read(m, 469800000, false, 920);
  if (name == "mem_bypass_8mb") return memory_read(m, 8 * MB, true, 1539);
  if (name == "mem_bypass_cold") return memory_read(m, 469800000, true, 1530);
  if (name == "mem_bypass_rows") return memory_bypass_burst(m);
  if (name == "mem_read_aic") return memory_read_units(m, true, false, 899);
  if (name == "mem_read_aic_aiv") return memory_read_units(m, true, true, 911);
  if (name == "mem_write") return memory_write(m);
  if (name == "mem_read_plus_write") return memory_read_write(m);
  throw std::invalid_argument("unknown microbenchmark '" + name + "'");
}

}  // namespace npusim::kernels::micro
