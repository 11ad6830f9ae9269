// FIA parameter checks for query S = 1, the incremental (IFA) branch (spec §1.1, §1.2, §1.8): the parts of the
// lengths and scores stages whose rules differ from the prompt branch. The rest is shared with S > 1, with small
// S = 1 cases inline: BNSD_BSND rejected (fia_check_query.cpp), block_size in [1, 512] (fia_check_kv.cpp),
// actual_seq_lengths not used (act_q = 1, fia_check_lengths.cpp), pse_shift (B or 1, N, 1, >= Skv) and
// high_perf off (fia_check_scores.cpp), antiquant modes 2-5 in range (fia_check_quant.cpp).
#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

using attn::KvStorage;
using attn::MaskKind;

namespace {
constexpr int64_t kIntMax = 2147483647;

// What the last dim of a mask / pse must cover: the widest [prefix || kv] a batch can address.
std::string kv_extent(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  if (p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD)
    return str(x.skv_max()) + " = max_blocks * block_size = " + str(p.max_blocks) + " * " + str(p.block_size);
  return str(x.skv_max()) + " = prefix + key S";
}

// (B, Skv), (B, 1, Skv) or (B, 1, 1, Skv), bool / int8 / uint8, 1 = masked (spec §1.1). The first dim is the
// batch (per-batch rows; with B = 1 that is 1); the last may be padded up. sparse_mode is ignored at S = 1, so
// the compressed 2048 x 2048 mask of modes 2-4 has no meaning here and is only accepted if it happens to be a
// (B, Skv) mask.
void check_decode_mask(Ctx& x) {
  attn::AttnProblem& p = x.p;
  if (!has(x.c, "atten_mask")) {
    p.mask = MaskKind::None;
    return;
  }
  const TensorEntry& t = single(x.c, "atten_mask");
  check_mask_dtype(t);
  p.mask_dtype = t.dtype;
  const auto s = shape_of(t);
  const size_t r = s.size();
  const std::string got = "inputs.atten_mask has shape " + dims(s);
  const std::string want = " (query S = 1: (B, Skv), (B, 1, Skv) or (B, 1, 1, Skv) with B = " + str(p.B) +
                           ", Skv >= " + kv_extent(x) +
                           "; sparse_mode is ignored and the compressed 2048 x 2048 mask does not apply)";
  if (r < 2 || r > 4) fail(got + " but must be 2-D, 3-D or 4-D" + want);
  if (s[0] != p.B) fail(got + " but its first dim must be the batch B" + want);
  for (size_t i = 1; i + 1 < r; ++i)
    if (s[i] != 1) fail(got + " but its middle dims must be 1" + want);
  if (s[r - 1] < x.skv_max()) fail(got + " but its last dim is too small" + want);
  p.mask = MaskKind::Full;
  p.mask_per_batch = p.B > 1;
  p.mask_sq = 1;
  p.mask_skv = s[r - 1];
}
}  // namespace

void check_decode_scores(Ctx& x) {
  // sparse_mode, pre_tokens and next_tokens are ignored at query S = 1 (spec §1.1), whatever they hold (their
  // S > 1 range rules are not applied): the one query row sees every column of [prefix || kv] that the mask
  // leaves. Recorded as mode 0 without a band (attn_problem's band() is unbounded at Sq == 1 anyway).
  x.p.sparse_mode = 0;
  x.p.pre_tokens = x.p.next_tokens = kIntMax;
  check_decode_mask(x);
  check_pse(x);
}

// Left padding at query S = 1 (spec §1.8). The query has one row, which is always row 0: query_padding_size is
// checked for its form (int64 [1]) but its value is not used and it may be absent (q_pad = 0, so q_start = 0);
// it needs no actual_seq_lengths. kv_padding_size right-aligns each batch's KV rows as for S > 1
// ([kv S - kv_pad - act_kv[b], kv S - kv_pad)); query_padding_size alone leaves the KV rows unpadded.
void check_decode_padding(Ctx& x) {
  attn::AttnProblem& p = x.p;
  if (has(x.c, "query_padding_size")) padding_value(x, "query_padding_size", true, "actual_seq_lengths");
  if (!has(x.c, "kv_padding_size")) return;
  p.left_pad = true;
  p.q_pad = 0;
  p.kv_pad = padding_value(x, "kv_padding_size", x.act_kv_given, "actual_seq_lengths_kv");
  // Unlike S > 1 (an error there), a batch whose KV rows would start before row 0 (kv S - kv_pad - act_kv[b]
  // < 0, which includes kv_pad > kv S) is valid: spec §1.8 "Sq = 1: if start or end < 0, output is all zero".
  // Such a batch is computed as an empty KV (act_kv[b] = 0): output 0, softmax_lse -3.4e38 (spec Decisions).
  for (int64_t& a : p.act_kv)
    if (p.kv_s - p.kv_pad - a < 0) a = 0;
}

}  // namespace npusim::op::fia
