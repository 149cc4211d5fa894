#include <gpuvp/models/usa/shading_policy.h>
#include <gpuvp/models/usa/adaptive_balance.h>
#include <gpuvp/models/usa/static_split.h>

namespace gpuvp {

LoadFlags load_flags(const std::vector<CoreView>& cores) {
    uint32_t v = 0, p = 0;
    for (const CoreView& c : cores)
        if (c.idle) (c.type == CoreType::vertex ? v : p)++;
    return LoadFlags{load_flag(v), load_flag(p)};
}

std::unique_ptr<ShadingPolicy> make_shading_policy(ShadingBalance policy, uint32_t cores) {
    switch (policy) {
    case ShadingBalance::static_split: return std::make_unique<StaticSplit>();
    case ShadingBalance::adaptive: return std::make_unique<AdaptiveBalance>(cores, AdaptiveBalance::Map::breadth_first);
    case ShadingBalance::adaptive_depth_first: return std::make_unique<AdaptiveBalance>(cores, AdaptiveBalance::Map::depth_first);
    }
    return nullptr;
}

}  // namespace gpuvp
