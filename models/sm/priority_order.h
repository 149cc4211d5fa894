// M1's order on the SM (policy.dispatch priority-block and priority-warp): the highest-priority
// block first (the smallest number); among equals, the oldest.
#pragma once

namespace gpuvp {

struct PriorityOrder {
    template <class Block>
    static bool before(const Block& a, const Block& b) {
        return a.desc.priority != b.desc.priority ? a.desc.priority < b.desc.priority : a.arrival < b.arrival;
    }
};

}  // namespace gpuvp
