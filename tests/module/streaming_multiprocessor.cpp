// The SM as a module (models/sm/sm.h): a stimulus writes block descriptors and reads what the
// SM tells the GLC: exact status, block_done and error notices, the block status table and
// instruction fetches through the L1I. 1 GHz, bus 2 cycles, 4 warp slots, 4096 registers.
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;

TEST_CASE("sm module: the notices of a block to the GLC at exact times with the resources left", "[module][sm][timing]") {
    SmBench bench;
    bench.kernel(0, {valu(100)});
    bench.block(0, 0, 7, 2, /*priority*/ 3, /*regs per warp*/ 512);
    bench.run();
    // The block arrives at 2 and both warps start at once: status at 2 (2 slots and 3072
    // registers left, priority 3, one block seen). Warp 0 ends at 126: status (3 slots);
    // warp 1 at 127: block_done, then status (all free, no priority).
    const auto& n = bench.driver.notices;
    REQUIRE(n.size() == 4);
    CHECK(n[0].t == 2);
    CHECK(n[0].n.kind == NoticeKind::status);
    CHECK(n[0].n.free_slots == 2);
    CHECK(n[0].n.free_regs == 4096 - 2 * 512);
    CHECK(n[0].n.highest_priority == 3);
    CHECK(n[0].n.blocks_seen == 1);
    CHECK(n[1].t == 126);
    CHECK(n[1].n.kind == NoticeKind::status);
    CHECK(n[1].n.free_slots == 3);
    CHECK(n[2].t == 127);
    CHECK(n[2].n.kind == NoticeKind::block_done);
    CHECK(n[2].n.block_id == 7);
    CHECK(n[3].t == 127);
    CHECK(n[3].n.kind == NoticeKind::status);
    CHECK(n[3].n.free_slots == 4);
    CHECK(n[3].n.free_regs == 4096);
    CHECK(n[3].n.highest_priority == kNoPriority);
    CHECK(bench.sm.stats().warps_run == 2);
    CHECK(bench.sm.stats().blocks_run == 1);
    CHECK(bench.sm.stats().instructions == 4);
    // Each warp's first fetch brings its line and the next into its own buffer: 2 reads each,
    // all at 6 (a fetch does not take the issue slot; the valus then issue at 26 and 27).
    REQUIRE(bench.l1i.accesses.size() == 4);
    for (const auto& a : bench.l1i.accesses) CHECK(a.t == 6);
    CHECK(bench.l1i.accesses[0].address == kCode);
    CHECK(bench.l1i.accesses[1].address == kCode + kLine);
    CHECK(bench.l1i.accesses[2].address == kCode);
}

TEST_CASE("sm module: warps wait for registers and the block table shows what the block still needs", "[module][sm][timing]") {
    SmBench bench;
    bench.kernel(0, {valu(100)});
    bench.block(0, 0, 0, 2, 0, /*regs per warp*/ 1536);  // 3072 of 4096 registers
    bench.block(0, 0, 1, 2, 0, 1536);                    // its warps wait: 1024 left
    bench.run(100);
    StreamingMultiprocessor::BlockRow row{};  // row 1: block 1
    REQUIRE(debug_transport(bench.driver.to_sm, tlm::TLM_READ_COMMAND, map::kSmBlockTable + sizeof row, &row, sizeof row) ==
            sizeof row);
    CHECK(row.block_id == 1);
    CHECK(row.undispatched_warps == 2);
    CHECK(row.running_warps == 0);
    CHECK(row.regs_needed == 3072);
    // The status notice at 2 counts what block 1 still needs: no registers or slots to give.
    REQUIRE_FALSE(bench.driver.notices.empty());
    CHECK(bench.driver.notices[0].n.free_regs == 0);
    CHECK(bench.driver.notices[0].n.free_slots == 0);
    CHECK(bench.driver.notices[0].n.blocks_seen == 2);
    bench.run(1000);
    // Block 1's warps take block 0's registers as its warps end (126, 127).
    CHECK(at_ns(bench.log.warp(1, 0).start) == 126);
    CHECK(at_ns(bench.log.warp(1, 1).start) == 127);
    CHECK(at_ns(bench.log.warp(1, 1).end) == 251);
}

TEST_CASE("sm module: an illegal instruction fails the block with an error notice naming its pc", "[module][sm][timing]") {
    SmBench bench;
    bench.kernel(0, {valu(10), Instruction{Opcode(99), 0, 0, 0}});
    bench.block(0, 0, 5, 2);
    bench.run();
    const auto errors = bench.driver.of(NoticeKind::error);
    REQUIRE(errors.size() == 1);  // once per block
    CHECK(errors[0].t == 36);     // warp 0: valu at 26, the bad instruction at 36
    CHECK(errors[0].n.block_id == 5);
    CHECK(errors[0].n.error == uint32_t(KernelError::illegal_instruction));
    CHECK(errors[0].n.fault_address == kCode + kInstructionBytes);
    const auto done = bench.driver.of(NoticeKind::block_done);
    REQUIRE(done.size() == 1);
    CHECK(done[0].t == 37);  // warp 1 fails too, a cycle later, and the block is done
}
