// `priority-warp` (M1, the seed's placement):
//   1. the highest-priority kernel with blocks left (ties: the earliest);
//   2. a full-block SM (room for a whole block; the next one round-robin): as many blocks as
//      fit there now, min(undispatched, first number);
//   3. else a first SM (room for one warp: a free slot, one warp's registers and the block's
//      shared memory; the one with the most free registers): one block, whose warps the SM
//      starts one by one as resources free;
//   4. else a second SM (its highest block priority lower than the kernel's; among several,
//      the one SecondSmChoice names): one block, which takes the SM's next freed slots ahead
//      of the lower-priority work. An SM running equal or higher priority work is never a
//      second SM.
#pragma once
#include <gpuvp/models/glc/placement_policy.h>

namespace gpuvp {

class PriorityWarpPlacement : public PlacementPolicy {
public:
    explicit PriorityWarpPlacement(SecondSmChoice second_sm = SecondSmChoice::lowest_priority)
        : second_choice_(second_sm) {}
    const char* name() const override { return policy_name(DispatchPolicy::priority_warp); }
    std::optional<Placement> next(const GlcTables& t) override;

private:
    int second_sm(const GlcTables& t, const KernelRow& k);
    SecondSmChoice second_choice_;
    uint32_t last_sm_ = ~0u;         // the last full-block SM
    uint32_t last_second_ = ~0u;     // the last second SM (round-robin)
};

// Room for at least one warp of `k`: a slot, one warp's registers, the block's shared memory.
inline bool fits_warp(const SmRow& sm, const KernelRow& k) {
    return sm.free_slots >= 1 && sm.free_regs >= k.regs_per_warp && sm.free_shared >= k.shared_per_block;
}

}  // namespace gpuvp
