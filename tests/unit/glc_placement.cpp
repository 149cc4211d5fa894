// Placement policies are pure functions of the GLC's tables: tested without a simulation.
#include <gpuvp/models/glc/fifo_placement.h>
#include <gpuvp/models/glc/placement_policy.h>

#include <catch2/catch.hpp>

using namespace gpuvp;

namespace {
KernelRow kernel(uint32_t prio, uint64_t blocks, uint64_t arrival, uint32_t warps = 4, uint32_t regs_per_warp = 1024,
                 uint32_t shared = 0) {
    KernelRow k;
    k.valid = 1;
    k.priority = prio;
    k.warps_per_block = warps;
    k.regs_per_warp = regs_per_warp;
    k.regs_per_block = regs_per_warp * warps;
    k.shared_per_block = shared;
    k.blocks = k.undispatched = blocks;
    k.arrival = arrival;
    return k;
}
SmRow sm(uint32_t regs, uint32_t slots, uint32_t shared = 65536) { return SmRow{regs, slots, shared, kNoPriority}; }
}  // namespace

TEST_CASE("fifo places the oldest kernel's blocks first, whatever the priorities", "[placement]") {
    GlcTables t;
    t.kernels = {kernel(0, 1, /*arrival*/ 5), kernel(3, 1, /*arrival*/ 2)};
    t.sms = {sm(65536, 48)};
    FifoPlacement p;
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kernel_slot == 1);  // arrived first, though priority 3
    CHECK(d->blocks == 1);
}

TEST_CASE("fifo keeps later kernels waiting while the oldest kernel's next block fits nowhere", "[placement]") {
    GlcTables t;
    t.kernels = {kernel(2, 10, 0, /*warps*/ 8), kernel(0, 1, 1, /*warps*/ 1)};
    t.sms = {sm(65536, 4)};  // 4 free slots: the old kernel's 8-warp block does not fit, the new one's would
    FifoPlacement p;
    CHECK_FALSE(p.next(t));
}

TEST_CASE("fifo spreads blocks over SMs round-robin and skips full SMs", "[placement]") {
    GlcTables t;
    t.kernels = {kernel(0, 10, 0)};
    t.sms = {sm(65536, 48), sm(0, 48), sm(65536, 48)};
    FifoPlacement p;
    CHECK(p.next(t)->sm == 0);
    CHECK(p.next(t)->sm == 2);  // SM 1 has no registers
    CHECK(p.next(t)->sm == 0);
}

TEST_CASE("a whole block needs registers, warp slots and shared memory at once", "[placement]") {
    KernelRow k = kernel(0, 1, 0, /*warps*/ 4, /*regs/warp*/ 1024, /*shared*/ 4096);
    CHECK(fits_blocks(sm(4096, 4, 4096), k));
    CHECK_FALSE(fits_blocks(sm(4095, 4, 4096), k));
    CHECK_FALSE(fits_blocks(sm(4096, 3, 4096), k));
    CHECK_FALSE(fits_blocks(sm(4096, 4, 4095), k));
    CHECK(blocks_that_fit(sm(16384, 48, 65536), k) == 4);
    CHECK(blocks_that_fit(sm(65536, 9, 65536), k) == 2);
    CHECK(blocks_that_fit(sm(65536, 48, 10000), k) == 2);
}

TEST_CASE("M1's worked example: a 36 KB block finds no full-block SM with 12 KB free, but two 6 KB warps fit", "[placement][m1]") {
    // Registers counted in bytes here, as the seed does: 6 warps of 6 KB = 36 KB a block.
    KernelRow k = kernel(0, 1, 0, /*warps*/ 6, /*regs/warp*/ 6 * 1024);
    SmRow emptiest = sm(12 * 1024, 48);
    CHECK_FALSE(fits_blocks(emptiest, k));
    CHECK(blocks_that_fit(emptiest, k) == 0);
    CHECK(emptiest.free_regs / k.regs_per_warp == 2);  // the warps that could start at once
}


// ---- M1: priority-warp (the seed) and priority-block -------------------------------------

#include <gpuvp/models/glc/priority_block_placement.h>
#include <gpuvp/models/glc/priority_warp_placement.h>

namespace {
SmRow busy_sm(uint32_t regs, uint32_t slots, uint32_t highest, uint32_t shared = 65536) {
    return SmRow{regs, slots, shared, highest};
}
}  // namespace

TEST_CASE("priority-warp takes the highest-priority kernel first and the earliest of equals", "[placement][m1]") {
    GlcTables t;
    t.kernels = {kernel(2, 4, 0), kernel(1, 4, 3), kernel(1, 4, 2)};
    t.sms = {sm(65536, 48)};
    PriorityWarpPlacement p;
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kernel_slot == 2);  // priority 1, arrived before slot 1
}

TEST_CASE("priority-warp on a full-block SM dispatches min(undispatched, first number) blocks", "[placement][m1]") {
    GlcTables t;
    t.sms = {sm(4 * 4096, 48)};  // room for 4 blocks of 4 warps x 1024 registers
    PriorityWarpPlacement p;
    t.kernels = {kernel(0, 10, 0)};
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kind == PlacementKind::whole_blocks);
    CHECK(d->blocks == 4);
    t.kernels = {kernel(0, 3, 0)};
    CHECK(p.next(t)->blocks == 3);
}

TEST_CASE("M1's worked example: with 12 KB free and 6 KB warps the SM is a first SM", "[placement][m1]") {
    // Registers in bytes, as the seed counts them: a block of 6 warps x 6 KB = 36 KB.
    GlcTables t;
    t.kernels = {kernel(0, 1, 0, /*warps*/ 6, /*regs/warp*/ 6 * 1024)};
    t.sms = {busy_sm(8 * 1024, 40, 3), busy_sm(12 * 1024, 40, 3), busy_sm(4 * 1024, 40, 3)};
    PriorityWarpPlacement p;
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kind == PlacementKind::first_sm);
    CHECK(d->sm == 1);  // the emptiest
    CHECK(d->blocks == 1);
    CHECK(t.sms[1].free_regs / t.kernels[0].regs_per_warp == 2);  // warps that can start at once
}

TEST_CASE("priority-warp's second SM runs only lower-priority work, never equal or higher", "[placement][m1]") {
    GlcTables t;
    t.kernels = {kernel(2, 1, 0)};
    // No room anywhere; SM 0 runs priority 1 (higher), SM 1 priority 2 (equal).
    t.sms = {busy_sm(0, 0, 1), busy_sm(0, 0, 2)};
    PriorityWarpPlacement p;
    CHECK_FALSE(p.next(t));
    // SM 2 runs priority 3 work and SM 3 priority 5: the lowest-priority work is chosen.
    t.sms.push_back(busy_sm(0, 0, 3));
    t.sms.push_back(busy_sm(0, 0, 5));
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kind == PlacementKind::second_sm);
    CHECK(d->sm == 3);
    CHECK(d->blocks == 1);
}

TEST_CASE("priority-warp's second SM among several: the lowest-priority work, the most free registers, or round robin",
          "[placement][m1]") {
    GlcTables t;
    t.kernels = {kernel(1, 8, 0)};
    // No room for a warp anywhere. SM 0 runs priority 5 work with 512 free registers, SM 1
    // priority 3 with 768, SM 2 priority 5 with 256, SM 3 priority 1 (equal: never), SM 4 is
    // empty of work but full of another kernel's waiting warps: never (no priority present).
    t.sms = {busy_sm(512, 0, 5), busy_sm(768, 0, 3), busy_sm(256, 0, 5), busy_sm(1024, 0, 1), sm(0, 0)};
    auto pick = [&](PriorityWarpPlacement& p) {
        auto d = p.next(t);
        REQUIRE(d);
        CHECK(d->kind == PlacementKind::second_sm);
        return d->sm;
    };
    PriorityWarpPlacement lowest(SecondSmChoice::lowest_priority);
    CHECK(pick(lowest) == 0);  // priority 5, and of SMs 0 and 2 the one with more registers
    PriorityWarpPlacement most_free(SecondSmChoice::most_free);
    CHECK(pick(most_free) == 1);  // 768 free registers, though its work is of higher priority
    t.sms[1].free_regs = 512;
    CHECK(pick(most_free) == 0);  // a tie on registers: the lower-priority work
    PriorityWarpPlacement round(SecondSmChoice::round_robin);
    CHECK(pick(round) == 0);
    CHECK(pick(round) == 1);
    CHECK(pick(round) == 2);
    CHECK(pick(round) == 0);  // SMs 3 and 4 are never second SMs
    // The default: the three give the same responses on the 40-load family (m1-priority-dispatch.md).
    CHECK(GlcConfig{}.second_sm == SecondSmChoice::lowest_priority);
}

TEST_CASE("priority-warp prefers a full-block SM over a first SM over a second SM", "[placement][m1]") {
    GlcTables t;
    t.kernels = {kernel(0, 5, 0)};  // 4 warps x 1024 registers a block
    t.sms = {busy_sm(0, 0, 4), busy_sm(2048, 10, 4), busy_sm(8192, 10, 4)};
    PriorityWarpPlacement p;
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kind == PlacementKind::whole_blocks);
    CHECK(d->sm == 2);
    CHECK(d->blocks == 2);
    t.sms[2] = busy_sm(0, 0, 4);
    d = p.next(t);
    CHECK(d->kind == PlacementKind::first_sm);
    CHECK(d->sm == 1);
    t.sms[1] = busy_sm(512, 10, 4);  // less than one warp's registers
    d = p.next(t);
    CHECK(d->kind == PlacementKind::second_sm);
}

TEST_CASE("priority-block places whole blocks only, in priority order, and waits otherwise", "[placement][m1]") {
    GlcTables t;
    t.kernels = {kernel(3, 10, 0), kernel(0, 10, 1)};
    t.sms = {busy_sm(2048, 10, 3)};  // room for 2 warps of the high kernel, not a block
    PriorityBlockPlacement p;
    CHECK_FALSE(p.next(t));  // no first or second SM, and the low kernel waits behind the high one
    t.sms = {sm(3 * 4096, 48)};
    auto d = p.next(t);
    REQUIRE(d);
    CHECK(d->kernel_slot == 1);
    CHECK(d->blocks == 3);
    CHECK(d->kind == PlacementKind::whole_blocks);
}

TEST_CASE("every dispatch policy is made from its enum and carries the enum's name", "[placement][m1]") {
    for (const std::string& n : policy_names<DispatchPolicy>()) {
        auto p = make_placement_policy(*policy_from_name<DispatchPolicy>(n));
        REQUIRE(p);
        CHECK(std::string(p->name()) == n);
    }
}
