#pragma once
// The host-side plan of an attention kernel built from the blocks of this folder: block sizes, work units and
// their split across cores, the GM workspace layout, the operands (which GM tensors hold Q, K, V and the
// optional second QK pair) and the output description. An operator fills it from its own parameters and
// tiling rules (FIA: kernels/fia/fia_tiling.cpp) and launches the mainloops (mainloop.h) on it. Every value is
// chosen from shapes and hardware capacities / unit shapes / core counts (never rates), so a bandwidth sweep
// never changes output bits. kernels/attention/README.md explains every field.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/instr/instr.h"
#include "isa/numeric/int_math.h"
#include "kernels/attention/attn_problem.h"

namespace npusim::sim {
class CoreCtx;
}

namespace npusim::op::attn {

// The deepest cube preload the tiling key allows (the S workspace and the MSD query slots are sized by it).
inline constexpr int64_t kMaxPreload = 4;

// Score blocks the AIVs' softmax (V1) runs ahead of their O update (V2) (kernels/attention/mainloop.cpp): 2, so
// that the P V round trip through the cube (P out, its load, the mmad, O through the FixPipe behind the QK blocks'
// S) runs under two softmax blocks instead of one; MSD keeps 1 (its query limbs' hand-over is planned for it).
// The P and O workspace slots, alpha, and the m / l rows of the units in flight: lead + 1 each.
inline constexpr int64_t kMaxVecLead = 2;
inline int64_t vec_lead(const AttnProblem& p) { return p.antiquant.msd ? 1 : kMaxVecLead; }

// Block sizes of the kernel (the op's tiling keys map onto these).
struct BlockTiling {
  int64_t s1_block = 0;    // query rows per work unit (the cube's M); the two AIVs take half each
  int64_t s2_block = 0;    // KV columns per score block
  int64_t vec_rows = 0;    // rows per vector sub-tile of the softmax (multiple of 8)
  int64_t preload = 1;     // score blocks the cube computes ahead (1 .. kMaxPreload; S slots = preload + 1)
  int64_t block_dim = 0;   // AI cores used
  int64_t kv_splits = 1;   // decode: KV splits per (b, KV head) (flash-decoding when > 1)
  int64_t kv_buffers = 1;  // K / V block slots in L1 (2 lets MTE2 stream the next blocks during the softmax)
  // The cube's L0 split (buffers.h l0_split): K per mmad slice and N per L0C half; 0 = the capacity rule.
  int64_t l0_k = 0, l0_n = 0;
};

// Rows of the cube's M side (the L1 Q / P tiles, L0, the S / P / O workspace rows): s1_block, or MSD's L limb rows
// per query row (decode: the G heads; prompt: the s1_block rows); a multiple of 16.
inline int64_t cube_rows(const AttnProblem& p, const BlockTiling& t) {
  const int64_t rows = p.incremental() ? p.G : t.s1_block;
  return isa::round_up(p.antiquant.msd ? p.antiquant.limbs * rows : t.s1_block, int64_t(16));
}

// One work unit: physical query rows [row0, row0 + rows) of head n of batch b. Computed rows (valid and with a
// non-empty visible band) are the contiguous range [r_lo, r_hi); the rest are written as the output's empty rows.
// Decode (query S = 1): a unit is (b, KV head n2, KV split); its rows are the G query heads of n2 (row g is
// head n2 * G + g), row0 = 0, rows = G.
struct WorkUnit {
  int64_t b = 0, n = 0, row0 = 0, rows = 0;  // rows = physical rows of the unit (<= s1_block); n: first query head
  int64_t r_lo = 0, r_hi = 0;                // computed physical rows
  int64_t blk_first = 0, blk_end = 0;        // visited score blocks [blk_first, blk_end)
  int64_t n2 = 0;                            // KV head
  int64_t split = -1;                        // decode with flash-decoding: split index (partials to fd_workspace)
  bool computed() const { return r_hi > r_lo && blk_end > blk_first; }
};

// Where the operands live in GM (names of host allocations; tensor lists add ".b").
struct Operands {
  std::string query = "query", key = "key", value = "value";
  std::string key_prefix = "key_shared_prefix", value_prefix = "value_shared_prefix";
  std::string pse = "pse_shift", mask = "atten_mask", block_table = "block_table";
  std::string query_rope = "query_rope", key_rope = "key_rope";  // the second Q / K pair (p.Dr > 0)
  std::string workspace = "workspace", fd_workspace = "fd_workspace";
  std::string quant_scale2 = "quant_scale2", quant_offset2 = "quant_offset2";  // post-quant, per-channel
};

// What the kernel writes and how: the output tensor, the per-row statistics and the roundings of P and of the
// output cast.
struct OutputDesc {
  std::string out = "attention_out";
  std::string lse = "softmax_lse";  // (B, N, Sq) fp32, written when the problem asks for it (p.lse)
  std::string max = "softmax_max", sum = "softmax_sum";  // (T1, N, 8) fp32 (p.max_sum)
  double empty_lse = 0;                             // lse of rows nobody computes (FIA: +inf; at query S = 1 -3.4e38)
  isa::RoundMode p_round = isa::RoundMode::RINT;    // P (fp32) -> input dtype before P V
  isa::RoundMode out_round = isa::RoundMode::RINT;  // O (fp32) -> output dtype
};

struct Plan;
// A pass every core of the launch makes before the mainloops, ending where all of them meet (SyncAll): a feature's
// own work over GM, plugged in by the op (FIA's KV antiquantisation, kernels/fia/antiquant). The AIVs run `vector`
// under a trace stage of its own, then drain their pipes and free UB; the AICs only wait for them.
struct Prologue {
  std::string stage;
  std::function<void(sim::CoreCtx&, const Plan&)> vector;  // empty: no prologue
};

// MSD antiquant decode (p.antiquant.msd; msd.h): the query's int8 limbs go through GM to the cube, which multiplies
// limbs x int8 K and int8 P limbs x int8 V into int32; the AIVs recombine. Limb-major rows: limb i, head g is row
// i * G + g of every cube operand and result.
struct MsdPlan {
  bool on = false;
  int limbs = 0;            // L
  int64_t dw = 0;           // D rounded up to 64: the fp32 query rows in UB are whole 256-byte repeats
  uint64_t ws_q_bytes = 0;  // one unit's query limbs (cube rows x D int8); Plan::q_slots() per core
};

struct Plan {
  AttnProblem p;
  BlockTiling t;
  Operands gm;
  OutputDesc outputs;
  isa::DType in = isa::DType::F16, out = isa::DType::F16;
  isa::DType vec = isa::DType::F32;    // softmax math type: F16 in fp16 high-performance mode
  isa::DType oblk = isa::DType::F32;   // P V block as the cube writes it: F16 with full quantisation (O in fp16)
  isa::DType cube = isa::DType::F16;   // the cube's operands (Q, K, V, P): = in, or I8 with MSD (limbs, int8 K / V)
  isa::DType score = isa::DType::F32;  // S as the cube writes it: = vec, or I32 with MSD (and P V's limbs too)
  float mask_value = 0;
  int64_t cw_max = 0;   // s2_block rounded up to 128: the width of a score row in workspace / UB
  int64_t dv_pad = 0;   // Dv rounded up to 16
  bool decode = false;  // query S = 1: rows are the G query heads of one KV head
  std::vector<WorkUnit> units;
  // Flash-decoding: splits of batch b (min(kv_splits, its score blocks)) and the byte offset of each
  // (b, KV head) group's partials in GM fd_workspace (-1: one split, no partials). A group's partials are
  // splits x [O (G_pad x dv_pad fp32), m (G_pad fp32), l (G_pad fp32)].
  std::vector<int64_t> fd_splits, fd_off;
  uint64_t fd_bytes = 0;
  std::vector<int64_t> core_first;  // units [core_first[k], core_first[k+1]) run on core k (block_dim + 1 entries)
  Prologue prologue;
  MsdPlan msd;
  // Workspace (one GM allocation): per core, S slots, P slots, O slots (, MSD query slots).
  uint64_t ws_s_bytes = 0, ws_p_bytes = 0, ws_o_bytes = 0, ws_core_bytes = 0;

  int64_t g_pad() const { return isa::round_up(p.G, int64_t(16)); }
  uint64_t fd_split_bytes() const { return uint64_t(g_pad() * (dv_pad + 2) * 4); }
  bool has_splits() const { return fd_bytes > 0; }
  int64_t s_slots() const { return t.preload + 1; }
  int64_t v_lead() const { return vec_lead(p); }
  // P / O workspace slots, alpha rows (by step) and m / l rows (by the unit's Step::seq): v_lead() + 1 in flight;
  // slot = the step's (or the unit's Step::seq's) index % step_slots().
  int64_t step_slots() const { return v_lead() + 1; }
  int64_t step_slot(int64_t i) const { return i % step_slots(); }
  // MSD: the AIVs write a unit's query limbs `preload` steps before its first score block (the cube's QK of step t
  // follows its P V of step t - preload - 1, which the AIVs' V2 of that step waits for), so the units of up to
  // preload + 1 steps hold limbs (GM) and amax1 / rq rows (UB) at once: slot = the unit's Step::seq % q_slots().
  int64_t q_slots() const { return t.preload + 1; }
  int64_t q_slot(int64_t seq) const { return seq % q_slots(); }
  int64_t blk_cols(int64_t b, int64_t k) const;  // columns of score block k of batch b
  static int64_t cw_of(int64_t c) { return isa::round_up(c, int64_t(128)); }
  uint64_t ws_s(int core, int64_t slot) const { return core * ws_core_bytes + slot * ws_s_bytes; }
  uint64_t ws_p(int core, int64_t slot) const {
    return core * ws_core_bytes + s_slots() * ws_s_bytes + slot * ws_p_bytes;
  }
  uint64_t ws_o(int core, int64_t slot) const {
    return core * ws_core_bytes + s_slots() * ws_s_bytes + step_slots() * ws_p_bytes + slot * ws_o_bytes;
  }
  uint64_t ws_q(int core, int64_t slot) const { return ws_o(core, step_slots()) + uint64_t(slot) * msd.ws_q_bytes; }
};

}  // namespace npusim::op::attn
