#include "kernels/pto/runtime.h"

#include <cstring>

#include "kernels/pto/lower.h"

namespace npusim::pto {

using npusim_pto::Elem;
using npusim_pto::Loc;
using npusim_pto::Op;

namespace {
const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// pipe_t as pto/npusim/types.hpp numbers it (pto-isa's cpu_stub.hpp numbering).
isa::Pipe pipe_of(int p, const char* what) {
  using isa::Pipe;
  static const Pipe pipes[] = {Pipe::S, Pipe::V, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::M, Pipe::ALL, Pipe::FIX};
  if (p < 0 || p > 7) throw PtoError(std::string(what) + ": pipe " + std::to_string(p) + " is not a pipe_t");
  return pipes[p];
}

// A cross-core flag id, checked against npusim's range.
int cross_flag(int id, const char* what, const char* file, int line) {
  if (id < 0 || id >= isa::kNumCrossFlags)
    throw PtoError(std::string("PTO ") + what + " at " + base_name(file) + ":" + std::to_string(line) + ": flag id " +
                   std::to_string(id) + " is outside npusim's 0-" + std::to_string(isa::kNumCrossFlags - 1) +
                   " (hardware.md section 1)");
  return id;
}

isa::Buf buf_of(Loc l) {
  switch (l) {
    case Loc::Vec: return isa::Buf::UB;
    case Loc::Mat: return isa::Buf::L1;
    case Loc::Left: return isa::Buf::L0A;
    case Loc::Right: return isa::Buf::L0B;
    case Loc::Acc: return isa::Buf::L0C;
    case Loc::Bias: return isa::Buf::BT;
    case Loc::Scaling: return isa::Buf::FB;
  }
  return isa::Buf::UB;
}

const char* loc_name(Loc l) {
  static const char* const names[] = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling"};
  return names[static_cast<int>(l)];
}
const char* elem_name(Elem e) {
  static const char* const names[] = {"f16", "bf16", "f32", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"};
  return names[static_cast<int>(e)];
}
}  // namespace

std::string where(const npusim_pto::Call& k) {
  return std::string(npusim_pto::op_name(k.op)) + " at " + base_name(k.file) + ":" + std::to_string(k.line);
}

bool is_nz(const TileRef& t) {
  return t.blayout == npusim_pto::Layout2::ColMajor && t.slayout == npusim_pto::Box::RowMajor;
}
bool is_zn(const TileRef& t) {
  return t.blayout == npusim_pto::Layout2::RowMajor && t.slayout == npusim_pto::Box::ColMajor;
}

std::string describe(const TileRef& t) {
  std::string s = std::string(loc_name(t.loc)) + " " + elem_name(t.elem) + " " + std::to_string(t.rows) + "x" +
                  std::to_string(t.cols);
  if (t.valid_rows != t.rows || t.valid_cols != t.cols)
    s += " (valid " + std::to_string(t.valid_rows) + "x" + std::to_string(t.valid_cols) + ")";
  if (is_nz(t)) s += " NZ";
  else if (is_zn(t)) s += " ZN";
  else s += t.blayout == npusim_pto::Layout2::RowMajor ? " row-major" : " col-major";
  return s;
}

Gm2 gm2(const Lowering& l) {
  const GmRef& g = l.k.g;
  l.require(g.shape[0] * g.shape[1] * g.shape[2] == 1,
            "the GlobalTensor's outer dimensions (shape[0..2]) must be 1 (got " + std::to_string(g.shape[0]) + "x" +
                std::to_string(g.shape[1]) + "x" + std::to_string(g.shape[2]) + ")");
  return {g.shape[3], g.shape[4], g.stride[3], g.stride[4]};
}

void Lowering::fail(const std::string& why) const { throw PtoError("PTO " + where(k) + ": " + why); }

isa::DType Lowering::dtype(Elem e) const {
  switch (e) {
    case Elem::F16: return isa::DType::F16;
    case Elem::BF16: return isa::DType::BF16;
    case Elem::F32: return isa::DType::F32;
    case Elem::I8: return isa::DType::I8;
    case Elem::U8: return isa::DType::U8;
    case Elem::I16: return isa::DType::I16;
    case Elem::I32: return isa::DType::I32;
    default: fail(std::string("element type ") + elem_name(e) + " has no npusim instructions");
  }
}

isa::Addr Lowering::at(const TileRef& t) const {
  require(t.assigned, "the " + describe(t) + " tile has no address: bind it with TASSIGN first");
  return {buf_of(t.loc), t.addr};
}

isa::Addr Lowering::at(const GmRef& g) const {
  require(g.ptr >= npusim_pto::kGmBase, "the GlobalTensor's pointer is not a GM pointer of this launch");
  return {isa::Buf::GM, g.ptr - npusim_pto::kGmBase};
}

int PtoRuntime::subblock_num() { return cur_->kind() == isa::CoreKind::Vector && subblocks_ > 1 ? subblocks_ : 1; }

void PtoRuntime::sync(npusim_pto::Sync kind, int src_pipe, int dst_pipe, int event, const char* file, int line) {
  sim::CoreCtx& c = *cur_;
  switch (kind) {
    case npusim_pto::Sync::SetFlag:
      c.set_flag(pipe_of(src_pipe, "set_flag"), pipe_of(dst_pipe, "set_flag"), event);
      break;
    case npusim_pto::Sync::WaitFlag:
      c.wait_flag(pipe_of(src_pipe, "wait_flag"), pipe_of(dst_pipe, "wait_flag"), event);
      break;
    case npusim_pto::Sync::PipeBarrier: c.pipe_barrier(pipe_of(src_pipe, "pipe_barrier")); break;
    case npusim_pto::Sync::CrossSet:
      // mode 2 (CV_CORE_SYNC) is npusim's AIC <-> AIV-pair mode; 1 the two AIVs of a core; 0 all cores of a kind.
      c.cross_set(dst_pipe, cross_flag(event, "ffts_cross_core_sync", file, line),
                  pipe_of(src_pipe, "ffts_cross_core_sync"));
      break;
    case npusim_pto::Sync::CrossWait: c.cross_wait(cross_flag(event, "wait_flag_dev", file, line)); break;
  }
  cur_ = &c;  // the core may have yielded: make it current again
}

namespace {
// The event the unit-flag hand-over uses on the M <-> FIX flag pairs (kernels/pto/README.md "Unit flags").
constexpr int kUnitFlagEvent = 7;

bool is_acc_store(const npusim_pto::Call& k) { return k.op == Op::TSTORE && k.t[0].loc == Loc::Acc; }
bool is_mmad(const npusim_pto::Call& k) { return k.op == Op::TMATMUL || k.op == Op::TMATMUL_ACC; }
std::pair<uint64_t, uint64_t> acc_range(const TileRef& t) {
  return {t.addr, t.addr + uint64_t(t.rows) * uint64_t(t.cols) * 4};
}
bool overlaps(const std::vector<std::pair<uint64_t, uint64_t>>& v, std::pair<uint64_t, uint64_t> r) {
  for (const auto& [lo, hi] : v)
    if (lo < r.second && r.first < hi) return true;
  return false;
}
}  // namespace

// On the device a store with a unit flag waits for the Final mmads writing what it reads, and a phased mmad for
// the stores reading what it overwrites, with no set_flag / wait_flag in the program. npusim orders the same pairs
// with a hand-over on the pipes' flags (the whole instruction, not the device's per-fractal overlap).
void PtoRuntime::order_unit_flags(sim::CoreCtx& c, const npusim_pto::Call& k) {
  if (k.mode == 0) return;
  UnitFlags& u = unit_flags_[&c];
  if (is_acc_store(k) && overlaps(u.final_written, acc_range(k.t[0]))) {
    c.set_flag(isa::Pipe::M, isa::Pipe::FIX, kUnitFlagEvent);
    c.wait_flag(isa::Pipe::M, isa::Pipe::FIX, kUnitFlagEvent);
    u.final_written.clear();
  }
  if (is_mmad(k) && overlaps(u.stored, acc_range(k.t[0]))) {
    c.set_flag(isa::Pipe::FIX, isa::Pipe::M, kUnitFlagEvent);
    c.wait_flag(isa::Pipe::FIX, isa::Pipe::M, kUnitFlagEvent);
    u.stored.clear();
  }
}

void PtoRuntime::note_unit_flags(const npusim_pto::Call& k) {
  if (k.mode == 0) return;
  UnitFlags& u = unit_flags_[cur_];
  if (is_acc_store(k)) u.stored.push_back(acc_range(k.t[0]));
  if (is_mmad(k) && k.mode == 3) u.final_written.push_back(acc_range(k.t[0]));  // AccPhase::Final
}

void PtoRuntime::call(const npusim_pto::Call& k) {
  sim::CoreCtx& c = *cur_;
  c.stage(npusim_pto::op_name(k.op), k.line);  // trace: each tile instruction is a stage, labelled with its line
  const Lowering l{c, k};
  order_unit_flags(c, k);
  if (!lower_cube(l) && !lower_vec(l)) l.fail("not supported by npusim's PTO front end (kernels/pto/README.md)");
  cur_ = &c;
  note_unit_flags(k);
}

}  // namespace npusim::pto

namespace npusim_pto {
const char* op_name(Op op) {
  static const char* const names[] = {
      "TLOAD",         "TSTORE",        "TEXTRACT",      "TMOV",          "TMATMUL", "TMATMUL_ACC",
      "TADD",          "TSUB",          "TMUL",          "TDIV",          "TMAX",    "TMIN",
      "TADDS",         "TSUBS",         "TMULS",         "TDIVS",         "TMAXS",   "TMINS",
      "TEXP",          "TLOG",          "TABS",          "TSQRT",         "TRSQRT",  "TRECIP",
      "TRELU",         "TEXPANDS",      "TROWMAX",       "TROWSUM",       "TROWMIN", "TROWEXPAND",
      "TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDDIV", "TCVT",    "TTRI"};
  static_assert(sizeof(names) / sizeof(names[0]) == int(Op::TTRI) + 1);
  return names[int(op)];
}
}  // namespace npusim_pto
