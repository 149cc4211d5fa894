#include <gpuvp/models/usa/adaptive_balance.h>

namespace gpuvp {

AdaptiveBalance::AdaptiveBalance(uint32_t cores, Map map)
    : map_(map), order_(map == Map::breadth_first ? breadth_first_order(cores) : depth_first_order(cores)) {}

std::optional<Reassignment> AdaptiveBalance::rebalance(const std::vector<CoreView>& cores) const {
    const LoadFlags f = load_flags(cores);
    const Plan plan = choose_plan(f);
    CoreType from, to;
    if (!plan_moves(plan, from, to)) return std::nullopt;
    for (uint32_t i : order_)
        if (i < cores.size() && cores[i].idle && cores[i].type == from) return Reassignment{i, to, plan, f};
    return std::nullopt;  // not reached: the flags said there is such a core
}

}  // namespace gpuvp
