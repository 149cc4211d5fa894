// `adaptive` (M4, seed 003): the load flags, the plan table and a breadth-first map: the donor
// is the first idle core of the plan's donor type in the order SSC1 core1, SSC2 core1, ...
// `adaptive-depth-first` (baseline): the same decisions with the map SSC1 core1..8, SSC2, ...
#pragma once
#include <gpuvp/models/usa/shading_policy.h>

namespace gpuvp {

class AdaptiveBalance : public ShadingPolicy {
public:
    enum class Map { breadth_first, depth_first };
    AdaptiveBalance(uint32_t cores, Map map);
    const char* name() const override { return policy_name(map_ == Map::breadth_first ? ShadingBalance::adaptive : ShadingBalance::adaptive_depth_first); }
    std::optional<Reassignment> rebalance(const std::vector<CoreView>& cores) const override;

private:
    Map map_;
    std::vector<uint32_t> order_;
};

}  // namespace gpuvp
