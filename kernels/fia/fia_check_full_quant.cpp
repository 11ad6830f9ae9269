// FIA parameter checks for full quantisation (int8 query, key and value; spec §1.7): the presence rules of
// dequant_scale1 / quant_scale1 / dequant_scale2, their dtypes and the effective scales the kernel uses (stage 2,
// from check_quant), and the features the vendor's int8 prompt kernel rejects (last stage).
// Vendor sources (hicann/ops-transformer c29bc10, prompt_flash_attention tiling and kernel): kernels/fia/README.md
// "Full quantisation".
#include <cmath>
#include <cstring>

#include "isa/numeric/numeric.h"
#include "kernels/fia/fia_checks.h"
#include "kernels/op/op.h"

namespace npusim::op::fia {

namespace {
constexpr const char* kFullQuant[] = {"dequant_scale1", "quant_scale1", "dequant_scale2"};

// The low 32 bits of element 0: a float32's bits, or the fp32 field of an aclnnTransQuantParam uint64 word.
uint32_t low_word(const TensorEntry& e) {
  const HostTensor h = e.data.bytes.empty() ? generate(e.dtype, shape_of(e), e.init) : e.data;
  uint32_t w = 0;
  std::memcpy(&w, h.bytes.data(), 4);  // little-endian storage (host_tensor.h)
  return w;
}

// The FixPipe reads bits [31:13] of the quant word as a (1, 8, 10) float: the fp32 with its low 13 mantissa
// bits cleared (ASC fixpipe gen_data_s322f16.py "M1 ... [31:13]"; kernels/fia/README.md).
float fixpipe_scale(uint32_t word) { return isa::f32_from_bits(word & 0xFFFFE000u); }

// Checks one scale and returns its low word (read once: a generated tensor is generated here).
uint32_t check_scale_tensor(const Ctx& x, const char* name) {
  const std::string label = std::string("inputs.") + name;
  if (!has(x.c, name))
    fail(label +
         " is required with an int8 query (full quantisation needs dequant_scale1, quant_scale1 and dequant_scale2; "
         "spec §1.7)");
  const TensorEntry& t = single(x.c, name);
  const bool deq = name[0] == 'd';
  if (t.dtype != ElemType::F32 && !(deq && t.dtype == ElemType::U64))
    fail(label + " dtype " + elem_type_name(t.dtype) + " is not allowed (" +
         (deq ? "float32, or uint64 in the aclnnTransQuantParam format" : "float32") + "; spec §1.1)");
  if (numel(shape_of(t)) < 1)
    fail(label + " has shape " + dims(shape_of(t)) + ": it must not be empty (element 0 is the per-tensor scale)");
  const uint32_t w = low_word(t);
  const double v = deq ? double(fixpipe_scale(w)) : double(isa::f32_from_bits(w));
  if (!std::isfinite(v)) fail(label + " element 0 = " + std::to_string(v) + " must be a finite scale");
  return w;
}
}  // namespace

void check_full_quant_tensors(Ctx& x) {
  if (x.p.in != ElemType::I8) {
    for (const char* name : kFullQuant)
      if (has(x.c, name)) {
        const TensorEntry& t = single(x.c, name);
        fail(std::string("inputs.") + name + " (" + elem_type_name(t.dtype) + " " + dims(shape_of(t)) +
             ") must not be given with a " + elem_type_name(x.p.in) +
             " query: it belongs to full quantisation (int8 query, key and value; spec §1.7)");
      }
    return;
  }
  if (x.decode())
    fail("inputs.query dtype int8 needs query S > 1: full quantisation has no query S = 1 kernel (query shape " +
         dims(x.q_shape) + "; spec §1.7)");
  uint32_t w[3];
  for (int i = 0; i < 3; ++i) w[i] = check_scale_tensor(x, kFullQuant[i]);
  attn::FullQuant& q = x.p.full_quant;
  q.on = true;
  q.deq1 = fixpipe_scale(w[0]), q.qs1 = isa::f32_from_bits(w[1]), q.deq2 = fixpipe_scale(w[2]);
  q.given_deq1 = isa::f32_from_bits(w[0]), q.given_deq2 = isa::f32_from_bits(w[2]);
  if (x.p.D % 32 != 0)
    fail("inputs.query dtype int8 needs D = " + str(x.p.D) +
         " to be a multiple of 32 (int8 tensors are 32-element aligned; spec §1.7)");
}

// The prompt kernel's int8 restrictions (PFA tiling): no page attention, no shared prefix, no empty K / V (the pse
// is float16: check_pse).
void check_full_quant_rules(const Ctx& x) {
  const attn::AttnProblem& p = x.p;
  if (!p.full_quant.on) return;
  if (p.kv == attn::KvStorage::PagedBsH || p.kv == attn::KvStorage::PagedNBsD)
    fail(
        "inputs.block_table (page attention) is not allowed with an int8 query (\"Query DataType can't be INT8 when PA "
        "enable\"; spec §1.7)");
  if (p.prefix) fail("inputs.key_shared_prefix is not allowed with an int8 query, key and value (spec §1.7)");
  if (x.kv_rows == 0) fail("inputs.key / inputs.value are empty (S = 0): not allowed with an int8 query (spec §1.7)");
}

}  // namespace npusim::op::fia
