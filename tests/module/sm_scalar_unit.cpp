// M3's scalar unit on the SM (models/sm/scalar_unit.h): one SM with a stimulus. A pool of 64
// registers split preset {kernel 8, workgroup 8, warp 32, slice 16}; warps of 32 threads in
// slices of 8 (4 slices); the kernel needs {kernel 2, workgroup 4, warp 3, slice 2 per slice}.
// One block of two warps runs salu warp 1, salu slice 1, salu workgroup 5 (a write), end. Both
// warps start at 2 ns and fetch at 6; warp 0 issues first at 26, warp 1 a cycle later, and
// they take turns (issue width 1).
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;

namespace {

using Used = std::array<uint32_t, 4>;
using PoolLog = std::vector<std::pair<double, Used>>;

SmConfig pool_sm(uint32_t slice_threshold) {
    SmConfig c = small_sm();
    c.scalar_pool = 64;
    c.scalar_split = ScalarSplit::preset;
    c.scalar_quota = {8, 8, 32, 16};
    c.slice_threshold = slice_threshold;
    return c;
}

void run_block(SmBench& bench) {
    bench.kernel(0, {salu(ScalarLevel::warp, 1), salu(ScalarLevel::slice, 1), salu(ScalarLevel::workgroup, 5, true)}, 0,
                 {2, 4, 3, 2});
    bench.block(0, 0, 0, 2);
    bench.drained(0, 0);  // as the GLC does right after a kernel's last placement
    bench.run();
}

// The kernel level's registers in use, (time, count) at each change of that count.
std::vector<std::pair<double, uint32_t>> kernel_level_changes(const PoolLog& pool) {
    std::vector<std::pair<double, uint32_t>> v;
    for (const auto& [t, used] : pool)
        if (v.empty() || v.back().second != used[0]) v.push_back({t, used[0]});
    return v;
}

// The warps take turns at the issue slot (policy.issue lrr), as the timelines below count.
const SmPolicy kMultilevel{WarpStartOrder::arrival, LaunchPolicy::serial, LockPolicy::spin, ScalarPolicy::multilevel,
                           IssuePolicy::lrr};
const SmPolicy kPerWarp{WarpStartOrder::arrival, LaunchPolicy::serial, LockPolicy::spin, ScalarPolicy::per_warp,
                        IssuePolicy::lrr};

}  // namespace

TEST_CASE("sm scalar unit: registers allocated on first need and slices freed at the next issue while the "
          "workgroup write waits for both warps",
          "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(16), kMultilevel);
    run_block(bench);
    // Warp-level sets at 26 and 27; slices at 28 (warp 0) and 29 (warp 1), each freed at the
    // warp's next issue (30, 31); warp 0's workgroup write at 30 allocates the workgroup set
    // and waits; warp 1's at 31 completes the sync: both go on 5 cycles later and end at 36
    // and 37; the warp sets go back as each ends, the workgroup set and the kernel reservation
    // with the block.
    CHECK(bench.log.pool == PoolLog{{26, {0, 0, 3, 0}}, {27, {0, 0, 6, 0}}, {28, {0, 0, 6, 8}}, {29, {0, 0, 6, 16}},
                                    {30, {0, 0, 6, 8}},  {30, {0, 4, 6, 8}}, {31, {0, 4, 6, 0}}, {36, {0, 4, 3, 0}},
                                    {37, {0, 4, 0, 0}},  {37, {0, 0, 0, 0}}});
    CHECK(at_ns(bench.log.warp(0, 0).end) == 36);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 37);
    CHECK(bench.sm.stats().scalar_updates == 1);
    CHECK(bench.sm.stats().scalar_stalls == 0);
    CHECK(bench.sm.scalar_pool().peak(ScalarLevel::slice) == 16);
    CHECK(bench.sm.scalar_pool().total_held() == 0);
}

TEST_CASE("sm scalar unit: a slice allocation over the threshold stalls the warp until slices end",
          "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(8), kMultilevel);
    run_block(bench);
    // Warp 1's slices at 29 would make 16 of 8: it stalls; warp 0's next issue at 30 frees its
    // slices and warp 1 tries again at 31 (8 in use), frees them at 32 with its write, which
    // completes the sync: both go on at 37 and end at 37 and 38.
    CHECK(bench.log.pool == PoolLog{{26, {0, 0, 3, 0}}, {27, {0, 0, 6, 0}}, {28, {0, 0, 6, 8}}, {30, {0, 0, 6, 0}},
                                    {30, {0, 4, 6, 0}},  {31, {0, 4, 6, 8}}, {32, {0, 4, 6, 0}}, {37, {0, 4, 3, 0}},
                                    {38, {0, 4, 0, 0}},  {38, {0, 0, 0, 0}}});
    CHECK(at_ns(bench.log.warp(0, 0).end) == 37);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 38);
    CHECK(bench.sm.stats().scalar_stalls == 1);
    CHECK(bench.sm.scalar_pool().peak(ScalarLevel::slice) == 8);
}

TEST_CASE("sm scalar unit: a block whose registers cannot be reserved waits to start", "[module][sm][m3][timing]") {
    SmConfig c = pool_sm(16);
    c.scalar_quota = {8, 4, 32, 16};  // one block's workgroup set (4) at a time
    SmBench bench(c, kMultilevel);
    bench.kernel(0, {valu(100)}, 0, {2, 4, 3, 2});
    bench.block(0, 0, 0, 1);
    bench.block(0, 0, 1, 1);
    bench.run();
    // Block 0's warp runs 2-126; block 1 cannot reserve its workgroup set until block 0 ends.
    CHECK(at_ns(bench.log.warp(0, 0).start) == 2);
    CHECK(at_ns(bench.log.warp(0, 0).end) == 126);
    CHECK(at_ns(bench.log.warp(1, 0).start) == 126);
    CHECK(bench.sm.stats().pool_waits == 1);
}

TEST_CASE("sm scalar unit: under per-warp scalars a salu costs its cycles and the pool is untouched", "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(8), kPerWarp);
    run_block(bench);
    // The warps take turns (issue width 1): warp 0 issues at 26, 28 and 30 (the write: 5
    // cycles, no sync) and ends at 35; warp 1 at 27, 29, 31 and ends at 36.
    CHECK(bench.log.pool.empty());
    CHECK(at_ns(bench.log.warp(0, 0).end) == 35);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 36);
    CHECK(bench.sm.stats().scalar_updates == 0);
}

TEST_CASE("sm scalar unit: kernel-level registers stay for a block that arrives later until the GLC says none "
          "will come",
          "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(16), kMultilevel);
    bench.kernel(0, {salu(ScalarLevel::kernel, 1), valu(100)}, 0, {2, 0, 0, 0});
    bench.block(0, 0, 0, 1);
    bench.block(300, 0, 1, 1);
    bench.drained(350, 0);
    bench.run();
    // Block 0's warp allocates the kernel set at 26 and ends at 127; the set stays for block 1
    // (there at 302, its warp ends at 427), whose read finds it allocated. The GLC's word
    // arrives at 352, while block 1 runs: the set goes back when block 1 ends.
    CHECK(at_ns(bench.log.warp(0, 0).end) == 127);
    CHECK(at_ns(bench.log.warp(1, 0).end) == 427);
    CHECK(kernel_level_changes(bench.log.pool) == std::vector<std::pair<double, uint32_t>>{{26, 2}, {427, 0}});
    CHECK(bench.sm.scalar_pool().total_held() == 0);
}

TEST_CASE("sm scalar unit: the GLC's word after the kernel's last block here has ended frees its kernel-level "
          "registers at once",
          "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(16), kMultilevel);
    bench.kernel(0, {salu(ScalarLevel::kernel, 1), valu(100)}, 0, {2, 0, 0, 0});
    bench.block(0, 0, 0, 1);
    bench.drained(200, 0);
    bench.run();
    // The warp ends at 127, the kernel set stays; the word arrives at 202 and frees it then.
    CHECK(kernel_level_changes(bench.log.pool) == std::vector<std::pair<double, uint32_t>>{{26, 2}, {202, 0}});
    CHECK(bench.sm.scalar_pool().total_held() == 0);
}

TEST_CASE("sm scalar unit: a kernel-level update waits for every warp of the kernel's started blocks, which start "
          "whole",
          "[module][sm][m3][timing]") {
    SmBench bench(pool_sm(16), kMultilevel);  // 4 warp slots
    bench.kernel(0, {valu(50), salu(ScalarLevel::kernel, 5, true)}, 0, {1, 0, 0, 0});
    bench.block(0, 0, 0, 2);
    bench.block(0, 0, 1, 3);
    bench.run();
    // Block 1 (3 warps) would find 2 slots free beside block 0: it starts only when all three
    // can, when block 0's first warp has ended (82; its second ends at 83, both past their
    // update), so no update goes ahead without one of its warps. Block 0's two warps update
    // together; then block 1's three do.
    CHECK(at_ns(bench.log.warp(0, 0).end) == 82);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 83);
    for (uint32_t i = 0; i < 3; ++i) CHECK(at_ns(bench.log.warp(1, i).start) == 82);
    double lo = 1e18, hi = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        lo = std::min(lo, at_ns(bench.log.warp(1, i).end));
        hi = std::max(hi, at_ns(bench.log.warp(1, i).end));
    }
    CHECK(hi - lo <= 2);  // released by one update (one issue a cycle)
    CHECK(bench.sm.stats().scalar_updates == 2);
}
