#include "isa/instr/footprint.h"

#include <algorithm>

#include "isa/numeric/int_math.h"

namespace npusim::isa {

namespace {
template <class... F> struct Overloaded : F... { using F::operator()...; };

class Sink {
 public:
  explicit Sink(std::vector<Access>& out) : out_(out) {}
  void add(Buf b, uint64_t begin, uint64_t len, bool write) {
    if (len == 0) return;
    if (!out_.empty()) {
      Access& last = out_.back();
      if (last.buf == b && last.write == write && last.end == begin) { last.end += len; return; }
    }
    out_.push_back({b, begin, begin + len, write});
  }

 private:
  std::vector<Access>& out_;
};

uint64_t esize(DType t) { return static_cast<uint64_t>(std::max(1, bytes_of(t))); }

// Whether any lane of block b (lanes [b*epb, (b+1)*epb)) of repeat r is enabled. A block's lanes never
// straddle the two 64-bit mask words (epb divides 64).
bool block_enabled(const VecMask& m, uint32_t r, int b, int epb, int lanes) {
  const int l0 = b * epb;
  if (m.counter) return static_cast<uint64_t>(r) * lanes + l0 < m.lo;
  const uint64_t word = l0 < 64 ? m.lo : m.hi;
  const uint64_t ones = epb >= 64 ? ~uint64_t{0} : (uint64_t{1} << epb) - 1;
  return ((word >> (l0 & 63)) & ones) != 0;
}

// Blocks of one operand: block b of repeat r is enabled when any of its lanes is.
bool full_mask(const VecMask& m, int lanes) {
  if (m.counter) return m.lo % lanes == 0;
  return m.lo == ~0ull && (lanes <= 64 || m.hi == ~0ull);
}

void vec_operand(Sink& s, Addr a, VStride st, const VecMask& m, uint32_t repeats, int lanes, int elem, bool write) {
  const int epb = kBlockBytes / elem;
  const int blocks = lanes / epb;
  if (st.blk == 1 && full_mask(m, lanes)) {  // every block of a repeat, contiguous: one piece per repeat
    for (uint32_t r = 0; r < repeats; ++r)
      s.add(a.buf, a.off + uint64_t{r} * st.rep * kBlockBytes, uint64_t(blocks) * kBlockBytes, write);
    return;
  }
  for (uint32_t r = 0; r < repeats; ++r)
    for (int b = 0; b < blocks; ++b)
      if (block_enabled(m, r, b, epb, lanes))
        s.add(a.buf, a.off + (uint64_t{r} * st.rep + uint64_t(b) * st.blk) * kBlockBytes, kBlockBytes, write);
}

struct VecShape { uint32_t repeats; int lanes; };
VecShape shape(const VecMask& m, uint8_t repeat, DType t) {
  const int lanes = lanes_per_repeat(std::max(1, bytes_of(t)));
  return {effective_repeats(m, repeat, lanes), lanes};
}

void data_copy(Sink& s, const DataCopy& d) {
  const uint64_t local_stride = (ceil_div(d.burst_bytes, kBlockBytes));
  for (uint64_t i = 0; i < d.nburst; ++i) {
    const uint64_t so = d.src.buf == Buf::GM ? i * (d.burst_bytes + d.src_gap) : i * (local_stride + d.src_gap) * kBlockBytes;
    const uint64_t dof = d.dst.buf == Buf::GM ? i * (d.burst_bytes + d.dst_gap) : i * (local_stride + d.dst_gap) * kBlockBytes;
    s.add(d.src.buf, d.src.off + so, d.burst_bytes, false);
    const uint64_t wlen = (d.pad && d.dst.buf != Buf::GM) ? local_stride * kBlockBytes : d.burst_bytes;
    s.add(d.dst.buf, d.dst.off + dof, wlen, true);
  }
}

void nd2nz(Sink& s, const Nd2Nz& n) {
  const uint64_t es = esize(n.dtype), c0 = kBlockBytes / es, groups = ceil_div(n.d_value, c0);
  for (uint64_t i = 0; i < n.nd_num; ++i)
    for (uint64_t r = 0; r < n.n_value; ++r)
      s.add(Buf::GM, n.src.off + (i * n.src_nd_matrix_stride + r * n.src_d_value) * es, n.d_value * es, false);
  for (uint64_t i = 0; i < n.nd_num; ++i)
    for (uint64_t g = 0; g < groups; ++g)
      for (uint64_t r = 0; r < n.n_value; ++r)
        s.add(n.dst.buf, n.dst.off + (i * n.dst_nz_matrix_stride + g * n.dst_nz_c0_stride * c0 + r * n.dst_nz_n_stride * c0) * es,
              kBlockBytes, true);
}

void load2d(Sink& s, const Load2d& l) {
  for (uint64_t j = 0; j < l.repeat; ++j) s.add(l.src.buf, l.src.off + (l.start_index + j * l.src_stride) * kFractalBytes, kFractalBytes, false);
  for (uint64_t j = 0; j < l.repeat; ++j) s.add(l.dst.buf, l.dst.off + j * (1 + l.dst_gap) * kFractalBytes, kFractalBytes, true);
}

void mmad(Sink& s, const Mmad& m) {
  if (!m.m || !m.n || !m.k) return;
  const uint64_t mb = ceil_div(m.m, 16), nb = ceil_div(m.n, 16), kb = ceil_div(m.k, fractal_k(m.a_dtype));
  s.add(m.a.buf, m.a.off, mb * kb * kFractalBytes, false);
  s.add(m.b.buf, m.b.off, kb * nb * kFractalBytes, false);
  if (m.bias) s.add(m.bias_addr.buf, m.bias_addr.off, nb * 16 * 4, false);
  if (!m.init && !m.bias) s.add(m.c.buf, m.c.off, mb * nb * 1024, false);
  s.add(m.c.buf, m.c.off, mb * nb * 1024, true);
}

void fixpipe(Sink& s, const Fixpipe& f) {
  const uint64_t nb = ceil_div(f.n, 16), es = esize(f.dst_dtype);
  for (uint64_t j = 0; j < nb; ++j) s.add(f.src.buf, f.src.off + j * f.src_m_stride * 64, uint64_t{f.m} * 64, false);
  if (f.quant == Quant::Vector) s.add(f.quant_addr.buf, f.quant_addr.off, uint64_t{f.n} * 4, false);
  if (f.nz2nd) {
    for (uint64_t r = 0; r < f.m; ++r) s.add(f.dst.buf, f.dst.off + r * f.dst_stride * es, f.n * es, true);
  } else {
    const uint64_t c0 = kBlockBytes / es;
    for (uint64_t g = 0; g < ceil_div(f.n, c0); ++g) s.add(f.dst.buf, f.dst.off + g * f.dst_stride * kBlockBytes, f.m * kBlockBytes, true);
  }
}

template <class V>
void unary_like(Sink& s, const V& v, DType t) {
  const auto sh = shape(v.mask, v.repeat, t);
  const int e = std::max(1, bytes_of(t));
  vec_operand(s, v.src, v.src_s, v.mask, sh.repeats, sh.lanes, e, false);
  vec_operand(s, v.dst, v.dst_s, v.mask, sh.repeats, sh.lanes, e, true);
}

void reduce_dst(Sink& s, Addr dst, uint32_t repeats, uint64_t per_repeat_bytes, uint64_t stride_bytes) {
  for (uint64_t r = 0; r < repeats; ++r) s.add(dst.buf, dst.off + r * stride_bytes, per_repeat_bytes, true);
}

void scalar_mem(Sink& s, Addr a, int8_t idx, DType t, const ScalarRegs* regs, bool write) {
  const uint64_t off = a.off + (idx >= 0 && regs && idx < kNumScalarRegs ? static_cast<uint64_t>((*regs)[idx]) : 0);
  s.add(a.buf, off, esize(t), write);
}
}  // namespace

int lanes_per_repeat(int elem_bytes) { return kRepeatBlocks * kBlockBytes / elem_bytes; }

uint32_t effective_repeats(const VecMask& mask, uint32_t repeat, int lanes) {
  return mask.counter ? static_cast<uint32_t>(ceil_div(mask.lo, lanes)) : repeat;
}

void footprint(const Instr& in, const ScalarRegs* regs, std::vector<Access>& out) {
  Sink s(out);
  std::visit(
      Overloaded{
          [&](const DataCopy& d) { data_copy(s, d); },
          [&](const Nd2Nz& n) { nd2nz(s, n); },
          [&](const Load2d& l) { load2d(s, l); },
          [&](const Mmad& m) { mmad(s, m); },
          [&](const Fixpipe& f) { fixpipe(s, f); },
          [&](const VBinary& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src0, v.src0_s, v.mask, sh.repeats, sh.lanes, e, false);
            vec_operand(s, v.src1, v.src1_s, v.mask, sh.repeats, sh.lanes, e, false);
            vec_operand(s, v.dst, v.dst_s, v.mask, sh.repeats, sh.lanes, e, true);
          },
          [&](const VScalar& v) { unary_like(s, v, v.dtype); },
          [&](const VUnary& v) { unary_like(s, v, v.dtype); },
          [&](const VCopy& v) { unary_like(s, v, v.dtype); },
          [&](const VReduce& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src, v.src_s, v.mask, sh.repeats, sh.lanes, e, false);
            reduce_dst(s, v.dst, sh.repeats, e, uint64_t{v.dst_rep} * e);
          },
          [&](const VBlockReduce& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src, v.src_s, v.mask, sh.repeats, sh.lanes, e, false);
            reduce_dst(s, v.dst, sh.repeats, 8 * e, uint64_t{v.dst_rep} * 8 * e);
          },
          [&](const VPairAdd& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src, v.src_s, v.mask, sh.repeats, sh.lanes, e, false);
            reduce_dst(s, v.dst, sh.repeats, uint64_t(sh.lanes / 2) * e, uint64_t{v.dst_rep} * kBlockBytes);
          },
          [&](const VBrcb& v) {
            const int e = std::max(1, bytes_of(v.dtype));
            s.add(v.src.buf, v.src.off, uint64_t{v.repeat} * 8 * e, false);
            VecMask all;
            vec_operand(s, v.dst, v.dst_s, all, v.repeat, lanes_per_repeat(e), e, true);
          },
          [&](const VDup& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            vec_operand(s, v.dst, v.dst_s, v.mask, sh.repeats, sh.lanes, std::max(1, bytes_of(v.dtype)), true);
          },
          [&](const VCast& v) {
            const int se = std::max(1, bytes_of(v.src_dtype)), de = std::max(1, bytes_of(v.dst_dtype));
            const int lanes = lanes_per_repeat(std::max(se, de));
            const uint32_t reps = effective_repeats(v.mask, v.repeat, lanes);
            vec_operand(s, v.src, v.src_s, v.mask, reps, lanes, se, false);
            vec_operand(s, v.dst, v.dst_s, v.mask, reps, lanes, de, true);
          },
          [&](const VCmp& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src0, v.src0_s, v.mask, sh.repeats, sh.lanes, e, false);
            vec_operand(s, v.src1, v.src1_s, v.mask, sh.repeats, sh.lanes, e, false);
            s.add(v.dst.buf, v.dst.off, ceil_div(uint64_t{sh.repeats} * sh.lanes, 8), true);
          },
          [&](const VSel& v) {
            const auto sh = shape(v.mask, v.repeat, v.dtype);
            const int e = std::max(1, bytes_of(v.dtype));
            vec_operand(s, v.src0, v.src0_s, v.mask, sh.repeats, sh.lanes, e, false);
            if (!v.scalar_mode) vec_operand(s, v.src1, v.src1_s, v.mask, sh.repeats, sh.lanes, e, false);
            s.add(v.sel.buf, v.sel.off, ceil_div(uint64_t{sh.repeats} * sh.lanes, 8), false);
            vec_operand(s, v.dst, v.dst_s, v.mask, sh.repeats, sh.lanes, e, true);
          },
          [&](const SLoad& l) { scalar_mem(s, l.addr, l.index_reg, l.dtype, regs, false); },
          [&](const SStore& st) { scalar_mem(s, st.addr, st.index_reg, st.dtype, regs, true); },
          // Register-only and ordering instructions touch no buffer. Listing them (no catch-all) keeps this
          // visitor exhaustive: a new instruction kind without a footprint does not compile.
          [&](const SMov&) {}, [&](const SAlu&) {}, [&](const SetFlag&) {}, [&](const WaitFlag&) {},
          [&](const PipeBarrier&) {}, [&](const CrossSet&) {}, [&](const CrossWait&) {}, [&](const SyncAll&) {}},
      in);
}

}  // namespace npusim::isa
