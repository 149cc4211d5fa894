#include <gpuvp/models/glc/placement_policy.h>
#include <gpuvp/models/glc/fifo_placement.h>
#include <gpuvp/models/glc/priority_block_placement.h>
#include <gpuvp/models/glc/priority_warp_placement.h>

namespace gpuvp {

std::unique_ptr<PlacementPolicy> make_placement_policy(DispatchPolicy policy, SecondSmChoice second_sm) {
    switch (policy) {
    case DispatchPolicy::fifo: return std::make_unique<FifoPlacement>();
    case DispatchPolicy::priority_block: return std::make_unique<PriorityBlockPlacement>();
    case DispatchPolicy::priority_warp: return std::make_unique<PriorityWarpPlacement>(second_sm);
    }
    return nullptr;
}

const char* placement_kind_name(PlacementKind k) {
    switch (k) {
    case PlacementKind::whole_blocks: return "whole_blocks";
    case PlacementKind::first_sm: return "first_sm";
    case PlacementKind::second_sm: return "second_sm";
    }
    return "?";
}

int highest_priority_kernel(const GlcTables& t) {
    int best = -1;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const KernelRow& k = t.kernels[i];
        if (!k.valid || !k.undispatched) continue;
        if (best < 0 || k.priority < t.kernels[best].priority ||
            (k.priority == t.kernels[best].priority && k.arrival < t.kernels[best].arrival))
            best = int(i);
    }
    return best;
}

std::optional<Placement> whole_block_placement(const GlcTables& t, uint32_t slot, uint32_t& last_sm) {
    const KernelRow& k = t.kernels[slot];
    const int sm = next_sm_where(t, last_sm, [&](const SmRow& s) { return fits_blocks(s, k); });
    if (sm < 0) return std::nullopt;
    return Placement{slot, uint32_t(sm), std::min(k.undispatched, blocks_that_fit(t.sms[sm], k)), PlacementKind::whole_blocks};
}

}  // namespace gpuvp
