#pragma once
// The accuracy policy of design.md: an op output against its fp64 reference.
//  - FlashAttention rule: max|out - ref64| <= 2 * max|naive_lowp - ref64| + 1e-5, where naive_lowp is the
//    textbook formula computed with the working dtype's roundings.
//  - CANN per-element rule: every |out - ref64| <= T * max(1, |ref64|), T = 2^-8 (fp16), 2^-7 (bf16),
//    2^-11 (fp32), doubled when the reduction length is >= 2048.
//  - int8 rule (working dtype int8: a quantised output against its rounded fp64 truth): every |out - ref| <= 1
//    (one quantisation unit); the elements at distance 1 are counted and reported. It replaces the two rules
//    above, which are about floating-point rounding.
// Also reported: MERE, MARE, error balance, max abs / rel error and the worst element's coordinates.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

struct AccuracyReport {
  std::string output;
  int64_t elements = 0;
  int64_t unspecified = 0;  // elements skipped because the operator leaves their value unspecified
  double max_abs_err = 0, max_rel_err = 0, mere = 0, mare = 0, error_balance = 0;
  std::vector<int64_t> worst_index;  // coordinates of the largest |out - ref| / max(1, |ref|)
  double worst_out = 0, worst_ref = 0;
  // FlashAttention rule
  double naive_max_abs_err = 0, fa_bound = 0;
  bool fa_pass = false, fa_gated = true;
  // CANN rule
  double cann_threshold = 0;
  int64_t cann_failures = 0;
  bool cann_pass = false;
  // Tolerance for outputs whose reference rounds differently by construction (full quantisation: P8 against the
  // row max vs the kernel's running max): up to this fraction of the checked elements may exceed the widened
  // T (the int8 rule: unit), none kToleratedCap times the unwidened one. 0: every element must be within T.
  double tolerated_fraction = 0, t_factor = 1;  // t_factor: T (or the int8 unit) is widened by this
  int64_t cap_failures = 0;                     // elements beyond kToleratedCap times the unwidened limit
  // int8 rule (working dtype int8)
  bool int8_rule = false;
  double int8_limit = 1;                           // units (a Tolerance's t_factor)
  int64_t int8_off_by_one = 0, int8_failures = 0;  // elements at distance 1 .. int8_limit / beyond int8_limit
  bool exact_special_pass = true;                  // non-finite values must sit where the reference has them
  // Relative errors only where |ref| >= rel_floor = 1e-3 * max |ref| (kRelFloorFraction): near zero a relative
  // error says nothing (|out - ref| / |ref| blows up as ref -> 0), so those elements report absolute error.
  double max_abs_ref = 0, rel_floor = 0;
  int64_t rel_count = 0, abs_count = 0;  // finite-reference elements above / below the floor
  double rel_max = 0, rel_mean = 0;      // |out - ref| / |ref| above the floor
  double abs_below_max = 0;              // |out - ref| below the floor
  // max |out - ref| over the FlashAttention bound: <= 1 passes the rule.
  double fa_ratio() const { return fa_bound > 0 ? max_abs_err / fa_bound : 0; }
  int64_t tolerated() const { return int64_t(tolerated_fraction * double(elements - unspecified)); }
  bool int8_pass() const { return cap_failures == 0 && int8_failures <= tolerated(); }
  bool pass() const {
    if (int8_rule) return int8_pass() && exact_special_pass;
    return cann_pass && exact_special_pass && (fa_pass || !fa_gated);
  }
};

// `out` is the op output; `ref64` and `naive` have out.numel() elements in C order. `working` is the output's
// working dtype (F16, BF16, F32, or I8 for the int8 rule) and `reduction_len` the length of the longest reduction
// behind an element. `unspecified` is empty or has out.numel() flags; a nonzero flag skips that element (no statistic,
// no rule). For outputs whose reference rounds differently by construction: the per-element limit (T, or 1 unit for the
// int8 rule) times t_factor, exceeded by at most `fraction` of the checked elements and by none beyond
// kToleratedCap times the unwidened limit.
struct Tolerance {
  double fraction = 0, t_factor = 1;
};
AccuracyReport compare_accuracy(const std::string& output_name, const HostTensor& out, const std::vector<double>& ref64,
                                const std::vector<double>& naive, ElemType working, int64_t reduction_len,
                                bool gate_fa_rule = true, const std::vector<uint8_t>& unspecified = {},
                                Tolerance tolerance = {});
inline constexpr double kRelFloorFraction = 1e-3;  // rel_floor = this x max |ref|
inline constexpr double kToleratedCap = 8;         // with a tolerated fraction: no element beyond 8 T
// Human-readable lines: each rule's verdict with what it means, the relative errors above the floor, the
// absolute errors below it, the balance and the worst element.
std::string format_report(const AccuracyReport& r);

}  // namespace npusim::op
