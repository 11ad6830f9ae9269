// Op `pto`: runs an entry of a PTO kernel library (`npusim pto build`) on the simulated chip. The case names the
// library, the entry, the launch (block_dim, which cores) and the entry's arguments in order: GM tensors by name
// (inputs, outputs, workspaces) and scalar values. A reference for `npusim check` is a .npy file per output, or
// another op's fp64 reference computed on the same inputs (e.g. op matmul for a PTO GEMM).
#include <algorithm>
#include <filesystem>
#include <memory>

#include "kernels/host/npy.h"
#include "kernels/op/gm_inputs.h"
#include "kernels/op/params.h"
#include "kernels/op/registry.h"
#include "kernels/pto/build.h"
#include "kernels/pto/library.h"
#include "kernels/pto/runtime.h"

namespace npusim::op {

namespace {
using npusim::pto::Library;
using npusim::pto::PtoRuntime;

class PtoOp final : public Op {
 public:
  std::string name() const override { return "pto"; }
  std::string summary() const override {
    return "an entry of a PTO tile-language kernel library built with `npusim pto build` (kernels/pto/README.md)";
  }
  std::vector<ParamSpec> params() const override;
  const TilingSpace& tiling_space() const override {
    static const TilingSpace none("pto", {});
    return none;
  }
  Prepared prepare(const CaseFile& c, sim::Machine& m) const override;
  std::vector<Reference> reference(const CaseFile& c) const override;
};
NPUSIM_REGISTER_OP(PtoOp);

std::vector<ParamSpec> PtoOp::params() const {
  return {{"library", "string", true, "",
           "the kernel library (.so from `npusim pto build`) or its source (.cpp: built on first use into npusim's "
           "cache), relative to the case file"},
          {"entry", "string", true, "", "the entry's name in NPUSIM_PTO_ENTRY(name, function)"},
          {"defines", "list", false, "none", "NAME or NAME=VALUE definitions for a library given as source (-D)"},
          {"include_dirs", "list", false, "none",
           "include folders for a library given as source (-I), relative to the case"},
          {"block_dim", "int", false, "1", "blocks of the launch (get_block_num())", int64_t{1}},
          {"cores", "string", false, "cube",
           "cube (one AIC per block) | vector (one AIV per block) | mix (one AIC and two AIVs per block: the cube and "
           "vector builds of the source, or a library list [CUBE.so, VECTOR.so])",
           std::string("cube")},
          {"private_statics", "bool", false, "false",
           "each core loads its own copy of the library (function-local statics per core, as on the device)", false},
          {"args", "list", true, "",
           "the entry's arguments in order: a tensor name (inputs / outputs / workspaces) for a GM pointer (null or 0: "
           "a null pointer), a number for a scalar"},
          {"outputs", "map", true, "", "NAME: {dtype: D, shape: [...]} -- GM tensors the kernel writes, read back"},
          {"workspaces", "map", false, "none", "NAME: BYTES -- zero-filled GM scratch the kernel may use"},
          {"reference", "map", false, "none",
           "OUTPUT: FILE.npy, or OUTPUT: {op: OP, attrs: {...}, inputs: {OP_INPUT: CASE_INPUT}, output: OP_OUTPUT} -- "
           "for `npusim check`"},
          {"flops", "int", false, "0", "algorithmic flops, for the report's efficiency figures", int64_t{0}}};
}

std::string dir_of(const CaseFile& c) { return std::filesystem::path(c.path).parent_path().string(); }
std::string resolve(const CaseFile& c, const std::string& p) {
  if (p.empty() || std::filesystem::path(p).is_absolute()) return p;
  const std::string d = dir_of(c);
  return d.empty() ? p : (std::filesystem::path(d) / p).string();
}

void check_attr_names(const Op& op, const CaseFile& c) {
  std::string names;
  for (const auto& p : op.params()) names += (names.empty() ? "" : ", ") + p.name;
  for (const auto& kv : c.attrs) {
    const std::string k = kv.first.as<std::string>();
    bool known = false;
    for (const auto& p : op.params()) known |= p.name == k;
    if (!known) throw CaseError("attrs." + k + " is not a parameter of op pto (" + names + ")");
  }
  for (const char* req : {"library", "entry", "args", "outputs"})
    if (!c.attrs[req]) throw CaseError(std::string("attrs.") + req + " is required by op pto");
}

std::vector<OutputSpec> outputs_of(const CaseFile& c) {
  std::vector<OutputSpec> out;
  const YAML::Node n = c.attrs["outputs"];
  if (!n.IsMap() || n.size() == 0) throw CaseError("attrs.outputs must map output names to {dtype, shape}");
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    const YAML::Node d = kv.second;
    ElemType t;
    if (!d.IsMap() || !d["dtype"] || !parse_elem_type(d["dtype"].as<std::string>(), t) || !d["shape"] ||
        !d["shape"].IsSequence())
      throw CaseError("attrs.outputs." + name + " must be {dtype: float16 | float32 | ..., shape: [dims]}");
    std::vector<int64_t> shape;
    for (const auto& s : d["shape"]) {
      const int64_t v = s.IsScalar() ? s.as<int64_t>(0) : 0;
      if (v < 1)
        throw CaseError("attrs.outputs." + name + ".shape: dimensions must be integers >= 1, got '" +
                        (s.IsScalar() ? s.as<std::string>() : std::string("a list or map")) + "'");
      shape.push_back(v);
    }
    if (c.inputs.count(name)) throw CaseError("attrs.outputs." + name + " has the name of an input");
    out.push_back({name, t, shape, name});
  }
  return out;
}

sim::MixMode mix_of(const CaseFile& c) {
  const std::string cores = attr_string(c, "cores");
  if (cores != "cube" && cores != "vector" && cores != "mix")
    throw CaseError("attrs.cores = '" + cores + "' must be cube, vector or mix");
  return cores == "cube" ? sim::MixMode::CubeOnly : cores == "vector" ? sim::MixMode::VectorOnly : sim::MixMode::Mix1_2;
}

// The entry as built for `core` ("cube" / "vector"): a library built for the other core kind is refused.
const npusim_pto::EntryInfo& entry_for(const Library& lib, const std::string& name, const std::string& core) {
  const npusim_pto::EntryInfo& e = lib.entry(name);
  const std::string built = e.core;
  if (built != "any" && built != core)
    throw CaseError("attrs.library = '" + lib.path() + "': entry '" + name + "' was built for the " + built +
                    " cores but runs on the " + core + " cores here (attrs.cores; build with --core " + core + ")");
  return e;
}

// The entry's arguments from attrs.args, checked against its signature (p: a GM tensor name, i / u / f: a number).
std::vector<npusim_pto::Arg> args_of(const CaseFile& c, const npusim_pto::EntryInfo& e,
                                     const std::map<std::string, uint64_t>& gm) {
  const YAML::Node a = c.attrs["args"];
  const std::string sig = e.signature;
  if (!a.IsSequence() || a.size() != sig.size())
    throw CaseError("attrs.args must list the " + std::to_string(sig.size()) + " arguments of entry '" + e.name +
                    "' in order (signature " + sig + ": p a tensor name, i / u / f a number), got " +
                    std::to_string(a.IsSequence() ? a.size() : 0));
  std::vector<npusim_pto::Arg> out;
  for (size_t i = 0; i < sig.size(); ++i) {
    const std::string what = "attrs.args[" + std::to_string(i) + "]";
    if (!a[i].IsNull() && !a[i].IsScalar())
      throw CaseError(what + " must be a tensor name or a number, not a list or map");
    const std::string text = a[i].IsNull() ? "null" : a[i].as<std::string>();
    npusim_pto::Arg v;
    if (sig[i] == 'p' && (a[i].IsNull() || text == "0")) {
      v.u = 0;  // a null pointer (an optional buffer the kernel checks for)
    } else if (sig[i] == 'p') {
      const auto it = gm.find(text);
      if (it == gm.end())
        throw CaseError(what + " = '" + text +
                        "' must name an input, output or workspace (the entry takes a GM pointer there)");
      v.u = npusim_pto::kGmBase + it->second;
    } else {
      try {
        v.f = a[i].as<double>();
        v.u = sig[i] == 'f' ? 0 : uint64_t(a[i].as<int64_t>());
      } catch (const YAML::Exception&) {
        throw CaseError(what + " = '" + text + "' must be a number (the entry takes a " +
                        (sig[i] == 'f' ? "floating-point" : "integer") + " value there)");
      }
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> string_list(const CaseFile& c, const std::string& key) {
  std::vector<std::string> out;
  const YAML::Node n = c.attrs[key];
  if (!n) return out;
  if (!n.IsSequence()) throw CaseError("attrs." + key + " must be a list of strings");
  for (const auto& v : n) out.push_back(v.as<std::string>());
  return out;
}

// The library the `core` ("cube" / "vector") cores load: attrs.library itself (for a mix, the cube or vector one
// of its two), or, for a source file, the library built from it for that core kind (cached).
std::string library_path(const CaseFile& c, const std::string& core) {
  const YAML::Node n = c.attrs["library"];
  const bool mix = mix_of(c) == sim::MixMode::Mix1_2;
  std::string lib;
  if (n.IsSequence()) {
    if (!mix || n.size() != 2)
      throw CaseError("attrs.library is a list [CUBE.so, VECTOR.so] only with attrs.cores = mix");
    lib = resolve(c, n[core == "cube" ? 0 : 1].as<std::string>());
  } else {
    lib = resolve(c, attr_string(c, "library"));
  }
  const std::string ext = std::filesystem::path(lib).extension().string();
  if (ext != ".cpp" && ext != ".cc" && ext != ".cxx") {
    if (c.attrs["defines"] || c.attrs["include_dirs"])
      throw CaseError("attrs.defines / attrs.include_dirs apply to a library given as source (.cpp), not to " + lib);
    if (mix && !n.IsSequence())
      throw CaseError(
          "attrs.cores = mix runs a cube and a vector build: give attrs.library as the source (.cpp) or as [CUBE.so, "
          "VECTOR.so]");
    return lib;
  }
  npusim::pto::BuildOptions o;
  o.source = lib;
  o.core = core;
  o.defines = string_list(c, "defines");
  for (const auto& d : string_list(c, "include_dirs")) o.include_dirs.push_back(resolve(c, d));
  return npusim::pto::cached_library(o, "attrs.library = '" + lib + "'");
}

// The kernel body of one core kind: each core binds the runtime and calls the entry; with private statics each
// physical core runs its own copy of the library (blocks beyond the cores run on the same cores, keeping that
// core's statics, as on the device). `cores`: the cores of this kind the launch occupies.
sim::KernelFn body_for(const CaseFile& c, const std::string& core, int64_t cores, int subblocks,
                       const std::shared_ptr<PtoRuntime>& rt,
                       const std::shared_ptr<const std::vector<npusim_pto::Arg>>& args,
                       const std::shared_ptr<const Library>& first) {
  const std::string entry = attr_string(c, "entry");
  std::vector<std::shared_ptr<const Library>> libs = {first};
  if (attr_bool(c, "private_statics"))
    for (int64_t i = 1; i < cores; ++i) libs.push_back(std::make_shared<const Library>(first->path(), true));
  std::vector<npusim_pto::EntryFn> fns;
  for (const auto& l : libs) fns.push_back(entry_for(*l, entry, core).fn);
  const int64_t blocks = cores / subblocks;  // blocks at a time
  return [libs, fns, rt, args, subblocks, blocks](sim::CoreCtx& k) {
    const size_t i =
        libs.size() == 1 ? 0 : size_t(k.block_idx() % blocks) * size_t(subblocks) + size_t(k.sub_block_idx());
    libs[i]->bind(rt.get());
    rt->enter(k);
    fns[i](args->data(), int(args->size()));
  };
}

Prepared PtoOp::prepare(const CaseFile& c, sim::Machine& m) const {
  check_attr_names(*this, c);
  tiling_space().check_case(c);  // a PTO kernel's tiling is its own code (or -D knobs of `pto build`)
  const sim::MixMode mix = mix_of(c);
  std::vector<std::string> kinds;
  if (mix != sim::MixMode::VectorOnly) kinds.push_back("cube");
  if (mix != sim::MixMode::CubeOnly) kinds.push_back("vector");
  std::map<std::string, std::shared_ptr<const Library>> libs;
  for (const auto& k : kinds) libs[k] = std::make_shared<const Library>(library_path(c, k));
  const npusim_pto::EntryInfo& e = entry_for(*libs.at(kinds[0]), attr_string(c, "entry"), kinds[0]);
  const int64_t block_dim = attr_int(c, "block_dim");
  if (block_dim < 1 || block_dim > 65535)
    throw CaseError("attrs.block_dim = " + std::to_string(block_dim) + " must be in [1, 65535]");
  Prepared r;
  std::map<std::string, uint64_t> gm;
  for (const auto& [name, list] : c.inputs) {
    if (list.size() != 1) throw CaseError("inputs." + name + ": op pto takes single tensors, not lists");
    gm[name] = load_input(m, name, list[0]);
    r.min_gm_bytes += tensor_bytes(list[0].data);
  }
  for (const auto& o : outputs_of(c)) {
    int64_t n = 1;
    for (int64_t d : o.shape) n *= d;
    const uint64_t bytes = uint64_t(n) * uint64_t(elem_bytes(o.type));
    gm[o.name] = m.gm().allocate(o.name, bytes);
    r.min_gm_bytes += bytes;
    r.outputs.push_back(o);
  }
  if (const YAML::Node w = c.attrs["workspaces"]) {
    if (!w.IsMap()) throw CaseError("attrs.workspaces must map names to byte counts");
    for (const auto& kv : w) {
      const std::string name = kv.first.as<std::string>();
      const int64_t bytes = kv.second.as<int64_t>(0);
      if (bytes < 1 || gm.count(name))
        throw CaseError("attrs.workspaces." + name + " must be a positive byte count with a new name");
      gm[name] = m.gm().allocate(name, uint64_t(bytes));
    }
  }
  const auto args = std::make_shared<const std::vector<npusim_pto::Arg>>(args_of(c, e, gm));
  for (const auto& [name, list] : c.inputs) {
    bool used = false;
    for (const auto& a : c.attrs["args"]) used |= a.IsScalar() && a.as<std::string>() == name;
    if (!used) throw CaseError("inputs." + name + " is not named in attrs.args");
  }
  const int subblocks = mix == sim::MixMode::Mix1_2 ? 2 : 1;
  const auto rt = std::make_shared<PtoRuntime>(subblocks);
  r.launch = sim::LaunchSpec{.name = e.name, .block_dim = int(block_dim), .mix = mix};
  // Blocks at a time: the launch runs more than the chip's cores in waves on the same cores (sim/README.md).
  const int64_t at_once =
      std::min(block_dim, mix == sim::MixMode::VectorOnly ? m.hw().chip.ai_cores * m.hw().chip.aiv_per_core
                                                          : m.hw().chip.ai_cores);
  for (const auto& k : kinds)
    (k == "cube" ? r.launch.cube : r.launch.vector) =
        body_for(c, k, k == "cube" ? at_once : at_once * subblocks, k == "cube" ? 1 : subblocks, rt, args, libs.at(k));
  r.flops = uint64_t(attr_int(c, "flops"));
  r.cores = int(mix == sim::MixMode::VectorOnly ? (at_once + 1) / 2 : at_once);
  const auto& cube = m.hw().cube;
  r.macs_per_cycle_per_core = double(isa::kFractalRows * isa::kFractalRows * 16) / double(cube.fractal_cycles_b16);
  r.executed_flops_bound = r.flops;
  return r;
}

// A reference computed by another op on this case's inputs: {op, attrs, inputs: {OP_INPUT: CASE_INPUT}, output}.
Reference reference_by_op(const CaseFile& c, const std::string& out, const YAML::Node& spec) {
  const std::string where = "attrs.reference." + out;
  if (!spec["op"]) throw CaseError(where + " needs op: NAME");
  CaseFile other;
  other.path = c.path, other.name = c.name, other.op = spec["op"].as<std::string>();
  other.attrs = spec["attrs"] ? YAML::Clone(spec["attrs"]) : YAML::Node(YAML::NodeType::Map);
  other.tiling = YAML::Node(YAML::NodeType::Map);
  if (spec["inputs"])
    for (const auto& kv : spec["inputs"]) {
      const std::string theirs = kv.first.as<std::string>(), ours = kv.second.as<std::string>();
      if (!c.inputs.count(ours))
        throw CaseError(where + ".inputs." + theirs + " = '" + ours + "' is not an input of this case");
      other.inputs[theirs] = c.inputs.at(ours);
    }
  const std::string want = spec["output"] ? spec["output"].as<std::string>() : out;
  for (Reference r : find_op(other.op).reference(other))
    if (r.output == want) return r.output = out, r;
  throw CaseError(where + ": op " + other.op + " has no output '" + want + "'");
}

std::vector<Reference> PtoOp::reference(const CaseFile& c) const {
  std::vector<Reference> refs;
  const YAML::Node spec = c.attrs["reference"];
  if (!spec) return refs;
  if (!spec.IsMap()) throw CaseError("attrs.reference must map output names to a .npy file or {op, ...}");
  const auto outs = outputs_of(c);
  for (const auto& kv : spec) {
    const std::string out = kv.first.as<std::string>();
    const auto it = std::find_if(outs.begin(), outs.end(), [&](const OutputSpec& o) { return o.name == out; });
    if (it == outs.end()) throw CaseError("attrs.reference." + out + " is not one of attrs.outputs");
    if (kv.second.IsMap()) {
      refs.push_back(reference_by_op(c, out, kv.second));
      continue;
    }
    const HostTensor t = read_npy(resolve(c, kv.second.as<std::string>()));
    if (t.numel() != HostTensor::zeros(it->type, it->shape).numel())
      throw CaseError("attrs.reference." + out + ": the file has " + std::to_string(t.numel()) +
                      " elements, the output " + std::to_string(HostTensor::zeros(it->type, it->shape).numel()));
    Reference r;
    r.output = out;
    for (int64_t i = 0; i < t.numel(); ++i) r.ref64.push_back(t.get(i));
    r.naive = r.ref64;
    r.working = it->type == ElemType::F16 || it->type == ElemType::BF16 ? it->type : ElemType::F32;
    r.reduction_len = 1;
    r.gate_fa_rule = false;
    refs.push_back(r);
  }
  return refs;
}
}  // namespace

}  // namespace npusim::op
