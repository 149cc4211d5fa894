#pragma once
#include <cstdint>

namespace gpuvp {

// Global logic controller timing, in GPU clock cycles. The same under every placement policy:
// a placement of n blocks on one SM takes decision_cycles + n × descriptor_cycles.
struct GlcConfig {
    uint32_t decision_cycles = 12;   // one placement decision: read the tables, pick a kernel, an SM, a count
    uint32_t descriptor_cycles = 0;  // each block descriptor the decision writes, one after another
};

// The dispatcher's cycles for `blocks` blocks placed `per_placement` at a time (the last
// placement takes what is left).
inline uint64_t placement_cycles(const GlcConfig& c, uint64_t blocks, uint64_t per_placement) {
    const uint64_t placements = (blocks + per_placement - 1) / (per_placement ? per_placement : 1);
    return placements * c.decision_cycles + blocks * c.descriptor_cycles;
}

}  // namespace gpuvp
