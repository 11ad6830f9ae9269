#pragma once
// The named events of the vector blocks (vec_blocks.h; internal to kernels/attention/*.cpp).
#include "kernels/tile/events.h"

namespace npusim::op::attn::vec_events {

using isa::Pipe;
using tile::Event;

inline constexpr Event kXLoaded{Pipe::MTE2, Pipe::V, 0};     // .at(0 / 1): x staging buffer filled
inline constexpr Event kXFree{Pipe::V, Pipe::MTE2, 0};       // .at(0 / 1): x staging buffer read
inline constexpr Event kSideLoaded{Pipe::MTE2, Pipe::V, 2};  // mask / pse rows of a sub-tile in UB
inline constexpr Event kSideFree{Pipe::V, Pipe::MTE2, 3};    // ... consumed
inline constexpr Event kOaccFree{Pipe::V, Pipe::MTE2, 4};    // the O accumulator may be overwritten (first-block load)
inline constexpr Event kOaccLoaded{Pipe::MTE2, Pipe::V, 5};  // the first block's O is in the accumulator
inline constexpr Event kCombineLoaded{Pipe::MTE2, Pipe::V, 6};
inline constexpr Event kCombineFree{Pipe::V, Pipe::MTE2, 6};
inline constexpr Event kQuantLoaded{Pipe::MTE2, Pipe::V, 7};  // post-quant scale / offset rows in UB
inline constexpr Event kQuantFree{Pipe::V, Pipe::MTE2, 7};    // ... consumed
inline constexpr Event kMsdLoaded{Pipe::MTE2, Pipe::V, 3};    // MSD: limb tiles / parameter rows / query rows in UB
inline constexpr Event kMsdFree{Pipe::V, Pipe::MTE2, 2};      // ... consumed (the limb tiles also serve as scratch)
inline constexpr Event kCastFull{Pipe::V, Pipe::MTE3, 0};     // .at(0 / 1): cast buffer holds rows to store
inline constexpr Event kCastFree{Pipe::MTE3, Pipe::V, 0};     // .at(0 / 1): ... stored
inline constexpr Event kLseFull{Pipe::V, Pipe::MTE3, 2};
inline constexpr Event kLseFree{Pipe::MTE3, Pipe::V, 2};
inline constexpr Event kConstantsReady{Pipe::V, Pipe::MTE3, 3};  // the zero rows exist before any store reads them
inline constexpr Event kPartialFull{Pipe::V, Pipe::MTE3, 4};
inline constexpr Event kPartialStored{Pipe::MTE3, Pipe::V, 4};

}  // namespace npusim::op::attn::vec_events
