#include <gpuvp/models/glc/priority_block_placement.h>

namespace gpuvp {

std::optional<Placement> PriorityBlockPlacement::next(const GlcTables& t) {
    const int k = highest_priority_kernel(t);
    if (k < 0) return std::nullopt;
    const KernelRow& row = t.kernels[k];
    const int sm = next_sm_with_whole_block(t, row, last_sm_);
    if (sm < 0) return std::nullopt;
    const uint64_t n = std::min(row.undispatched, blocks_that_fit(t.sms[sm], row));
    return Placement{uint32_t(k), uint32_t(sm), n, PlacementKind::whole_blocks};
}

}  // namespace gpuvp
