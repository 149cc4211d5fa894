#include "models/glc/fifo_placement.h"

namespace gpuvp {

std::optional<Placement> FifoPlacement::next(const GlcTables& t) {
    const KernelRow* oldest = nullptr;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
        const KernelRow& k = t.kernels[i];
        if (k.valid && k.undispatched && (!oldest || k.arrival < oldest->arrival)) {
            oldest = &k;
            slot = i;
        }
    }
    if (!oldest || t.sms.empty()) return std::nullopt;
    const uint32_t n = uint32_t(t.sms.size());
    for (uint32_t k = 1; k <= n; ++k) {
        uint32_t sm = (last_sm_ + k) % n;
        if (fits_blocks(t.sms[sm], *oldest)) {
            last_sm_ = sm;
            return Placement{slot, sm, 1};
        }
    }
    return std::nullopt;
}

}  // namespace gpuvp
