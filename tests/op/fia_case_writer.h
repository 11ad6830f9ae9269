#pragma once
// Writes an attention test problem (attention_test_support.h) as a fused_infer_attention_score case file plus
// .npy tensors, so kernel tests go through the whole op: case loading, parameter checks, tiling, kernel.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/host/npy.h"
#include "tests/op/attention_test_support.h"

namespace npusim::op::attntest {

// Case tensors as .npy: bf16 travels as its uint16 bit pattern (design.md "Case file").
inline std::string put_npy(const std::filesystem::path& dir, const std::string& name, const HostTensor& t) {
  HostTensor e = t;
  if (e.type == ElemType::BF16) e.type = ElemType::U16;
  const auto path = dir / (name + ".npy");
  write_npy(path.string(), e);
  return path.filename().string();
}

inline const char* dtype_name(ElemType t) {
  switch (t) {
    case ElemType::BF16: return "bfloat16";
    case ElemType::I8: return "int8";
    case ElemType::U8: return "uint8";
    case ElemType::Bool: return "bool";
    case ElemType::I32: return "int32";
    case ElemType::I64: return "int64";
    default: return "float16";
  }
}

inline std::string list_of(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

struct CaseExtras {
  std::string tiling;             // YAML map body, e.g. "s1_block: 32, s2_block: 128"
  bool lengths = false;           // write actual_seq_lengths / _kv even when they are the full S
  ElemType mask_dtype = ElemType::Bool;
};

// Writes dir/case.yaml and its tensors; returns the case path.
inline std::string write_fia_case(const std::filesystem::path& dir, const AttnCase& c, const CaseExtras& x = {}) {
  const AttnProblem& p = c.p;
  std::ostringstream y;
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.17g", p.scale);
  y << "op: fused_infer_attention_score\nattrs:\n  num_heads: " << p.N << "\n  num_key_value_heads: " << p.KV_N
    << "\n  input_layout: " << layout_name(p.layout) << "\n  scale: " << scale << "\n  sparse_mode: " << p.sparse_mode
    << "\n  pre_tokens: " << p.pre_tokens << "\n  next_tokens: " << p.next_tokens << "\n  inner_precise: " << p.inner_precise
    << "\n  softmax_lse_flag: " << (p.lse ? "true" : "false") << "\n";
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  if (x.lengths || p.left_pad || paged || p.prefix) y << "  actual_seq_lengths: " << list_of(p.act_q) << "\n";
  if (x.lengths || p.left_pad || paged || p.prefix) y << "  actual_seq_lengths_kv: " << list_of(p.act_kv) << "\n";
  if (paged) y << "  block_size: " << p.block_size << "\n";
  if (p.prefix) y << "  actual_shared_prefix_len: [" << p.prefix_len << "]\n";
  auto entry = [&](const std::string& name, const HostTensor& t, ElemType declared) {
    return "{file: " + put_npy(dir, name, t) + ", dtype: " + dtype_name(declared) + "}";
  };
  y << "inputs:\n  query: " << entry("query", c.q, p.in) << "\n";
  for (const char* kv : {"key", "value"}) {
    const auto& list = std::string(kv) == "key" ? c.k : c.v;
    if (p.kv == KvStorage::List) {
      y << "  " << kv << ":\n";
      for (size_t b = 0; b < list.size(); ++b) y << "    - " << entry(std::string(kv) + std::to_string(b), list[b], p.in) << "\n";
    } else {
      y << "  " << kv << ": " << entry(kv, list[0], p.in) << "\n";
    }
  }
  if (p.pse) y << "  pse_shift: " << entry("pse", c.pse, p.in) << "\n";
  if (p.mask != MaskKind::None) {
    HostTensor m = c.mask;
    m.type = x.mask_dtype;  // one byte 0 / 1 in every mask dtype
    y << "  atten_mask: " << entry("mask", m, x.mask_dtype) << "\n";
  }
  if (paged) y << "  block_table: " << entry("block_table", c.bt, ElemType::I32) << "\n";
  if (p.prefix) {
    y << "  key_shared_prefix: " << entry("kp", c.kp, p.in) << "\n";
    y << "  value_shared_prefix: " << entry("vp", c.vp, p.in) << "\n";
  }
  if (p.left_pad) {
    HostTensor qp = HostTensor::zeros(ElemType::I64, {1}), kp = HostTensor::zeros(ElemType::I64, {1});
    qp.set(0, double(p.q_pad)), kp.set(0, double(p.kv_pad));
    y << "  query_padding_size: " << entry("qpad", qp, ElemType::I64) << "\n";
    y << "  kv_padding_size: " << entry("kvpad", kp, ElemType::I64) << "\n";
  }
  if (!x.tiling.empty()) y << "tiling: {" << x.tiling << "}\n";
  const auto path = dir / "case.yaml";
  std::ofstream(path) << y.str();
  return path.string();
}

// The compressed sparse-mode mask: (2048, 2048), 1 strictly above the diagonal.
inline HostTensor triu_mask() {
  HostTensor m = HostTensor::zeros(ElemType::Bool, {2048, 2048});
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = i + 1; j < 2048; ++j) m.bytes[size_t(i * 2048 + j)] = 1;
  return m;
}

}  // namespace npusim::op::attntest
