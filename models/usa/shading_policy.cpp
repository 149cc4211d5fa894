#include "models/usa/shading_policy.h"
#include "models/usa/adaptive_balance.h"
#include "models/usa/static_split.h"

namespace gpuvp {

LoadFlags load_flags(const std::vector<CoreView>& cores) {
    uint32_t v = 0, p = 0;
    for (const CoreView& c : cores)
        if (c.idle) (c.type == CoreType::vertex ? v : p)++;
    return LoadFlags{load_flag(v), load_flag(p)};
}

std::unique_ptr<ShadingPolicy> make_shading_policy(const std::string& name, uint32_t cores) {
    if (name == "static") return std::make_unique<StaticSplit>();
    if (name == "adaptive") return std::make_unique<AdaptiveBalance>(cores, AdaptiveBalance::Map::breadth_first);
    if (name == "adaptive-depth-first") return std::make_unique<AdaptiveBalance>(cores, AdaptiveBalance::Map::depth_first);
    return nullptr;
}

}  // namespace gpuvp
