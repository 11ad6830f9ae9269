#pragma once
// Bit-for-bit comparison of an output with an expected tensor (a board dump, a torch_npu result, an earlier
// run): exact-match count, the first and the worst mismatch (index, both values, both bit patterns, distance in
// ULP of the output dtype), a ULP-distance histogram, and mismatch counts per leading-index group and per row,
// so a layout or tiling bug shows its shape (a swapped head is two groups, a wrong row one row).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/host_tensor.h"

namespace npusim::op {

struct BitMismatch {
  std::vector<int64_t> index;
  double got = 0, expect = 0;
  uint64_t got_bits = 0, expect_bits = 0;
  int64_t ulp = -1;  // distance in representable values of the dtype; -1 when a NaN is involved
};

struct IndexCount {
  std::vector<int64_t> key;  // leading indices
  int64_t count = 0;
};

// What `check --expect` / `diff` accept besides exact bits: a mismatching element passes when it is within `ulp`
// representable values (integers: units) or within `atol` in value (either suffices; a NaN only matches a NaN).
// Negative = not given.
struct BitTolerance {
  int64_t ulp = -1;
  double atol = -1;
  bool any() const { return ulp >= 0 || atol >= 0; }
  std::string text() const;  // "--ulp 2, --atol 0.001"
};

// How to break mismatches down: the output viewed with `shape` (same element count, e.g. BSH (B, S, H) as
// (B, S, N, D)) and grouped by the indices of `axes` of that view, named `label` ("(b, n)"). Rows are then every
// view index but the last.
struct GroupView {
  std::vector<int64_t> shape;
  std::vector<size_t> axes;
  std::string label;
};

struct BitCompare {
  std::string output;
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape;
  std::string shape_error;  // non-empty: the shapes differ, nothing else was compared
  int64_t elements = 0, exact = 0;
  bool has_mismatch = false;
  BitMismatch first, worst;  // valid when has_mismatch; worst = largest ULP distance (NaN counts as largest)
  std::vector<std::pair<std::string, int64_t>> ulp_histogram;  // buckets of ULP distance over the mismatches
  int64_t group_rank = 0;          // leading dims forming a group (2 for rank >= 3, else 1; 0 for rank <= 1)
  std::vector<IndexCount> groups;  // the groups with the most mismatches, most first
  int64_t groups_with_mismatch = 0, groups_total = 0;
  std::vector<IndexCount> rows;  // rows (every index but the last) with the most mismatches
  int64_t rows_with_mismatch = 0, rows_total = 0;
  std::string group_label;  // what a group key means: "(b, n)", or empty for the leading indices
  BitTolerance tolerance;   // as given; beyond_tolerance counts the mismatches outside it
  int64_t beyond_tolerance = 0;
  bool match() const {
    return shape_error.empty() && (exact == elements || (tolerance.any() && beyond_tolerance == 0));
  }
};

// `got` and `expect` must have the same element type (convert the expected file first, e.g. with
// convert_for_case); `top` caps the listed groups and rows; `view` (optional, its element count equal to the
// output's) chooses the breakdown.
BitCompare compare_bits(const std::string& output, const HostTensor& got, const HostTensor& expect, size_t top = 8,
                        const BitTolerance& tolerance = {}, const GroupView* view = nullptr);
std::string format_bit_compare(const BitCompare& r);

}  // namespace npusim::op
