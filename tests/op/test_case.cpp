// Case files: generated and file inputs, tensor lists, relative paths, --set, and every input error
// naming the file, the line and the parameter.
#include <gtest/gtest.h>

#include "kernels/host/npy.h"
#include "tests/op/case_test_support.h"

namespace npusim::op {
namespace {
using namespace casetest;
namespace fs = std::filesystem;

HostTensor f32_tensor(std::vector<int64_t> shape, double first) {
  HostTensor h = HostTensor::zeros(ElemType::F32, std::move(shape));
  for (int64_t i = 0; i < h.numel(); ++i) h.set(i, first + 0.5 * static_cast<double>(i));
  return h;
}

// A case in a subdirectory (never the working directory) next to a float32 k.npy of shape (2, 3).
std::string case_with(const fs::path& dir, const std::string& body) {
  fs::create_directories(dir / "cases" / "data");
  write_npy((dir / "cases" / "data" / "k.npy").string(), f32_tensor({2, 3}, 1));
  return write_text(dir / "cases" / "gqa_small.yaml", body);
}

std::string load_error(const std::string& path, const std::vector<std::string>& sets = {}) {
  return error_of([&] { load_case(path, sets); });
}

TEST(CaseFile, LoadsGeneratedAndFileInputsRelativeToTheCaseFile) {
  const auto dir = scratch_dir();
  const std::string p = case_with(dir, R"(op: fused_infer_attention_score
attrs:
  num_heads: 8
  input_layout: BNSD
  softmax_lse_flag: true
  actual_seq_lengths_kv: [200, 256]
inputs:
  query: {shape: [2, 4], dtype: float16, init: {dist: uniform, low: -1, high: 1, seed: 3}}
  key:   {file: data/k.npy, dtype: float16}
  mask:  {shape: [3], dtype: bool, init: {dist: ones}}
)");
  const CaseFile c = load_case(p, {});
  EXPECT_EQ(c.op, "fused_infer_attention_score");
  EXPECT_EQ(c.name, "gqa_small");
  EXPECT_EQ(c.attrs["num_heads"].as<int>(), 8);
  EXPECT_EQ(c.attrs["input_layout"].as<std::string>(), "BNSD");
  EXPECT_TRUE(c.attrs["softmax_lse_flag"].as<bool>());
  EXPECT_EQ(c.attrs["actual_seq_lengths_kv"].as<std::vector<int>>(), (std::vector<int>{200, 256}));
  EXPECT_TRUE(c.tiling.IsMap());
  EXPECT_EQ(c.tiling.size(), 0u);
  ASSERT_EQ(c.inputs.size(), 3u);
  const TensorEntry& q = c.inputs.at("query")[0];
  EXPECT_EQ(q.name, "query");
  EXPECT_EQ(q.data.type, ElemType::F16);
  EXPECT_EQ(q.data.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(q.init.dist, "uniform");
  EXPECT_EQ(q.init.seed, 3u);
  EXPECT_EQ(q.data.bytes, generate(ElemType::F16, {2, 4}, q.init).bytes);
  const TensorEntry& k = c.inputs.at("key")[0];
  EXPECT_EQ(k.file, (dir / "cases" / "data" / "k.npy").string());
  EXPECT_EQ(k.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(k.data.type, ElemType::F16);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(k.data.get(i), 1 + 0.5 * static_cast<double>(i));
  EXPECT_EQ(c.inputs.at("mask")[0].data.bytes, (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_FALSE(c.tensor_is_list("key"));
}

TEST(CaseFile, TensorListParametersAreYamlLists) {
  const auto dir = scratch_dir();
  const std::string p = case_with(dir, R"(op: x
inputs:
  key:
    - {file: data/k.npy, dtype: float32, shape: [2, 3]}
    - {shape: [4], dtype: int8, init: {dist: uniform, low: -8, high: 8, seed: 1}}
  value: [{shape: [1], dtype: float32, init: {dist: zeros}}]
)");
  const CaseFile c = load_case(p, {});
  EXPECT_TRUE(c.tensor_is_list("key"));
  EXPECT_TRUE(c.tensor_is_list("value"));  // a list of one is still a list
  EXPECT_FALSE(c.tensor_is_list("query"));
  ASSERT_EQ(c.inputs.at("key").size(), 2u);
  EXPECT_EQ(c.inputs.at("key")[0].data.type, ElemType::F32);
  EXPECT_EQ(c.inputs.at("key")[1].data.type, ElemType::I8);
  EXPECT_EQ(c.inputs.at("key")[1].name, "key");
  EXPECT_EQ(c.inputs.at("value")[0].data.get(0), 0);
}

TEST(CaseFile, SetOverridesAttrsAndTilingAndCreatesKeys) {
  const auto dir = scratch_dir();
  const std::string p = case_with(dir, "op: x\nattrs: {num_heads: 8}\n");
  const CaseFile c = load_case(p, {"attrs.num_heads=16", "attrs.actual_seq_lengths_kv=[200,256]", "tiling.s2_block=512",
                                   "attrs.input_layout=BSH", "attrs.scale=0.125", "attrs.flag=true"});
  EXPECT_EQ(c.attrs["num_heads"].as<int>(), 16);
  EXPECT_EQ(c.attrs["actual_seq_lengths_kv"].as<std::vector<int>>(), (std::vector<int>{200, 256}));
  EXPECT_EQ(c.tiling["s2_block"].as<int>(), 512);
  EXPECT_EQ(c.attrs["input_layout"].as<std::string>(), "BSH");
  EXPECT_EQ(c.attrs["scale"].as<double>(), 0.125);
  EXPECT_TRUE(c.attrs["flag"].as<bool>());
}

TEST(CaseFile, SetInputShapeChangesAGeneratedInput) {
  const auto dir = scratch_dir();
  const std::string p = case_with(dir,
                                  "op: x\ninputs:\n  a: {shape: [4, 4], dtype: float16, init: {dist: ones}}\n"
                                  "  f: {file: f.npy, dtype: float16}\n  l: [{shape: [2], dtype: float16}]\n");
  write_npy((std::filesystem::path(p).parent_path() / "f.npy").string(), HostTensor::zeros(ElemType::F16, {3}));
  const CaseFile c = load_case(p, {"inputs.a.shape=[2, 3, 5]"});
  EXPECT_EQ(c.inputs.at("a")[0].shape, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(c.inputs.at("a")[0].data.numel(), 30);
  EXPECT_EQ(load_error(p, {"inputs.q.shape=[1]"}),
            "--set 'inputs.q.shape=[1]': inputs.q is not an input of the case (inputs: a, f, l)");
  EXPECT_EQ(load_error(p, {"inputs.f.shape=[1]"}),
            "--set 'inputs.f.shape=[1]': inputs.f is read from a file, whose shape is the file's");
  EXPECT_EQ(load_error(p, {"inputs.l.shape=[1]"}),
            "--set 'inputs.l.shape=[1]': inputs.l is a tensor list: a shape axis sets one generated tensor");
  EXPECT_NE(load_error(p, {"inputs.a.shape=[2, -1]"}).find("VALUE must be a flow list of non-negative integers"),
            std::string::npos);
  EXPECT_NE(load_error(p, {"inputs.a.dtype=int8"}).find("an inputs. KEY is inputs.NAME.shape"), std::string::npos);
}

TEST(CaseFile, BadSetStringsAreRejected) {
  const auto dir = scratch_dir();
  const std::string p = case_with(dir, "op: x\n");
  EXPECT_EQ(load_error(p, {"hw.core.ub_bytes=131072"}),
            "--set 'hw.core.ub_bytes=131072': KEY must start with attrs., tiling. or inputs. (hw. keys go to the "
            "hardware config)");
  EXPECT_EQ(load_error(p, {"attrs.num_heads"}), "--set 'attrs.num_heads': expected KEY=VALUE");
  EXPECT_EQ(load_error(p, {"attrs.=3"}), "--set 'attrs.=3': KEY needs a name after 'attrs.'");
  EXPECT_NE(load_error(p, {"tiling.x={a: 1}"}).find("VALUE must be a scalar or a flow list"), std::string::npos);
  EXPECT_NE(load_error(p, {"tiling.x=[[1], 2]"}).find("VALUE must be a scalar or a flow list"), std::string::npos);
  // an attribute may be a map or nest lists (op pto's outputs, args): its op checks it
  EXPECT_EQ(load_error(p, {"attrs.x={a: [1, 2]}", "attrs.y=[[1], 2]"}), "(no CaseError)");
  EXPECT_NE(load_error(p, {"attrs.x="}).find("VALUE must be a scalar"), std::string::npos);
  EXPECT_NE(load_error(p, {"tiling.x=[1, 2"}).find("VALUE is not valid YAML"), std::string::npos);
}

TEST(CaseFile, TopLevelErrorsNameFileAndLine) {
  const auto dir = scratch_dir();
  const std::string unknown = write_text(dir / "u.yaml", "op: x\nattrs: {}\ninput: {}\n");
  EXPECT_EQ(load_error(unknown), unknown + ":3: unknown top-level key 'input' (valid: op, attrs, inputs, tiling)");
  const std::string syntax = write_text(dir / "s.yaml", "op: x\nattrs:\n  a: [1, 2\n  b: 3\n");
  EXPECT_EQ(load_error(syntax).rfind(syntax + ":", 0), 0u);
  EXPECT_NE(load_error(syntax).find("YAML syntax error"), std::string::npos);
  const std::string syntax2 = write_text(dir / "s2.yaml", "op: x\ninputs:\n  q: {shape: [1], dtype: float16}}\n");
  EXPECT_EQ(load_error(syntax2).rfind(syntax2 + ":3: YAML syntax error: ", 0), 0u) << load_error(syntax2);
  const std::string no_op = write_text(dir / "n.yaml", "attrs: {}\n");
  EXPECT_EQ(load_error(no_op), no_op + ": missing required key 'op' (the registered op name; `npusim ops` lists them)");
  const std::string not_map = write_text(dir / "l.yaml", "- op\n");
  EXPECT_EQ(load_error(not_map), not_map + ": a case file is a YAML map with keys op, attrs, inputs, tiling");
  const std::string bad_attrs = write_text(dir / "a.yaml", "op: x\nattrs: [1]\n");
  EXPECT_EQ(load_error(bad_attrs), bad_attrs + ":2: 'attrs' must be a map of name: value");
  const std::string odd_key = write_text(dir / "k.yaml", "op: x\n[a, b]: 1\n");
  EXPECT_EQ(load_error(odd_key), odd_key + ":2: a key must be a plain name, not a list");
  const std::string missing = (dir / "nope.yaml").string();
  EXPECT_EQ(load_error(missing), "cannot read case file '" + missing + "'");
  EXPECT_EQ(load_error(dir.string()), "cannot read case file '" + dir.string() + "' (it is a directory)");
}

TEST(CaseFile, TensorEntryErrorsNameTheParameterAndLine) {
  const auto dir = scratch_dir();
  struct Bad {
    std::string entry;
    std::string expect;
  };
  const std::vector<Bad> cases = {
      {"{shape: [2]}", ":3: inputs.q: missing 'dtype' (one of float16,"},
      {"{shape: [2], dtype: float64}", ":3: inputs.q.dtype = 'float64' is not one of float16,"},
      {"{shape: [2, -1], dtype: int8}", ":3: inputs.q.shape has a negative size -1"},
      {"{shape: [2, x], dtype: int8}", ":3: inputs.q.shape = 'x' is not a size"},
      {"{shape: 4, dtype: int8}", ":3: inputs.q.shape = '4' must be a list of sizes"},
      {"{dtype: int8}", ":3: inputs.q: needs 'shape' (generated) or 'file' (.npy)"},
      {"{shape: [1], dtype: int8, fill: 0}", ":3: inputs.q: unknown key 'fill' (valid: shape, dtype, init, file)"},
      {"{shape: [1], dtype: int8, init: {dist: gauss}}",
       ":3: inputs.q.init.dist = 'gauss' is not one of normal, uniform, zeros, ones, bernoulli, triu, permutation"},
      {"{shape: [1], dtype: bool, init: {dist: bernoulli, p: 1.5}}", ":3: inputs.q.init.p = '1.5' must be in [0, 1]"},
      {"{shape: [4], dtype: bool, init: {dist: triu}}", ":3: inputs.q.init: dist triu fills the last two dims"},
      {"{shape: [4], dtype: float16, init: {dist: permutation}}",
       ":3: inputs.q.init: dist permutation needs an integer dtype"},
      {"{shape: [300], dtype: int8, init: {dist: permutation}}",
       ":3: inputs.q.init: dist permutation of 300 elements needs values up to 299, beyond int8"},
      {"{shape: [1], dtype: int8, init: {sd: 1}}", ":3: inputs.q.init: unknown key 'sd'"},
      {"{shape: [1], dtype: int8, init: {dist: uniform, low: 2, high: 1}}",
       ":3: inputs.q.init: uniform needs low < high"},
      {"{shape: [1], dtype: int8, init: {std: -1}}", ":3: inputs.q.init.std = '-1' must be >= 0"},
      {"{shape: [1], dtype: int8, init: {seed: -1}}", ":3: inputs.q.init.seed = '-1' is not a seed"},
      {"{shape: [1], dtype: int8, init: {mean: .nan}}", ":3: inputs.q.init.mean = '.nan' must be finite"},
      {"{file: data/k.npy, dtype: float16, init: {dist: ones}}",
       ":3: inputs.q: 'init' is for generated tensors, not with 'file'"},
      {"{file: data/k.npy, dtype: float16, shape: [3, 2]}",
       ":3: inputs.q.shape [3, 2] does not match the file's shape [2, 3]"},
      {"{file: data/k.npy, dtype: int8}", ":3: inputs.q: the file holds float32 but the declared dtype is int8"},
      {"{file: data/none.npy, dtype: int8}", ":3: inputs.q: "},
      {"[]", ":3: inputs.q: a tensor list needs at least one entry"},
      {"7", ":3: inputs.q must be a map {shape, dtype, init} or {file, dtype}"},
  };
  for (const Bad& b : cases) {
    const std::string p = case_with(dir, "op: x\ninputs:\n  q: " + b.entry + "\n");
    const std::string err = load_error(p);
    EXPECT_EQ(err.rfind(p + b.expect, 0), 0u) << b.entry << "\n  got: " << err;
  }
  const std::string p =
      case_with(dir, "op: x\ninputs:\n  q:\n    - {shape: [1], dtype: int8}\n    - {shape: [1], dtype: int9}\n");
  EXPECT_EQ(load_error(p).rfind(p + ":5: inputs.q[1].dtype = 'int9'", 0), 0u) << load_error(p);
  const std::string missing = case_with(dir, "op: x\ninputs:\n  q: {file: data/none.npy, dtype: int8}\n");
  EXPECT_EQ(load_error(missing), missing + ":3: inputs.q: " + (dir / "cases" / "data" / "none.npy").string() +
                                     ": cannot open .npy file (missing or unreadable)");
}

TEST(CaseFile, WithoutFillingGeneratedTensorsStayEmpty) {
  const auto dir = scratch_dir();
  const std::string p = case_with(
      dir,
      "op: x\ninputs:\n  q: {shape: [1000000, 1000000], dtype: float16}\n  k: {file: data/k.npy, dtype: float32}\n");
  const CaseFile c = load_case(p, {}, false);
  EXPECT_TRUE(c.inputs.at("q")[0].data.bytes.empty());
  EXPECT_EQ(c.inputs.at("q")[0].shape, (std::vector<int64_t>{1000000, 1000000}));
  EXPECT_EQ(c.inputs.at("k")[0].data.numel(), 6);  // files are read either way
}

}  // namespace
}  // namespace npusim::op
