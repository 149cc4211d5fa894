// What the blocks tell whoever records a run (results, trace). Passed to each block by
// pointer at construction; a block with no observer records nothing. No globals.
#pragma once
#include "models/common/aql.h"
#include "models/common/messages.h"

#include <systemc>
#include <cstdint>
#include <string>

namespace gpuvp {

// The launch path of one kernel, in order.
enum class Stage : uint8_t {
    packet_fetched,         // CP has read the packet from the queue
    packet_decoded,         // CP has checked it and honoured the acquire fence
    launched,               // CP hands it to the WLM (after any barrier-bit or kernel-slot wait)
    descriptor_fetched,     // WLM has read the kernel descriptor
    isu_written,            // WLM has written every ISU's kernel context
    kernel_registered,      // the kernel's row is in the GLC's kernel status table
    first_block_dispatched, // GLC wrote the first block descriptor to an SM
    first_warp_started,     // the first warp occupies a warp slot
    first_fetch_issued,     // the ISU sent the first instruction fetch to the L1I
    first_fetch_returned,   // the L1I returned it
    kernarg_prefetch_issued,   // M5: the ISU sent the kernel-argument prefetch to the L1D
    kernarg_prefetch_returned, // M5: the L1D acknowledged the last line of it
    first_instruction_issued,
    kernarg_load_done,      // the kernel arguments are in the warp's hands
    last_block_done,        // every block has finished
    count
};
const char* stage_name(Stage s);

struct WarpRecord {
    uint32_t sm, slot, kernel_slot;
    uint64_t block;
    uint32_t warp;  // index within its block
    sc_core::sc_time start, end;
    uint64_t instructions;
};

class Observer {
public:
    virtual ~Observer() = default;
    virtual void doorbell(uint32_t queue, uint64_t value, const sc_core::sc_time& t) {}
    // The CP took the packet at `packet` of `queue` and gave it `slot`; `doorbell` is when
    // the doorbell that made it visible arrived.
    virtual void kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet,
                                 const sc_core::sc_time& doorbell, const sc_core::sc_time& t) {}
    virtual void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) {}
    // The completion signal has been written (or the kernel failed); the slot is free after.
    virtual void kernel_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) {}
    virtual void barrier_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start,
                              const sc_core::sc_time& end) {}
    virtual void packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why,
                                 const sc_core::sc_time& t) {}
    virtual void block_started(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) {}
    virtual void block_finished(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) {}
    virtual void warp_finished(const WarpRecord& w) {}
    // Whether table_update is wanted (formatting the values costs time).
    virtual bool wants_table_updates() const { return false; }
    // A row of a register table changed (block: "glc" or "sm[3]"; table: its name).
    virtual void table_update(const std::string& block, const char* table, uint64_t row,
                              const std::string& values, const sc_core::sc_time& t) {}
    virtual void irq(bool level, const sc_core::sc_time& t) {}
};

}  // namespace gpuvp
