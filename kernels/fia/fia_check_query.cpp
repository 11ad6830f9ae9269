// FIA parameter checks, stage 1: the query and the head counts (spec §1.1, §1.2, §1.8 "Limits", Decisions).
#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

using attn::Layout;

namespace {
constexpr int64_t kMaxBatch = 65536, kMaxHeads = 256, kMaxGroup = 64, kMaxHeadDim = 512;
constexpr int64_t kHeadDimAlign = 16;  // fp16 / bf16 with query S > 1 (spec Decisions)

Layout parse_layout(const std::string& s) {
  if (s == "BSH") return Layout::BSH;
  if (s == "BSND") return Layout::BSND;
  if (s == "BNSD") return Layout::BNSD;
  if (s == "BNSD_BSND") return Layout::BNSD_BSND;
  fail("attrs.input_layout = '" + s + "' is not supported by FIA V2 here (valid: BSH, BSND, BNSD, BNSD_BSND; " +
       "TND, NTD, SH and the other vendor layouts are not)");
}

void check_query_dtype(const TensorEntry& q) {
  if (q.dtype == ElemType::F16 || q.dtype == ElemType::BF16 || q.dtype == ElemType::I8) return;
  fail("inputs.query dtype " + elem_type_name(q.dtype) +
       " is not allowed (float16, bfloat16, or int8 for full quantisation)");
}

// B, Sq, N (checked against num_heads) and D from the query's shape in its layout.
void read_query_dims(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const auto& s = x.q_shape;
  const std::string lay = attn::layout_name(p.layout);
  const size_t rank = p.layout == Layout::BSH ? 3 : 4;
  const char* form = rank == 3 ? " (B, S, H)" : p.layout == Layout::BSND ? " (B, S, N, D)" : " (B, N, S, D)";
  if (s.size() != rank)
    fail("inputs.query has shape " + dims(s) + " (rank " + str(static_cast<int64_t>(s.size())) + ") but input_layout " +
         lay + " needs rank " + str(static_cast<int64_t>(rank)) + form);
  p.B = s[0];
  if (p.layout == Layout::BSH) {
    p.Sq = s[1];
    if (s[2] % p.N != 0)
      fail("inputs.query H = " + str(s[2]) + " is not a multiple of attrs.num_heads = " + str(p.N) +
           " (BSH: D = H / num_heads)");
    p.D = s[2] / p.N;
    return;
  }
  const bool bsnd = p.layout == Layout::BSND;
  p.Sq = bsnd ? s[1] : s[2];
  const int64_t qn = bsnd ? s[2] : s[1];
  p.D = s[3];
  if (qn != p.N)
    fail("attrs.num_heads = " + str(p.N) + " must equal the query's N dimension " + str(qn) + " (input_layout " + lay +
         ", query shape " + dims(s) + ")");
}

void check_sizes(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  if (p.B > kMaxBatch)
    fail("inputs.query batch B = " + str(p.B) + " exceeds " + str(kMaxBatch) + " (spec §1.8 limits)");
  if (x.query_empty) return;  // an empty query returns before any size rule (spec §1.8)
  if (p.Sq == 1) {            // incremental branch: any D in [1, 512] (spec Decisions)
    if (p.D < 1 || p.D > kMaxHeadDim)
      fail("inputs.query: head dim D = " + str(p.D) + " must be in [1, " + str(kMaxHeadDim) +
           "] (query S = 1; query shape " + dims(x.q_shape) + ")");
    return;
  }
  if (p.D < 1 || p.D > kMaxHeadDim || p.D % kHeadDimAlign != 0)
    fail("inputs.query: head dim D = " + str(p.D) + " must be a multiple of " + str(kHeadDimAlign) + " in [" +
         str(kHeadDimAlign) + ", " + str(kMaxHeadDim) + "] (float16 / bfloat16 with query S > 1; query shape " +
         dims(x.q_shape) + ")");
}

void check_heads(Ctx& x) {
  attn::AttnProblem& p = x.p;
  const int64_t kvn = attr_int(x.c, "num_key_value_heads");
  if (kvn < 0) fail("attrs.num_key_value_heads = " + str(kvn) + " must be >= 0 (0 means num_heads)");
  p.KV_N = kvn == 0 ? p.N : kvn;
  if (p.N % p.KV_N != 0)
    fail("attrs.num_key_value_heads = " + str(p.KV_N) + " must divide attrs.num_heads = " + str(p.N) +
         " (each KV head serves G = N / KV_N query heads)");
  p.G = p.N / p.KV_N;
  if (p.G > kMaxGroup)
    fail("attrs.num_heads / attrs.num_key_value_heads = " + str(p.N) + " / " + str(p.KV_N) + " = G = " + str(p.G) +
         " exceeds " + str(kMaxGroup) + " (spec §1.2)");
}
}  // namespace

void check_query(Ctx& x) {
  const TensorEntry& q = single(x.c, "query");
  check_query_dtype(q);
  x.p.in = q.dtype;
  x.p.out = q.dtype == ElemType::I8 ? ElemType::F16 : q.dtype;  // full quantisation: fp16 out (int8 with quant_scale2)
  x.p.layout = parse_layout(attr_string(x.c, "input_layout"));
  x.p.out_layout = x.p.layout == Layout::BNSD_BSND ? Layout::BSND : x.p.layout;
  x.q_shape = shape_of(q);
  x.query_empty = numel(x.q_shape) == 0;
  x.p.N = attr_int(x.c, "num_heads");
  if (x.p.N < 1 || x.p.N > kMaxHeads)
    fail("attrs.num_heads = " + str(x.p.N) + " must be in [1, " + str(kMaxHeads) + "] (spec §1.8 limits)");
  read_query_dims(x);
  if (x.p.Sq == 1 && x.p.layout == Layout::BNSD_BSND)
    fail(
        "attrs.input_layout = 'BNSD_BSND' is not supported with query S = 1 (the incremental branch takes BSH, BSND or "
        "BNSD; spec §1.2; query shape " +
        dims(x.q_shape) + ")");
  check_sizes(x);
  check_heads(x);
  x.p.Dv = x.p.D;  // K and V shapes are identical (spec §1.1), so V's head dim is D
}

}  // namespace npusim::op::fia
