// M5's launch path on the SM (models/sm/launch_path.h): one SM with a stimulus. A kernel of
// kernarg_load and end, 100 bytes of arguments (two lines of 64) at 0x8000; the L1I answers in
// 20 ns, the L1D in 300 ns on a line's first access and 20 ns after. The block arrives at 2 ns,
// its warps start there and may issue at 6 ns.
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;

TEST_CASE("sm launch path serial: the first fetch alone and the arguments fetched by the kernarg_load", "[module][sm][m5][timing]") {
    SmBench bench(small_sm(), SmPolicy{WarpStartOrder::arrival, LaunchPolicy::serial});
    bench.kernel(0, {kernarg_load()}, 100);
    bench.block(0, 0, 0, 1);
    bench.run();
    const SmLog& log = bench.log;
    CHECK(log.stage(0, Stage::first_warp_started) == 2);
    CHECK(log.stage(0, Stage::first_fetch_issued) == 6);
    CHECK(log.stage(0, Stage::first_fetch_returned) == 26);
    CHECK(log.stage(0, Stage::kernarg_prefetch_issued) == -1);  // never
    CHECK(log.stage(0, Stage::first_instruction_issued) == 26);
    CHECK(log.stage(0, Stage::kernarg_load_done) == 326);  // a miss in the L1D
    REQUIRE(bench.l1d.accesses.size() == 1);
    CHECK(bench.l1d.accesses[0].t == 26);
    CHECK(bench.l1d.accesses[0].address == kKernargs);
    CHECK(bench.l1d.accesses[0].bytes == 100);
    CHECK(bench.sm.stats().kernarg_prefetches == 0);
}

TEST_CASE("sm launch path prefetch: the arguments go to the L1D with the first fetch and the warp issues when both are back",
          "[module][sm][m5][timing]") {
    SmBench bench(small_sm(), SmPolicy{WarpStartOrder::arrival, LaunchPolicy::prefetch});
    bench.kernel(0, {kernarg_load()}, 100);
    bench.block(0, 0, 0, 2);  // two warps: only the kernel's first fetch on the SM prefetches
    bench.run();
    const SmLog& log = bench.log;
    CHECK(log.stage(0, Stage::first_fetch_issued) == 6);
    CHECK(log.stage(0, Stage::kernarg_prefetch_issued) == 6);
    CHECK(log.stage(0, Stage::first_fetch_returned) == 26);
    CHECK(log.stage(0, Stage::kernarg_prefetch_returned) == 306);  // both lines sent at 6, each a miss
    CHECK(log.stage(0, Stage::first_instruction_issued) == 306);
    CHECK(log.stage(0, Stage::kernarg_load_done) == 326);  // a hit now
    // Two prefetch reads of a line each at 6, then each warp's kernarg_load (the second warp's
    // first fetch, also at 6, waits for the same prefetch: it issues a cycle after the first).
    REQUIRE(bench.l1d.accesses.size() == 4);
    CHECK(bench.l1d.accesses[0].t == 6);
    CHECK(bench.l1d.accesses[0].address == kKernargs);
    CHECK(bench.l1d.accesses[0].bytes == kLine);
    CHECK(bench.l1d.accesses[1].t == 6);
    CHECK(bench.l1d.accesses[1].address == kKernargs + kLine);
    CHECK(bench.l1d.accesses[2].t == 306);
    CHECK(bench.l1d.accesses[3].t == 307);
    CHECK(at_ns(log.warp(0, 1).end) == 327);
    CHECK(bench.sm.stats().kernarg_prefetches == 2);
}

TEST_CASE("sm launch path prefetch: a kernel without arguments sends no prefetch", "[module][sm][m5][timing]") {
    SmBench bench(small_sm(), SmPolicy{WarpStartOrder::arrival, LaunchPolicy::prefetch});
    bench.kernel(0, {valu(10)}, 0);
    bench.block(0, 0, 0, 1);
    bench.run();
    CHECK(bench.log.stage(0, Stage::kernarg_prefetch_issued) == -1);
    CHECK(bench.log.stage(0, Stage::first_instruction_issued) == 26);
    CHECK(bench.l1d.accesses.empty());
    CHECK(bench.sm.stats().kernarg_prefetches == 0);
}
