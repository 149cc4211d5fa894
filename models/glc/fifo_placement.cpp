#include <gpuvp/models/glc/fifo_placement.h>

namespace gpuvp {

std::optional<Placement> FifoPlacement::next(const GlcTables& t) {
    int oldest = -1;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const KernelRow& k = t.kernels[i];
        if (k.valid && k.undispatched && (oldest < 0 || k.arrival < t.kernels[oldest].arrival)) oldest = int(i);
    }
    if (oldest < 0) return std::nullopt;
    const KernelRow& row = t.kernels[oldest];
    const int sm = next_sm_with_whole_block(t, row, last_sm_);
    if (sm < 0) return std::nullopt;  // the oldest kernel waits, and everything behind it
    const uint64_t n = std::min(row.undispatched, blocks_that_fit(t.sms[sm], row));
    return Placement{uint32_t(oldest), uint32_t(sm), n, PlacementKind::whole_blocks};
}

}  // namespace gpuvp
