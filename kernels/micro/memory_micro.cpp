// Memory-system microbenchmarks: the load-only / store-only probes of calibration.md §6 (910B2, measured with PTO
// TLOAD / TSTORE kernels; huawei-csl/npu-skillyard @fdd49bf6 platform_model.md), rebuilt as npusim kernels. Each
// compares the simulated aggregate rate with the device's figure, so on another config the ratio is that config's
// difference from a 910B2.
#include <algorithm>

#include "kernels/micro/micro.h"
#include "sim/machine/core_ctx.h"

namespace npusim::kernels::micro {

using namespace isa;
using sim::CoreCtx;
using sim::LaunchSpec;
using sim::MixMode;

namespace {
constexpr uint64_t kTraffic = 469800000;  // §6: every read probe moves 469.8 MB
constexpr uint64_t kChunk = 64 * 1024;    // one DMA descriptor (§6: 8-64 KB descriptors read alike)
constexpr const char* kUnit = "GB/s vs 910B2 §6";

double gb_per_s(const sim::Machine& m, uint64_t bytes, uint64_t cycles) {
  return double(bytes) / double(cycles) * m.hw().chip.clock_mhz / 1000.0;
}

// The probes overwrite one buffer again and again: nothing reads it.
uint64_t launch_cycles(sim::Machine& m, const LaunchSpec& s) { return run(m, s, true).cycles; }

// One core's part of a stream: `traffic` bytes over its slice [base, base + slice) again and again, in DMAs of
// `chunk` bytes made of rows of `row` bytes (rows `row` apart in GM: each row one request), into or out of `buf`.
struct Part {
  uint64_t base, slice, traffic;
  uint32_t row = kChunk;
  bool write = false;
};

void stream(CoreCtx& c, Buf buf, const Part& p) {
  const Addr local = c.alloc(buf, kChunk, "chunk");
  const uint16_t rows = uint16_t(kChunk / p.row);
  for (uint64_t done = 0; done < p.traffic; done += kChunk) {
    const uint64_t at = p.base + done % p.slice * (p.row < kChunk ? 2 : 1);  // strided rows: twice the span
    const DataCopy d{.dst = p.write ? Addr{Buf::GM, at} : local,
                     .src = p.write ? local : Addr{Buf::GM, at},
                     .nburst = rows,
                     .burst_bytes = p.row,
                     .src_gap = p.write ? 0 : (p.row < kChunk ? p.row : 0),
                     .dst_gap = 0};
    c.issue(d);
  }
}

// Which units take part: the 48 AIVs (GM <-> UB), the 24 AICs (GM -> L1), or both at once.
enum class Units { Aiv, Aic, Both };

// `footprint` bytes re-read (or written) until `traffic` bytes have moved, split evenly over the units' cores.
uint64_t run_stream(sim::Machine& m, const std::string& name, Units units, uint64_t footprint, uint64_t traffic,
                    bool write = false, bool bypass = false, uint32_t row = kChunk) {
  const int aics = int(m.hw().chip.ai_cores), aivs = aics * int(m.hw().chip.aiv_per_core);
  const int cores = units == Units::Aiv ? aivs : units == Units::Aic ? aics : aics + aivs;
  const uint64_t slice = footprint / uint64_t(cores) / kChunk * kChunk, per_core = traffic / uint64_t(cores);
  const uint64_t span = slice * (row < kChunk ? 2 : 1);
  const uint64_t src = m.gm().allocate(name, span * uint64_t(cores));
  if (bypass) m.gm().set_l2_bypass(name);
  auto part = [=](int i) { return Part{src + uint64_t(i) * span, slice, per_core, row, write}; };
  LaunchSpec s{.name = name};
  if (units == Units::Aiv) {
    s.block_dim = aivs, s.mix = MixMode::VectorOnly;
    s.vector = [=](CoreCtx& c) { stream(c, Buf::UB, part(c.block_idx())); };
  } else if (units == Units::Aic) {
    s.block_dim = aics, s.mix = MixMode::CubeOnly;
    s.cube = [=](CoreCtx& c) { stream(c, Buf::L1, part(c.block_idx())); };
  } else {
    s.block_dim = aics, s.mix = MixMode::Mix1_2;
    s.cube = [=](CoreCtx& c) { stream(c, Buf::L1, part(c.block_idx())); };
    s.vector = [=](CoreCtx& c) { stream(c, Buf::UB, part(aics + 2 * c.block_idx() + c.sub_block_idx())); };
  }
  return launch_cycles(m, s);
}

MicroResult rate(sim::Machine& m, const std::string& name, uint64_t bytes, uint64_t cycles, double device) {
  return {name, cycles, gb_per_s(m, bytes, cycles), device, kUnit, 0};
}
}  // namespace

MicroResult memory_read(sim::Machine& m, uint64_t footprint, bool bypass, double device) {
  const std::string name =
      std::string(bypass ? "mem_bypass_" : "mem_read_") + std::to_string(footprint / 1000000) + "mb";
  return rate(m, name, kTraffic, run_stream(m, name, Units::Aiv, footprint, kTraffic, false, bypass), device);
}

MicroResult memory_read_units(sim::Machine& m, bool aic, bool aiv, double device) {
  const std::string name = aic && aiv ? "mem_read_aic_aiv" : aic ? "mem_read_aic" : "mem_read_aiv";
  const Units u = aic && aiv ? Units::Both : aic ? Units::Aic : Units::Aiv;
  return rate(m, name, kTraffic, run_stream(m, name, u, kTraffic, kTraffic), device);
}

// The bypass path's burst sensitivity: rows of 256 B against rows of 512 B (each row one request), as a ratio of
// rates; the device: 909 / 1140 GB/s on a load-only probe, flat past 512 B.
MicroResult memory_bypass_burst(sim::Machine& m) {
  const uint64_t bytes = kTraffic / 4;
  const uint64_t c256 = run_stream(m, "bypass_rows_256", Units::Aiv, bytes, bytes, false, true, 256);
  const uint64_t c512 = run_stream(m, "bypass_rows_512", Units::Aiv, bytes, bytes, false, true, 512);
  return {"mem_bypass_rows_256_vs_512", c256, double(c512) / double(c256), 909.0 / 1140.0, "rate ratio vs 910B2 §6", 0};
}

// A write stream (zero_) in steady state: after one that has filled the L2 with dirty lines, so that every line
// written evicts one.
MicroResult memory_write(sim::Machine& m) {
  const uint64_t bytes = uint64_t(m.hw().l2.bytes) * 2;
  run_stream(m, "dirty_l2", Units::Aiv, 2 * bytes, 2 * bytes, true);
  return rate(m, "mem_write", bytes, run_stream(m, "mem_write", Units::Aiv, bytes, bytes, true), 1456);
}

// Reads and writes of one launch add (§6: 28.73 us of reads + 7.87 us of writes took 36.83 us together): the time of
// a cold read and a write stream run together, against the sum of each alone, after the L2 has filled with dirty
// lines (a write stream before). Expected 36.83 / (28.73 + 7.87).
MicroResult memory_read_write(sim::Machine& m) {
  const uint64_t l2 = uint64_t(m.hw().l2.bytes), r = kTraffic, w = kTraffic / 4;
  run_stream(m, "dirty_l2", Units::Aiv, 2 * l2, 2 * l2, true);
  const uint64_t t_read = run_stream(m, "read_alone", Units::Aiv, r, r);
  const uint64_t t_write = run_stream(m, "write_alone", Units::Aiv, w, w, true);
  // Together: the AICs read (GM -> L1) while the AIVs write, in one launch.
  const int aics = int(m.hw().chip.ai_cores), aivs = aics * int(m.hw().chip.aiv_per_core);
  const uint64_t rs = r / uint64_t(aics) / kChunk * kChunk, ws = w / uint64_t(aivs) / kChunk * kChunk;
  const uint64_t rsrc = m.gm().allocate("read_both", rs * uint64_t(aics)),
                 wdst = m.gm().allocate("write_both", ws * uint64_t(aivs));
  LaunchSpec s{.name = "read_write", .block_dim = aics, .mix = MixMode::Mix1_2};
  s.cube = [=](CoreCtx& c) { stream(c, Buf::L1, {rsrc + uint64_t(c.block_idx()) * rs, rs, rs}); };
  s.vector = [=](CoreCtx& c) {
    stream(c, Buf::UB, {wdst + uint64_t(2 * c.block_idx() + c.sub_block_idx()) * ws, ws, ws, kChunk, true});
  };
  const uint64_t t_both = launch_cycles(m, s);
  return {"mem_read_plus_write",    t_both, double(t_both) / double(t_read + t_write), 36.83 / (28.73 + 7.87),
          "time ratio vs 910B2 §6", 0};
}

}  // namespace npusim::kernels::micro
