#include "isa/instr/operand.h"

#include <cstdio>

namespace npusim::isa {

void isa_fail(const std::string& msg) { throw IsaError(msg); }

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

uint64_t buf_alignment(Buf b) {
  switch (b) {
    case Buf::GM: return 1;
    case Buf::L1:
    case Buf::UB: return kBlockBytes;
    case Buf::L0A:
    case Buf::L0B: return kFractalBytes;
    case Buf::L0C:
    case Buf::BT:
    case Buf::FB: return 64;
  }
  return 1;
}

uint8_t* operand_bytes(const ExecContext& ctx, const char* operand, Addr a, uint64_t len,
                       std::initializer_list<Buf> allowed, uint64_t align) {
  bool ok = false;
  std::string names;
  for (Buf b : allowed) {
    ok |= b == a.buf;
    names += (names.empty() ? "" : " or ") + std::string(buf_name(b));
  }
  if (!ok)
    isa_fail("operand " + std::string(operand) + ": buffer " + std::string(buf_name(a.buf)) +
             " is not allowed here (expected " + names + ")");
  const auto& span = ctx.mem[a.buf];
  if (span.empty())
    isa_fail("operand " + std::string(operand) + ": buffer " + std::string(buf_name(a.buf)) +
             " does not exist on this core");
  const uint64_t al = align ? align : buf_alignment(a.buf);
  if (a.off % al != 0)
    isa_fail("operand " + std::string(operand) + ": address " + hex(a.off) + " in " + std::string(buf_name(a.buf)) +
             " is not aligned to " + std::to_string(al) + " bytes");
  if (a.off > span.size() || len > span.size() - a.off)
    isa_fail("operand " + std::string(operand) + ": " + std::string(buf_name(a.buf)) + " range [" + hex(a.off) + ", " +
             hex(a.off + len) + ") exceeds the buffer size " + hex(span.size()));
  return span.data() + a.off;
}

void check_field(const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    isa_fail("field " + std::string(field) + " = " + std::to_string(value) + " is outside [" + std::to_string(lo) +
             ", " + std::to_string(hi) + "]");
}

}  // namespace npusim::isa
