// The PTO front end (kernels/pto): every supported tile instruction against the isa/ semantics it lowers to
// (values over partial valid regions, layouts, the cube's transposing and offset extracts), the project's PTO GEMM
// bit-exact against the matmul golden model, the PTO softmax against fp64 and with a required barrier removed
// (a hazard fault), and the op's input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <tuple>

#include "isa/mathfn/mathfn.h"
#include "isa/numeric/numeric.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/registry.h"
#include "tests/golden/attention_golden_parts.h"
#include "tests/golden/matmul_golden.h"
#include "tests/op/case_test_support.h"
#include "tests/support/bits.h"

namespace npusim::op {
namespace {

using casetest::write_text;

const std::string kSrc = NPUSIM_SOURCE_DIR;
const std::string kTestKernel = kSrc + "/tests/pto/pto_instr_kernel.cpp";

struct PtoRun {
  CaseFile c;
  sim::LaunchResult r;
  std::map<std::string, HostTensor> out;
  const HostTensor& in(const std::string& n) const { return c.inputs.at(n)[0].data; }
};

std::string case_text(const std::string& lib, const std::string& entry, const std::string& cores, int blocks,
                      const std::string& args, const std::string& outputs, const std::string& inputs,
                      const std::string& extra = "") {
  return "op: pto\nattrs:\n  library: " + lib + "\n  entry: " + entry + "\n  cores: " + cores +
         "\n  block_dim: " + std::to_string(blocks) + "\n  args: " + args + "\n  outputs: " + outputs + "\n" + extra +
         "inputs:\n" + inputs;
}

PtoRun run_case(const std::string& name, const std::string& text, sim::SimMode mode = sim::SimMode::Full) {
  PtoRun p;
  p.c = load_case(write_text(test::scratch_dir() / (name + ".yaml"), text), {}, mode != sim::SimMode::Timing);
  sim::Machine m(sim::load_hw("ascend910b2"), mode);
  const Prepared prep = find_op("pto").prepare(p.c, m);
  p.r = m.launch(prep.launch);
  for (const auto& o : prep.outputs) p.out[o.name] = read_output(m, o);
  return p;
}

std::string input(const std::string& name, const std::string& shape, const std::string& dtype,
                  const std::string& init) {
  return "  " + name + ": {shape: " + shape + ", dtype: " + dtype + ", init: {" + init + "}}\n";
}

// A vector test entry on 16 x 72 fp32 operands; `expect(i)` gives element i of the result.
PtoRun run_vec(const std::string& name, const std::string& entry, const std::string& args, const std::string& inputs,
               const std::string& out_dtype = "float32", const std::string& out_shape = "[16, 72]") {
  PtoRun p = run_case(name, case_text(kTestKernel, entry, "vector", 1, args,
                                      "{out: {dtype: " + out_dtype + ", shape: " + out_shape + "}}", inputs));
  EXPECT_TRUE(p.r.ok()) << name << ": " << (p.r.faults.empty() ? "" : p.r.faults[0].message);
  return p;
}

void expect_bits(const PtoRun& p, const std::string& what, const std::function<float(int64_t)>& expect) {
  const HostTensor& o = p.out.at("out");
  int bad = 0;
  for (int64_t i = 0; i < o.numel() && bad < 5; ++i) {
    const float want = expect(i), got = float(o.get(i));
    if (std::memcmp(&want, &got, 4) != 0 && !(std::isnan(want) && std::isnan(got)))
      ++bad, ADD_FAILURE() << what << " element " << i << ": got " << got << ", want " << want;
  }
}

const std::string kXY = input("x", "[16, 72]", "float32", "dist: normal, std: 2.0, seed: 1") +
                        input("y", "[16, 72]", "float32", "dist: uniform, low: 0.5, high: 3.0, seed: 2");

TEST(PtoInstr, BinaryOpsOverAPartialValidRegion) {
  const std::vector<std::pair<const char*, std::function<float(float, float)>>> ops = {
      {"TADD", [](float a, float b) { return a + b; }},
      {"TSUB", [](float a, float b) { return a - b; }},
      {"TMUL", [](float a, float b) { return a * b; }},
      {"TDIV", [](float a, float b) { return isa::hw_div(a, b); }},
      {"TMAX", [](float a, float b) { return std::max(a, b); }},
      {"TMIN", [](float a, float b) { return std::min(a, b); }}};
  for (size_t op = 0; op < ops.size(); ++op) {
    const PtoRun p =
        run_vec(std::string("bin_") + ops[op].first, "binary", "[out, x, y, " + std::to_string(op) + "]", kXY);
    expect_bits(p, ops[op].first,
                [&](int64_t i) { return ops[op].second(float(p.in("x").get(i)), float(p.in("y").get(i))); });
  }
}

TEST(PtoInstr, ScalarOpsAndTexpands) {
  const float s = 1.75f;
  const std::vector<std::pair<const char*, std::function<float(float)>>> ops = {
      {"TADDS", [&](float a) { return a + s; }},
      {"TSUBS", [&](float a) { return a - s; }},
      {"TMULS", [&](float a) { return a * s; }},
      {"TDIVS in place", [&](float a) { return a * (1.0f / s); }},  // A2 / A3: a multiply by (T)(1.0f / s)
      {"TMAXS", [&](float a) { return std::max(a, s); }},
      {"TMINS", [&](float a) { return std::min(a, s); }},
      {"TDIVS", [&](float a) { return isa::hw_div(a, s); }},
      {"TEXPANDS", [&](float) { return s; }}};
  for (size_t op = 0; op < ops.size(); ++op) {
    const PtoRun p = run_vec("scalar_" + std::to_string(op), "scalar", "[out, x, 1.75, " + std::to_string(op) + "]",
                             input("x", "[16, 72]", "float32", "dist: normal, std: 2.0, seed: 3"));
    expect_bits(p, ops[op].first, [&](int64_t i) { return ops[op].second(float(p.in("x").get(i))); });
  }
}

TEST(PtoInstr, UnaryOpsAndTmov) {
  const std::vector<std::pair<const char*, std::function<float(float)>>> ops = {
      {"TEXP", isa::hw_exp},
      {"TLOG", isa::hw_ln},
      {"TABS", [](float a) { return std::fabs(a); }},
      {"TSQRT", isa::hw_sqrt},
      {"TRSQRT", isa::hw_rsqrt},
      {"TRELU", [](float a) { return std::max(a, 0.0f); }},
      {"TMOV", [](float a) { return a; }}};
  for (size_t op = 0; op < ops.size(); ++op) {
    const bool positive = op == 1 || op == 3 || op == 4;
    const PtoRun p =
        run_vec(std::string("un_") + std::to_string(op), "unary", "[out, x, " + std::to_string(op) + "]",
                input("x", "[16, 72]", "float32",
                      positive ? "dist: uniform, low: 0.1, high: 9.0, seed: 4" : "dist: normal, std: 2.0, seed: 4"));
    expect_bits(p, ops[op].first, [&](int64_t i) { return ops[op].second(float(p.in("x").get(i))); });
  }
}

TEST(PtoInstr, ConvertEveryRoundMode) {
  const std::pair<int, isa::RoundMode> modes[] = {{1, isa::RoundMode::RINT},  {2, isa::RoundMode::ROUND},
                                                  {3, isa::RoundMode::FLOOR}, {4, isa::RoundMode::CEIL},
                                                  {5, isa::RoundMode::TRUNC}, {6, isa::RoundMode::ODD}};
  for (const auto& [pto_mode, mode] : modes) {
    const bool whole = pto_mode == 2;  // one mode over whole rows: the contiguous (counter-mode) path
    const std::string shape = whole ? "[16, 256]" : "[16, 72]";
    const PtoRun p = run_vec("cvt_" + std::to_string(pto_mode), "convert",
                             "[out, x, " + std::to_string(pto_mode) + ", " + (whole ? "1" : "0") + "]",
                             input("x", shape, "float32", "dist: normal, std: 100.0, seed: 5"), "float16", shape);
    const HostTensor& o = p.out.at("out");
    for (int64_t i = 0; i < o.numel(); ++i) {
      const float want = isa::f16_to_f32(isa::f32_to_f16(float(p.in("x").get(i)), mode));
      ASSERT_EQ(float(o.get(i)), want) << "mode " << pto_mode << " element " << i;
    }
  }
}

TEST(PtoInstr, RowReductionsFoldedAndMasked) {
  for (const bool wide : {true, false}) {
    const int cols = wide ? 256 : 40;
    for (int op = 0; op < 3; ++op) {
      const PtoRun p =
          run_vec("red_" + std::to_string(op) + (wide ? "w" : "n"), "row_reduce",
                  "[out, x, " + std::to_string(op) + ", " + (wide ? "1" : "0") + "]",
                  input("x", "[16, " + std::to_string(cols) + "]", "float32", "dist: normal, std: 2.0, seed: 6"),
                  "float32", "[16, 1]");
      for (int r = 0; r < 16; ++r) {
        double mx = -INFINITY, mn = INFINITY, sum = 0;
        for (int j = 0; j < cols; ++j) {
          const double v = p.in("x").get(r * cols + j);
          mx = std::max(mx, v), mn = std::min(mn, v), sum += v;
        }
        const double got = p.out.at("out").get(r);
        if (op == 0) {
          EXPECT_EQ(got, mx) << "row max " << r;
        } else if (op == 2) {
          EXPECT_EQ(got, mn) << "row min " << r;
        } else {
          EXPECT_NEAR(got, sum, 1e-5 * cols * 2.0) << "row sum " << r;
        }
      }
    }
  }
}

TEST(PtoInstr, RowExpandOpsEitherOperandOrder) {
  const std::vector<std::pair<const char*, std::function<float(float, float)>>> ops = {
      {"TROWEXPANDADD", [](float a, float v) { return a + v; }},
      {"TROWEXPANDSUB", [](float a, float v) { return a - v; }},
      {"TROWEXPANDMUL", [](float a, float v) { return a * v; }},
      {"TROWEXPANDDIV", [](float a, float v) { return isa::hw_div(a, v); }},
      {"TROWEXPAND", [](float, float v) { return v; }},
      {"TROWEXPANDSUB (per-row first)", [](float a, float v) { return v - a; }}};
  for (size_t op = 0; op < ops.size(); ++op) {
    const PtoRun p = run_vec("rx_" + std::to_string(op), "row_expand", "[out, x, v, " + std::to_string(op) + "]",
                             input("x", "[16, 72]", "float32", "dist: normal, std: 2.0, seed: 7") +
                                 input("v", "[16]", "float32", "dist: uniform, low: 0.5, high: 2.0, seed: 8"));
    expect_bits(p, ops[op].first,
                [&](int64_t i) { return ops[op].second(float(p.in("x").get(i)), float(p.in("v").get(i / 72))); });
  }
}

TEST(PtoInstr, TriangularMasks) {
  for (const int upper : {0, 1})
    for (const int diag : {-3, 0, 5, 80}) {
      const std::string n = "tri_" + std::to_string(upper) + "_" + std::to_string(diag + 10);
      PtoRun p = run_case(n, case_text(kTestKernel, "triangle", "vector", 1,
                                       "[out, " + std::to_string(diag) + ", " + std::to_string(upper) + "]",
                                       "{out: {dtype: float32, shape: [16, 72]}}", "  {}\n"));
      ASSERT_TRUE(p.r.ok()) << p.r.faults[0].message;
      expect_bits(p, n, [&](int64_t e) {
        const int64_t i = e / 72, j = e % 72;
        return upper ? (j < i + diag ? 0.0f : 1.0f) : (j <= i + diag ? 1.0f : 0.0f);
      });
    }
}

TEST(PtoInstr, MatmulExtractsAtOffsetsAndTransposed) {
  for (const bool a_dn : {false, true})
    for (const bool b_nd : {false, true}) {
      const std::string n = std::string("mm_") + (a_dn ? "adn" : "and") + (b_nd ? "_bnd" : "_bdn");
      const PtoRun p =
          run_case(n, case_text(kTestKernel, "matmul_halves", "cube", 1,
                                std::string("[c, a, b, ") + (a_dn ? "1" : "0") + ", " + (b_nd ? "1" : "0") + "]",
                                "{c: {dtype: float32, shape: [32, 32]}}",
                                input("a", a_dn ? "[64, 32]" : "[32, 64]", "float16", "dist: normal, seed: 9") +
                                    input("b", b_nd ? "[64, 32]" : "[32, 64]", "float16", "dist: normal, seed: 10")));
      ASSERT_TRUE(p.r.ok()) << n << ": " << p.r.faults[0].message;
      test::expect_same_bits(p.out.at("c"),
                             golden::matmul_golden(p.in("a"), p.in("b"), nullptr, a_dn, !b_nd, ElemType::F32, 1.0), n);
    }
}

// Unit flags order a phased mmad and store on L0C as on the device; the same program without phases races.
TEST(PtoInstr, UnitFlagsOrderMmadAndStore) {
  for (const bool phased : {true, false}) {
    const PtoRun p = run_case(
        std::string("uf_") + (phased ? "on" : "off"),
        case_text(kTestKernel, "matmul_unit_flags", "cube", 1, std::string("[c, a, b, ") + (phased ? "1" : "0") + "]",
                  "{c: {dtype: float32, shape: [64, 32]}}",
                  input("a", "[32, 32]", "float16", "dist: normal, seed: 12") +
                      input("b", "[32, 32]", "float16", "dist: normal, seed: 13")));
    if (!phased) {
      ASSERT_FALSE(p.r.ok());
      EXPECT_EQ(p.r.faults[0].kind, "race") << p.r.faults[0].message;
      continue;
    }
    ASSERT_TRUE(p.r.ok()) << p.r.faults[0].message;
    const HostTensor gold = golden::matmul_golden(p.in("a"), p.in("b"), nullptr, false, true, ElemType::F32, 1.0);
    for (int64_t i = 0; i < 64 * 32; ++i) ASSERT_EQ(p.out.at("c").get(i), gold.get(i % (32 * 32))) << i;
  }
}

TEST(PtoKernels, GemmBitExactAgainstTheMatmulGoldenModel) {
  const PtoRun p = run_case(
      "pto_gemm",
      case_text(
          kSrc + "/kernels/pto/examples/gemm.cpp", "gemm", "cube", 3, "[c, a, b, 256, 512, 512]",
          "{c: {dtype: float32, shape: [256, 512]}}",
          input("a", "[256, 512]", "float16", "dist: normal, seed: 1") +
              input("b", "[512, 512]", "float16", "dist: normal, seed: 2"),
          "  reference: {c: {op: matmul, attrs: {transpose_b: true, out_dtype: float32}, inputs: {a: a, b: b}}}\n"));
  ASSERT_TRUE(p.r.ok()) << p.r.faults[0].message;
  test::expect_same_bits(p.out.at("c"),
                         golden::matmul_golden(p.in("a"), p.in("b"), nullptr, false, true, ElemType::F32, 1.0), "c");
  const auto refs = find_op("pto").reference(p.c);
  ASSERT_EQ(refs.size(), 1u);
  const auto acc = compare_accuracy("c", p.out.at("c"), refs[0].ref64, refs[0].naive, refs[0].working,
                                    refs[0].reduction_len, refs[0].gate_fa_rule);
  EXPECT_TRUE(acc.pass()) << format_report(acc);
}

std::string softmax_case(const std::string& extra = "") {
  return case_text(kSrc + "/kernels/pto/examples/softmax.cpp", "softmax", "vector", 3, "[y, x, 160]",
                   "{y: {dtype: float32, shape: [160, 256]}}",
                   input("x", "[160, 256]", "float32", "dist: normal, std: 4.0, seed: 11"), extra);
}

TEST(PtoKernels, SoftmaxAgainstFp64) {
  const PtoRun p = run_case("pto_softmax", softmax_case());
  ASSERT_TRUE(p.r.ok()) << p.r.faults[0].message;
  for (int r = 0; r < 160; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < 256; ++j) mx = std::max(mx, p.in("x").get(r * 256 + j));
    for (int j = 0; j < 256; ++j) sum += std::exp(p.in("x").get(r * 256 + j) - mx);
    for (int j = 0; j < 256; ++j) {
      const double want = std::exp(p.in("x").get(r * 256 + j) - mx) / sum;
      ASSERT_NEAR(p.out.at("y").get(r * 256 + j), want, 2e-6 + 1e-5 * want) << r << ", " << j;
    }
  }
}

// Issue 35 item 7: the same vector work on all 48 AIVs is not slower than on 24 (blocks dispatched nearly at once).
TEST(PtoKernels, VectorWorkOn48AivsIsNotSlowerThanOn24) {
  uint64_t cycles[2] = {};
  for (int i = 0; i < 2; ++i) {
    const int blocks = i ? 48 : 24;
    const PtoRun p = run_case("pto_softmax_" + std::to_string(blocks),
                              case_text(kSrc + "/kernels/pto/examples/softmax.cpp", "softmax", "vector", blocks,
                                        "[y, x, 6144]", "{y: {dtype: float32, shape: [6144, 256]}}",
                                        input("x", "[6144, 256]", "float32", "dist: normal, seed: 14")),
                              sim::SimMode::Timing);
    ASSERT_TRUE(p.r.ok()) << p.r.faults[0].message;
    cycles[i] = p.r.cycles;
  }
  EXPECT_LE(cycles[1], cycles[0]) << "48 AIVs: " << cycles[1] << " cycles, 24: " << cycles[0];
}

TEST(PtoKernels, SoftmaxWithoutItsBarrierIsAHazard) {
  const PtoRun p = run_case("pto_softmax_hazard", softmax_case("  defines: [SOFTMAX_DROP_BARRIER]\n"));
  ASSERT_FALSE(p.r.ok());
  EXPECT_EQ(p.r.faults[0].kind, "hazard");
  EXPECT_NE(p.r.faults[0].message.find("vexp.f32"), std::string::npos) << p.r.faults[0].message;
}

// ---- a golden model of the PTO FlashAttention's arithmetic (kernels/pto/examples/flash_attention.cpp) ----------
// Per 128-row query block and 256-column KV tile: S = Q K^T and PV = P V as mmad adds them (matmul golden);
// per row, in the kernel's order of vector instructions: the row max, the new max and em = exp(scale (m_old -
// m_new)), exp(scale (s - m)), the row sum (row_reduce's order: lane chunks, then the vcadd tree), P rounded to fp16
// (RINT), l = l em + sum, O = O em + PV, and O / l at the end.
HostTensor rows_of(const HostTensor& t, int64_t r0, int64_t rows, int64_t cols) {
  HostTensor s = HostTensor::zeros(t.type, {rows, cols});
  const size_t bytes = size_t(rows * cols * elem_bytes(t.type));
  std::memcpy(s.bytes.data(), t.bytes.data() + size_t(r0 * cols * elem_bytes(t.type)), bytes);
  return s;
}

std::vector<float> pto_fa_golden(const HostTensor& q, const HostTensor& k, const HostTensor& v, int64_t sq, int64_t skv,
                                 double scale) {
  constexpr int64_t D = 128, S0 = 128, S1 = 256;
  const float fs = float(scale);
  const golden::parts::VecMath f32{false};
  std::vector<float> out(size_t(sq * D));
  for (int64_t q0 = 0; q0 < sq; q0 += S0) {
    const HostTensor qb = rows_of(q, q0, S0, D);
    std::vector<float> m(S0), l(S0), o(size_t(S0 * D));
    for (int64_t t = 0; t < skv / S1; ++t) {
      const HostTensor kt = rows_of(k, t * S1, S1, D), vt = rows_of(v, t * S1, S1, D);
      const HostTensor sc = golden::matmul_golden(qb, kt, nullptr, false, true, ElemType::F32, 1.0);
      HostTensor p16 = HostTensor::zeros(ElemType::F16, {S0, S1});
      std::vector<float> em(S0);
      for (int64_t r = 0; r < S0; ++r) {
        float lm = -INFINITY;
        for (int64_t j = 0; j < S1; ++j) lm = golden::parts::vmax(lm, float(sc.get(r * S1 + j)));
        if (t == 0) {
          m[size_t(r)] = lm, em[size_t(r)] = 1.0f;
        } else {
          const float mx = golden::parts::vmax(lm, m[size_t(r)]);
          em[size_t(r)] = isa::hw_exp((m[size_t(r)] - mx) * fs);
          m[size_t(r)] = mx;
        }
        std::vector<float> e(S1);
        for (int64_t j = 0; j < S1; ++j) e[size_t(j)] = isa::hw_exp((float(sc.get(r * S1 + j)) - m[size_t(r)]) * fs);
        const float ls = golden::parts::lane_row_sum(e, f32);
        for (int64_t j = 0; j < S1; ++j) p16.set(r * S1 + j, isa::f16_to_f32(isa::f32_to_f16(e[size_t(j)])));
        l[size_t(r)] = t == 0 ? ls : l[size_t(r)] * em[size_t(r)] + ls;
      }
      const HostTensor pv = golden::matmul_golden(p16, vt, nullptr, false, false, ElemType::F32, 1.0);
      for (int64_t i = 0; i < S0 * D; ++i)
        o[size_t(i)] = t == 0 ? float(pv.get(i)) : o[size_t(i)] * em[size_t(i / D)] + float(pv.get(i));
    }
    for (int64_t i = 0; i < S0 * D; ++i) out[size_t(q0 * D + i)] = isa::hw_div(o[size_t(i)], l[size_t(i / D)]);
  }
  return out;
}

// The PTO FlashAttention (cube + vector, cross-core FIFOs) bit-exact against its golden model, and against the fp64
// attention of op fused_infer_attention_score: more KV tiles than FIFO slots (slots reused) and fewer; one block for
// two query blocks (round-robin) and one block each.
TEST(PtoKernels, FlashAttentionAgainstFp64) {
  for (const auto& [blocks, sq, skv] : {std::tuple{2, 256, 1536}, std::tuple{1, 256, 512}}) {
    const std::string n = "pto_fa_" + std::to_string(blocks) + "_" + std::to_string(skv);
    const PtoRun p = run_case(
        n, case_text(
               kSrc + "/kernels/pto/examples/flash_attention.cpp", "flash_attention", "mix", blocks,
               "[o, q, k, v, s_fifo, p_fifo, pv_fifo, " + std::to_string(sq) + ", " + std::to_string(skv) +
                   ", 0.08838834764831845]",
               "{o: {dtype: float32, shape: [" + std::to_string(sq) + ", 128]}}",
               input("q", "[1, " + std::to_string(sq) + ", 128]", "float16", "dist: normal, seed: 1") +
                   input("k", "[1, " + std::to_string(skv) + ", 128]", "float16", "dist: normal, seed: 2") +
                   input("v", "[1, " + std::to_string(skv) + ", 128]", "float16", "dist: normal, seed: 3"),
               "  workspaces: {s_fifo: 1048576, p_fifo: 524288, pv_fifo: 524288}\n"
               "  reference: {o: {op: fused_infer_attention_score, attrs: {num_heads: 1, scale: 0.08838834764831845},\n"
               "              inputs: {query: q, key: k, value: v}, output: attention_out}}\n"));
    ASSERT_TRUE(p.r.ok()) << n << ": " << p.r.faults[0].message;
    const std::vector<float> gold = pto_fa_golden(p.in("q"), p.in("k"), p.in("v"), sq, skv, 0.08838834764831845);
    int bad = 0;
    for (int64_t i = 0; i < sq * 128 && bad < 5; ++i)
      if (float(p.out.at("o").get(i)) != gold[size_t(i)])
        ++bad,
            ADD_FAILURE() << n << " element " << i << ": " << p.out.at("o").get(i) << " vs golden " << gold[size_t(i)];
    const auto refs = find_op("pto").reference(p.c);
    ASSERT_EQ(refs.size(), 1u);
    const auto acc = compare_accuracy("o", p.out.at("o"), refs[0].ref64, refs[0].naive, refs[0].working,
                                      refs[0].reduction_len, refs[0].gate_fa_rule);
    EXPECT_TRUE(acc.pass()) << n << ": " << format_report(acc);
  }
}

std::string prepare_error(const std::string& text) {
  try {
    run_case("pto_error", text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PtoErrors, NameTheParameterAndTheRule) {
  const std::string in = input("x", "[16, 72]", "float32", "dist: normal, seed: 1");
  EXPECT_NE(prepare_error(case_text(kTestKernel, "nosuch", "vector", 1, "[out, x, 0]",
                                    "{out: {dtype: float32, shape: [16, 72]}}", in))
                .find("attrs.entry = 'nosuch' is not an entry of"),
            std::string::npos);
  EXPECT_NE(prepare_error(case_text(kTestKernel, "unary", "vector", 1, "[out, x]",
                                    "{out: {dtype: float32, shape: [16, 72]}}", in))
                .find("attrs.args must list the 3 arguments of entry 'unary' in order (signature ppu"),
            std::string::npos);
  EXPECT_NE(prepare_error(case_text(kTestKernel, "unary", "vector", 1, "[out, z, 0]",
                                    "{out: {dtype: float32, shape: [16, 72]}}", in))
                .find("attrs.args[1] = 'z' must name an input, output or workspace"),
            std::string::npos);
  EXPECT_NE(prepare_error(case_text(kSrc + "/no/such.so", "unary", "vector", 1, "[out, x, 0]",
                                    "{out: {dtype: float32, shape: [16, 72]}}", in))
                .find("cannot be loaded"),
            std::string::npos);
  EXPECT_NE(prepare_error(case_text(kTestKernel, "unary", "both", 1, "[out, x, 0]",
                                    "{out: {dtype: float32, shape: [16, 72]}}", in))
                .find("attrs.cores = 'both' must be cube, vector or mix"),
            std::string::npos);
}

}  // namespace
}  // namespace npusim::op
