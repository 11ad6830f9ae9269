#pragma once
// Writes an attention test problem (attention_test_support.h) as a fused_infer_attention_score case file plus
// .npy tensors, so kernel tests go through the whole op: case loading, parameter checks, tiling, kernel.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "isa/numeric/numeric.h"
#include "kernels/host/npy.h"
#include "tests/op/attention_test_support.h"
#include "tests/support/case_writer.h"

namespace npusim::op::attntest {

inline const char* dtype_name(ElemType t) {
  switch (t) {
    case ElemType::BF16: return "bfloat16";
    case ElemType::I8: return "int8";
    case ElemType::I4: return "int4";
    case ElemType::U8: return "uint8";
    case ElemType::Bool: return "bool";
    case ElemType::I32: return "int32";
    case ElemType::I64: return "int64";
    case ElemType::F32: return "float32";
    case ElemType::U64: return "uint64";
    default: return "float16";
  }
}

struct CaseExtras {
  std::string tiling;    // YAML map body, e.g. "s1_block: 32, s2_block: 128"
  bool lengths = false;  // write actual_seq_lengths / _kv even when they are the full S
  ElemType mask_dtype = ElemType::Bool;
  bool int32_kv = false;  // int4 K / V (and prefix) written as int32 words of 8 (spec §1.6's packed view)
};

// An int4 tensor (..., n) as the int32 words (..., n / 8) that pack it, element k in bits [4k, 4k + 4).
inline HostTensor pack_int32(const HostTensor& t) {
  std::vector<int64_t> shape = t.shape;
  shape.back() /= 8;
  HostTensor w = HostTensor::zeros(ElemType::I32, shape);
  for (int64_t i = 0; i < w.numel(); ++i) {
    int8_t v[8];
    for (int k = 0; k < 8; ++k) v[k] = int8_t(t.bytes[size_t(8 * i + k)]);
    w.set(i, double(isa::s4_pack_s32_word(v)));
  }
  return w;
}

// Writes dir/case.yaml and its tensors; returns the case path.
inline std::string write_fia_case(const std::filesystem::path& dir, const AttnCase& c, const CaseExtras& x = {}) {
  const AttnProblem& p = c.p;
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.17g", p.scale);
  test::CaseWriter w(dir, "fused_infer_attention_score");
  w.attr("num_heads", p.N)
      .attr("num_key_value_heads", p.KV_N)
      .attr("input_layout", layout_name(p.layout))
      .attr("scale", scale);
  w.attr("sparse_mode", p.sparse_mode).attr("pre_tokens", p.pre_tokens).attr("next_tokens", p.next_tokens);
  w.attr("inner_precise", p.inner_precise).attr("softmax_lse_flag", p.lse ? "true" : "false");
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  if (x.lengths || p.left_pad || paged || p.prefix)
    w.attr("actual_seq_lengths", test::CaseWriter::list(p.act_q))
        .attr("actual_seq_lengths_kv", test::CaseWriter::list(p.act_kv));
  if (paged) w.attr("block_size", p.block_size);
  if (p.prefix) w.attr("actual_shared_prefix_len", test::CaseWriter::list({p.prefix_len}));
  const char* in = dtype_name(p.in);
  w.file("query", c.q, in);
  const char* kv = x.int32_kv ? "int32" : dtype_name(p.kv_in());
  auto stored = [&](const std::vector<HostTensor>& ts) {
    std::vector<HostTensor> out;
    for (const HostTensor& t : ts) out.push_back(x.int32_kv ? pack_int32(t) : t);
    return out;
  };
  if (p.kv == KvStorage::List) {
    w.file_list("key", stored(c.k), kv).file_list("value", stored(c.v), kv);
  } else {
    w.file("key", stored(c.k)[0], kv).file("value", stored(c.v)[0], kv);
  }
  const char *ka = dtype_name(c.aqs.type), *va = dtype_name(c.vaqs.type);
  if (p.antiquant.on && !p.antiquant.separated) w.file("antiquant_scale", c.aqs, ka, "aqs");
  if (p.antiquant.offset && !p.antiquant.separated) w.file("antiquant_offset", c.aqo, ka, "aqo");
  if (p.antiquant.separated)
    w.file("key_antiquant_scale", c.aqs, ka, "kaqs").file("value_antiquant_scale", c.vaqs, va, "vaqs");
  if (p.antiquant.separated && p.antiquant.offset)
    w.file("key_antiquant_offset", c.aqo, ka, "kaqo").file("value_antiquant_offset", c.vaqo, va, "vaqo");
  if (p.antiquant.msd && p.antiquant.separated)
    w.attr("key_antiquant_mode", p.antiquant.k_mode).attr("value_antiquant_mode", p.antiquant.v_mode);
  if (p.antiquant.msd && !p.antiquant.separated) w.attr("antiquant_mode", p.antiquant.k_mode);
  if (p.pse) w.file("pse_shift", c.pse, dtype_name(c.pse.type), "pse");
  if (p.full_quant.on)
    w.file("dequant_scale1", c.deq1, dtype_name(c.deq1.type), "deq1")
        .file("quant_scale1", c.qs1, "float32", "qs1")
        .file("dequant_scale2", c.deq2, dtype_name(c.deq2.type), "deq2");
  if (p.mask != MaskKind::None) {
    HostTensor m = c.mask;
    m.type = x.mask_dtype;  // one byte 0 / 1 in every mask dtype
    w.file("atten_mask", m, dtype_name(x.mask_dtype), "mask");
  }
  if (paged) w.file("block_table", c.bt, "int32");
  if (p.prefix)
    w.file("key_shared_prefix", stored({c.kp})[0], kv, "kp").file("value_shared_prefix", stored({c.vp})[0], kv, "vp");
  if (p.left_pad) {
    HostTensor qp = HostTensor::zeros(ElemType::I64, {1}), kp = HostTensor::zeros(ElemType::I64, {1});
    qp.set(0, double(p.q_pad)), kp.set(0, double(p.kv_pad));
    w.file("query_padding_size", qp, "int64", "qpad").file("kv_padding_size", kp, "int64", "kvpad");
  }
  if (p.post_quant.on) w.file("quant_scale2", c.qs2, dtype_name(c.qs2.type), "qs2");
  if (p.post_quant.offset) w.file("quant_offset2", c.qo2, dtype_name(c.qo2.type), "qo2");
  if (!x.tiling.empty()) w.tiling(x.tiling);
  return w.write();
}

// The compressed sparse-mode mask: (2048, 2048), 1 strictly above the diagonal.
inline HostTensor triu_mask() {
  HostTensor m = HostTensor::zeros(ElemType::Bool, {2048, 2048});
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = i + 1; j < 2048; ++j) m.bytes[size_t(i * 2048 + j)] = 1;
  return m;
}

}  // namespace npusim::op::attntest
