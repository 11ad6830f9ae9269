// The Fast path gives the Reference path's bits: F16C conversions against the numeric.h functions, the
// array kernels against the scalar definitions, and whole random instructions on adversarial data.
#include "isa/semantics/vector/vec_math.h"
#include "tests/isa/vec_fuzz_util.h"

namespace npusim::isa::vtest {
namespace {

TEST(VecKernels, F16CRoundingEqualsF16RoundOnPayloadsSubnormalsOverflowAndTies) {
  // Every sign / exponent / top-7-mantissa-bit combination, with low halves that put the dropped bits
  // below, at and above every tie position down to bit 13 (fp16 normals) and beyond (subnormals).
  static const uint16_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000,
                                  0x3000, 0x4000, 0x5000, 0x7fff, 0x8000, 0x9000, 0xffff};
  std::vector<float> in;
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    for (uint16_t lo : lows) in.push_back(f32_from_bits(hi << 16 | lo));
  std::mt19937 rng(7);
  for (int i = 0; i < (1 << 20); ++i) in.push_back(f32_from_bits(rng()));
  std::vector<uint16_t> out(in.size());
  vec::round_f16_n(in.data(), out.data(), in.size());
  size_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != f16_round(in[i]) && bad++ < 5)
      ADD_FAILURE() << std::hex << f32_bits(in[i]) << ": F16C " << out[i] << " vs f16_round " << f16_round(in[i]);
  EXPECT_EQ(bad, 0u);
}

TEST(VecKernels, F16WideningEqualsF16ToF32ForAllInputs) {
  std::vector<uint16_t> h(0x10000);
  for (uint32_t i = 0; i < 0x10000; ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> f(h.size());
  vec::widen_f16_n(h.data(), f.data(), h.size());
  for (uint32_t i = 0; i < 0x10000; ++i) ASSERT_EQ(f32_bits(f[i]), f32_bits(f16_to_f32(h[i]))) << std::hex << i;
}

class VecKernelPairs : public VecFuzz {};

TEST_F(VecKernelPairs, BinaryAndUnaryKernelsEqualScalarDefinitions) {
  constexpr size_t n = 4096;
  std::vector<float> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) a[i] = f32_from_bits(adv32()), b[i] = f32_from_bits(adv32());
  for (int op = 0; op <= int(VBinOp::Min); ++op) {
    vec::binary_f32_n(VBinOp(op), a.data(), b.data(), out.data(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(f32_bits(out[i]), f32_bits(vec::binary_f32(VBinOp(op), a[i], b[i])))
          << op << std::hex << " " << f32_bits(a[i]) << " " << f32_bits(b[i]);
  }
  for (int op = 0; op <= int(VUnaryOp::Relu); ++op) {
    vec::unary_f32_n(VUnaryOp(op), a.data(), out.data(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(f32_bits(out[i]), f32_bits(vec::unary_f32(VUnaryOp(op), a[i])))
          << op << std::hex << " " << f32_bits(a[i]);
  }
}

TEST_F(VecKernelPairs, IntegerKernelsWrapLikeTheScalarDefinition) {
  constexpr size_t n = 1024;
  std::vector<int32_t> a(n), b(n), out(n);
  std::vector<int16_t> a16(n), b16(n), out16(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = int32_t(adv32()), b[i] = int32_t(adv32());
    a16[i] = int16_t(adv16()), b16[i] = int16_t(adv16());
  }
  for (VBinOp op : {VBinOp::Add, VBinOp::Sub, VBinOp::Mul, VBinOp::Max, VBinOp::Min}) {
    vec::binary_int_n(op, 32, a.data(), b.data(), out.data(), n);
    vec::binary_int_n(op, 16, a16.data(), b16.data(), out16.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(uint32_t(out[i]), vec::wrap_bits(vec::binary_int(op, a[i], b[i]), 32)) << int(op);
      ASSERT_EQ(uint16_t(out16[i]), vec::wrap_bits(vec::binary_int(op, a16[i], b16[i]), 16)) << int(op);
    }
  }
  for (VUnaryOp op : {VUnaryOp::Abs, VUnaryOp::Relu}) {
    vec::unary_int_n(op, 32, a.data(), out.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(uint32_t(out[i]), vec::wrap_bits(vec::unary_int(op, a[i]), 32));
  }
}

// ---- whole instructions ------------------------------------------------------------------------
class VecFastMatchesReference : public VecFuzz {
 protected:
  static constexpr int kRuns = 40;  // random instances per (op, dtype)
  // Random operands in separate regions; sometimes src0 is dst itself (the allowed in-place case).
  template <class V>
  void place(V& v, bool may_alias) {
    v.dst = region(0);
    v.dst_s = stride();
    if constexpr (requires { v.src0; }) {
      v.src0 = region(1), v.src1 = region(2);
      v.src0_s = stride(), v.src1_s = stride();
      if (may_alias && pick(6) == 0) v.src0 = v.dst, v.src0_s = v.dst_s;
      if (may_alias && pick(12) == 0) v.src1 = v.dst, v.src1_s = v.dst_s;
    } else {
      v.src = region(1);
      v.src_s = stride();
      if (may_alias && pick(6) == 0) v.src = v.dst, v.src_s = v.dst_s;
    }
    v.repeat = repeat();
    v.mask = mask();
    if (pick(3) == 0) make_contiguous(v);
  }
  // Every operand a plain array (blk 1, repeat stride = one repeat of its lanes): the Fast path's
  // whole-array route when the mask is full or in counter mode.
  template <class V>
  void make_contiguous(V& v) {
    int dsize = 0, ssize = 0;
    if constexpr (requires { v.src_dtype; }) dsize = bytes_of(v.dst_dtype), ssize = bytes_of(v.src_dtype);
    else dsize = ssize = bytes_of(v.dtype);
    const int lanes = 256 / std::max(dsize, ssize);
    const auto rep = [&](int size) { return VStride{1, static_cast<uint16_t>(lanes * size / 32)}; };
    v.dst_s = rep(dsize);
    if constexpr (requires { v.src0; }) v.src0_s = v.src1_s = rep(ssize);
    else v.src_s = rep(ssize);
    if (v.mask.counter == false && pick(2)) v.mask = {};
  }
  double scalar_for(DType t) {
    if (t == DType::I16) return double(int16_t(adv16()));
    if (t == DType::I32) return double(int32_t(adv32()));
    return t == DType::F16 ? double(f16_to_f32(adv16())) : double(f32_from_bits(adv32()));
  }
};

TEST_F(VecFastMatchesReference, Binary) {
  for (DType t : {DType::F16, DType::F32, DType::I16, DType::I32}) {
    fill_adversarial(bytes_of(t));
    for (int op = 0; op <= int(VBinOp::Min); ++op) {
      if (op == int(VBinOp::Div) && !is_float(t)) continue;
      for (int i = 0; i < kRuns; ++i) {
        VBinary v;
        v.op = VBinOp(op), v.dtype = t;
        place(v, true);
        run(v);
      }
    }
  }
}

TEST_F(VecFastMatchesReference, ScalarAndUnary) {
  for (DType t : {DType::F16, DType::F32, DType::I16, DType::I32}) {
    fill_adversarial(bytes_of(t));
    for (int op = 0; op <= int(VScalarOp::Mins); ++op)
      for (int i = 0; i < kRuns; ++i) {
        VScalar v;
        v.op = VScalarOp(op), v.dtype = t, v.scalar = scalar_for(t);
        place(v, true);
        run(v);
      }
    for (int op = 0; op <= int(VUnaryOp::Relu); ++op) {
      if (!is_float(t) && op != int(VUnaryOp::Abs) && op != int(VUnaryOp::Relu)) continue;
      for (int i = 0; i < kRuns; ++i) {
        VUnary v;
        v.op = VUnaryOp(op), v.dtype = t;
        place(v, true);
        run(v);
      }
    }
  }
}

TEST_F(VecFastMatchesReference, Reductions) {
  for (DType t : {DType::F16, DType::F32}) {
    fill_adversarial(bytes_of(t));
    for (int op = 0; op <= int(VRedOp::Sum); ++op)
      for (int i = 0; i < kRuns; ++i) {
        VReduce w;
        w.op = VRedOp(op), w.dtype = t, w.src = region(1), w.src_s = stride(), w.repeat = repeat(), w.mask = mask();
        w.dst = pick(5) ? region(0) : w.src;
        w.dst_rep = static_cast<uint16_t>(pick(3));
        run(w);
        VBlockReduce b;
        b.op = VRedOp(op), b.dtype = t, b.src = region(1), b.src_s = stride(), b.repeat = repeat(), b.mask = mask();
        b.dst = pick(5) ? region(0) : b.src;
        b.dst_rep = static_cast<uint16_t>(pick(3));
        run(b);
      }
    for (int i = 0; i < kRuns; ++i) {
      VPairAdd p;
      p.dtype = t, p.src = region(1), p.src_s = stride(), p.repeat = repeat(), p.mask = mask();
      p.dst = pick(5) ? region(0) : p.src;
      p.dst_rep = static_cast<uint16_t>(pick(9));
      run(p);
    }
  }
}

TEST_F(VecFastMatchesReference, CastsEveryPairModeAndSaturation) {
  const std::pair<DType, DType> pairs[] = {
      {DType::F32, DType::F16},  {DType::F32, DType::BF16}, {DType::F16, DType::F32},
      {DType::BF16, DType::F32}, {DType::F16, DType::I8},   {DType::F32, DType::I32},
      {DType::F16, DType::I32},  {DType::I32, DType::F32},  {DType::I32, DType::F16}};
  for (const auto& [from, to] : pairs) {
    fill_adversarial(bytes_of(from) == 1 ? 2 : bytes_of(from));
    for (int m = 0; m <= int(RoundMode::ODD); ++m) {
      const bool odd_ok = from == DType::F32 && to == DType::F16;
      if (m == int(RoundMode::ODD) && !odd_ok && !(to == DType::F32 && bytes_of(from) == 2)) continue;
      for (int i = 0; i < kRuns / 2; ++i) {
        VCast v;
        v.src_dtype = from, v.dst_dtype = to, v.round = RoundMode(m), v.sat = pick(2);
        place(v, bytes_of(from) == bytes_of(to));
        run(v);
      }
    }
  }
}

TEST_F(VecFastMatchesReference, CompareSelectAndMoves) {
  for (DType t : {DType::F16, DType::F32, DType::BF16, DType::I16, DType::I32}) {
    fill_adversarial(bytes_of(t));
    for (int i = 0; i < kRuns * 2; ++i) {
      if (t == DType::F16 || t == DType::F32) {
        VCmp c;
        c.op = CmpOp(pick(6)), c.dtype = t, c.dst = region(3), c.src0 = region(1), c.src1 = region(2);
        c.src0_s = stride(), c.src1_s = stride(), c.repeat = repeat(), c.mask = mask();
        run(c);
      }
      VSel s;
      s.dtype = t, s.sel = region(3), s.scalar_mode = pick(3) == 0,
      s.scalar = scalar_for(t == DType::BF16 ? DType::F32 : t);
      place(s, true);
      run(s);
      VCopy c;
      c.dtype = t;
      place(c, true);
      run(c);
      VDup d;
      d.dtype = t, d.value = scalar_for(t == DType::BF16 ? DType::F32 : t), d.dst = region(0), d.dst_s = stride();
      d.repeat = repeat(), d.mask = mask();
      run(d);
      VBrcb b;
      b.dtype = t, b.dst = region(0), b.dst_s = stride(), b.repeat = repeat();
      b.src = pick(5) ? region(1) : b.dst;
      run(b);
    }
  }
}

}  // namespace
}  // namespace npusim::isa::vtest
