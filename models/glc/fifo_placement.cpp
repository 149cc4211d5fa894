#include <gpuvp/models/glc/fifo_placement.h>

namespace gpuvp {

std::optional<Placement> FifoPlacement::next(const GlcTables& t) {
    int oldest = -1;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const KernelRow& k = t.kernels[i];
        if (k.valid && k.undispatched && (oldest < 0 || k.arrival < t.kernels[oldest].arrival)) oldest = int(i);
    }
    if (oldest < 0) return std::nullopt;
    return whole_block_placement(t, uint32_t(oldest), last_sm_);  // none: it waits, and everything behind it
}

}  // namespace gpuvp
