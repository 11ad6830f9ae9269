#pragma once
// The FIA prompt kernel's host-side plan: tiling, work units, their split across cores and the GM layout.
// Chosen from the problem's shapes and the hardware capacities / unit shapes / core counts (never rates), so
// a bandwidth sweep never changes output bits. kernels/fia/README.md explains every value.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/instr/instr.h"
#include "kernels/attention/attn_problem.h"
#include "kernels/op/tiling.h"
#include "sim/config/hw_config.h"

namespace npusim::sim {
class CoreCtx;
}

namespace npusim::op::fia {

struct FiaTiling {
  int64_t s1_block = 0;   // query rows per work unit (the cube's M); the two AIVs take half each
  int64_t s2_block = 0;   // KV columns per score block
  int64_t vec_rows = 0;   // rows per vector sub-tile of the softmax (multiple of 8)
  int64_t preload = 1;    // score blocks the cube computes ahead of the softmax (S workspace slots = preload + 1)
  int64_t block_dim = 0;  // AI cores used
  int64_t kv_splits = 1;  // decode: KV splits per (b, KV head) (flash-decoding when > 1)
  int64_t kv_buffers = 1; // K / V block slots in L1 (2 lets MTE2 stream the next blocks during the softmax)
};

// One work unit: physical query rows [row0, row0 + s1_block) of head n of batch b. Computed rows (valid and
// with a non-empty visible band) are the contiguous range [r_lo, r_hi); the rest are written as zeros.
// Decode (query S = 1): a unit is (b, KV head n2, KV split); its rows are the G query heads of n2 (row g is
// head n2 * G + g), row0 = 0, rows = G.
struct FiaUnit {
  int64_t b = 0, n = 0, row0 = 0, rows = 0;  // rows = physical rows of the unit (<= s1_block); n: first query head
  int64_t r_lo = 0, r_hi = 0;                // computed physical rows
  int64_t blk_first = 0, blk_end = 0;        // visited score blocks [blk_first, blk_end)
  int64_t n2 = 0;                            // KV head
  int64_t split = -1;                        // decode with flash-decoding: split index (partials to fd_workspace)
  bool computed() const { return r_hi > r_lo && blk_end > blk_first; }
};

struct FiaPlan {
  attn::AttnProblem p;
  FiaTiling t;
  isa::DType in = isa::DType::F16, out = isa::DType::F16;
  isa::DType vec = isa::DType::F32;  // softmax math type: F16 in high-performance mode
  float mask_value = 0;
  int64_t cw_max = 0;                // s2_block rounded up to 128: the width of a score row in workspace / UB
  int64_t dv_pad = 0;                // Dv rounded up to 16
  bool decode = false;               // query S = 1: rows are the G query heads of one KV head
  std::vector<FiaUnit> units;
  // Flash-decoding: splits of batch b (min(kv_splits, its score blocks)) and the byte offset of each
  // (b, KV head) group's partials in GM "fd_workspace" (-1: one split, no partials). A group's partials are
  // splits x [O (G_pad x dv_pad fp32), m (G_pad fp32), l (G_pad fp32)].
  std::vector<int64_t> fd_splits, fd_off;
  uint64_t fd_bytes = 0;
  int64_t g_pad() const { return (p.G + 15) / 16 * 16; }
  uint64_t fd_split_bytes() const { return uint64_t(g_pad() * (dv_pad + 2) * 4); }
  bool has_splits() const { return fd_bytes > 0; }
  std::vector<int64_t> core_first;   // units [core_first[k], core_first[k+1]) run on core k (block_dim + 1 entries)
  // Workspace (one GM allocation "workspace"): per core, S slots, P slots, O slots.
  uint64_t ws_s_bytes = 0, ws_p_bytes = 0, ws_o_bytes = 0, ws_core_bytes = 0;

  int64_t s_slots() const { return t.preload + 1; }
  int64_t blk_cols(int64_t b, int64_t k) const;   // columns of score block k of batch b
  static int64_t cw_of(int64_t c) { return (c + 127) / 128 * 128; }
  uint64_t ws_s(int core, int64_t slot) const { return core * ws_core_bytes + slot * ws_s_bytes; }
  uint64_t ws_p(int core, int64_t slot) const { return core * ws_core_bytes + s_slots() * ws_s_bytes + slot * ws_p_bytes; }
  uint64_t ws_o(int core, int64_t slot) const {
    return core * ws_core_bytes + s_slots() * ws_s_bytes + 2 * ws_p_bytes + slot * ws_o_bytes;
  }
};

// The declared tiling keys of fused_infer_attention_score (kernels/fia/README.md "Tiling").
const TilingSpace& fia_tiling_space();

// Tiling + units + core split; `t` applies the case's overrides. Throws CaseError naming the tiling key when a
// value cannot fit its buffer.
FiaPlan make_fia_plan(const attn::AttnProblem& p, const sim::HwConfig& hw, Tiling& t);
// Local-buffer bytes the kernel allocates with this tiling (checked against the config by make_fia_plan).
uint64_t fia_l1_bytes(const attn::AttnProblem& p, const FiaTiling& t);
uint64_t fia_ub_bytes(const attn::AttnProblem& p, const FiaTiling& t);

// ---- addressing shared by the cube and vector programs ----
// A run of rows of one GM tensor with a fixed row stride (elements of the tensor's dtype).
struct RowRun {
  std::string gm;          // GM allocation name
  uint64_t elem = 0;       // element offset of the first row's d = 0
  int64_t rows = 0, stride = 0;
  int64_t dst_row = 0;     // row index inside the block being gathered
};
// Element offset of (b, n, physical row) in query / the output.
uint64_t q_elem(const FiaPlan& pl, int64_t b, int64_t n, int64_t row);
uint64_t out_elem(const FiaPlan& pl, int64_t b, int64_t n, int64_t row);
int64_t q_row_stride(const FiaPlan& pl);
int64_t out_row_stride(const FiaPlan& pl);
// Name of the key / value GM tensor holding batch b's own rows (tensor lists: one tensor per batch).
std::string kv_gm(const FiaPlan& pl, bool value, int64_t b);

// The cube and vector programs (one AI core's share: units [core_first[k], core_first[k+1])).
void fia_cube(npusim::sim::CoreCtx& c, const FiaPlan& pl);
void fia_cube_entry(npusim::sim::CoreCtx& c, const FiaPlan& pl);  // + the flash-decoding SyncAll
void fia_vector(npusim::sim::CoreCtx& c, const FiaPlan& pl);

}  // namespace npusim::op::fia
