#include <gpuvp/models/glc/priority_block_placement.h>

namespace gpuvp {

std::optional<Placement> PriorityBlockPlacement::next(const GlcTables& t) {
    const int k = highest_priority_kernel(t);
    if (k < 0) return std::nullopt;
    return whole_block_placement(t, uint32_t(k), last_sm_);
}

}  // namespace gpuvp
