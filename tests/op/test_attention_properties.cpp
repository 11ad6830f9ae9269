// Random property tests of the attention operators (issue 17 item 2): a seeded generator draws a valid
// combination of the operator's features, the case goes through the whole op (case file, checks, tiling,
// simulated chip, full mode) and its outputs must equal the golden model's bits and pass the accuracy policy
// against fp64. Each seed is one test (its own process). The generator knows the rules, so a
// rejection (exit-2 CaseError) is rare; a rejected seed is reported as skipped with the message, which must name
// the parameter (inputs. / attrs. / tiling / hw.). Default suite: 8 seeds per generator; NPUSIM_LONG_TESTS: 500.
//
//   FiaPrompt: dtypes, the four layouts, GQA, D, lengths and actual lengths, left padding, system prefix, paged
//     (both cache layouts), tensor lists, mask tensors and sparse modes 0-4 with pre / next, pse, inner_precise
//     0-3, softmax_lse, post-quantisation (per-tensor / per-channel, with / without offset), KV antiquantisation
//     (int8 K / V, per-tensor / per-channel, with / without offset, dense, tensor lists or a system prefix; a
//     bfloat16 query with S <= 16 through MSD),
//     tiling overrides.
//   FiaDecode: query S = 1 with the same families (masks (B, 1, Skv), pse rows, page sizes 1-512, flash-decoding
//     splits, empty KV batches) and KV antiquantisation through MSD (modes 0-5, K 0 / V 1, 2 / 3 limbs; int4 K / V).
//   FaVarLen: TND batches with zero lengths, GQA, D / Dv / rope Dr, sparse modes 0-4, 7, 8, local and global
//     masks, band pre / next, invalid-row correction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/fia/fia_int4_view.h"
#include "kernels/fia/fia_params.h"
#include "tests/op/case_test_support.h"
#include "tests/op/fa_kernel_harness.h"
#include "tests/op/fia_case_writer.h"
#include "tests/op/fia_kernel_harness.h"

namespace npusim::op {
namespace {

using namespace attntest;
using attn::KvStorage;
using attn::Layout;
using attn::MaskKind;

// Seeds per generator: 8 (500 with NPUSIM_LONG_TESTS); NPUSIM_PROPERTY_SEEDS=N overrides it when the binary
// runs by itself (ctest registers the build-time count).
int seeds() {
  if (const char* e = std::getenv("NPUSIM_PROPERTY_SEEDS")) return std::max(1, std::atoi(e));
  return NPUSIM_LONG_TESTS ? 500 : 8;
}

// Draws from one seed.
struct Draw {
  Rng r;
  int64_t in(int64_t lo, int64_t hi) { return lo + int64_t(r.next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool coin(double p) { return r.uniform(0, 1) < p; }
  template <class T>
  T of(const std::vector<T>& v) {
    return v[size_t(r.next() % v.size())];
  }
};

// A rejected combination: the message must name what it rejects; the seed is reported as skipped.
void report_rejection(const std::string& what, uint64_t seed, const std::string& msg) {
  bool named = false;
  for (const char* what : {"inputs.", "attrs.", "tiling.", "tiling:", "hw."})
    named |= msg.find(what) != std::string::npos;
  EXPECT_TRUE(named) << "a rejection must name the parameter: " << msg;
  std::cout << "REJECTED " << what << " seed " << seed << ": " << msg << "\n";
}

// ---- FusedInferAttentionScore ----

struct FiaDraw {
  AttnCase c;
  CaseExtras x;
  std::string desc;
};

// Mask / band / sparse mode of a prompt problem (spec §1.4): the modes' tensors, pre / next with a band that
// leaves most rows visible.
void draw_prompt_scores(Draw& g, AttnProblem& p, bool post_quant) {
  const int mode = int(g.of<int64_t>({0, 0, 1, 2, 3, 4}));
  p.sparse_mode = mode;
  if (mode >= 2) {
    p.mask = MaskKind::Compressed, p.mask_sq = p.mask_skv = 2048;
  } else if (mode == 1 || g.coin(0.5)) {
    p.mask = MaskKind::Full, p.mask_per_batch = p.B > 1 && g.coin(0.5);
  }
  if (mode == 0 && p.mask != MaskKind::None && g.coin(0.5)) p.pre_tokens = g.in(0, 300), p.next_tokens = g.in(0, 300);
  if (mode == 4) {
    p.pre_tokens = g.in(post_quant ? 0 : -20, 300);
    p.next_tokens = g.in(std::max<int64_t>(-p.pre_tokens, post_quant ? 0 : -20), 300);
  }
}

// tensors = false draws the problem only (the coverage test below).
FiaDraw draw_fia(uint64_t seed, bool decode, bool tensors = true) {
  Draw g{Rng{seed * 7919 + (decode ? 17 : 3)}};
  FiaDraw d;
  AttnProblem p;
  // Full quantisation (int8 Q / K / V, prompt only; spec §1.7): D a multiple of 32, no pages, prefix or empty K / V.
  const bool full_quant = !decode && g.coin(0.2);
  const ElemType t = full_quant ? ElemType::I8 : g.coin(0.5) ? ElemType::F16 : ElemType::BF16;
  const std::vector<Layout> layouts =
      decode ? std::vector<Layout>{Layout::BSH, Layout::BSND, Layout::BNSD}
             : std::vector<Layout>{Layout::BSH, Layout::BSND, Layout::BNSD, Layout::BNSD_BSND};
  const Layout l = g.of(layouts);
  const int64_t kvn = g.of<int64_t>({1, 2, 4}), grp = g.of<int64_t>({1, 2, 3, 4, 7});
  const bool post_quant = g.coin(0.25);
  const int64_t D = post_quant   ? g.of<int64_t>({32, 64, 128})
                    : full_quant ? g.of<int64_t>({32, 64, 128, 256})
                                 : g.of<int64_t>({16, 32, 64, 80, 128, 256});
  const int64_t B = g.in(1, 3), Sq = decode ? 1 : g.in(2, 160);
  const int64_t Skv = g.coin(0.05) && !full_quant ? 0 : g.in(1, 300);
  p = dense_problem(B, kvn * grp, kvn, Sq, Skv, D, l, t);
  // Around 1 / sqrt(D), as models use it. (With scale up to 0.3 at D = 256, fp16 high-performance mode's fp16
  // scores lose more than the CANN fp16 threshold allows on ~0.03% of the elements: a limit of that mode.)
  p.scale = g.r.uniform(0.5, 1.5) / std::sqrt(double(D));
  // K / V storage and lengths.
  const double s = g.r.uniform(0, 1);
  const KvStorage kv = Skv == 0                 ? KvStorage::Dense
                       : s < 0.6                ? KvStorage::Dense
                       : s < 0.75 || full_quant ? KvStorage::List
                                                : (l == Layout::BNSD ? KvStorage::PagedNBsD : KvStorage::PagedBsH);
  const bool paged = kv == KvStorage::PagedBsH || kv == KvStorage::PagedNBsD;
  if (!decode && g.coin(0.4)) {  // actual query lengths
    for (auto& a : p.act_q) a = g.in(1, Sq);
    d.x.lengths = true;
  }
  if (g.coin(0.4) && kv == KvStorage::Dense && Skv > 0) {
    for (auto& a : p.act_kv) a = g.in(decode ? 0 : 1, Skv);
    d.x.lengths = true;
  }
  if (kv == KvStorage::List) {
    p.kv = kv, p.list_s.clear();
    for (int64_t b = 0; b < B; ++b) p.list_s.push_back(g.in(1, Skv));
    p.kv_s = *std::max_element(p.list_s.begin(), p.list_s.end());
    p.act_kv = p.list_s;
  }
  if (paged) {
    p.kv = kv, p.kv_s = 0;
    p.block_size = decode ? g.of<int64_t>({1, 16, 64, 128, 512}) : g.of<int64_t>({128, 256});
    for (auto& a : p.act_kv) a = g.in(decode ? 0 : 1, Skv);
  }
  if (kv == KvStorage::Dense && Skv > 0 && g.coin(0.15)) {  // left padding or a system prefix, not both
    if (g.coin(0.5) && !(post_quant && decode)) {
      p.left_pad = true, p.q_pad = decode ? 0 : g.in(0, Sq - 1), p.kv_pad = g.in(0, Skv - 1);
      for (auto& a : p.act_q) a = decode ? 1 : g.in(1, Sq - p.q_pad);
      for (auto& a : p.act_kv) a = g.in(1, Skv - p.kv_pad);
    } else if (!full_quant) {
      p.prefix = true, p.prefix_s = g.in(1, 100), p.prefix_len = g.in(0, p.prefix_s);
    }
  }
  // Scores.
  if (!decode) draw_prompt_scores(g, p, post_quant);
  else if (g.coin(0.4)) p.mask = MaskKind::Full, p.mask_per_batch = p.B > 1, p.mask_sq = 1;
  const int64_t max_kv = *std::max_element(p.act_kv.begin(), p.act_kv.end());
  // Mask / pse columns cover [prefix || kv]: the tensor's S, or the pages a batch can address (fill's max_blocks).
  const int64_t kv_cols = paged ? ((max_kv + p.block_size - 1) / p.block_size + 1) * p.block_size : p.kv_s;
  if (p.mask == MaskKind::Full) {
    if (!decode) p.mask_sq = p.Sq + (g.coin(0.3) ? g.in(1, 16) : 0);
    p.mask_skv = kv_cols + p.prefix_len + (g.coin(0.3) ? g.in(1, 16) : 0);
    if (paged && !decode) p.mask_skv = std::max(p.mask_skv, kv_cols + p.prefix_len);
  }
  if (g.coin(0.2)) p.pse = true, p.pse_b = g.coin(0.5) ? B : 1, p.pse_sq = Sq, p.pse_skv = kv_cols + p.prefix_len;
  p.inner_precise = int(g.in(0, 3));
  p.row_fix = p.inner_precise & 2;
  p.high_perf = !decode && ((t == ElemType::F16 && (p.inner_precise & 1) && !p.pse) || full_quant);
  AttnCase& c = d.c;
  c.p = p;
  c.p.lse = g.coin(0.5);
  // KV antiquantisation (int8 K / V, float16 query, prompt; spec §1.6): drawn from a stream of its own so that the
  // other families keep their draws; dense K / V or a tensor list, with or without a system prefix, D a multiple of 32.
  Draw ga{Rng{seed * 104729 + 11}};
  // (lists and prefixes, rarer draws, take it more often)
  if (!decode && t == ElemType::F16 && D % 32 == 0 && (p.kv == KvStorage::Dense || p.kv == KvStorage::List) &&
      ga.coin(p.kv == KvStorage::List || p.prefix ? 0.9 : 0.6))
    c.p.antiquant = {true, ga.coin(0.4), ga.coin(0.6)};
  // Prompt with a bfloat16 query and S <= 16: the prompt kernel's MSD mode (modes 0 / 1, the separated parameters;
  // a system prefix with mode 0).
  if (!decode && t == ElemType::BF16 && Sq <= 16 && D % 32 == 0 && p.kv == KvStorage::Dense && !p.left_pad &&
      ga.coin(0.7)) {
    AntiQuant& a = c.p.antiquant;
    a.on = a.msd = a.separated = true, a.offset = ga.coin(0.6), a.k_mode = a.v_mode = int(ga.in(0, 1));
    if (p.prefix) a.k_mode = a.v_mode = 0;
    a.limbs = 2, a.coef = 127.49f, a.expand = 254.98f;
  }
  // Decode: MSD over int8 K / V (modes 0-5, K 0 / V 1, separated or combined; with a prefix too;
  // inner_precise 0 or 1 picks 3 or 2 limbs).
  if (decode && D % 32 == 0 && (!paged || p.block_size % 32 == 0) && ga.coin(0.5)) {
    AntiQuant& a = c.p.antiquant;
    a.on = a.msd = true, a.offset = ga.coin(0.6);
    const std::vector<int> modes = paged ? std::vector<int>{0, 1, 2, 3, 4, 5, 9} : std::vector<int>{0, 1, 2, 3, 9};
    const int m = ga.of(modes);  // 9: K per-channel with V per-token
    a.k_mode = m == 9 ? 0 : m, a.v_mode = m == 9 ? 1 : m;
    if (m == 9 && t != ElemType::F16) a.k_mode = a.v_mode = 0;
    a.per_tensor = a.k_mode == 0 && a.v_mode == 0 && ga.coin(0.3);
    a.separated = a.k_mode != a.v_mode || a.k_mode > 1 || ga.coin(0.6);
    c.p.inner_precise = int(ga.in(0, 1)), c.p.row_fix = false;
    a.limbs = c.p.inner_precise == 0 ? 3 : 2;
    // Int4 K / V (a stream of its own): the separated parameters in modes 0 (per-channel) / 1 / 3 / K 0 V 1, D % 64, no
    // pages, left padding or post-quant; 4 limbs, 7.49 / 14.98.
    Draw gi{Rng{seed * 15485863 + 7}};
    if (D % 64 == 0 && !paged && !p.left_pad && !post_quant && gi.coin(0.35)) {
      a.int4 = true, a.separated = true, a.per_tensor = false, a.limbs = 4, a.coef = 7.49f, a.expand = 14.98f;
      if (a.k_mode == 2) a.k_mode = a.v_mode = 0;
    }
  }
  if (tensors) fill(c, seed + 1000);
  if (tensors && c.p.antiquant.on) c.p.antiquant.msd ? add_msd_antiquant(c, seed) : add_antiquant(c, seed);
  // qs1 at most 127 (P <= 1 never saturates P8): a larger qs1 saturates against the kernel's running max where the
  // truth's row max does not, a divergence of the operator's definition (test_fia_kernel FullQuantPSaturatesD256).
  if (full_quant) add_full_quant(c, g.coin(0.5), g.r.uniform(0.5, 2), g.r.uniform(0.5, 2), g.r.uniform(0.5, 1));
  if (tensors && c.p.mask == MaskKind::Compressed) c.mask = triu_mask();
  if (post_quant) {
    const bool per_channel = !p.left_pad && g.coin(0.5);
    // An offset with a mode that skips rows is an interception error (spec §1.7): only the modes that never do.
    const bool offset_ok =
        p.sparse_mode == 1 || p.sparse_mode == 2 || (p.sparse_mode == 0 && p.mask == MaskKind::None) || decode;
    // Full quantisation's O carries the P8 noise (~2^-7): scales past ~200 would spend it on several units.
    add_post_quant(c, per_channel, offset_ok && g.coin(0.6), seed, 20, full_quant ? 200 : 400,
                   t == ElemType::BF16 && g.coin(0.5));
  }
  if (g.coin(0.3)) {  // tiling overrides the op may lower or reject (a rejection names the key)
    std::ostringstream o;
    // Sizes that fit L1 for this D (the op rejects the rest naming hw.core.l1_bytes; a few still do).
    const std::vector<int64_t> s2 = D <= 64    ? std::vector<int64_t>{128, 256, 512}
                                    : D <= 128 ? std::vector<int64_t>{128, 256}
                                               : std::vector<int64_t>{128};
    if (decode) {
      o << "kv_splits: " << g.in(1, 4) << ", s2_block: " << (D <= 128 ? g.of(s2) : 128);
      // MSD decode: a deeper preload too (Plan::q_slots), drawn apart so the other draws stay as they were
      if (c.p.antiquant.msd) o << ", preload: " << Draw{Rng{seed * 7727 + 5}}.in(1, 3);
    } else
      o << "s1_block: "
        << (D <= 32    ? g.of<int64_t>({32, 128, 256, 512})
            : D <= 128 ? g.of<int64_t>({32, 64, 128})
                       : 32)
        << ", s2_block: " << g.of(s2) << ", preload: " << g.in(1, 3);
    d.x.tiling = o.str();
  }
  d.x.mask_dtype = g.of<ElemType>({ElemType::Bool, ElemType::I8, ElemType::U8});
  d.x.int32_kv = c.p.antiquant.int4 && Draw{Rng{seed * 7727 + 3}}.coin(0.5);  // the int32-packed view of the cache
  std::ostringstream o;
  o << "B " << B << " N " << p.N << "/" << p.KV_N << " Sq " << Sq << " Skv " << Skv << " D " << D << " "
    << layout_name(l) << " " << elem_type_name(t) << (full_quant ? " full-quant" : "") << " kv " << int(kv) << " mode "
    << p.sparse_mode << " mask " << int(p.mask) << " pse " << p.pse << " ip " << c.p.inner_precise << " lpad "
    << p.left_pad << " prefix " << p.prefix << " pq " << post_quant
    << (c.p.antiquant.msd
            ? " msd k" + std::to_string(c.p.antiquant.k_mode) + " v" + std::to_string(c.p.antiquant.v_mode) +
                  (c.p.antiquant.per_tensor ? " per-tensor" : "") + (c.p.antiquant.offset ? " offset" : "") +
                  (c.p.antiquant.separated ? " separated" : " combined") +
                  (c.p.antiquant.int4 ? d.x.int32_kv ? " int4 (int32 view)" : " int4" : "")
        : c.p.antiquant.on ? c.p.antiquant.per_tensor ? " antiquant per-tensor" : " antiquant per-channel"
                           : "")
    << " tiling {" << d.x.tiling << "}";
  d.desc = o.str();
  return d;
}

// The generator reaches every feature family often (500 draws per branch; counts printed for the record).
TEST(FiaRandomGenerator, DrawsEveryFeatureFamily) {
  for (const bool decode : {false, true}) {
    std::map<std::string, int> n;
    for (uint64_t seed = 0; seed < 500; ++seed) {
      const FiaDraw d = draw_fia(seed, decode, false);
      const AttnProblem& p = d.c.p;
      const auto& q = p.post_quant;
      n["bf16"] += p.in == ElemType::BF16, n["layout " + layout_name(p.layout)] += 1, n["gqa"] += p.G > 1;
      n["paged"] += p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD, n["list"] += p.kv == KvStorage::List;
      n["prefix"] += p.prefix, n["left padding"] += p.left_pad, n["pse"] += p.pse, n["lse"] += p.lse;
      n["mask tensor"] += p.mask == MaskKind::Full, n["row fix bit"] += (p.inner_precise & 2) != 0;
      n["post-quant per-tensor"] += q.on && !q.per_channel, n["post-quant per-channel"] += q.per_channel;
      n["post-quant offset"] += q.offset, n["tiling override"] += !d.x.tiling.empty();
      if (!decode) n["full quantisation"] += p.full_quant.on, n["kv antiquant"] += p.antiquant.on;
      if (!decode) n["kv antiquant list / prefix"] += p.antiquant.on && (p.kv == KvStorage::List || p.prefix);
      if (decode) n["kv antiquant msd"] += p.antiquant.msd, n["msd per-token"] += p.antiquant.per_token(true);
      if (decode) n["msd int4"] += p.antiquant.int4;
      if (!decode) n["sparse_mode " + std::to_string(p.sparse_mode)] += 1, n["high performance"] += p.high_perf;
    }
    std::cout << (decode ? "decode" : "prompt") << " draws:";
    for (const auto& [k, v] : n) std::cout << " " << k << " " << v << ";";
    std::cout << "\n";
    for (const auto& [k, v] : n) EXPECT_GE(v, 15) << (decode ? "decode " : "prompt ") << k;
    EXPECT_EQ(n.size(), decode ? 20u : 27u) << "a family the generator should draw never appears";
  }
}

class FiaRandom : public ::testing::TestWithParam<int> {};

void run_fia_seed(uint64_t seed, bool decode) {
  FiaDraw d = draw_fia(seed, decode);
  ::testing::Test::RecordProperty("combination", d.desc);
  const std::string path = write_fia_case(casetest::scratch_dir(), d.c, d.x);
  const CaseFile given = load_case(path, {}, true);
  std::optional<CaseFile> view;
  const CaseFile& c = fia::int4_view(given, view);  // as the op: int32-packed int4 K / V as int4
  attn::AttnProblem p;
  attn::Plan plan;
  try {
    p = parse_fia(c);
    plan = fiatest::plan_of(c, p);
  } catch (const CaseError& e) {
    report_rejection(d.desc, seed, e.what());
    GTEST_SKIP() << "rejected: " << e.what();
  }
  const fiatest::KernelRun k = fiatest::run(path, sim::SimMode::Full);
  SCOPED_TRACE(d.desc);
  fiatest::expect_golden_and_accurate(c, d.c, p, plan, k);
}

TEST_P(FiaRandom, PromptMatchesTheGoldenBitsAndTheAccuracyPolicy) { run_fia_seed(uint64_t(GetParam()), false); }
TEST_P(FiaRandom, DecodeMatchesTheGoldenBitsAndTheAccuracyPolicy) { run_fia_seed(uint64_t(GetParam()), true); }
INSTANTIATE_TEST_SUITE_P(Seeds, FiaRandom, ::testing::Range(0, seeds()));

// ---- FlashAttentionVarLenScoreV3 ----

// The band of sparse mode `mode` for the batches (q, kv): pre / next the op's rules accept (fa_check_scores.cpp).
void draw_fa_band(Draw& g, int mode, const std::vector<int64_t>& q, const std::vector<int64_t>& kv, int64_t band_b,
                  int64_t& pre, int64_t& next) {
  pre = next = 2147483647;
  if (mode == 0 && g.coin(0.5)) {
    int64_t need = 0;
    for (size_t b = 0; b < q.size(); ++b)
      if (q[b] && kv[b]) need = std::max(need, q[b] - kv[b]);
    pre = need + g.in(0, 200), next = g.in(0, 200);
  }
  if (mode == 4) {
    int64_t lo = -200;
    for (size_t b = 0; b < q.size(); ++b)
      if (q[b] && kv[b]) lo = std::max(lo, q[b] - kv[b]);
    pre = g.in(0, 300), next = g.in(std::max(lo, -pre), 300);
  }
  if (mode == 7 || mode == 8) {
    const int64_t sq = q[size_t(band_b)], skv = kv[size_t(band_b)];
    pre = skv + g.in(0, 100);
    next = mode == 7 ? g.in(sq - skv, 0) : g.in(sq - skv, sq - skv + 100);
  }
}

std::string draw_fa(uint64_t seed, std::string& desc) {
  Draw g{Rng{seed * 104729 + 11}};
  const int mode = int(g.of<int64_t>({0, 0, 1, 2, 3, 4, 7, 8}));
  const int64_t B = g.in(1, 4), n2 = g.of<int64_t>({1, 2}), grp = g.of<int64_t>({1, 2, 3}), N = n2 * grp;
  const bool rope = g.coin(0.5);
  const int64_t D = g.of<int64_t>({32, 64, 128}), Dv = g.coin(0.3) ? D / 2 : D, Dr = rope ? g.of<int64_t>({16, 32}) : 0;
  const std::string dt = rope || g.coin(0.5) ? "bfloat16" : "float16";
  std::vector<int64_t> q(static_cast<size_t>(B), 0), kv(static_cast<size_t>(B), 0);
  for (int64_t b = 0; b < B; ++b) {
    q[size_t(b)] = g.coin(0.1) ? 0 : g.in(1, 160);
    kv[size_t(b)] = g.coin(0.1) ? 0 : g.in(1, 240);
  }
  q[0] = std::max<int64_t>(q[0], 1), kv[0] = std::max<int64_t>(kv[0], 1);  // T1, T2 > 0
  // Mode 7's band batch is the last with rows, mode 8's the first; the causal batches of 3 / 7 need Sq <= Skv.
  int64_t band_b = 0;
  for (int64_t b = 0; b < B; ++b)
    if (q[size_t(b)] && (mode == 7 || (mode == 8 && b == 0))) band_b = b;
  for (int64_t b = 0; b < B; ++b) {
    // mode 7: the causal batches, and its band batch too (next_tokens <= 0 with Sq - next_tokens <= Skv)
    if ((mode == 3 || mode == 7) && q[size_t(b)] > kv[size_t(b)]) kv[size_t(b)] = q[size_t(b)];
  }
  int64_t pre = 0, next = 0;
  draw_fa_band(g, mode, q, kv, band_b, pre, next);
  std::vector<int64_t> cq, ckv;
  int64_t t1 = 0, t2 = 0, mq = 0, mkv = 0;
  for (int64_t b = 0; b < B; ++b) {
    cq.push_back(t1 += q[size_t(b)]), ckv.push_back(t2 += kv[size_t(b)]);
    mq = std::max(mq, q[size_t(b)]), mkv = std::max(mkv, kv[size_t(b)]);
  }
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  auto tensor = [&](const char* name, int64_t t, int64_t n, int64_t d, uint64_t sd) {
    return std::string("  ") + name + ": {shape: [" + std::to_string(t) + ", " + std::to_string(n) + ", " +
           std::to_string(d) + "], dtype: " + dt + ", init: {dist: normal, seed: " + std::to_string(seed * 10 + sd) +
           "}}\n";
  };
  std::ostringstream y;
  y << "op: flash_attention_var_len_score\nattrs:\n  head_num: " << N
    << "\n  input_layout: TND\n  scale: " << g.r.uniform(0.03, 0.3) << "\n  sparse_mode: " << mode
    << "\n  inner_precise: " << g.of<int64_t>({0, 1, 2}) << "\n  actual_seq_qlen: " << list(cq)
    << "\n  actual_seq_kvlen: " << list(ckv) << "\n";
  if (pre != 2147483647) y << "  pre_tokens: " << pre << "\n  next_tokens: " << next << "\n";
  y << "inputs:\n" << tensor("query", t1, N, D, 1) << tensor("key", t2, n2, D, 2) << tensor("value", t2, n2, Dv, 3);
  if (rope) y << tensor("query_rope", t1, N, Dr, 4) << tensor("key_rope", t2, n2, Dr, 5);
  const bool compressed = mode >= 2;
  const bool mask = compressed || mode == 1 || rope || g.coin(0.5);
  std::string mask_desc = "none";
  if (compressed) {
    y << "  atten_mask: {shape: [2048, 2048], dtype: bool, init: {dist: triu}}\n", mask_desc = "compressed";
  } else if (mask) {
    const bool global = g.coin(0.4);
    y << "  atten_mask: {shape: [" << (global ? t1 : mq) << ", " << (global ? t2 : mkv)
      << "], dtype: " << (g.coin(0.5) ? "bool" : "uint8") << ", init: {dist: bernoulli, p: " << g.r.uniform(0.05, 0.5)
      << ", seed: " << seed << "}}\n";
    mask_desc = global ? "global" : "local";
  }
  std::ostringstream o;
  auto packed = [&](const std::vector<int64_t>& v) {  // no spaces: the description is "key value" pairs
    std::string t = list(v);
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return t;
  };
  o << "B " << B << " N " << N << "/" << n2 << " D " << D << " Dv " << Dv << " Dr " << Dr << " dtype " << dt << " mode "
    << mode << " q " << packed(q) << " kv " << packed(kv) << " pre " << pre << " next " << next << " mask "
    << mask_desc;
  desc = o.str();
  return y.str();
}

// The FA generator reaches every sparse mode, rope, Dv < D, zero-length batches and each mask form (500 draws).
TEST(FaRandomGenerator, DrawsEveryFeatureFamily) {
  std::map<std::string, int> n;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    std::string desc;
    draw_fa(seed, desc);
    std::istringstream in(desc);
    std::map<std::string, std::string> f;  // "key value" pairs of the description
    for (std::string k, v; in >> k >> v;) f[k] = v;
    n["mode " + f["mode"]] += 1, n["mask " + f["mask"]] += 1, n["rope"] += f["Dr"] != "0";
    const std::string heads = f["N"];  // "N1/N2"
    n["Dv < D"] += f["Dv"] != f["D"], n["gqa"] += heads.substr(0, heads.find('/')) != heads.substr(heads.find('/') + 1);
    n["dtype " + f["dtype"]] += 1;
    const std::string lens =
        "," + f["q"].substr(1, f["q"].size() - 2) + "," + f["kv"].substr(1, f["kv"].size() - 2) + ",";
    n["zero-length batch"] += lens.find(",0,") != std::string::npos;
  }
  std::cout << "FA draws:";
  for (const auto& [k, v] : n) std::cout << " " << k << " " << v << ";";
  std::cout << "\n";
  for (const auto& [k, v] : n) EXPECT_GE(v, 15) << k;
  EXPECT_EQ(n.size(), 17u) << "a family the generator should draw never appears";
}

class FaRandom : public ::testing::TestWithParam<int> {};

TEST_P(FaRandom, MatchesTheGoldenBitsAndTheAccuracyPolicy) {
  const auto seed = uint64_t(GetParam());
  std::string desc;
  const std::string yaml = draw_fa(seed, desc);
  RecordProperty("combination", desc);
  const std::string path = casetest::write_text(casetest::scratch_dir() / "fa.yaml", yaml);
  try {
    const CaseFile c = load_case(path, {}, false);
    parse_fa_varlen(c);
  } catch (const CaseError& e) {
    report_rejection(desc, seed, e.what());
    GTEST_SKIP() << "rejected: " << e.what();
  }
  SCOPED_TRACE(desc);
  fatest::run_and_check(path, {}, 0);
}
INSTANTIATE_TEST_SUITE_P(Seeds, FaRandom, ::testing::Range(0, seeds()));

}  // namespace
}  // namespace npusim::op
