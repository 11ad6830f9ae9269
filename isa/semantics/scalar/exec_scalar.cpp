// Scalar unit: 64-bit integer registers r0..r31, ALU operations and GM scalar loads / stores.
#include <cstring>

#include "isa/instr/operand.h"
#include "isa/semantics/exec_impl.h"

namespace npusim::isa::impl {

namespace {
ScalarRegs& regs_of(const ExecContext& ctx) {
  if (!ctx.regs) isa_fail("scalar instruction executed without a scalar register file");
  return *ctx.regs;
}

void check_reg(const char* field, int r) { check_field(field, r, 0, kNumScalarRegs - 1); }

int64_t alu(SAluOp op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case SAluOp::Add: return static_cast<int64_t>(ua + ub);  // wraps, as a 64-bit register does
    case SAluOp::Sub: return static_cast<int64_t>(ua - ub);
    case SAluOp::Mul: return static_cast<int64_t>(ua * ub);
    case SAluOp::Div:
      if (b == 0) isa_fail("division by zero");
      return (a == INT64_MIN && b == -1) ? a : a / b;
    case SAluOp::Rem:
      if (b == 0) isa_fail("remainder by zero");
      return (a == INT64_MIN && b == -1) ? 0 : a % b;
    case SAluOp::Min: return a < b ? a : b;
    case SAluOp::Max: return a > b ? a : b;
    case SAluOp::And: return a & b;
    case SAluOp::Or: return a | b;
    case SAluOp::Xor: return a ^ b;
    case SAluOp::Shl: check_field("shift", b, 0, 63); return static_cast<int64_t>(ua << b);
    case SAluOp::Shr:  // arithmetic shift
      check_field("shift", b, 0, 63);
      return a >> b;
  }
  return 0;
}

int scalar_bytes(DType t) {
  switch (t) {
    case DType::I8:
    case DType::U8: return 1;
    case DType::I16:
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I32:
    case DType::F32: return 4;
    case DType::I4: break;
  }
  isa_fail("scalar load / store of type " + std::string(dtype_name(t)) + " is not supported");
}

// Signed integer types sign-extend; float types load their raw bit pattern zero-extended.
int64_t widen(DType t, const uint8_t* p) {
  switch (t) {
    case DType::I8: return static_cast<int8_t>(p[0]);
    case DType::U8: return p[0];
    case DType::I16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::F32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::I4: break;
  }
  return 0;
}

Addr effective(const ExecContext& ctx, Addr a, int8_t index_reg) {
  if (index_reg < 0) return a;
  check_reg("index_reg", index_reg);
  const uint64_t off = a.off + static_cast<uint64_t>((*ctx.regs)[index_reg]);
  if (off > Addr::kMaxOff)
    isa_fail("address " + std::string(buf_name(a.buf)) + ":" + hex(a.off) + " plus index register r" +
             std::to_string(index_reg) + " = " + std::to_string((*ctx.regs)[index_reg]) + " is beyond 2^" +
             std::to_string(Addr::kOffBits) + " - 1");
  return Addr{a.buf, off};
}
}  // namespace

void exec(const SMov& in, ExecContext& ctx) {
  check_reg("rd", in.rd);
  regs_of(ctx)[in.rd] = in.imm;
}

void exec(const SAlu& in, ExecContext& ctx) {
  auto& r = regs_of(ctx);
  check_reg("rd", in.rd);
  check_reg("ra", in.ra);
  if (!in.use_imm) check_reg("rb", in.rb);
  r[in.rd] = alu(in.op, r[in.ra], in.use_imm ? in.imm : r[in.rb]);
}

void exec(const SLoad& in, ExecContext& ctx) {
  auto& r = regs_of(ctx);
  check_reg("rd", in.rd);
  const int n = scalar_bytes(in.dtype);
  const uint8_t* p = operand_bytes(ctx, "addr", effective(ctx, in.addr, in.index_reg), n, {Buf::GM}, n);
  r[in.rd] = widen(in.dtype, p);
}

// The data it drops is the machine's (sim/machine/dcache.h); here only the operand is checked: a GM line.
void exec(const Dcci& in, ExecContext& ctx) {
  if (!in.all) operand_bytes(ctx, "addr", in.addr, 1, {Buf::GM}, 1);
}

void exec(const SStore& in, ExecContext& ctx) {
  auto& r = regs_of(ctx);
  check_reg("rs", in.rs);
  const int n = scalar_bytes(in.dtype);
  uint8_t* p = operand_bytes(ctx, "addr", effective(ctx, in.addr, in.index_reg), n, {Buf::GM}, n);
  const int64_t v = r[in.rs];
  std::memcpy(p, &v, n);  // little-endian: the low bytes of the register
}

}  // namespace npusim::isa::impl
