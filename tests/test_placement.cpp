// Placement policies are pure functions of the GLC's tables: tested without a simulation.
#include "models/glc/fifo_placement.h"
#include "models/glc/placement_policy.h"

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

TEST_CASE("the placement policy is chosen by name", "[placement]") {
    REQUIRE(make_placement_policy("fifo"));
    CHECK(std::string(make_placement_policy("fifo")->name()) == "fifo");
    CHECK_FALSE(make_placement_policy("no-such-policy"));
}
