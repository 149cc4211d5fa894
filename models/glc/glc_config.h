#pragma once
#include <gpuvp/models/common/policies.h>

#include <cstdint>

namespace gpuvp {

// M1, `priority-warp`: which SM step 4 binds a block to when several run only lower-priority
// work (the seed says only that the SM's work is of lower priority).
enum class SecondSmChoice : uint8_t {
    lowest_priority,  // the SM whose highest block priority is lowest, then the most free registers
    most_free,        // the most free registers (less what its unstarted warps need), then the lowest priority
    round_robin,      // the next such SM after the last second-SM placement
};
template <>
struct PolicyNameTable<SecondSmChoice> {
    static constexpr std::array<const char*, 3> names{"lowest-priority", "most-free", "round-robin"};
};

// Global logic controller timing, in GPU clock cycles. The same under every placement policy:
// a placement of n blocks on one SM takes decision_cycles + n × descriptor_cycles.
struct GlcConfig {
    uint32_t decision_cycles = 12;   // one placement decision: read the tables, pick a kernel, an SM, a count
    uint32_t descriptor_cycles = 0;  // each block descriptor the decision writes, one after another
    SecondSmChoice second_sm = SecondSmChoice::lowest_priority;  // M1, priority-warp's step 4
};

// The dispatcher's cycles for `blocks` blocks placed `per_placement` at a time (the last
// placement takes what is left).
inline uint64_t placement_cycles(const GlcConfig& c, uint64_t blocks, uint64_t per_placement) {
    const uint64_t placements = (blocks + per_placement - 1) / (per_placement ? per_placement : 1);
    return placements * c.decision_cycles + blocks * c.descriptor_cycles;
}

}  // namespace gpuvp
