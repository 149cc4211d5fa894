// The GLC's register tables (M1): kernel status and SM status. Plain data, so placement
// policies are pure functions of them and testable without a simulation.
#pragma once
#include <gpuvp/models/common/messages.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuvp {

// One row of the kernel status register table (its transport_dbg image is the first 32 bytes).
struct KernelRow {
    uint32_t priority = 0;
    uint32_t regs_per_warp = 0;
    uint32_t regs_per_block = 0;
    uint32_t shared_per_block = 0;
    uint32_t warps_per_block = 0;
    uint32_t valid = 0;
    uint64_t undispatched = 0;  // blocks not yet dispatched
    // Bookkeeping beyond the table image:
    uint64_t blocks = 0, dispatched = 0, finished = 0;
    uint32_t threads_per_block = 0;
    uint32_t grid_size[3] = {1, 1, 1};
    uint16_t workgroup_size[3] = {1, 1, 1};
    uint64_t arrival = 0;       // registration order
    KernelError error = KernelError::none;
    uint64_t fault_address = 0;
};

// One row of the SM status register table.
struct SmRow {
    uint32_t free_regs = 0;
    uint32_t free_slots = 0;
    uint32_t free_shared = 0;
    uint32_t highest_priority = kNoPriority;  // of the blocks present on the SM
};

struct GlcTables {
    std::vector<KernelRow> kernels;  // index = kernel slot
    std::vector<SmRow> sms;          // index = SM id
};

// Whether `sm` has room for `n` whole blocks of `k` now.
inline bool fits_blocks(const SmRow& sm, const KernelRow& k, uint64_t n = 1) {
    return sm.free_regs >= k.regs_per_block * n && sm.free_slots >= k.warps_per_block * n &&
           sm.free_shared >= k.shared_per_block * n;
}

// How many whole blocks of `k` fit on `sm` now (the seed's "first number").
inline uint64_t blocks_that_fit(const SmRow& sm, const KernelRow& k) {
    uint64_t n = k.warps_per_block ? sm.free_slots / k.warps_per_block : 0;
    if (k.regs_per_block) n = std::min<uint64_t>(n, sm.free_regs / k.regs_per_block);
    if (k.shared_per_block) n = std::min<uint64_t>(n, sm.free_shared / k.shared_per_block);
    return n;
}

}  // namespace gpuvp
