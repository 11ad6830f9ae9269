// End to end through the cube data path, as a kernel runs it: GM (ND) -> Nd2Nz -> L1 (NZ) -> Load2d (A as is,
// B transposed) -> L0A / L0B -> two Mmads accumulating over K -> Fixpipe (ND) -> GM, for odd sizes, compared with a
// plain-loop golden that follows the documented accumulation order.
#include <random>
#include <vector>

#include "tests/isa/cube_fixture.h"

namespace npusim::isa {
namespace {

using testing::Core;

constexpr int M = 17, N = 33, K = 40;     // K = 32 (first mmad, 2 K blocks) + 8 (second mmad)
constexpr int MP = 32, NP = 48, KP = 48;  // padded to 16
constexpr int MB = MP / 16, NB = NP / 16, KB = KP / 16;
constexpr uint64_t kGmA = 0, kGmB = 4096, kGmOut = 16384, kGmOut32 = 32768;
constexpr uint64_t kL1A = 0, kL1B = 64 << 10;
constexpr uint64_t kL0A2 = 16 << 10, kL0B2 = 16 << 10;  // the second mmad's operands

// Golden: acc = +0; for each K block of 16: acc = acc + (pairwise tree of its 16 products, +0 beyond K).
std::vector<float> golden(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
  std::vector<float> c(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int kb = 0; kb < KB; ++kb) {
        float p[16];
        for (int t = 0; t < 16; ++t) {
          const int kk = kb * 16 + t;
          p[t] = kk < K ? f16_to_f32(a[i * K + kk]) * f16_to_f32(b[kk * N + j]) : 0.0f;
        }
        for (int w = 16; w > 1; w /= 2)
          for (int q = 0; q < w / 2; ++q) p[q] = p[2 * q] + p[2 * q + 1];
        acc = acc + p[0];
      }
      c[i * N + j] = acc;
    }
  return c;
}

void load_operands(Core& c, int kb_first, int kb_count, uint64_t l0a, uint64_t l0b) {
  for (int mb = 0; mb < MB; ++mb) {  // A: L1 fractal (kb, mb) at kb*MB + mb -> L0A ZZ (mb, kb)
    Load2d l;
    l.dst = {Buf::L0A, l0a + uint64_t(mb) * kb_count * 512}, l.src = {Buf::L1, kL1A};
    l.start_index = uint16_t(kb_first * MB + mb), l.src_stride = MB, l.repeat = uint8_t(kb_count);
    c.run(l);
  }
  for (int kb = 0; kb < kb_count; ++kb) {  // B: L1 fractal (nb, kb) at nb*KB + kb, transposed -> L0B ZN (kb, nb)
    Load2d l;
    l.dst = {Buf::L0B, l0b + uint64_t(kb) * NB * 512}, l.src = {Buf::L1, kL1B};
    l.start_index = uint16_t(kb_first + kb), l.src_stride = KB, l.repeat = NB, l.transpose = true;
    c.run(l);
  }
}

void run_pipeline(Core& c) {
  Nd2Nz na;  // A: M rows of K columns -> column groups of MP rows
  na.dst = {Buf::L1, kL1A}, na.src = {Buf::GM, kGmA}, na.n_value = M, na.d_value = K, na.src_d_value = K;
  na.dst_nz_c0_stride = MP;
  c.run(na);
  Nd2Nz nb = na;  // B: K rows of N columns -> column groups of KP rows
  nb.dst = {Buf::L1, kL1B}, nb.src = {Buf::GM, kGmB}, nb.n_value = K, nb.d_value = N, nb.src_d_value = N;
  nb.dst_nz_c0_stride = KP;
  c.run(nb);
  load_operands(c, 0, 2, 0, 0);
  load_operands(c, 2, 1, kL0A2, kL0B2);
  Mmad m1;
  m1.c = {Buf::L0C, 0}, m1.a = {Buf::L0A, 0}, m1.b = {Buf::L0B, 0}, m1.m = M, m1.n = N, m1.k = 32, m1.init = true;
  c.run(m1);
  Mmad m2 = m1;
  m2.a = {Buf::L0A, kL0A2}, m2.b = {Buf::L0B, kL0B2}, m2.k = K - 32, m2.init = false;
  c.run(m2);
  Fixpipe f;
  f.dst = {Buf::GM, kGmOut}, f.src = {Buf::L0C, 0}, f.src_dtype = DType::F32, f.dst_dtype = DType::F16;
  f.m = M, f.n = N, f.src_m_stride = MP, f.dst_stride = N, f.nz2nd = true;
  c.run(f);
  f.dst = {Buf::GM, kGmOut32}, f.dst_dtype = DType::F32;
  c.run(f);
}

class CubeEndToEnd : public ::testing::TestWithParam<ExecPath> {
 protected:
  void TearDown() override { set_exec_path(ExecPath::Fast); }
};

TEST_P(CubeEndToEnd, OddSizesMatchThePlainLoopGolden) {
  set_exec_path(GetParam());
  Core c;
  c.fill(Buf::L1, 0x7e);  // NaN garbage wherever Nd2Nz does not write: rows beyond M / K are never summed into
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<uint16_t> a(M * K), b(K * N);
  for (auto& v : a) v = f32_to_f16(u(rng));
  for (auto& v : b) v = f32_to_f16(u(rng));
  std::memcpy(c.at(Buf::GM, kGmA), a.data(), a.size() * 2);
  std::memcpy(c.at(Buf::GM, kGmB), b.data(), b.size() * 2);
  run_pipeline(c);
  const std::vector<float> g = golden(a, b);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const float got = c.get<float>(Buf::GM, kGmOut32 + (i * N + j) * 4);
      ASSERT_EQ(f32_bits(got), f32_bits(g[i * N + j])) << i << " " << j;
      ASSERT_EQ(c.get<uint16_t>(Buf::GM, kGmOut + (i * N + j) * 2), f32_to_f16(g[i * N + j])) << i << " " << j;
    }
  EXPECT_EQ(c.get<uint16_t>(Buf::GM, kGmOut + M * N * 2), 0);  // nothing written past the ND result
}

INSTANTIATE_TEST_SUITE_P(BothPaths, CubeEndToEnd, ::testing::Values(ExecPath::Reference, ExecPath::Fast),
                         [](const auto& info) { return info.param == ExecPath::Fast ? "Fast" : "Reference"; });

}  // namespace
}  // namespace npusim::isa
