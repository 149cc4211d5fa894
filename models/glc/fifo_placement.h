// `fifo` (prior art): kernels in arrival order, whole blocks only. The oldest kernel with
// blocks left goes first; while its next block fits nowhere, later kernels wait behind it.
// SMs are tried round-robin from the one after the last placement; a placement puts as many
// of its whole blocks on the SM as fit there, as priority-block does (the prior art differs
// from M1 in order and granularity, not in how fast the dispatcher writes descriptors).
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
