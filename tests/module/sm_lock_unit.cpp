// M2's lock unit on the SM (models/sm/lock_unit.h) under both schemes: one SM with a stimulus
// and a stand-in arbiter. One block of two warps runs lock 0, valu 50, unlock 0, end, with 16
// bytes of shared memory (the lock words). Atomics take 10 cycles; both warps start at 2 ns and
// fetch at 6 (their lines there at 26); warp 0 issues first at 26, warp 1 a cycle later.
#include "tests/module/sm_bench.h"

using namespace gpuvp;
using namespace gpuvp::test;
using K = LockEventKind;

namespace {

std::vector<std::pair<K, uint32_t>> kinds(const SmLog& log) {  // (kind, warp) in order
    std::vector<std::pair<K, uint32_t>> v;
    for (const LockEvent& e : log.locks) v.push_back({e.kind, e.warp});
    return v;
}

}  // namespace

TEST_CASE("sm lock unit spin: the second warp fails and retries until the holder unlocks at exact times",
          "[module][sm][m2][timing]") {
    SmBench bench(small_sm(), SmPolicy{WarpStartOrder::arrival, LaunchPolicy::serial, LockPolicy::spin});
    bench.kernel(0, {lock(0), valu(50), unlock(0)});
    bench.block(0, 0, 0, 2, 0, 256, 16);
    bench.run();
    // Warp 0 takes the lock at 26 (it holds it from 36), runs valu 36-86, unlocks at 86 and ends
    // at 96. Warp 1 finds it held at 27 and every 10 ns after (back-off 0: it tries again when
    // its atomic returns): 27, 37, ..., 77 fail; at 87 the word is free: it holds it from 97,
    // valu 97-147, unlocks at 147, ends at 157.
    CHECK(at_ns(bench.log.warp(0, 0).end) == 96);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 157);
    const auto& s = bench.sm.stats().locks;
    CHECK(s.acquisitions == 2);
    CHECK(s.sync_failures == 6);
    CHECK(s.releases == 2);
    CHECK(s.arbiter_requests == 0);
    CHECK(bench.arbiter.requests.empty());
    std::vector<double> fails;
    for (const LockEvent& e : bench.log.locks)
        if (e.kind == K::sync_failure) fails.push_back(at_ns(e.t));
    CHECK(fails == std::vector<double>{27, 37, 47, 57, 67, 77});
    const LockEvent& last = bench.log.locks[bench.log.locks.size() - 2];  // warp 1's acquisition
    CHECK(last.kind == K::acquired);
    CHECK(last.warp == 1);
    CHECK(at_ns(last.t) == 97);
    CHECK(at_ns(last.wait) == 70);  // from its first try at 27
    CHECK(last.word == (kLockBit | 1));
}

TEST_CASE("sm lock unit priority: the arbiter pre-empts and rewinds the holder then parks the other at exact times",
          "[module][sm][m2][timing]") {
    SmBench bench(small_sm(), SmPolicy{WarpStartOrder::arrival, LaunchPolicy::serial, LockPolicy::priority});
    bench.kernel(0, {lock(0), valu(50), unlock(0)});
    bench.cprs(0, {1, 0});  // warp 1 outranks warp 0
    bench.arbiter.verdict = [](const LockRequest& r) { return r.requester == 1 ? LockVerdict::preempt : LockVerdict::wait; };
    bench.block(0, 0, 0, 2, 0, 256, 16);
    bench.run();
    // 26: warp 0 takes the lock (holds it from 36; valu 36-86). 27: warp 1 finds it held; its
    // request reaches the arbiter when its atomic returns (37), the decision (pre-empt) comes
    // back at 41 (2 ns to decide, 2 of bus): warp 0 releases it and is rewound to its lock (2
    // instructions to redo), warp 1 holds it from 51 (valu 51-101, unlock at 101, ends at 111).
    // Warp 0 goes on when its valu is done (86) with its lock again: held by warp 1, request at
    // 96, decision (wait) at 100: warp 0 parks; warp 1's unlock at 101 wakes it for 102; it
    // holds the lock from 112, valu 112-162, unlocks at 162, ends at 172.
    REQUIRE(bench.arbiter.requests.size() == 2);
    const LockRequest& r = bench.arbiter.requests[0].r;
    CHECK(bench.arbiter.requests[0].t == 37);
    CHECK((r.row == 0 && r.requester == 1 && r.holder == 0 && r.lock == 0 && r.seq == 1 && r.epoch == 0));
    CHECK(bench.arbiter.requests[1].t == 96);
    CHECK(bench.arbiter.requests[1].r.requester == 0);
    CHECK(bench.arbiter.requests[1].r.holder == 1);
    CHECK(at_ns(bench.log.warp(0, 1).end) == 111);
    CHECK(at_ns(bench.log.warp(0, 0).end) == 172);
    const auto& s = bench.sm.stats().locks;
    CHECK(s.acquisitions == 3);
    CHECK(s.forced_releases == 1);
    CHECK(s.redone_instructions == 2);
    CHECK(s.sync_failures == 1);
    CHECK(s.arbiter_requests == 2);
    CHECK(s.by_priority.at(1).forced_releases == 1);
    CHECK(s.by_priority.at(0).acquisitions == 1);
    CHECK(kinds(bench.log) == std::vector<std::pair<K, uint32_t>>{
                                  {K::acquired, 0}, {K::requested, 1}, {K::forced_release, 0}, {K::rewound, 0},
                                  {K::acquired, 1}, {K::requested, 0}, {K::sync_failure, 0}, {K::parked, 0},
                                  {K::released, 1}, {K::woken, 0}, {K::acquired, 0}, {K::released, 0}});
}

TEST_CASE("sm lock unit priority: at the hold limit the warp yields its lock and takes it back with nothing redone",
          "[module][sm][m2][timing]") {
    SmConfig c = small_sm();
    c.lock_hold_limit = 2;
    SmBench bench(c, SmPolicy{WarpStartOrder::arrival, LaunchPolicy::serial, LockPolicy::priority});
    bench.kernel(0, {lock(0), valu(5), valu(5), valu(5), unlock(0)});
    bench.block(0, 0, 0, 1, 0, 256, 16);
    bench.run();
    // Lock at 26 (held from 36); valu 36-41, 41-46; before the third valu the lock has counted
    // 2: it is released at 46 and taken back at 56 (held from 66); the third valu 66-71, the
    // unlock at 71, the end at 81.
    CHECK(at_ns(bench.log.warp(0, 0).end) == 81);
    const auto& s = bench.sm.stats().locks;
    CHECK(s.hold_limit_releases == 1);
    CHECK(s.retakes == 1);
    CHECK(s.acquisitions == 1);
    CHECK(s.redone_instructions == 0);
    CHECK(kinds(bench.log) == std::vector<std::pair<K, uint32_t>>{
                                  {K::acquired, 0}, {K::hold_limit_release, 0}, {K::acquired, 0}, {K::released, 0}});
    CHECK(at_ns(bench.log.locks[1].t) == 46);
    CHECK(at_ns(bench.log.locks[2].t) == 66);
}
