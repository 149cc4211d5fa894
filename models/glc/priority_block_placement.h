// `priority-block` (a baseline): kernels in priority order (0 first; ties by arrival), whole
// blocks only. The highest-priority kernel with blocks left goes to the next SM, round-robin,
// with room for whole blocks, as many as fit there (the "first number"); while none has room,
// it waits and so does everything of lower priority. No warp-granular (first SM) and no
// pre-emptive (second SM) placement.
#pragma once
#include <gpuvp/models/glc/placement_policy.h>

namespace gpuvp {

class PriorityBlockPlacement : public PlacementPolicy {
public:
    const char* name() const override { return policy_name(DispatchPolicy::priority_block); }
    std::optional<Placement> next(const GlcTables& t) override;

private:
    uint32_t last_sm_ = ~0u;
};

}  // namespace gpuvp
