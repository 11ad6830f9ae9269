#pragma once
// Cross-core flag ids of the attention kernels (mode 2: an AIC and its AIV pair). Every step of a core's step
// list (schedule.h) uses each once in each direction, in step order, so sets and waits pair up one to one
// (Q_READY once per unit).
namespace npusim::op::attn {

inline constexpr int kFlagSReady = 0;  // AIC -> AIVs: scores of a block are in the workspace
inline constexpr int kFlagPReady = 1;  // AIVs -> AIC: P of a block is in the workspace
inline constexpr int kFlagOReady = 2;  // AIC -> AIVs: P V of a block is in the workspace
inline constexpr int kFlagQReady =
    3;  // AIVs -> AIC: MSD: the query limbs of a unit are in the workspace (once per unit)

}  // namespace npusim::op::attn
