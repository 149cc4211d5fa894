// The SM's issue order (policy.issue, models/sm/issue_scheduler.h) as a module: the times at
// which warps end show which warp issued at each cycle. 1 GHz, bus 2 cycles, issue width 1;
// the L1I answers in 20 ns.
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;

namespace {

std::vector<double> ends(const SmBench& bench, uint64_t block, uint32_t warps) {
    std::vector<double> r;
    for (uint32_t i = 0; i < warps; ++i) r.push_back(at_ns(bench.log.warp(block, i).end));
    return r;
}

SmPolicy issue(IssuePolicy p) {
    SmPolicy policy;
    policy.issue = p;
    return policy;
}

}  // namespace

TEST_CASE("sm module: gto issues one warp while it is ready, then the next oldest", "[module][sm][timing]") {
    // One block of 4 warps, each 3 one-cycle valus and its end. The block arrives at 2 and every
    // warp starts then (slots 0-3: one age, so by slot); each fetches at 6 and may issue from 26.
    // Warp 0 issues at 26, 27, 28 and ends at 29; warp 1 then runs 30-33, warp 2 34-37, warp 3 38-41.
    SmBench bench(small_sm(), issue(IssuePolicy::gto));
    bench.kernel(0, {valu(1), valu(1), valu(1)});
    bench.block(0, 0, 0, 4);
    bench.run();
    CHECK(ends(bench, 0, 4) == std::vector<double>{29, 33, 37, 41});
    for (uint32_t i = 0; i < 4; ++i) CHECK(at_ns(bench.log.warp(0, i).start) == 2);
}

TEST_CASE("sm module: lrr issues the ready slots in turn", "[module][sm][timing]") {
    // The same block: from 26 the four warps take turns, slot 0 first: the k-th instruction of
    // warp s issues at 26 + 4k + s, so the ends (k = 3) are at 38, 39, 40, 41.
    SmBench bench(small_sm(), issue(IssuePolicy::lrr));
    bench.kernel(0, {valu(1), valu(1), valu(1)});
    bench.block(0, 0, 0, 4);
    bench.run();
    CHECK(ends(bench, 0, 4) == std::vector<double>{38, 39, 40, 41});
}

TEST_CASE("sm module: gto's oldest warp is the first placed, not the lowest slot", "[module][sm][timing]") {
    // Three slots; A, B and C start at 2 in slots 0, 1, 2 (one age: by slot) and may issue
    // from 26; D arrives at 42 and takes slot 0, which A left at 27: D is younger than B.
    //   26 A valu 1; 27 A ends; 28 B valu 72 (ready 100); 29 C valu 38 (ready 67);
    //   D starts at 42, fetches at 46: 66 D valu 34 (ready 100); 67 C valu 100 (ready 167);
    //   100: B and D ready, the greedy warp C not: B, the older, issues (slot 1 before slot 0):
    //   100 B valu 1; 101 B valu 1 (greedy); 102 B ends; 103 D valu 1; 104 D ends; 167 C ends.
    SmBench bench(small_sm(3), issue(IssuePolicy::gto));
    bench.kernel(0, {valu(1)});
    bench.kernel(1, {valu(72), valu(1), valu(1)});
    bench.kernel(2, {valu(38), valu(100)});
    bench.kernel(3, {valu(34), valu(1)});
    bench.block(0, 0, 0, 1);  // A
    bench.block(0, 1, 1, 1);  // B
    bench.block(0, 2, 2, 1);  // C
    bench.block(40, 3, 3, 1); // D
    bench.run();
    CHECK(at_ns(bench.log.warp(0, 0).end) == 27);
    CHECK(at_ns(bench.log.warp(3, 0).start) == 42);
    CHECK(bench.log.warp(3, 0).slot == 0);
    CHECK(at_ns(bench.log.warp(1, 0).end) == 102);
    CHECK(at_ns(bench.log.warp(3, 0).end) == 104);
    CHECK(at_ns(bench.log.warp(2, 0).end) == 167);
}

TEST_CASE("sm module: a warp's instruction fetch goes out when it is ready, whatever the issue order", "[module][sm][timing]") {
    // Two slots under gto. Warp 0 of block 0 runs a loop of 40 one-cycle valus (loop_begin at
    // 26, then valu and loop_end each cycle to 106, its end at 107): the greedy warp, ready
    // every cycle. Block 1 arrives at 12 and starts in slot 1; its fetch goes out at 16 although
    // warp 0 holds the issue slot, and its line is back at 36; it issues only once warp 0 has
    // ended: its valu at 108, its end at 109.
    SmBench bench(small_sm(2), issue(IssuePolicy::gto));
    bench.kernel(0, {Instruction{Opcode::loop_begin, 0, 0, 40}, valu(1), Instruction{Opcode::loop_end, 0, 1, 0}});
    bench.kernel(1, {valu(1)});
    bench.block(0, 0, 0, 1);
    bench.block(10, 1, 1, 1);
    bench.run();
    CHECK(at_ns(bench.log.warp(0, 0).end) == 107);
    CHECK(bench.log.warp(0, 0).instructions == 82);
    CHECK(at_ns(bench.log.warp(1, 0).start) == 12);
    CHECK(bench.log.stage(1, Stage::first_fetch_issued) == 16);
    CHECK(bench.log.stage(1, Stage::first_fetch_returned) == 36);
    CHECK(bench.log.stage(1, Stage::first_instruction_issued) == 108);
    CHECK(at_ns(bench.log.warp(1, 0).end) == 109);
}
