// A warp's loop stack (loop_begin / loop_end), kept by the SM and, for M2's checkpoint, by the
// lock unit.
#pragma once
#include <gpuvp/models/common/isa.h>

#include <array>
#include <cstdint>

namespace gpuvp {

struct LoopFrame {
    uint64_t body_pc;
    uint32_t remaining;
};
using LoopStack = std::array<LoopFrame, kMaxLoopDepth>;

}  // namespace gpuvp
