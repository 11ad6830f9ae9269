#pragma once
// Vector-unit geometry shared by every V-pipe instruction: which lanes of which repeats run (repeat field and
// mask), where each lane of an operand lives in UB, which bytes an operand touches (its footprint), and the
// bounds and overlap rules checked on those footprints before anything is written.
// The rules themselves are specified in isa/README.md section 4.
#include <cstdint>
#include <functional>
#include <span>

#include "isa/semantics/exec.h"

namespace npusim::isa::vec {

inline constexpr int kMaxLanes = 128;  // 16-bit lanes of one repeat

// Lanes per repeat for an element size in bytes (cast: the larger of its two sizes).
constexpr int lanes_for(int elem_bytes) { return kRepeatBytes / elem_bytes; }

// A set of lanes of one repeat: bit l of w[l / 64] is lane l.
struct LaneSet {
  uint64_t w[2] = {0, 0};
  bool test(int l) const { return (w[l >> 6] >> (l & 63)) & 1; }
  bool none() const { return (w[0] | w[1]) == 0; }
  // The bits of lanes [b*epb, (b+1)*epb) (epb in {8, 16, 32}), lane b*epb in bit 0.
  uint32_t block_bits(int b, int epb) const;
  static LaneSet first_n(int n);  // lanes 0 .. n-1
};

// How many repeats run and which lanes of each are enabled.
class VecGeom {
 public:
  // From an instruction's repeat field and mask. Normal mode: the mask's bits select the lanes of every
  // repeat (hi only when there are 128 lanes). Counter mode: mask.lo elements over ceil(lo / lanes) repeats;
  // the repeat field is ignored. Throws IsaError when the counter needs more than 255 repeats.
  static VecGeom from_mask(const VecMask& m, int repeat, int lanes);
  // Every lane of `repeat` repeats (instructions without a mask, e.g. vbrcb).
  static VecGeom all_lanes(int repeat, int lanes);

  int lanes() const { return lanes_; }
  int repeats() const { return repeats_; }
  LaneSet enabled(int r) const { return r + 1 == repeats_ ? last_ : body_; }
  // Every repeat but the last has all lanes enabled and the last has a prefix of them: the enabled lanes
  // are elements 0 .. elements()-1 in the order r*lanes + l.
  bool dense() const { return dense_; }
  uint64_t elements() const { return elements_; }

 private:
  int lanes_ = 0, repeats_ = 0;
  LaneSet body_, last_;
  bool dense_ = false;
  uint64_t elements_ = 0;
};

// One lane-addressed operand: lane l of repeat r is at
//   addr + r*rep*32 + (l / epb)*blk*32 + (l % epb)*size,   epb = 32 / size.
struct LaneOperand {
  const char* name = "";
  Addr addr;
  VStride s;
  int size = 2;             // element bytes
  uint8_t* base = nullptr;  // host pointer of addr, set by check_operand()

  int epb() const { return kBlockBytes / size; }
  uint64_t block_offset(int r, int b) const {
    return uint64_t(r) * s.rep * kBlockBytes + uint64_t(b) * s.blk * kBlockBytes;
  }
  uint64_t lane_offset(int r, int l) const { return block_offset(r, l / epb()) + uint64_t(l % epb()) * size; }
  // Lane r*lanes + l sits at element r*lanes + l of a plain array starting at addr.
  bool contiguous(int lanes) const { return s.blk == 1 && uint64_t(s.rep) * kBlockBytes == uint64_t(lanes) * size; }
};

// The bytes one operand touches, as offsets in its buffer: either the enabled lanes of a lane operand, or
// `runs` runs of `run_bytes` bytes starting every `stride` bytes (reduction outputs, bit strings, vbrcb source).
class Footprint {
 public:
  static Footprint of_lanes(const LaneOperand& op, const VecGeom& g);
  static Footprint of_runs(const char* name, Addr a, uint64_t runs, uint64_t run_bytes, uint64_t stride);

  const char* name() const { return name_; }
  bool empty() const { return lo_ == hi_; }
  uint64_t lo() const { return lo_; }  // span [lo, hi) in the buffer
  uint64_t hi() const { return hi_; }
  // Calls f(offset, length) for intervals that together cover exactly the touched bytes.
  void for_each_interval(const std::function<void(uint64_t, uint64_t)>& f) const;

 private:
  const char* name_ = "";
  uint64_t lo_ = 0, hi_ = 0;
  const LaneOperand* lanes_ = nullptr;
  const VecGeom* geom_ = nullptr;
  uint64_t start_ = 0, runs_ = 0, run_bytes_ = 0, stride_ = 0;
};

// Checks buffer kind (UB), existence and 32-byte alignment of `a` and that the footprint lies inside the
// buffer; returns the host pointer of `a`. Errors name fp.name().
uint8_t* check_operand(const ExecContext& ctx, Addr a, const Footprint& fp);
// Resolves a lane operand against its footprint (sets op.base).
void check_lane_operand(const ExecContext& ctx, LaneOperand& op, const Footprint& fp);

// True when the two footprints share at least one byte (exact, byte by byte; both in the same buffer).
bool footprints_overlap(const Footprint& a, const Footprint& b);
// Elementwise rule: src may overlap dst only when it is the same operand (address, strides, element size).
void check_elementwise_overlap(const LaneOperand& dst, const Footprint& dst_fp, const LaneOperand& src,
                               const Footprint& src_fp);
// Reduction rule: src may not overlap dst unless both start at the same address (in place).
void check_reduction_overlap(Addr dst, const Footprint& dst_fp, Addr src, const Footprint& src_fp);
// No overlap at all (vcmp's bit mask, vsel's selector).
void check_no_overlap(const Footprint& dst_fp, const Footprint& src_fp);

// The checks of an elementwise instruction: every operand's buffer, alignment and bounds (dst first, then
// the sources in order), then the elementwise overlap rule for each source; sets every operand's base.
void check_elementwise(const ExecContext& ctx, const VecGeom& g, LaneOperand& dst, std::span<LaneOperand> srcs);

}  // namespace npusim::isa::vec
