#pragma once
// The op-neutral attention problem: everything an attention kernel, its golden model and its fp64 reference
// need once an operator's parameters have been validated. FusedInferAttentionScore (both branches) and
// FlashAttentionVarLenScoreV3 each build one from their own parameters; the visibility rule, the GQA mapping,
// the physical addressing of rows (layouts, left padding, prefix, pages, tensor lists) and the special rows
// are defined here once.
//
// Indices: b batch, n query head, n2 = n / G its KV head, i a logical query row (0 .. act_q[b]-1), j a logical
// KV column over [prefix || kv] (0 .. skv_eff(b)-1), d a head-dim index.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op::attn {

// +infinity: a masked score, the max of a row with no visible column, the lse of a row nobody computes.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;  // "INT_MAX" band edges

enum class Layout { BSH, BSND, BNSD, BNSD_BSND, TND };
std::string layout_name(Layout l);

// How K and V are stored.
enum class KvStorage {
  Dense,      // one tensor (B, ...) in the query's layout with KV_N heads and kv_s rows
  List,       // B tensors of batch 1, each in the query's layout with its own S (list_s[b])
  PagedBsH,   // (block_num, block_size, KV_N*D) addressed through block_table
  PagedNBsD,  // (block_num, KV_N, block_size, D) addressed through block_table
};

// Element strides (in elements) of a (b, n, s, d) tensor stored in a layout; d has stride 1.
struct Strides {
  int64_t b = 0, n = 0, s = 0;
};
// BSH / BSND: s-major ((S, N, D) per batch); BNSD: n-major ((N, S, D) per batch). rows = S of the tensor.
Strides layout_strides(Layout l, int64_t heads, int64_t rows, int64_t d);

struct Band {
  int64_t lo = -kUnbounded, hi = kUnbounded;  // visible iff lo <= j - i <= hi (before the mask tensor)
};

enum class MaskKind { None, Full, Compressed };

// Post-quantisation of the output (FIA quant_scale2 / quant_offset2, spec §1.7): attention_out is int8,
// out[c] = sat_i8(round(O[c] * scale[c] + offset[c])) with c = n * Dv + d (per-channel) or 0 (per-tensor).
// The roundings follow the vendor kernel of each branch (kernels/fia/README.md "Post-quantisation").
struct PostQuant {
  bool on = false;
  bool per_channel = false;              // the scale has N * Dv elements (else one)
  bool offset = false;                   // quant_offset2 given (else 0 is added)
  ElemType dtype = ElemType::F32;        // of quant_scale2 / quant_offset2: F32, or BF16 with a BF16 query
  double scale = 1.0, offset_value = 0;  // per-tensor: the values (the kernel takes them as scalars)
};

// Full quantisation (FIA int8 query, key and value; spec §1.7): Q K^T and P V run int8 x int8 -> int32 on the
// cube and leave L0C through the FixPipe's dequantisation to fp16 (S = f16(f32(acc) * deq1), O_blk likewise with
// deq2); V1 quantises the unnormalised P of each S2 block to int8 (AscendQuant in half with qs1); every vector
// step is fp16 (high_perf), the O accumulator included. deq1 / deq2 are the FixPipe's effective values (fp32 with
// the low 13 mantissa bits cleared), qs1 the fp32 quant_scale1.
struct FullQuant {
  bool on = false;
  float deq1 = 1, qs1 = 1, deq2 = 1;
  double given_deq1 = 1, given_deq2 = 1;  // the scales as given (fp32, or a uint64 word's fp32): the fp64 truth's
};

// KV antiquantisation, prompt branch with a float16 query and the combined parameters (FIA antiquant_scale /
// antiquant_offset, spec §1.6; kernels/fia/README.md "KV antiquantisation"): key and value are int8 and each
// element is dequantised to fp16 before attention as the vendor's AscendAntiQuant does,
// x' = f16(f16(f16(x) + offset[c]) * scale[c]), c = n2 * D + d (per-channel) or 0 (per-tensor); the parameters are
// (2, ...) float16 with the key's at [0] and the value's at [1], or, with page attention, the separated
// key_antiquant_scale / value_antiquant_scale (and offsets) of shape (1, ...), per-channel. No offset adds 0.
//
// Query S = 1, and a bfloat16 query with S <= 16 (msd): the vendor's decode kernel (IFA) and its prompt kernel's MSD
// mode (PFA) never dequantise K / V; they split the query (and P) into int8 limbs, multiplies them with the int8 K / V
// on the cube into int32 and recombines in fp32 (MSD; kernels/attention/msd.h and kernels/fia/msd_research.md give the
// order of operations). There the parameters follow the modes of spec §1.6 (k_mode / v_mode: 0 per-channel (per_tensor:
// one value), 1 per-token, 2 per-tensor + per-head, 3 per-token + per-head, 4 / 5 the per-token ones managed by page
// attention); per-channel dtypes are the query's, per-token fp32.
struct AntiQuant {
  bool on = false;
  bool per_tensor = false;     // mode 0 with one scale per K and V (shape (2) combined, (1) separated)
  bool offset = false;         // antiquant_offset (key_ / value_antiquant_offset) given
  bool separated = false;      // key_antiquant_* / value_antiquant_* instead of the combined antiquant_*
  bool msd = false;            // query S = 1: the MSD kernel
  bool int4 = false;           // MSD with int4 K / V (decode only): int4 limbs, 4 of them, 7.49 / 14.98
  int k_mode = 0, v_mode = 0;  // spec §1.6 modes of K's and V's parameters (the prompt path: 0)
  int limbs = 2;               // MSD: int8 limbs of q and of P (decode: 3 with inner_precise 0, else 2; prompt: 2)
  float coef = 127.0f;         // MSD: limb scale (127 / amax; P * coef) -- decode 127, prompt (S <= 16) 127.49
  float expand = 254.0f;       // MSD: residual factor per limb -- decode 254, prompt 254.98
  int64_t token_s = 0;         // S of the per-token parameters of modes 1 and 3 (their last dim)
  ElemType k_dtype = ElemType::F16, v_dtype = ElemType::F16;  // K's / V's parameter dtype
  int mode(bool value) const { return value ? v_mode : k_mode; }
  // Per-token (modes 1, 3, 4, 5): one value per KV token, applied to the scores (K) or to P (V).
  bool per_token(bool value) const { return mode(value) == 1 || mode(value) >= 3; }
  // One value for the whole of K or V of a KV head (per-tensor, mode 2): a scalar for the kernel.
  bool scalar(bool value) const { return !per_token(value) && (per_tensor || mode(value) == 2); }
};

struct AttnProblem {
  // ---- shapes and types ----
  int64_t B = 0, N = 0, KV_N = 0, G = 1;  // G = N / KV_N query heads per KV head
  int64_t Sq = 0;                         // query S dimension (the tensor's, padded)
  int64_t kv_s = 0;                       // dense K/V S dimension (List: max of list_s; paged: unused)
  int64_t D = 0, Dv = 0;                  // head dims of Q/K and of V / the output
  int64_t Dr = 0;                         // head dim of a second Q/K pair (rope), 0 = none
  Layout layout = Layout::BSH;            // of query (and of dense / list K, V)
  Layout out_layout = Layout::BSH;        // BNSD_BSND -> BSND, else = layout
  ElemType in = ElemType::F16;            // query / key / value dtype (F16, BF16; I8 with full_quant)
  ElemType out = ElemType::F16;           // attention_out dtype

  // ---- K / V storage ----
  KvStorage kv = KvStorage::Dense;
  std::vector<int64_t> list_s;            // List: S of each batch's tensor
  int64_t block_size = 0, block_num = 0;  // paged
  int64_t max_blocks = 0;                 // paged: block_table columns (block_table is int32 (B, max_blocks))

  // ---- lengths ----
  std::vector<int64_t> act_q, act_kv;  // per batch; act_kv excludes the prefix. Defaults: Sq, kv S.
  bool left_pad = false;               // query_padding_size / kv_padding_size given
  int64_t q_pad = 0, kv_pad = 0;       // max(padding[0], 0)
  bool prefix = false;                 // key_shared_prefix / value_shared_prefix given
  int64_t prefix_s = 0;                // the prefix tensors' S
  int64_t prefix_len = 0;              // P = actual_shared_prefix_len[0] (default prefix_s)

  // ---- scores ----
  double scale = 1.0;
  bool pse = false;
  int64_t pse_b = 1;                // 1 (shared) or B
  int64_t pse_sq = 0, pse_skv = 0;  // the pse tensor's last two dims
  MaskKind mask = MaskKind::None;
  ElemType mask_dtype = ElemType::Bool;  // Bool, I8 or U8 (one byte, nonzero = masked)
  bool mask_per_batch = false;           // first dim is B (> 1), else shared
  bool mask_global = false;              // TND (T1, T2) mask: row q_start(b) + i, column kv_start(b) + j
  int64_t mask_sq = 0, mask_skv = 0;     // the mask tensor's last two dims (2048 x 2048 when compressed)
  int sparse_mode = 0;
  int64_t pre_tokens = 2147483647, next_tokens = 2147483647;  // as given
  int64_t band_batch = -1;                                    // modes 7 / 8: the batch that takes the mode-4 band

  // ---- precision and outputs ----
  int inner_precise = 0;
  bool high_perf = false;   // fp16 vector math: F16 input, bit0 set, no pse
  bool row_fix = false;     // invalid-row correction: bit1, or forced where rows must be empty
  bool lse = false;         // softmax_lse_flag
  bool max_sum = false;     // FA: softmax_max / softmax_sum (T1, N, 8) instead of lse
  bool cast_round = false;  // P and the output cast with CAST_ROUND (FA) instead of RINT
  PostQuant post_quant;     // int8 attention_out (out = I8)
  FullQuant full_quant;     // int8 Q / K / V (in = I8)
  AntiQuant antiquant;      // int8 K / V dequantised to the query's fp16 (in = F16)

  // ---- derived (attn_problem.cpp) ----
  // Query S = 1 in a padded layout: FIA's incremental (IFA) branch. TND with T1 = 1 stays a prompt problem.
  bool incremental() const { return Sq == 1 && layout != Layout::TND; }
  int64_t kv_n_of(int64_t n) const { return n / G; }
  int64_t qk_dim() const { return D + Dr; }  // the reduction length of Q K^T
  // The dtype key / value are stored in.
  ElemType kv_in() const { return antiquant.int4 ? ElemType::I4 : antiquant.on ? ElemType::I8 : in; }
  // Antiquant parameter element of K (value = false) or V for KV head n2, dim d: in the combined tensor the V part
  // follows the K part; the separated tensors hold one part each.
  int64_t antiquant_index(bool value, int64_t n2, int64_t d) const { return antiquant_index(value, 0, n2, 0, 0, d); }
  // ... of any mode: token t is the physical row of batch b's own K / V, blk its page (paged storage).
  int64_t antiquant_index(bool value, int64_t b, int64_t n2, int64_t t, int64_t blk, int64_t d) const;
  // The GM / case tensor that holds K's (value = false) or V's antiquant scale or offset.
  std::string antiquant_tensor(bool value, bool offset) const {
    const std::string what = offset ? "antiquant_offset" : "antiquant_scale";
    return antiquant.separated ? (value ? "value_" : "key_") + what : what;
  }
  int64_t skv_eff(int64_t b) const { return prefix_len + act_kv[b]; }
  // The batch and token at which a per-token (B, S) antiquant parameter (modes 1, 3) holds KV column j of batch b:
  // the batch's own row r at its token prefix_len + r (= kv_start(b) + j: a prefix excludes left padding), a shared
  // prefix's row j at batch 0's token j. The vendor's IFA runs the prefix as batch 0 and offsets the batch's own
  // parameters by the prefix length (hicann/ops-transformer c29bc10, incre_flash_attention_split_Bbn2s2_Us2.h
  // 1498-1572; its tiling: "total kv S Size (with shared prefix) bigger than antiquant perToken size").
  std::pair<int64_t, int64_t> token_param_at(int64_t b, int64_t j) const {
    return j < prefix_len ? std::pair<int64_t, int64_t>{0, j} : std::pair<int64_t, int64_t>{b, kv_start(b) + j};
  }
  // First physical query row of batch b (left padding: Sq - q_pad - act_q[b]; else 0).
  int64_t q_start(int64_t b) const;
  // First physical KV row of batch b's own K / V (left padding: kv S - kv_pad - act_kv[b]; else 0).
  int64_t kv_start(int64_t b) const;
  // The band of batch b after the sparse-mode conversion (spec §1.4): mode 0 (pre, next), forced unbounded
  // without a mask or with left padding; mode 1 unbounded; mode 2 (inf, 0); mode 3 (inf, delta);
  // mode 4 (pre - delta, next + delta), delta = skv_eff(b) - act_q[b]; mode 7: mode 4 for band_batch, mode 3
  // for the others; mode 8: mode 4 for band_batch, mode 2 for the others. visible iff -pre' <= j - i <= next'.
  // Query S = 1: unbounded (sparse_mode / pre / next are ignored).
  Band band(int64_t b) const;
  // Visible columns of row i of batch b before the mask tensor: [lo, hi) (empty when lo >= hi).
  std::pair<int64_t, int64_t> visible_cols(int64_t b, int64_t i) const;
  // Masked-score value: -1e12 at query S = 1 (IFA), -65504 for fp16 high-performance, else -FLT_MAX (spec §1.3).
  float mask_value() const;
  // Physical mask / pse coordinates of logical (i, j) (left padding shifts both; spec §1.8).
  int64_t mask_row(int64_t b, int64_t i) const { return left_pad || mask_global ? q_start(b) + i : i; }
  int64_t mask_col(int64_t b, int64_t j) const { return left_pad || mask_global ? kv_start(b) + j : j; }
  // First element of the mask plane batch b reads (planes of mask_sq x mask_skv bytes).
  int64_t mask_plane(int64_t b) const { return (mask_per_batch ? b : 0) * mask_sq * mask_skv; }
  bool uses_mask_tensor() const { return mask == MaskKind::Full && (sparse_mode == 0 || sparse_mode == 1); }
};

}  // namespace npusim::op::attn
