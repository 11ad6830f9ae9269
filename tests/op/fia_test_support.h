#pragma once
// Helpers for the FIA parameter tests: a case built from attrs + tensor lines, loaded from a scratch directory
// (without generating data unless asked, as in timing mode), and error matching.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/fia/fia_params.h"
#include "tests/op/case_test_support.h"

namespace npusim::op::fiatest {

// "  name: {shape: [..], dtype: D[, init: {..}]}" -- one entry under inputs:.
inline std::string tensor(const std::string& name, const std::vector<int64_t>& shape,
                          const std::string& dtype = "float16", const std::string& init = "") {
  std::string s = "  " + name + ": {shape: [";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  s += "], dtype: " + dtype;
  if (!init.empty()) s += ", init: {" + init + "}";
  return s + "}\n";
}

// The base case: BSH float16, B 2, Sq 64, N 4, D 64 (H 256), dense K / V with S 128.
inline std::string bsh_qkv(const std::string& dtype = "float16") {
  return tensor("query", {2, 64, 256}, dtype) + tensor("key", {2, 128, 256}, dtype) +
         tensor("value", {2, 128, 256}, dtype);
}

// attrs is the body of a flow map ("num_heads: 4, sparse_mode: 3").
inline CaseFile load_fia(const std::string& attrs, const std::string& inputs, bool fill = false) {
  const auto dir = casetest::scratch_dir();
  const std::string p = casetest::write_text(
      dir / "fia.yaml", "op: fused_infer_attention_score\nattrs: {" + attrs + "}\ninputs:\n" + inputs);
  return load_case(p, {}, fill);
}

inline attn::AttnProblem parse(const std::string& attrs, const std::string& inputs, bool fill = false) {
  return parse_fia(load_fia(attrs, inputs, fill));
}

inline std::string parse_error(const std::string& attrs, const std::string& inputs) {
  return casetest::error_of([&] { parse(attrs, inputs); });
}

// Every part (the parameter, its value, the rule) appears in the message.
inline void expect_parts(const std::string& err, std::initializer_list<std::string> parts) {
  for (const auto& part : parts) EXPECT_NE(err.find(part), std::string::npos) << "missing '" << part << "' in: " << err;
}

}  // namespace npusim::op::fiatest
