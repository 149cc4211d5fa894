#pragma once
#include <cstdint>

namespace gpuvp {

// Command processor timing, in GPU clock cycles (the CP runs firmware on a microcontroller).
struct CpConfig {
    uint32_t max_queues = 16;             // hardware queue slots reachable through mmio
    uint64_t max_blocks = 1ull << 48;     // blocks (workgroups) a dispatch packet may have
    uint32_t wakeup_cycles = 600;         // doorbell seen -> packet processor scheduled
    uint32_t decode_cycles = 900;         // parse and check one AQL packet
    uint32_t barrier_cycles = 300;        // evaluate a barrier-AND/OR packet
    uint32_t completion_cycles = 300;     // kernel end -> completion signal write issued
    uint32_t fence_acquire_agent_cycles = 150;   // invalidate L1s
    uint32_t fence_acquire_system_cycles = 450;  // invalidate L1s and L2's system lines
    uint32_t fence_release_agent_cycles = 150;   // write back to agent scope
    uint32_t fence_release_system_cycles = 750;  // write back to system scope
    uint32_t irq_cycles = 30;             // signal written -> irq raised
    // The longest interval between two looks at a packet header or a barrier's signal whose
    // watch no memory acknowledged (docs/models/cp.md, "Polling"): the first look again comes
    // after a sixteenth of it, each next one after twice the last while nothing changed.
    uint64_t signal_poll_ns = 1000;
};

}  // namespace gpuvp
