// The ParamSpecs of every registered op (issue 40 item 1): the typed default the attribute readers use
// (ParamSpec::value, kernels/op/params.h) agrees with the text `npusim ops` shows, and a reader returns it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/op/params.h"
#include "kernels/op/registry.h"

namespace npusim::op {
namespace {

// The value's type for each attribute kind that has typed defaults.
bool value_fits_kind(const ParamSpec& p) {
  if (p.kind == "int") return std::holds_alternative<int64_t>(p.value);
  if (p.kind == "float") return std::holds_alternative<double>(p.value);
  if (p.kind == "bool") return std::holds_alternative<bool>(p.value);
  if (p.kind == "string") return std::holds_alternative<std::string>(p.value);
  return false;
}

// Whether the shown text starts with the typed value ("0 (= num_heads)" starts with 0).
bool text_shows_value(const ParamSpec& p) {
  const std::string& t = p.default_text;
  if (const auto* i = std::get_if<int64_t>(&p.value)) return t.rfind(std::to_string(*i), 0) == 0;
  if (const auto* b = std::get_if<bool>(&p.value)) return t.rfind(*b ? "true" : "false", 0) == 0;
  if (const auto* s = std::get_if<std::string>(&p.value)) return !s->empty() && t.rfind(*s, 0) == 0;
  if (const auto* d = std::get_if<double>(&p.value)) {
    char* end = nullptr;
    const double shown = std::strtod(t.c_str(), &end);
    return end != t.c_str() && shown == *d;
  }
  return false;
}

TEST(ParamSpecs, TypedDefaultsMatchTheirKindAndTheShownText) {
  int typed = 0;
  for (const auto& op : all_ops())
    for (const ParamSpec& p : op->params()) {
      const std::string where = op->name() + " " + p.name + " (default '" + p.default_text + "')";
      if (p.is_tensor() || p.required) {
        EXPECT_TRUE(std::holds_alternative<std::monostate>(p.value)) << where << ": a typed default it never uses";
        continue;
      }
      if (std::holds_alternative<std::monostate>(p.value)) continue;  // "none" / derived: the op reads *_if
      ++typed;
      EXPECT_TRUE(value_fits_kind(p)) << where << ": the typed default is not of kind " << p.kind;
      EXPECT_TRUE(text_shows_value(p)) << where << ": the shown default does not start with the typed one";
    }
  EXPECT_GE(typed, 20);  // FIA, FA V3, matmul and pto declare theirs
}

CaseFile case_of(const std::string& op, const std::string& attrs_yaml) {
  CaseFile c;
  c.path = "test.yaml", c.op = op, c.attrs = YAML::Load(attrs_yaml);
  return c;
}

TEST(ParamSpecs, AnAbsentAttributeReadsAsItsTypedDefault) {
  const CaseFile c = case_of("fused_infer_attention_score", "{num_heads: 8}");
  EXPECT_EQ(attr_int(c, "pre_tokens"), 2147483647);
  EXPECT_EQ(attr_float(c, "scale"), 1.0);
  EXPECT_EQ(attr_string(c, "input_layout"), "BSH");
  EXPECT_FALSE(attr_bool(c, "softmax_lse_flag"));
  EXPECT_EQ(attr_int(c, "num_heads"), 8);
  EXPECT_FALSE(attr_float_if(case_of("matmul", "{}"), "dequant_scale").has_value());
  EXPECT_EQ(attr_float_if(case_of("matmul", "{dequant_scale: 0.5}"), "dequant_scale"), 0.5);
}

TEST(ParamSpecs, ReadingWhatTheOpDoesNotDeclareIsAKernelBug) {
  const CaseFile c = case_of("matmul", "{}");
  EXPECT_THROW(attr_int(c, "no_such_attr"), std::logic_error);
  EXPECT_THROW(attr_int(c, "transpose_a"), std::logic_error);  // a bool read as an int
  EXPECT_THROW(attr_int(c, "a"), std::logic_error);            // a tensor
}

TEST(ParamSpecs, AMistypedAttributeIsAnInputError) {
  EXPECT_THROW(attr_bool(case_of("matmul", "{transpose_a: maybe}"), "transpose_a"), CaseError);
}

}  // namespace
}  // namespace npusim::op
