// M1's warp-start order on the SM (models/sm/warp_start_order.h): the choice as a pure
// function, then one SM with a stimulus, its exact warp start times under both orders.
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;

namespace {

struct FakeBlock {
    struct {
        uint32_t priority, warps, regs_per_warp;
    } desc;
    uint64_t arrival;
    uint32_t next_warp = 0;
};

FakeBlock* choose(WarpStartOrder order, std::vector<FakeBlock>& b, bool started_only = false, uint64_t slots = 8,
                  uint64_t regs = 8192) {
    return choose_block(order, b.data(), b.size(), [&](size_t i) { return b[i].next_warp < b[i].desc.warps; },
                        started_only, slots, regs);
}

}  // namespace

TEST_CASE("sm warp-start order: arrival takes the oldest block and priority the highest priority then the oldest",
          "[module][sm][m1]") {
    std::vector<FakeBlock> b = {{{3, 2, 256}, 0}, {{1, 2, 256}, 1}, {{1, 2, 256}, 2}, {{0, 2, 256}, 3, 2}};  // the last: all started
    CHECK(choose(WarpStartOrder::arrival, b) == &b[0]);
    CHECK(choose(WarpStartOrder::priority, b) == &b[1]);  // priority 1, the older of two
    b[1].next_warp = 2;                                    // all its warps started: no longer open
    CHECK(choose(WarpStartOrder::priority, b) == &b[2]);
    CHECK(warp_start_order(DispatchPolicy::fifo) == WarpStartOrder::arrival);
    CHECK(warp_start_order(DispatchPolicy::priority_block) == WarpStartOrder::priority);
    CHECK(warp_start_order(DispatchPolicy::priority_warp) == WarpStartOrder::priority);
}

TEST_CASE("sm warp-start order: a new block that does not fit beside the partly started ones waits", "[module][sm][m1]") {
    // Block 0 (priority 2) has started 1 of its 4 warps; block 1 (priority 0) is new and needs
    // 4 slots: 4 + 4 > 6 slots, so block 0 goes on although block 1 comes first in the order.
    std::vector<FakeBlock> b = {{{2, 4, 256}, 0, 1}, {{0, 4, 256}, 1, 0}};
    CHECK(choose(WarpStartOrder::priority, b, false, 6) == &b[0]);
    CHECK(choose(WarpStartOrder::priority, b, false, 8) == &b[1]);        // both fit: the order decides
    CHECK(choose(WarpStartOrder::priority, b, false, 8, 1536) == &b[0]);  // 2048 registers needed, 1536 in the SM
    CHECK(choose(WarpStartOrder::priority, b, true, 8) == &b[0]);         // started only
    b[0].next_warp = 4;
    CHECK(choose(WarpStartOrder::priority, b, true, 8) == nullptr);
}

namespace {

// Two warp slots; block A (priority 2) fills them; C (priority 2) arrives at 7 ns, B
// (priority 0) at 12 ns. A warp runs valu 100 and end: it starts, may issue 4 ns later, its
// first fetch takes 20 ns, then 100 ns of valu: it ends 124 ns after it started. Issue width 1:
// of two warps ready at once the second issues a cycle later.
std::vector<double> starts(WarpStartOrder order) {
    SmPolicy p;
    p.order = order;
    SmBench bench(small_sm(2), p);
    bench.kernel(0, {valu(100)});
    bench.block(0, 0, /*A*/ 0, 2, 2);
    bench.block(5, 0, /*C*/ 1, 2, 2);
    bench.block(10, 0, /*B*/ 2, 2, 0);
    bench.run();
    std::vector<double> v;
    for (uint64_t block : {0, 1, 2})
        for (uint32_t w : {0, 1}) {
            v.push_back(at_ns(bench.log.warp(block, w).start));
            v.push_back(at_ns(bench.log.warp(block, w).end));
        }
    return v;
}

}  // namespace

TEST_CASE("sm warp-start order priority: a later high-priority block starts ahead of an earlier one at exact times",
          "[module][sm][m1][timing]") {
    CHECK(starts(WarpStartOrder::priority) ==
          std::vector<double>{2, 126, 2, 127, /*C*/ 250, 374, 251, 375, /*B*/ 126, 250, 127, 251});
}

TEST_CASE("sm warp-start order arrival: blocks start in arrival order at exact times", "[module][sm][m1][timing]") {
    CHECK(starts(WarpStartOrder::arrival) ==
          std::vector<double>{2, 126, 2, 127, /*C*/ 126, 250, 127, 251, /*B*/ 250, 374, 251, 375});
}
