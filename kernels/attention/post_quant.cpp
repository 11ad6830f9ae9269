// Post-quantisation of the attention output (attn_problem.h PostQuant): the final fp32 rows -> int8, with the
// roundings of the vendor kernel of each branch (kernels/fia/README.md "Post-quantisation"):
//   prompt, and decode per-tensor (AscendQuant, in half): h = f16(O); h = f16(h * s); h = f16(h + o);
//     out = s8(h), RINT throughout; per-channel s, o are the fp32 (or bf16) parameters cast to f16, ties away
//     in the fp16 high-performance compute type and RINT otherwise; without an offset 0 is added;
//   decode per-channel (IFA PostQuant, in fp32): t = O * s; t = t + o (with an offset); out = s8a(f16a(t)),
//     both casts ties away from zero.
#include "kernels/attention/vec_blocks.h"
#include "kernels/attention/vec_events.h"

namespace npusim::op::attn {

using namespace isa;
using namespace vec_events;
using tile::UbRows;

// Per-channel scale (and offset) rows of output rows [row, row + rows): the prompt's one head u.n (row 0,
// rows 1), the decode's heads u.n + row ... (a row per query head). fp32 lands in q32; bf16 lands in q16 and
// is widened into q32; the prompt then casts its row to f16 into q16. kQuantFree is set once the rows are
// used (cast_store: decode; finish_rows: prompt).
bool VecBlocks::load_quant_params(const WorkUnit& u, int64_t row, int64_t rows) {
  const PostQuant& q = p_.post_quant;
  const DType t = q.dtype == ElemType::BF16 ? DType::BF16 : DType::F32;
  const int64_t n = rows * pl_.dv_pad, params = q.offset ? 2 : 1;
  tile::wait(c_, kQuantFree);
  for (int i = 0; i < params; ++i) {
    const std::string& gm = i ? pl_.gm.quant_offset2 : pl_.gm.quant_scale2;
    c_.issue(tile::copy_bytes(ub(t == DType::F32 ? L_.q32[i] : L_.q16[i]),
                              c_.gm(gm, uint64_t((u.n + row) * p_.Dv * bytes_of(t))), n * bytes_of(t)));
  }
  tile::handover(c_, kQuantLoaded);
  for (int i = 0; i < params; ++i)
    if (t == DType::BF16) ops_.cast(DType::F32, DType::BF16, ub(L_.q32[i]), ub(L_.q16[i]), n);
  if (pl_.decode) return false;
  // AscendQuant<half>'s f16 row: ties away in the fp16 compute type (vendor CAST_ROUND); after bf16 parameters it
  // reads the widened rows and overwrites the bf16 rows the widening read.
  const bool barrier = t == DType::BF16;
  if (barrier) ops_.barrier();
  for (int i = 0; i < params; ++i)
    ops_.cast(DType::F16, DType::F32, ub(L_.q16[i]), ub(L_.q32[i]), n,
              p_.high_perf ? RoundMode::ROUND : RoundMode::RINT);
  return barrier;
}

// o (fp32 rows, dv_pad wide; modified) -> int8 rows at dst.
void VecBlocks::quantize(const UbRows& o, Addr dst) {
  const PostQuant& q = p_.post_quant;
  const int64_t n = o.rows * o.width;
  const Addr h = ub(L_.qh);
  ops_.barrier();  // (o as the epilogue left it)
  if (pl_.decode && q.per_channel) {
    ops_.binary(VBinOp::Mul, DType::F32, o.at, o.at, ub(L_.q32[0]), n);
    if (q.offset) ops_.barrier(), ops_.binary(VBinOp::Add, DType::F32, o.at, o.at, ub(L_.q32[1]), n);
    tile::set(c_, kQuantFree);  // (it completes the steps above: the cast needs no barrier)
    ops_.cast(DType::F16, DType::F32, h, o.at, n, RoundMode::ROUND);
    ops_.barrier();
    ops_.cast(DType::I8, DType::F16, dst, h, n, RoundMode::ROUND);
    return;
  }
  ops_.cast(DType::F16, DType::F32, h, o.at, n);
  quantize_half({h, DType::F16, o.rows, o.width}, dst);
}

void VecBlocks::quantize_half(const UbRows& hx, Addr dst) {
  const PostQuant& q = p_.post_quant;
  const int64_t n = hx.rows * hx.width;
  ops_.barrier();  // each step reads what the one before wrote
  if (q.per_channel) {
    ops_.row_vec(hx, ub(L_.q16[0]), VBinOp::Mul, p_.Dv);
    ops_.barrier();
    if (q.offset) ops_.row_vec(hx, ub(L_.q16[1]), VBinOp::Add, p_.Dv);
    else ops_.scalar(VScalarOp::Adds, DType::F16, hx.at, hx.at, 0.0, n);
  } else {
    ops_.scalar(VScalarOp::Muls, DType::F16, hx.at, hx.at, q.scale, n);
    ops_.barrier();
    ops_.scalar(VScalarOp::Adds, DType::F16, hx.at, hx.at, q.offset_value, n);
  }
  ops_.barrier();
  ops_.cast(DType::I8, DType::F16, dst, hx.at, n);
}

// Decode rows of a batch with empty KV: the vendor runs its post-quantisation on an O of zeros, so each row
// reads the quantised offset rather than 0.
void VecBlocks::quantized_empty_rows(const WorkUnit& u, int64_t row, int64_t rows) {
  for (int64_t r0 = 0; r0 < rows; r0 += L_.q_rows) {
    const int64_t r = std::min(L_.q_rows, rows - r0);
    ops_.dup(DType::F32, ub(L_.qz), 0.0, r * pl_.dv_pad);
    cast_store({ub(L_.qz), DType::F32, r, pl_.dv_pad}, u, row + r0);
  }
}

}  // namespace npusim::op::attn
