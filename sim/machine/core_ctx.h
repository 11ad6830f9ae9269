#pragma once
// The kernel-authoring API: what a kernel program running on one core's scalar unit sees. Plain C++ control
// flow; every instruction is one call (issue() or a helper), costs scalar issue cycles and is executed later
// by its pipe at simulated time. Buffers are allocated with capacity checks. See kernels/README.md.
#include <cstdint>
#include <string>
#include <string_view>

#include "isa/instr/instr.h"
#include "isa/instr/sync_rules.h"
#include "sim/config/hw_config.h"

namespace npusim::sim {

class CoreCtx {
 public:
  virtual ~CoreCtx() = default;

  // --- identity ---
  virtual int block_idx() const = 0;      // which block of the launch this core runs
  virtual int block_num() const = 0;      // block_dim of the launch
  virtual int sub_block_idx() const = 0;  // 0 / 1 for the two AIVs of an AI Core in a 1:2 mix, else 0
  virtual isa::CoreKind kind() const = 0;
  virtual const HwConfig& hw() const = 0;
  virtual std::string name() const = 0;  // aic3, aiv7, core0

  // --- buffers ---
  // Allocates `bytes` in a local buffer (aligned to the buffer's rule or `align`); throws
  // KernelInputError naming `what`, the request and the capacity when it does not fit.
  virtual isa::Addr alloc(isa::Buf buf, uint64_t bytes, const std::string& what, uint64_t align = 0) = 0;
  virtual void free_all(isa::Buf buf) = 0;  // start a fresh layout of one buffer
  virtual uint64_t capacity(isa::Buf buf) const = 0;
  // A named GM allocation (input, output or workspace) plus a byte offset.
  virtual isa::Addr gm(const std::string& name, uint64_t offset = 0) const = 0;

  // --- instructions ---
  virtual void issue(const isa::Instr& in) = 0;
  // Program-order bookkeeping, no simulated time: whether this program issued an instruction to pipe `p` since
  // p's last pipe_barrier, set_flag / cross_set from p, pipe_barrier(ALL) or sync_all -- i.e. whether a
  // pipe_barrier(p) would order anything (isa/README.md "Same-pipe ordering").
  virtual bool outstanding(isa::Pipe p) const = 0;
  // GM scalar load through the scalar unit (waits for the data: costs the load latency).
  virtual int64_t load_scalar(isa::DType t, isa::Addr gm_addr) = 0;

  // --- trace annotation (no instruction, no simulated cost) ---
  // The instructions issued from here to this core's next stage() form one stage of the kernel's pipeline: the
  // trace draws it as a span labelled "NAME uUNIT bBLOCK" (a negative unit / block is left out) from its first
  // start to its last end, and instructions.csv gives each row its stage. Nothing happens without a trace.
  virtual void stage(std::string_view name, int64_t unit = -1, int64_t block = -1) = 0;

  // --- sync helpers (each issues one instruction) ---
  void set_flag(isa::Pipe src, isa::Pipe dst, int event) { issue(isa::SetFlag{src, dst, static_cast<uint8_t>(event)}); }
  void wait_flag(isa::Pipe src, isa::Pipe dst, int event) {
    issue(isa::WaitFlag{src, dst, static_cast<uint8_t>(event)});
  }
  void pipe_barrier(isa::Pipe p) { issue(isa::PipeBarrier{p}); }
  void cross_set(int mode, int flag_id, isa::Pipe pipe) {
    issue(isa::CrossSet{static_cast<uint8_t>(mode), static_cast<uint8_t>(flag_id), pipe});
  }
  void cross_wait(int flag_id) { issue(isa::CrossWait{static_cast<uint8_t>(flag_id)}); }
  void sync_all() { issue(isa::SyncAll{}); }
};

}  // namespace npusim::sim
