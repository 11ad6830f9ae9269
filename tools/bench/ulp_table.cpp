// ulp_table: accuracy and throughput of the vector-unit math functions (isa/mathfn.h).
//
// Accuracy: for each unary function, every fp32 bit pattern (or every STEP-th with --step) is run
// through the array form; inputs in the function's finite domain are compared with the correctly
// rounded libm-double reference, everything else with the special-value table (mismatches counted
// separately; must be 0). Division: --div-pairs random pairs (half uniform bit patterns, half with
// close exponents so the quotient is normal) plus all pairs of an edge-value list.
// Throughput: elements/s of the scalar function called in a loop vs the array form.
//
//   ulp_table [--threads N] [--step S] [--div-pairs N] [--only FUNCTION] [--no-throughput]
// Prints markdown tables (copied into isa/README.md section 5).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/isa/mathfn_reference.h"

namespace {

using namespace npusim::isa;
using namespace npusim::isa::mathfn_ref;

struct Stats {
  uint64_t tested = 0, specials = 0, special_mismatches = 0, sum_steps = 0, max_steps = 0;
  uint64_t not_rounded = 0, not_rounded_subnormal = 0;  // results != the correctly rounded value
  double max_fractional = 0;
  double worst_fractional = -1;  // of the worst input: largest step error, then largest fractional error
  uint32_t worst_a = 0, worst_b = 0;

  void add(uint32_t a, uint32_t b, float got, double exact) {
    const UlpError e = ulp_error(got, exact);
    ++tested;
    sum_steps += e.steps;
    if (e.steps != 0) {
      ++not_rounded;
      not_rounded_subnormal += std::fabs(float(exact)) < 0x1p-126f;
    }
    max_fractional = std::max(max_fractional, e.fractional);
    if (e.steps > max_steps || (e.steps == max_steps && e.fractional > worst_fractional)) {
      max_steps = e.steps, worst_fractional = e.fractional, worst_a = a, worst_b = b;
    }
  }
  void add_special(float got, uint32_t expected) {
    ++specials;
    special_mismatches += bits(got) != expected;
  }
  void merge(const Stats& o) {
    tested += o.tested, specials += o.specials, special_mismatches += o.special_mismatches;
    sum_steps += o.sum_steps, max_fractional = std::max(max_fractional, o.max_fractional);
    not_rounded += o.not_rounded, not_rounded_subnormal += o.not_rounded_subnormal;
    if (o.max_steps > max_steps || (o.max_steps == max_steps && o.worst_fractional > worst_fractional)) {
      max_steps = o.max_steps, worst_fractional = o.worst_fractional, worst_a = o.worst_a, worst_b = o.worst_b;
    }
  }
};

// Runs body(thread_index, stats) on `threads` threads and merges the results.
template <class Body>
Stats run_parallel(int threads, Body body) {
  std::vector<Stats> part(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { body(t, part[size_t(t)]); });
  for (auto& th : pool) th.join();
  Stats total;
  for (const Stats& s : part) total.merge(s);
  return total;
}

constexpr size_t kChunk = 4096;

// Inputs whose result is not trivially 0, 1 or inf (88% of the finite exp inputs are): a second
// exp row restricted to these shows the error where the algorithm actually works.
bool exp_nontrivial(float x) { return std::fabs(x) >= 0x1p-25f && std::fabs(x) <= 104.0f; }

Stats measure_unary(Unary f, uint64_t step, int threads, bool (*keep)(float) = nullptr) {
  const UnaryInfo& fn = info(f);
  const uint64_t count = ((uint64_t(1) << 32) + step - 1) / step;
  return run_parallel(threads, [&](int t, Stats& st) {
    std::vector<float> in(kChunk), out(kChunk);
    for (uint64_t first = uint64_t(t) * kChunk; first < count; first += uint64_t(threads) * kChunk) {
      const size_t n = size_t(std::min<uint64_t>(kChunk, count - first));
      for (size_t i = 0; i < n; ++i) in[i] = from_bits(uint32_t((first + i) * step));
      fn.hw_n(in.data(), out.data(), n);
      for (size_t i = 0; i < n; ++i) {
        if (keep && !keep(in[i])) continue;
        if (auto expected = special_result(f, in[i])) {
          st.add_special(out[i], *expected);
        } else {
          st.add(bits(in[i]), 0, out[i], fn.exact(double(in[i])));
        }
      }
    }
  });
}

// splitmix64: a fixed, portable generator so every run tests the same pairs.
uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<float> edge_values() {
  const uint32_t magnitudes[] = {0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x0007ffff, 0x00400000, 0x007ffffe,
                                 0x007fffff, 0x00800000, 0x00800001, 0x00ffffff, 0x01000000, 0x0d800000, 0x33800000,
                                 0x3effffff, 0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001, 0x3fb504f3, 0x3fffffff,
                                 0x40000000, 0x40400000, 0x41200000, 0x5e800000, 0x7e800000, 0x7effffff, 0x7f000000,
                                 0x7f7ffffe, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff};
  std::vector<float> v;
  for (uint32_t m : magnitudes) v.push_back(from_bits(m)), v.push_back(from_bits(m | 0x80000000u));
  return v;
}

void add_div(Stats& st, float a, float b, float got) {
  if (auto expected = special_div(a, b)) {
    st.add_special(got, *expected);
  } else {
    st.add(bits(a), bits(b), got, exact_div(a, b));
  }
}

Stats measure_div(uint64_t pairs, int threads) {
  Stats edges;
  const std::vector<float> e = edge_values();
  for (float a : e)
    for (float b : e) add_div(edges, a, b, hw_div(a, b));
  Stats random = run_parallel(threads, [&](int t, Stats& st) {
    std::vector<float> a(kChunk), b(kChunk), out(kChunk);
    uint64_t seed = 0x5eed0000ull + uint64_t(t);
    for (uint64_t done = uint64_t(t) * kChunk; done < pairs; done += uint64_t(threads) * kChunk) {
      const size_t n = size_t(std::min<uint64_t>(kChunk, pairs - done));
      for (size_t i = 0; i < n; ++i) {
        const uint64_t r = splitmix(seed);
        uint32_t ua = uint32_t(r), ub = uint32_t(r >> 32);
        if (i & 1) {  // close exponents: quotient in the normal range, where the algorithm's error lives
          ua = (ua & 0x807fffffu) | ((100u + (ua >> 23 & 0x3f)) << 23);
          ub = (ub & 0x807fffffu) | ((100u + (ub >> 23 & 0x3f)) << 23);
        }
        a[i] = from_bits(ua), b[i] = from_bits(ub);
      }
      hw_div_n(a.data(), b.data(), out.data(), n);
      for (size_t i = 0; i < n; ++i) add_div(st, a[i], b[i], out[i]);
    }
  });
  random.merge(edges);
  return random;
}

std::string hex(uint32_t u) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", u);
  return buf;
}

void print_row(const char* name, const char* domain, const Stats& s, const std::string& worst) {
  std::printf("| %s | %s | %llu | %llu | %.2e | %.3f | %s | %llu (%llu) | %llu of %llu |\n", name, domain,
              (unsigned long long)s.tested, (unsigned long long)s.max_steps,
              s.tested ? double(s.sum_steps) / double(s.tested) : 0.0, s.max_fractional, worst.c_str(),
              (unsigned long long)s.not_rounded, (unsigned long long)s.not_rounded_subnormal,
              (unsigned long long)s.special_mismatches, (unsigned long long)s.specials);
}

void print_unary_row(const char* name, const char* domain, const Stats& s) {
  char worst[96];
  std::snprintf(worst, sizeof worst, "%s (%.9g)", hex(s.worst_a).c_str(), double(from_bits(s.worst_a)));
  print_row(name, domain, s, worst);
  std::fflush(stdout);
}

void print_accuracy(uint64_t step, uint64_t div_pairs, int threads, const std::string& only) {
  std::printf(
      "| function | domain | inputs tested | max ULP | mean ULP | max err vs exact (ULP) | worst input | not correctly "
      "rounded (of which subnormal results) | special-value mismatches |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (Unary f : kAllUnary) {
    if (!only.empty() && only != info(f).name) continue;
    print_unary_row(info(f).name, info(f).domain, measure_unary(f, step, threads));
    if (f == Unary::Exp) {
      print_unary_row("exp", "2^-25 <= |x| <= 104 (non-trivial)", measure_unary(f, step, threads, exp_nontrivial));
    }
  }
  if (!only.empty() && only != "div") return;
  const Stats d = measure_div(div_pairs, threads);
  char worst[128];
  std::snprintf(worst, sizeof worst, "%s / %s (%.9g / %.9g)", hex(d.worst_a).c_str(), hex(d.worst_b).c_str(),
                double(from_bits(d.worst_a)), double(from_bits(d.worst_b)));
  print_row("div", "finite a, finite b != 0", d, worst);
}

// --- throughput -------------------------------------------------------------------------------

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best of several timed passes of `pass` over n elements, in elements per second.
template <class Pass>
double rate(size_t n, Pass pass) {
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const int reps = 200;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) pass();
    best = std::max(best, double(n) * reps / seconds_since(t0));
  }
  return best;
}

void print_throughput() {
  constexpr size_t n = kChunk;
  std::vector<float> a(n), b(n), out(n);
  uint64_t seed = 42;
  auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * float(splitmix(seed) >> 40) * 0x1p-24f; };
  std::printf("| function | scalar loop (Melem/s) | array form (Melem/s) | speed-up |\n|---|---|---|---|\n");
  volatile float sink = 0;
  for (Unary f : kAllUnary) {
    for (size_t i = 0; i < n; ++i) a[i] = f == Unary::Exp ? uniform(-80, 80) : uniform(1e-3f, 1e3f);
    const UnaryInfo& fn = info(f);
    const double scalar = rate(n, [&] {
      for (size_t i = 0; i < n; ++i) out[i] = fn.hw(a[i]);
      sink = sink + out[n / 2];
    });
    const double array = rate(n, [&] {
      fn.hw_n(a.data(), out.data(), n);
      sink = sink + out[n / 2];
    });
    std::printf("| %s | %.0f | %.0f | %.1fx |\n", fn.name, scalar / 1e6, array / 1e6, array / scalar);
  }
  for (size_t i = 0; i < n; ++i) a[i] = uniform(-1e3f, 1e3f), b[i] = uniform(1e-3f, 1e3f);
  const double scalar = rate(n, [&] {
    for (size_t i = 0; i < n; ++i) out[i] = hw_div(a[i], b[i]);
    sink = sink + out[n / 2];
  });
  const double array = rate(n, [&] {
    hw_div_n(a.data(), b.data(), out.data(), n);
    sink = sink + out[n / 2];
  });
  std::printf("| div | %.0f | %.0f | %.1fx |\n", scalar / 1e6, array / 1e6, array / scalar);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  uint64_t step = 1, div_pairs = 100'000'000;
  bool throughput = true;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--threads" && has_value) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--step" && has_value) {
      step = std::max<uint64_t>(1, std::strtoull(argv[++i], nullptr, 10));
    } else if (arg == "--div-pairs" && has_value) {
      div_pairs = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--only" && has_value) {
      only = argv[++i];
    } else if (arg == "--no-throughput") {
      throughput = false;
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--threads N] [--step S] [--div-pairs N] [--only exp|ln|rec|sqrt|rsqrt|div] [--no-throughput]\n",
          argv[0]);
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  print_accuracy(step, div_pairs, threads, only);
  std::printf("\n(step %llu, %llu random division pairs, %d thread(s), %.0f s)\n\n", (unsigned long long)step,
              (unsigned long long)div_pairs, threads, seconds_since(t0));
  if (throughput) print_throughput();
  return 0;
}
