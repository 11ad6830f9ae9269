#pragma once
// pto-isa's include/pto/npu/a2a3/custom/TSync_Custom.hpp for npusim: a producer / consumer pair of cross-core
// flags between a cube core and its vector cores through GM. Each instance uses flag_id ("data ready") and
// flag_id + 1 ("slot free"); record / free signal, wait / allocate block (wait_flag_dev).
#include <pto/npu/a2a3/custom/TSyncCVID.hpp>
#include <pto/pto-inst.hpp>

namespace pto {

enum class SyncOpType : uint8_t { TSTORE_C2GM, TSTORE_V2GM, TLOAD };

template <SyncOpType ProducerOp, SyncOpType ConsumerOp>
struct TSync_Custom {
  static_assert(ConsumerOp == SyncOpType::TLOAD, "TSync_Custom: the consumer is a TLOAD");
  static constexpr bool is_c2v = ProducerOp == SyncOpType::TSTORE_C2GM;
  uint16_t flag_id;
  // The producer's data is in GM: signalled from the pipe that wrote it (FixPipe for cube, MTE3 for vector).
  void record(std::source_location loc = std::source_location::current()) const {
    ffts_cross_core_sync(is_c2v ? PIPE_FIX : PIPE_MTE3, _getFFTSMsg(CV_CORE_SYNC, flag_id), loc);
  }
  void wait(std::source_location loc = std::source_location::current()) const { wait_flag_dev(flag_id, loc); }
  void allocate(std::source_location loc = std::source_location::current()) const { wait_flag_dev(flag_id + 1, loc); }
  // The consumer has loaded the slot (MTE2): the producer may overwrite it.
  void free(std::source_location loc = std::source_location::current()) const {
    ffts_cross_core_sync(PIPE_MTE2, _getFFTSMsg(CV_CORE_SYNC, uint16_t(flag_id + 1)), loc);
  }
};

}  // namespace pto
