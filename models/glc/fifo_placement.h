// `fifo` (prior art): kernels in arrival order, whole blocks only. The oldest kernel with
// blocks left goes first; while its next block fits nowhere, later kernels wait behind it.
// SMs are tried round-robin from the one after the last placement, one block at a time.
#pragma once
#include <gpuvp/models/glc/placement_policy.h>

namespace gpuvp {

class FifoPlacement : public PlacementPolicy {
public:
    const char* name() const override { return policy_name(DispatchPolicy::fifo); }
    std::optional<Placement> next(const GlcTables& t) override;

private:
    uint32_t last_sm_ = ~0u;
};

}  // namespace gpuvp
