#pragma once
// pto-isa's include/pto/npu/a2a3/custom/TSyncCVID.hpp for npusim: the cross-core message encoding and the
// comm-slot handshake.
#include <pto/pto-inst.hpp>

namespace pto {

enum CVCommFftsEvent : uint16_t { CV_COMM_CTRL = 12, CV_COMM_RSVD_13, CV_COMM_RSVD_14, CV_COMM_RSVD_15 };
constexpr int kCvCommSlotBytes = 512;
constexpr int kCvMaxCores = 25;
enum CVSyncMode : uint16_t { C_ALL_CORE_SYNC = 0, V_ALL_CORE_SYNC = 0, V_SUBCORES_SYNC = 1, CV_CORE_SYNC = 2 };

inline uint16_t _getFFTSMsg(CVSyncMode mode, uint16_t flag_id, uint16_t base = 0x1) {
  return uint16_t((base & 0xf) + ((mode & 0x3) << 4) + ((flag_id & 0xf) << 8));
}

// On the device the cube core publishes its physical core id through GM so that a block's cube and vector cores
// agree on a FIFO slot. npusim's blocks are their own slots (distinct per block, as the ids are), so the slot is
// the block index and no handshake runs (it would need flag 12, beyond npusim's 0-10, and a scalar GM read).
template <int CV_COMM_SLOT_BYTES = kCvCommSlotBytes, int CV_MAX_CORES = kCvMaxCores>
inline int TSYNC_CVID(int block_idx, __gm__ uint8_t*) {
  return block_idx;
}

}  // namespace pto
