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
    bool has_barrier = false;
};

FakeBlock* choose(WarpStartOrder order, std::vector<FakeBlock>& b, bool started_only = false, uint64_t slots = 8,
                  uint64_t regs = 8192) {
    std::vector<uint32_t> open;  // the rows with warps still to start, as the SM keeps them
    for (uint32_t i = 0; i < b.size(); ++i)
        if (b[i].next_warp < b[i].desc.warps) open.push_back(i);
    return choose_block(order, b.data(), open.data(), open.size(), started_only, slots, regs);
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

TEST_CASE("sm warp-start order: a new block with a barrier that does not fit beside the partly started ones with a "
          "barrier waits",
          "[module][sm][m1]") {
    // Block 0 (priority 2) has started 1 of its 4 warps; block 1 (priority 0) is new and needs
    // 4 slots; both have a barrier: 4 + 4 > 6 slots, so block 0 goes on although block 1 comes
    // first in the order.
    std::vector<FakeBlock> b = {{{2, 4, 256}, 0, 1, true}, {{0, 4, 256}, 1, 0, true}};
    CHECK(choose(WarpStartOrder::priority, b, false, 6) == &b[0]);
    CHECK(choose(WarpStartOrder::priority, b, false, 8) == &b[1]);        // both fit: the order decides
    CHECK(choose(WarpStartOrder::priority, b, false, 8, 1536) == &b[0]);  // 2048 registers needed, 1536 in the SM
    CHECK(choose(WarpStartOrder::arrival, b, false, 6) == &b[0]);
    CHECK(choose(WarpStartOrder::priority, b, true, 8) == &b[0]);         // started only
    b[0].next_warp = 4;
    CHECK(choose(WarpStartOrder::priority, b, true, 8) == nullptr);
}

TEST_CASE("sm warp-start order: a new block without a barrier starts ahead of lower-priority partly started blocks",
          "[module][sm][m1]") {
    // The case: lower-priority blocks 0 and 1 have started some warps; block 2
    // (priority 0, no barrier) does not fit beside them, but nothing can deadlock: it goes first.
    std::vector<FakeBlock> b = {{{3, 4, 256}, 0, 2}, {{2, 4, 256}, 1, 1, true}, {{0, 4, 256}, 2, 0}};
    CHECK(choose(WarpStartOrder::priority, b, false, 6) == &b[2]);
    CHECK(choose(WarpStartOrder::priority, b, false, 6, 1024) == &b[2]);  // registers: the same
    CHECK(choose(WarpStartOrder::priority, b, true, 6) == &b[1]);         // started only: the partly started ones
    // A new block with a barrier need fit only beside the partly started blocks with one:
    // 4 (block 1) + 4 <= 8 slots, although block 0's 4 warps make 12.
    b[2].has_barrier = true;
    CHECK(choose(WarpStartOrder::priority, b, false, 8) == &b[2]);
    CHECK(choose(WarpStartOrder::priority, b, false, 6) == &b[1]);  // 4 + 4 > 6: block 1 goes on
    // A lower-priority block that has not started never goes ahead of one that waits.
    std::vector<FakeBlock> c = {{{2, 4, 256}, 0, 1, true}, {{0, 4, 256}, 1, 0, true}, {{3, 1, 256}, 2, 0}};
    CHECK(choose(WarpStartOrder::priority, c, false, 6) == &c[0]);
    c[0].next_warp = 4;  // block 0 fully started: no partly started block left, block 1 fits
    CHECK(choose(WarpStartOrder::priority, c, false, 6) == &c[1]);
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

namespace {

// Four warp slots. A (priority 3, 2 warps of valu 300) and B (priority 3, 2 warps of valu 100)
// fill them at 2 ns; P (priority 2, 4 warps) arrives at 12 ns and starts 2 warps when B's end;
// H (priority 0, 3 warps) arrives at 142 ns, while P is partly started: P's 4 warps and H's 3
// do not fit in 4 slots together. P and H run valu 100, behind a barrier with `barrier`.
// Returns the start times of P's and H's warps.
std::vector<double> partly_started(bool barrier) {
    SmPolicy p;
    p.order = WarpStartOrder::priority;
    SmBench bench(small_sm(4), p);
    bench.kernel(0, {valu(300)});
    bench.kernel(1, {valu(100)});
    bench.kernel(2, barrier ? std::vector<Instruction>{Instruction{Opcode::barrier, 0, 0, 0}, valu(100)}
                            : std::vector<Instruction>{valu(100)});
    bench.block(0, 0, /*A*/ 0, 2, 3);
    bench.block(0, 1, /*B*/ 1, 2, 3);
    bench.block(10, 2, /*P*/ 2, 4, 2);
    bench.block(140, 2, /*H*/ 3, 3, 0);
    bench.run();
    std::vector<double> v;
    for (uint32_t w = 0; w < 4; ++w) v.push_back(at_ns(bench.log.warp(2, w).start));
    for (uint32_t w = 0; w < 3; ++w) v.push_back(at_ns(bench.log.warp(3, w).start));
    return v;
}

}  // namespace

TEST_CASE("sm warp-start order: without a barrier a higher-priority block takes the slots ahead of a partly started "
          "block at exact times",
          "[module][sm][m1][timing]") {
    // B's warps end at 128 and 129: P starts two. P's end at 252 and 253: H takes both slots,
    // then A's first (326); P's last two start when A's second ends (327) and H's first (376).
    CHECK(partly_started(false) == std::vector<double>{/*P*/ 128, 129, 327, 376, /*H*/ 252, 253, 326});
}

TEST_CASE("sm warp-start order: with barriers the partly started block finishes starting first at exact times",
          "[module][sm][m1][timing]") {
    // P's first two warps wait at the barrier, holding their slots; H (3 warps) does not fit
    // beside P (4) in 4 slots, so P takes A's slots (326, 327), passes its barrier and ends;
    // then H starts.
    CHECK(partly_started(true) == std::vector<double>{/*P*/ 128, 129, 326, 327, /*H*/ 452, 453, 454});
}
