#include <gpuvp/models/glc/priority_warp_placement.h>

namespace gpuvp {

std::optional<Placement> PriorityWarpPlacement::next(const GlcTables& t) {
    const int k = highest_priority_kernel(t);
    if (k < 0) return std::nullopt;
    const KernelRow& row = t.kernels[k];
    const uint32_t slot = uint32_t(k);

    if (int sm = next_sm_with_whole_block(t, row, last_sm_); sm >= 0) {
        const uint64_t first_number = blocks_that_fit(t.sms[sm], row);
        return Placement{slot, uint32_t(sm), std::min(row.undispatched, first_number), PlacementKind::whole_blocks};
    }
    int first = -1;
    for (uint32_t sm = 0; sm < t.sms.size(); ++sm)
        if (fits_warp(t.sms[sm], row) && (first < 0 || t.sms[sm].free_regs > t.sms[first].free_regs)) first = int(sm);
    if (first >= 0) return Placement{slot, uint32_t(first), 1, PlacementKind::first_sm};

    int second = -1;
    for (uint32_t sm = 0; sm < t.sms.size(); ++sm) {
        const SmRow& s = t.sms[sm];
        if (s.highest_priority == kNoPriority || s.highest_priority <= row.priority) continue;  // equal or higher
        if (second < 0 || s.highest_priority > t.sms[second].highest_priority ||
            (s.highest_priority == t.sms[second].highest_priority && s.free_regs > t.sms[second].free_regs))
            second = int(sm);
    }
    if (second >= 0) return Placement{slot, uint32_t(second), 1, PlacementKind::second_sm};
    return std::nullopt;
}

}  // namespace gpuvp
