// Tensor entries of a case file: {shape, dtype, init} (generated) or {file, dtype} (read from .npy).
#include "kernels/host/case_inputs.h"
#include "kernels/host/input_cache.h"

#include <filesystem>
#include <set>
#include <type_traits>

#include "kernels/host/npy.h"

namespace npusim::op {

namespace {
constexpr int64_t kMaxElems = int64_t{1} << 50;  // keeps byte counts exact; far beyond host memory

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string shown(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  return n.IsSequence() ? "a list" : (n.IsMap() ? "a map" : "empty");
}

void check_keys(const CaseContext& c, const YAML::Node& n, const std::string& label, const std::set<std::string>& valid,
                const std::string& valid_text) {
  for (const auto& kv : n) {
    const std::string k = key_of(c, kv.first);
    if (!valid.count(k))
      throw CaseError(where(c, kv.first) + ": " + label + ": unknown key '" + k + "' (valid: " + valid_text + ")");
  }
}

template <class T>
T scalar_as(const CaseContext& c, const YAML::Node& n, const std::string& label, const std::string& what) {
  // yaml-cpp would wrap "-1" into a huge unsigned value; a seed must be written non-negative.
  const bool neg_unsigned = std::is_unsigned_v<T> && n.IsScalar() && n.Scalar().rfind('-', 0) == 0;
  try {
    if (n.IsScalar() && !neg_unsigned) return n.as<T>();
  } catch (const YAML::BadConversion&) {}
  throw CaseError(where(c, n) + ": " + label + " = " + shown(n) + " is not " + what);
}

std::vector<int64_t> parse_shape(const CaseContext& c, const YAML::Node& n, const std::string& label) {
  if (!n.IsSequence()) throw CaseError(where(c, n) + ": " + label + " = " + shown(n) + " must be a list of sizes");
  std::vector<int64_t> shape;
  int64_t elems = 1;
  for (const auto& d : n) {
    shape.push_back(scalar_as<int64_t>(c, d, label, "a size (a non-negative integer)"));
    if (shape.back() < 0)
      throw CaseError(where(c, d) + ": " + label + " has a negative size " + std::to_string(shape.back()));
    if (shape.back() != 0 && elems > kMaxElems / shape.back())
      throw CaseError(where(c, n) + ": " + label + " has too many elements");
    elems *= shape.back();
  }
  return shape;
}

double finite(const CaseContext& c, const YAML::Node& n, const std::string& label) {
  const double v = scalar_as<double>(c, n, label, "a number");
  if (!(v - v == 0)) throw CaseError(where(c, n) + ": " + label + " = " + shown(n) + " must be finite");
  return v;
}

InitSpec parse_init(const CaseContext& c, const YAML::Node& n, const std::string& label) {
  if (!n.IsMap()) throw CaseError(where(c, n) + ": " + label + " must be a map {dist, mean, std, low, high, p, seed}");
  check_keys(c, n, label, {"dist", "mean", "std", "low", "high", "p", "seed"}, "dist, mean, std, low, high, p, seed");
  InitSpec s;
  if (n["dist"]) s.dist = scalar_as<std::string>(c, n["dist"], label + ".dist", "a distribution name");
  static const std::set<std::string> kDists = {"normal",    "uniform", "zeros",      "ones",
                                               "bernoulli", "triu",    "permutation"};
  if (!kDists.count(s.dist))
    throw CaseError(where(c, n["dist"]) + ": " + label + ".dist = '" + s.dist +
                    "' is not one of normal, uniform, zeros, ones, bernoulli, triu, permutation");
  if (n["mean"]) s.mean = finite(c, n["mean"], label + ".mean");
  if (n["std"]) s.std = finite(c, n["std"], label + ".std");
  if (n["low"]) s.low = finite(c, n["low"], label + ".low");
  if (n["high"]) s.high = finite(c, n["high"], label + ".high");
  if (n["p"]) s.p = finite(c, n["p"], label + ".p");
  if (s.p < 0 || s.p > 1)
    throw CaseError(where(c, n["p"]) + ": " + label + ".p = " + shown(n["p"]) + " must be in [0, 1]");
  if (n["seed"]) s.seed = scalar_as<uint64_t>(c, n["seed"], label + ".seed", "a seed (an integer in [0, 2^64))");
  if (s.std < 0) throw CaseError(where(c, n["std"]) + ": " + label + ".std = " + shown(n["std"]) + " must be >= 0");
  if (s.dist == "uniform" && !(s.low < s.high))
    throw CaseError(where(c, n) + ": " + label + ": uniform needs low < high (low " + std::to_string(s.low) +
                    ", high " + std::to_string(s.high) + ")");
  return s;
}

ElemType parse_dtype(const CaseContext& c, const YAML::Node& entry, const std::string& label) {
  static const std::string kAll = "float16, bfloat16, float32, int8, uint8, int32, int64, bool, int4, uint16, uint64";
  if (!entry["dtype"]) throw CaseError(where(c, entry) + ": " + label + ": missing 'dtype' (one of " + kAll + ")");
  const YAML::Node d = entry["dtype"];
  ElemType t;
  if (!d.IsScalar() || !parse_elem_type(d.Scalar(), t))
    throw CaseError(where(c, d) + ": " + label + ".dtype = " + shown(d) + " is not one of " + kAll);
  return t;
}

void load_file(const CaseContext& c, const YAML::Node& n, const std::string& label, TensorEntry& e) {
  const std::string given = scalar_as<std::string>(c, n["file"], label + ".file", "a file name");
  const std::filesystem::path p(given);
  e.file = (p.is_relative() ? std::filesystem::path(c.dir) / p : p).lexically_normal().string();
  const std::string at = where(c, n["file"]) + ": " + label;
  try {
    e.data = convert_for_case(read_npy(e.file), e.dtype, at);
  } catch (const CaseError& err) {
    const std::string msg = err.what();
    throw CaseError(msg.rfind(at, 0) == 0 ? msg : at + ": " + msg);  // read_npy names only the .npy file
  }
  if (n["shape"] && e.shape != e.data.shape)
    throw CaseError(where(c, n["shape"]) + ": " + label + ".shape " + list_text(e.shape) +
                    " does not match the file's shape " + list_text(e.data.shape));
  e.shape = e.data.shape;
}

TensorEntry parse_entry(const CaseContext& c, const std::string& name, const YAML::Node& n, const std::string& label) {
  if (!n.IsMap())
    throw CaseError(where(c, n) + ": " + label + " must be a map {shape, dtype, init} or {file, dtype}" +
                    " (or a list of such maps for a tensor list)");
  check_keys(c, n, label, {"shape", "dtype", "init", "file"}, "shape, dtype, init, file");
  TensorEntry e;
  e.name = name;
  e.dtype = parse_dtype(c, n, label);
  if (n["shape"]) e.shape = parse_shape(c, n["shape"], label + ".shape");
  if (n["file"]) {
    if (n["init"])
      throw CaseError(where(c, n["init"]) + ": " + label + ": 'init' is for generated tensors, not with 'file'");
    load_file(c, n, label, e);
    return e;
  }
  if (!n["shape"]) throw CaseError(where(c, n) + ": " + label + ": needs 'shape' (generated) or 'file' (.npy)");
  if (n["init"]) e.init = parse_init(c, n["init"], label + ".init");
  try {
    check_generator(e.dtype, e.shape, e.init);
  } catch (const CaseError& err) {
    throw CaseError(where(c, n["init"] ? n["init"] : n) + ": " + label + ".init: " + err.what());
  }
  if (c.fill_generated) {
    e.data = generate_cached(e.dtype, e.shape, e.init);
  } else {  // shape and type without data (timing mode): ops size GM from it
    e.data.type = e.dtype;
    e.data.shape = e.shape;
  }
  return e;
}
}  // namespace

std::string where(const CaseContext& c, const YAML::Node& n) {
  return c.file + ":" + std::to_string(n.Mark().line + 1);
}

std::string key_of(const CaseContext& c, const YAML::Node& key) {
  if (!key.IsScalar()) throw CaseError(where(c, key) + ": a key must be a plain name, not " + shown(key));
  return key.Scalar();
}

std::vector<TensorEntry> parse_input(const CaseContext& c, const std::string& name, const YAML::Node& n,
                                     bool& is_list) {
  const std::string label = "inputs." + name;
  is_list = n.IsSequence();
  if (!is_list) return {parse_entry(c, name, n, label)};
  if (n.size() == 0) throw CaseError(where(c, n) + ": " + label + ": a tensor list needs at least one entry");
  std::vector<TensorEntry> out;
  for (size_t i = 0; i < n.size(); ++i)
    out.push_back(parse_entry(c, name, n[i], label + "[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace npusim::op
