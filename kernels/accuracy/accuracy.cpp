// The accuracy policy of design.md over one op output (see accuracy.h for the rules).
#include "kernels/accuracy/accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <limits>
#include <stdexcept>
#include "kernels/accuracy/indexing.h"

namespace npusim::op {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A non-finite reference must be matched by the same class: NaN by NaN, +-inf by the same-sign inf.
bool same_special(double out, double ref) {
  if (std::isnan(ref)) return std::isnan(out);
  return std::isinf(out) && std::signbit(out) == std::signbit(ref);
}

// |out - ref| with a NaN output counted as infinitely wrong, so it fails every bound instead of slipping
// through comparisons that are false for NaN.
double abs_err(double out, double ref) { return std::isnan(out) ? kInf : std::fabs(out - ref); }

double cann_threshold(ElemType working, int64_t reduction_len) {
  double t = 0;
  switch (working) {
    case ElemType::F16: t = 0x1p-8; break;
    case ElemType::BF16: t = 0x1p-7; break;
    case ElemType::F32: t = 0x1p-11; break;
    default:
      throw std::invalid_argument("accuracy: working dtype must be float16, bfloat16 or float32, not " +
                                  elem_type_name(working));
  }
  return reduction_len >= 2048 ? 2 * t : t;
}

// Running sums over the elements whose reference is finite.
struct Sums {
  int64_t count = 0;
  double mere_sum = 0, eb_sum = 0, rel_sum = 0;
  int64_t worst = -1;
  double worst_score = -1;
  bool worst_is_special = false;
};

void add_numeric(AccuracyReport& r, Sums& s, int64_t i, double out, double ref) {
  const double e = abs_err(out, ref), scale = std::max(1.0, std::fabs(ref)), cann = e / scale;
  if (std::fabs(ref) >= r.rel_floor && ref != 0) {
    ++r.rel_count;
    r.rel_max = std::max(r.rel_max, e / std::fabs(ref));
    s.rel_sum += e / std::fabs(ref);
  } else {
    ++r.abs_count;
    r.abs_below_max = std::max(r.abs_below_max, e);
  }
  ++s.count;
  r.max_abs_err = std::max(r.max_abs_err, e);
  if (ref != 0) r.max_rel_err = std::max(r.max_rel_err, e / std::fabs(ref));
  const double mre = e / (std::fabs(ref) + 1e-7);
  s.mere_sum += mre;
  r.mare = std::max(r.mare, mre);
  s.eb_sum += (out - ref) / scale;
  const double limit = r.int8_rule ? r.int8_limit : r.cann_threshold * scale;
  if (!(e <= limit)) {
    ++(r.int8_rule ? r.int8_failures : r.cann_failures);
    if (!(e <= (r.tolerated_fraction > 0 ? kToleratedCap / r.t_factor : 1) * limit)) ++r.cap_failures;
  } else if (r.int8_rule && e >= 1) {
    ++r.int8_off_by_one;
  }
  if (!s.worst_is_special && cann > s.worst_score) s.worst = i, s.worst_score = cann;
}

}  // namespace

AccuracyReport compare_accuracy(const std::string& output_name, const HostTensor& out, const std::vector<double>& ref64,
                                const std::vector<double>& naive, ElemType working, int64_t reduction_len,
                                bool gate_fa_rule, const std::vector<uint8_t>& unspecified, Tolerance tolerance) {
  AccuracyReport r;
  r.output = output_name;
  r.elements = out.numel();
  if (int64_t(ref64.size()) != r.elements || int64_t(naive.size()) != r.elements)
    throw std::invalid_argument("accuracy: " + output_name + " has " + std::to_string(r.elements) +
                                " elements but the references have " + std::to_string(ref64.size()) + " / " +
                                std::to_string(naive.size()));
  if (!unspecified.empty() && int64_t(unspecified.size()) != r.elements)
    throw std::invalid_argument("accuracy: " + output_name + " has " + std::to_string(r.elements) + " elements but " +
                                std::to_string(unspecified.size()) + " unspecified flags");
  r.int8_rule = working == ElemType::I8;
  r.cann_threshold = r.int8_rule ? 0 : cann_threshold(working, reduction_len) * tolerance.t_factor;
  r.int8_limit = r.int8_rule ? tolerance.t_factor : 1;
  r.fa_gated = gate_fa_rule && !r.int8_rule;
  r.tolerated_fraction = tolerance.fraction, r.t_factor = tolerance.t_factor;
  for (int64_t i = 0; i < r.elements; ++i)
    if ((unspecified.empty() || !unspecified[size_t(i)]) && std::isfinite(ref64[size_t(i)]))
      r.max_abs_ref = std::max(r.max_abs_ref, std::fabs(ref64[size_t(i)]));
  r.rel_floor = kRelFloorFraction * r.max_abs_ref;
  Sums s;
  for (int64_t i = 0; i < r.elements; ++i) {
    if (!unspecified.empty() && unspecified[size_t(i)]) {
      ++r.unspecified;
      continue;
    }
    const double o = out.get(i), ref = ref64[size_t(i)];
    if (std::isfinite(ref)) {
      add_numeric(r, s, i, o, ref);
      r.naive_max_abs_err = std::max(r.naive_max_abs_err, abs_err(naive[size_t(i)], ref));
    } else if (!same_special(o, ref) && r.exact_special_pass) {
      // The first special mismatch is the worst element: it is infinitely wrong and explains the failure.
      r.exact_special_pass = false;
      s.worst = i, s.worst_is_special = true;
    }
  }
  if (s.count > 0) r.mere = s.mere_sum / double(s.count), r.error_balance = std::fabs(s.eb_sum / double(s.count));
  if (r.rel_count > 0) r.rel_mean = s.rel_sum / double(r.rel_count);
  r.fa_bound = 2 * r.naive_max_abs_err + 1e-5;
  r.fa_pass = r.max_abs_err <= r.fa_bound;
  r.cann_pass = !r.int8_rule && r.cap_failures == 0 && r.cann_failures <= r.tolerated();
  if (s.worst >= 0) {
    r.worst_index = unravel(s.worst, out.shape);
    r.worst_out = out.get(s.worst), r.worst_ref = ref64[size_t(s.worst)];
  }
  return r;
}

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

const char* verdict(bool ok) { return ok ? "pass" : "FAIL"; }

std::string tolerance_text(const AccuracyReport& r, const char* unit) {
  if (r.tolerated_fraction <= 0) return "";
  return " (widened " + num(r.t_factor) + "x; tolerated: " + num(100 * r.tolerated_fraction) +
         "% of the elements, none over " + num(kToleratedCap) + " " + unit + " unwidened; " +
         std::to_string(r.cap_failures) + " are)";
}

}  // namespace

std::string format_report(const AccuracyReport& r) {
  std::string s = "output " + r.output + ": " + std::to_string(r.elements) + " elements";
  if (r.unspecified > 0) s += " (" + std::to_string(r.unspecified) + " unspecified by the operator, not checked)";
  s += "\n";
  if (r.int8_rule) {
    const double frac = r.elements > r.unspecified ? double(r.int8_off_by_one) / double(r.elements - r.unspecified) : 0;
    s += "  int8 rule: " + std::string(verdict(r.int8_pass())) + ", " + std::to_string(r.int8_failures) +
         " elements more than " + num(r.int8_limit) + " from the rounded reference" + tolerance_text(r, "units") +
         "; " + std::to_string(r.int8_off_by_one) + " at distance 1" +
         (r.int8_limit > 1 ? " to " + num(r.int8_limit) : "") + " (" + num(100 * frac) + "%)\n";
    s += "             (a quantised output may differ from round(truth) by one unit where the truth is near a rounding "
         "edge)\n";
  } else {
    s += "  FA rule:   " + std::string(verdict(r.fa_pass)) + (r.fa_gated ? "" : " (reported, not gated)") + ", ratio " +
         num(r.fa_ratio()) + ": max err " + num(r.max_abs_err) + " <= 2 * naive " + num(r.naive_max_abs_err) +
         " + 1e-5 = " + num(r.fa_bound) + "\n";
    s += "             (at most twice the error of the textbook formula in the working dtype; ratio <= 1 passes)\n";
    // T is a power of two by construction; ilogb gives its exponent exactly.
    s += "  CANN rule: " + std::string(verdict(r.cann_pass)) + ", " + std::to_string(r.cann_failures) + " of " +
         std::to_string(r.elements) + " elements over T = 2^" + std::to_string(std::ilogb(r.cann_threshold)) +
         tolerance_text(r, "T") + "\n";
    s += "             (every |out - ref| <= T * max(1, |ref|), T from the working dtype and the reduction length)\n";
  }
  s += "  relative:  " + std::to_string(r.rel_count) + " elements with |ref| >= " + num(r.rel_floor) +
       " (1e-3 of max |ref| " + num(r.max_abs_ref) + "): max " + num(r.rel_max) + ", mean " + num(r.rel_mean) + "\n";
  s += "  absolute:  " + std::to_string(r.abs_count) + " elements below that floor: max |out - ref| " +
       num(r.abs_below_max) + " (relative error means nothing near 0)\n";
  s += "  all:       max abs err " + num(r.max_abs_err) + ", max rel err " + num(r.max_rel_err) + ", MERE " +
       num(r.mere) + ", MARE " + num(r.mare) + " (relative over every element, +1e-7), error balance " +
       num(r.error_balance) + " (mean signed error / max(1, |ref|): near 0 = no bias)\n";
  if (!r.exact_special_pass) s += "  special values (inf / NaN) differ from the reference: FAIL\n";
  if (!r.worst_index.empty())  // empty when every reference is non-finite (and matched)
    s += "  worst element " + coords(r.worst_index) + ": out " + num(r.worst_out) + ", ref " + num(r.worst_ref) + "\n";
  return s;
}

}  // namespace npusim::op
