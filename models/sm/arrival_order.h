// M1's baseline order on the SM (policy.dispatch fifo): the oldest block first.
#pragma once

namespace gpuvp {

struct ArrivalOrder {
    template <class Block>
    static bool before(const Block& a, const Block& b) {
        return a.arrival < b.arrival;
    }
};

}  // namespace gpuvp
