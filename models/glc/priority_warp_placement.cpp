#include <gpuvp/models/glc/priority_warp_placement.h>

namespace gpuvp {

std::optional<Placement> PriorityWarpPlacement::next(const GlcTables& t) {
    const int k = highest_priority_kernel(t);
    if (k < 0) return std::nullopt;
    const KernelRow& row = t.kernels[k];
    const uint32_t slot = uint32_t(k);

    if (auto whole = whole_block_placement(t, slot, last_sm_)) return whole;
    int first = -1;
    for (uint32_t sm = 0; sm < t.sms.size(); ++sm)
        if (fits_warp(t.sms[sm], row) && (first < 0 || t.sms[sm].free_regs > t.sms[first].free_regs)) first = int(sm);
    if (first >= 0) return Placement{slot, uint32_t(first), 1, PlacementKind::first_sm};

    if (int second = second_sm(t, row); second >= 0) return Placement{slot, uint32_t(second), 1, PlacementKind::second_sm};
    return std::nullopt;
}

// Step 4: among the SMs whose highest block priority is lower than the kernel's (an empty SM
// or one running equal or higher priority work is never one), the one second_choice_ names;
// ties go to the lowest SM index (round-robin: the first after the last second SM).
int PriorityWarpPlacement::second_sm(const GlcTables& t, const KernelRow& k) {
    const uint32_t n = uint32_t(t.sms.size());
    auto lower = [&](const SmRow& s) { return s.highest_priority != kNoPriority && s.highest_priority > k.priority; };
    auto better = [&](const SmRow& s, const SmRow& than) {
        if (second_choice_ == SecondSmChoice::most_free && s.free_regs != than.free_regs) return s.free_regs > than.free_regs;
        if (s.highest_priority != than.highest_priority) return s.highest_priority > than.highest_priority;
        return s.free_regs > than.free_regs;
    };
    if (second_choice_ == SecondSmChoice::round_robin) return next_sm_where(t, last_second_, lower);
    int best = -1;
    for (uint32_t sm = 0; sm < n; ++sm)
        if (lower(t.sms[sm]) && (best < 0 || better(t.sms[sm], t.sms[best]))) best = int(sm);
    return best;
}

}  // namespace gpuvp
