#pragma once
// Internal to the attention golden model (attention_golden.cpp, attention_golden_msd.cpp): the scalar primitives,
// output writers and the flash-decoding combine both parts use.
#include <cstdint>
#include <limits>
#include <vector>

#include "isa/numeric/numeric.h"
#include "tests/golden/attention_golden.h"

namespace npusim::golden::parts {

using isa::Overflow;
using isa::RoundMode;
using op::ElemType;
using op::HostTensor;
using op::attn::AttnData;
using op::attn::AttnProblem;

inline constexpr int64_t kPadTo = 128;  // score rows are padded to 128 columns (the softmax's column groups)
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// The vector math type: fp32 (high precision) or fp16 (high performance: every result rounded to f16 with
// IEEE overflow, isa/README.md section 4.5), and its lanes per 256-byte repeat.
struct VecMath {
  bool f16 = false;
  int lanes() const { return f16 ? 128 : 64; }
  float r(float x) const { return f16 ? isa::f16_to_f32(isa::f16_round(x)) : x; }
};

// IEEE 754-2019 maximum, the vector unit's max: only +-0 depend on it (+0 wins). NaN cannot occur here.
float vmax(float a, float b);
// Rounding to a storage dtype (saturating), as FixPipe / vconv store it; the raw bits.
uint32_t to_bits(float x, ElemType t, RoundMode m = RoundMode::RINT);
// The final cast's rounding mode of the problem (attention_golden.h).
RoundMode out_round(const AttnProblem& p);
// Output channel (n, dv) of final fp32 value o -> the int8 bits (attention_golden.h "POST-QUANT").
uint32_t post_quant_bits(const AttnProblem& p, const AttnData& d, int64_t n, int64_t dv, float o);
// A row reduction (row_reduce in kernels/tile/vec_ops.h): lane chunks in order, then the vcadd tree.
float lane_row_sum(const std::vector<float>& e, VecMath vm);
// The block order (VecOps::SumOrder::Blocks) of an fp32 row of 2 or 4 lane groups: per 32-byte block the vcgadd
// tree of its 8 elements, the groups' block sums added pairwise lane by lane (g0 + g1; with 4: (g0 + g1) +
// (g2 + g3)), then the vcgadd tree of the 8 results.
float block_row_sum(const std::vector<float>& e);
// The softmax's row sum of p (kernels/attention/softmax_block.cpp): the block order for fp32 rows 128 or 256 wide,
// else the lane order.
float softmax_row_sum(const std::vector<float>& e, VecMath vm);
// The computed rows (logical indices) among physical rows [row0, row_end) of batch b.
std::vector<int64_t> computed_rows(const AttnProblem& p, int64_t b, int64_t row0, int64_t row_end);
// Element idx of t (bytes wide) = the low bytes of v.
void put(HostTensor& t, int64_t idx, int bytes, uint32_t v);

struct Partial {  // one split's result for one row: O / l (fp32, not rounded to the output dtype), m, l
  std::vector<float> o;
  float m = 0, l = 0;
};
// Flash-decoding combine of head n's row 0 of batch b from its splits' partials, written to out / lse.
void combine(const AttnProblem& p, const AttnData& d, int64_t b, int64_t n, const std::vector<Partial>& parts,
             AttnGoldenOut& r);

// MSD (attention_golden_msd.cpp): batch b at query S = 1 over ns splits of nb > 0 blocks; query S > 1.
void msd_batch(const AttnProblem& p, const AttnData& d, int64_t b, int64_t s2_block, int64_t nb, int64_t ns,
               AttnGoldenOut& r);
void msd_prompt(const AttnProblem& p, const AttnData& d, int64_t s1_block, int64_t s2_block, AttnGoldenOut& r);

}  // namespace npusim::golden::parts
