#include "isa/instr/footprint.h"
#include "isa/instr/overloaded.h"

#include <algorithm>

#include "isa/numeric/int_math.h"

namespace npusim::isa {

namespace {

class Sink {
 public:
  explicit Sink(std::vector<Access>& out) : out_(out) {}
  void add(Buf b, uint64_t begin, uint64_t len, bool write) {
    if (len == 0) return;
    if (!out_.empty()) {
      Access& last = out_.back();
      if (last.buf == b && last.write == write) {
        if (last.count == 1 && last.end == begin) {  // adjacent: one longer range
          last.end += len;
          return;
        }
        const uint64_t seg = last.end - last.begin, last_begin = last.begin + uint64_t(last.count - 1) * last.stride;
        if (seg == len && last.count == 1 && begin > last.end) {  // a second equal segment past a gap: a pattern
          last.stride = begin - last.begin;
          last.count = 2;
          return;
        }
        if (seg == len && last.count > 1 && begin == last_begin + last.stride && last.count < UINT32_MAX) {
          ++last.count;  // the pattern continues
          return;
        }
      }
    }
    out_.push_back({b, begin, begin + len, write});
  }
  // `count` segments of `len` bytes, `stride` apart: one strided access (or one range when they touch, unless
  // `keep_segments`: a DMA's GM bursts stay separate transfers for the memory model even when contiguous).
  void add_pattern(Buf b, uint64_t begin, uint64_t len, uint64_t count, uint64_t stride, bool write,
                   bool keep_segments = false) {
    if (len == 0 || count == 0) return;
    if (stride == len && !(keep_segments && count > 1)) return add(b, begin, len * count, write);
    const size_t before = out_.size();
    add(b, begin, len, write);
    Access& last = out_.back();
    if (count > 1 && (stride > len || (keep_segments && stride == len)) && out_.size() > before && last.count == 1 &&
        last.end - last.begin == len && count <= UINT32_MAX) {
      last.count = uint32_t(count), last.stride = stride;  // a fresh entry: the whole pattern at once
      return;
    }
    for (uint64_t i = 1; i < count; ++i) add(b, begin + i * stride, len, write);
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
  if (m.counter) return m.lo - div_by(m.lo, uint64_t(lanes)) * uint64_t(lanes) == 0;
  return m.lo == ~0ull && (lanes <= 64 || m.hi == ~0ull);
}

void vec_operand(Sink& s, Addr a, VStride st, const VecMask& m, uint32_t repeats, int lanes, int elem, bool write) {
  const int epb = div_by(kBlockBytes, elem);
  const int blocks = div_by(lanes, epb);
  if (st.rep == 0 && repeats > 1) {  // every repeat addresses the same blocks: the first repeat's enabled lanes
    VecMask first = m;               // cover them (counter mode enables a prefix, normal mode the same lanes)
    if (m.counter) first.lo = std::min<uint64_t>(m.lo, uint64_t(lanes));
    return vec_operand(s, a, st, first, 1, lanes, elem, write);
  }
  if (st.blk == 1 && full_mask(m, lanes)) {  // every block of a repeat, contiguous: one piece per repeat
    s.add_pattern(a.buf, a.off, uint64_t(blocks) * kBlockBytes, repeats, uint64_t{st.rep} * kBlockBytes, write);
    return;
  }
  if (st.blk == 0) {  // every block of a repeat is the same block (a per-row broadcast operand): list it once
    // per repeat with an enabled lane: in counter mode the first ceil(count / lanes) repeats; in normal mode
    // every repeat or none (the mask is the same for each). One strided piece.
    uint64_t n = 0;
    if (m.counter) {
      n = std::min<uint64_t>(repeats, effective_repeats(m, repeats, lanes));
    } else {
      for (int b = 0; b < blocks && n == 0; ++b)
        if (block_enabled(m, 0, b, epb, lanes)) n = repeats;
    }
    s.add_pattern(a.buf, a.off, kBlockBytes, n, uint64_t{st.rep} * kBlockBytes, write);
    return;
  }
  for (uint32_t r = 0; r < repeats; ++r)
    for (int b = 0; b < blocks; ++b)
      if (block_enabled(m, r, b, epb, lanes))
        s.add(a.buf, a.off + (uint64_t{r} * st.rep + uint64_t(b) * st.blk) * kBlockBytes, kBlockBytes, write);
}

struct VecShape {
  uint32_t repeats;
  int lanes;
};
VecShape shape(const VecMask& m, uint8_t repeat, DType t) {
  const int lanes = lanes_per_repeat(std::max(1, bytes_of(t)));
  return {effective_repeats(m, repeat, lanes), lanes};
}

// Bursts: the GM side advances by burst + gap bytes, a local side by whole blocks + gap blocks (instr.h).
void data_copy(Sink& s, const DataCopy& d) {
  const uint64_t local_blocks = ceil_div(d.burst_bytes, kBlockBytes);
  auto stride = [&](Buf b, uint32_t gap) {
    return b == Buf::GM ? uint64_t{d.burst_bytes} + gap : (local_blocks + gap) * kBlockBytes;
  };
  s.add_pattern(d.src.buf, d.src.off, d.burst_bytes, d.nburst, stride(d.src.buf, d.src_gap), false,
                d.src.buf == Buf::GM);
  const uint64_t wlen = (d.pad && d.dst.buf != Buf::GM) ? local_blocks * kBlockBytes : d.burst_bytes;
  s.add_pattern(d.dst.buf, d.dst.off, wlen, d.nburst, stride(d.dst.buf, d.dst_gap), true, d.dst.buf == Buf::GM);
}

void nd2nz(Sink& s, const Nd2Nz& n) {
  const uint64_t es = esize(n.dtype), c0 = kBlockBytes / es, groups = ceil_div(n.d_value, c0);
  for (uint64_t i = 0; i < n.nd_num; ++i)
    s.add_pattern(Buf::GM, n.src.off + i * n.src_nd_matrix_stride * es, n.d_value * es, n.n_value, n.src_d_value * es,
                  false);
  for (uint64_t i = 0; i < n.nd_num; ++i) {
    const uint64_t base = n.dst.off + i * n.dst_nz_matrix_stride * es, group_stride = n.dst_nz_c0_stride * c0 * es;
    if (n.dst_nz_n_stride == 1) {  // a group's rows are consecutive blocks: one piece per group
      s.add_pattern(n.dst.buf, base, n.n_value * kBlockBytes, groups, group_stride, true);
      continue;
    }
    for (uint64_t g = 0; g < groups; ++g)
      s.add_pattern(n.dst.buf, base + g * group_stride, kBlockBytes, n.n_value, n.dst_nz_n_stride * c0 * es, true);
  }
}

void load2d(Sink& s, const Load2d& l) {
  const uint64_t per = load2d_fractals(l);  // fractals in and out per repeat
  s.add_pattern(l.src.buf, l.src.off + uint64_t{l.start_index} * kFractalBytes, per * kFractalBytes, l.repeat,
                uint64_t{l.src_stride} * kFractalBytes, false);
  const uint64_t dst_stride = (1 + uint64_t{l.dst_gap}) * kFractalBytes;
  for (uint64_t k = 0; k < per; ++k)
    s.add_pattern(l.dst.buf, l.dst.off + k * (1 + uint64_t{l.dst_frac_gap}) * kFractalBytes, kFractalBytes, l.repeat,
                  dst_stride, true);
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
  s.add_pattern(f.src.buf, f.src.off, uint64_t{f.m} * 64, nb, uint64_t{f.src_m_stride} * 64, false);
  if (f.quant == Quant::Vector) s.add(f.quant_addr.buf, f.quant_addr.off, uint64_t{f.n} * 4, false);
  if (f.nz2nd) {
    s.add_pattern(f.dst.buf, f.dst.off, f.n * es, f.m, uint64_t{f.dst_stride} * es, true);
  } else {
    const uint64_t c0 = kBlockBytes / es;
    for (uint64_t g = 0; g < ceil_div(f.n, c0); ++g)
      s.add(f.dst.buf, f.dst.off + g * f.dst_stride * kBlockBytes, f.m * kBlockBytes, true);
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

int lanes_per_repeat(int elem_bytes) { return div_by(kRepeatBlocks * kBlockBytes, elem_bytes); }

std::vector<Access> expand(const std::vector<Access>& in) {
  std::vector<Access> out;
  for (const Access& a : in) a.for_each_segment([&](uint64_t b, uint64_t e) { out.push_back({a.buf, b, e, a.write}); });
  return out;
}

uint32_t effective_repeats(const VecMask& mask, uint32_t repeat, int lanes) {
  return mask.counter ? static_cast<uint32_t>(div_by(mask.lo + uint64_t(lanes) - 1, uint64_t(lanes))) : repeat;
}

void footprint(const Instr& in, const ScalarRegs* regs, std::vector<Access>& out) {
  Sink s(out);
  std::visit(Overloaded{
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
                   if (v.dst_dtype == DType::I4)  // packed: 64 bytes per repeat (isa/README.md "vconv")
                     return s.add_pattern(v.dst.buf, v.dst.off, kRepeatBytes / 4, reps,
                                          uint64_t{v.dst_s.rep} * kBlockBytes, true);
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
                 // dcci moves no data the checkers see (the cache it drops is the machine's, sim/machine/dcache.h).
                 [&](const SMov&) {},
                 [&](const SAlu&) {},
                 [&](const Dcci&) {},
                 [&](const SetFlag&) {},
                 [&](const WaitFlag&) {},
                 [&](const PipeBarrier&) {},
                 [&](const CrossSet&) {},
                 [&](const CrossWait&) {},
                 [&](const SyncAll&) {},
             },
             in);
}

}  // namespace npusim::isa
