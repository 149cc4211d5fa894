#pragma once
#include <cstdint>

namespace gpuvp {

// Global logic controller timing, in GPU clock cycles.
struct GlcConfig {
    uint32_t dispatch_cycles = 12;  // one placement decision and its block descriptor write
};

}  // namespace gpuvp
