#pragma once
// Tiling keys, declared once per op. A declaration names the key, its legal values (a range with a step, or
// an explicit set), how the default is chosen and what the key does. Everything else derives from it: the
// validation of `tiling:` overrides and their messages, the report's `tiling` section (in declaration order),
// `npusim ops OP` and the machine-readable space of `npusim ops OP --tiling --json` that sweeps and the tuner
// read. Legal values here are the static space; a value can still be refused for a case (it does not fit a
// buffer), with a message naming the key.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/host/case_file.h"
#include "sim/config/hw_config.h"

namespace npusim::op {

// A tiling key's name as a handle. Kernels declare and read their keys through named constants (op::keys below,
// kernels/attention/tiling_keys.h, kernels/matmul/matmul_plan.h), and Tiling takes no plain string: a misspelt key
// does not compile, and a declaration and its reader cannot drift apart. Whether the op declares the handle it reads
// is checked when it first reads it (std::logic_error: a kernel bug).
struct KeyName {
  std::string_view name;
  // Implicit, so that a TilingKey declaration and its `follows` list take the handle where they hold a string.
  operator std::string() const { return std::string(name); }
};

namespace keys {
inline constexpr KeyName block_dim{"block_dim"};  // every op: the AI cores its launch uses
}  // namespace keys

struct TilingKey {
  std::string name;
  int64_t lo = 1, hi = 1;       // legal range, inclusive
  bool hi_is_ai_cores = false;  // hi is the config's chip.ai_cores (block_dim)
  int64_t multiple_of = 1;      // legal values are multiples of this (within [lo, hi])
  std::vector<int64_t> values;  // non-empty: the explicit legal set (lo / hi are its bounds)
  std::string default_rule;     // how the op chooses the value when the case does not set it
  std::string doc;              // one line: what the key controls
  // The keys the default rule reads (it adapts to their values): a tuner that moves one of them lets these follow
  // instead of holding them where they no longer fit (npusim tune, tools/cli/tuner.cpp).
  std::vector<std::string> follows;
  int64_t upper(const sim::HwConfig& hw) const { return hi_is_ai_cores ? hw.chip.ai_cores : hi; }
  // The rule a value must satisfy, in the words of the error message ("in [16, 4080], a multiple of 16").
  std::string rule_text(const sim::HwConfig& hw) const;
  bool legal(int64_t v, const sim::HwConfig& hw) const;
  // The legal values (explicit set, or lo, lo + step, ... upper); empty when there are more than `cap`.
  std::vector<int64_t> enumerate(const sim::HwConfig& hw, size_t cap = 4096) const;
};

// The declared keys of one op, in a stable order.
class TilingSpace {
 public:
  TilingSpace(std::string op, std::vector<TilingKey> keys);
  const std::string& op() const { return op_; }
  const std::vector<TilingKey>& keys() const { return keys_; }
  const TilingKey& key(const std::string& name) const;  // std::logic_error when undeclared (a kernel bug)
  // Rejects a case whose `tiling:` map names an undeclared key or holds a non-integer (CaseError naming the
  // key and listing the valid ones).
  void check_case(const CaseFile& c) const;
  std::string valid_names() const;  // "base_m, base_n, ..."
  // {"op", "hw", "keys": [{name, lo, hi, multiple_of, values, default, doc}]}, bounds resolved on `hw`.
  nlohmann::json to_json(const sim::HwConfig& hw) const;

 private:
  std::string op_;
  std::vector<TilingKey> keys_;
};

// The tiling values of one case: each value the op uses goes through `choose`, which applies and validates
// the case's override; `used` lists the chosen values in declaration order (report.json, resolved.yaml).
class Tiling {
 public:
  Tiling(const TilingSpace& space, const CaseFile& c, const sim::HwConfig& hw);
  // The case's override of `key` when present (checked against the declaration), else `chosen`. A chosen
  // value outside the declaration is a kernel bug (std::logic_error).
  int64_t choose(KeyName key, int64_t chosen);
  bool overridden(KeyName key) const;
  // The case's override of `key` (checked against the declaration), nullopt when the op chooses it. Default rules
  // read it first so that the keys left to them adapt to the ones the case sets (`--set tiling.s1_block=256` lowers
  // the s2_block default until L1 fits).
  std::optional<int64_t> fixed(KeyName key) const;
  // `v` becomes the case's override of `key` when there is one; returns whether there was.
  bool pin(KeyName key, int64_t& v) const;
  std::vector<std::pair<std::string, int64_t>> used() const;

 private:
  const TilingSpace& space_;
  const CaseFile& case_;
  const sim::HwConfig& hw_;
  std::vector<std::pair<std::string, int64_t>> values_;
};

}  // namespace npusim::op
