// M2: priority-aware warp mutexes (seed 001) against the spin-lock baseline. The seed's
// walk-through as an exact event order, equal priorities, the arbiter's FIFO order, the hold
// limit, a randomized stress with the lock invariants checked after every event, the watchdog,
// run-time misuse, and the contention scenario under both policies.
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/sm/shared_memory.h>
#include <gpuvp/platform/system.h>
#include "sc_main/sweep/sweep.h"
#include "tests/files.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

using namespace gpuvp;
using Catch::Matchers::Contains;
using K = LockEventKind;

namespace {

// Records every lock event and checks the lock invariants after each one, against a shadow
// of the lock words kept from the events alone: a lock is taken only when free and only by
// one warp, released only by its holder, a waiting warp holds locks only when it says so (an
// older equal warp), the arbiter's verdict follows the two CPRs, and once the SM is done with
// an instant no warp is left waiting for a free lock (a lost wake-up).
struct LockObserver : Observer {
    using Key = std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>;  // (sm, kernel, block, lock)
    std::vector<LockEvent> events;
    std::vector<std::string> violations;
    std::map<Key, uint32_t> owner;                      // -> the warp holding it
    std::map<std::pair<Key, uint32_t>, LockEvent> parked;  // (lock, warp) waiting for its release
    sc_core::sc_time instant;
    uint64_t acquisitions = 0, releases = 0;

    // Called before the first event of a later instant, and at the end of the run.
    void settle() {
        for (const auto& [k, e] : parked)
            if (!owner.count(k.first)) violation(e, "still waits for a lock that was released");
    }

    void violation(const LockEvent& e, const std::string& what) {
        violations.push_back(std::string(lock_event_name(e.kind)) + " sm " + std::to_string(e.sm) + " block " +
                             std::to_string(e.block) + " warp " + std::to_string(e.warp) + " lock " +
                             std::to_string(e.lock) + ": " + what);
    }
    bool holds_any(const LockEvent& e) const {
        for (const auto& [key, w] : owner)
            if (std::get<0>(key) == e.sm && std::get<1>(key) == e.kernel_slot && std::get<2>(key) == e.block && w == e.warp)
                return true;
        return false;
    }
    void lock_event(const LockEvent& e) override {
        if (sc_core::sc_time_stamp() > instant) {
            settle();
            instant = sc_core::sc_time_stamp();
        }
        events.push_back(e);
        const auto key = std::make_tuple(e.sm, e.kernel_slot, e.block, e.lock);
        switch (e.kind) {
        case K::acquired:
            ++acquisitions;
            if (owner.count(key)) violation(e, "taken while held by warp " + std::to_string(owner[key]));
            if (e.word != (kLockBit | e.warp)) violation(e, "lock word " + hex(e.word));
            owner[key] = e.warp;
            break;
        case K::released:
        case K::forced_release:
        case K::hold_limit_release:
        case K::failure_release:
        case K::exit_release:
            ++releases;
            if (!owner.count(key) || owner[key] != e.warp) violation(e, "released by a warp that does not hold it");
            owner.erase(key);
            break;
        case K::parked:
            if (holds_any(e) != (e.word == 1)) violation(e, "waits holding locks, or says it does and does not");
            if (!owner.count(key)) violation(e, "waits for a free lock");
            parked[{key, e.warp}] = e;
            break;
        case K::woken:
            if (!parked.erase({key, e.warp})) violation(e, "woken but not waiting");
            break;
        case K::arbiter_decision:
            if ((e.verdict == LockVerdict::preempt) != (e.cpr < e.other_cpr)) violation(e, "verdict against the CPRs");
            break;
        default:
            break;
        }
    }
    // A warp that ends (or is stopped) while it waits gives its wait up.
    void warp_finished(const WarpRecord& w) override {
        for (auto it = parked.begin(); it != parked.end();) {
            const Key& k = it->first.first;
            if (std::get<0>(k) == w.sm && std::get<1>(k) == w.kernel_slot && std::get<2>(k) == w.block && it->first.second == w.warp)
                it = parked.erase(it);
            else
                ++it;
        }
    }
    std::vector<LockEvent> of(uint32_t lock) const {
        std::vector<LockEvent> v;
        for (const auto& e : events)
            if (e.lock == lock || e.kind == K::rewound) v.push_back(e);
        return v;
    }
};

double ns(const sc_core::sc_time& t) { return to_ns(t); }

// Runs the scenario to its end with `obs` watching; the System stays for inspection.
struct LockRun {
    LockObserver obs;
    Scenario scenario;
    std::unique_ptr<System> sys;
    explicit LockRun(const std::string& yaml) : scenario(parse_scenario(yaml, "m2.yaml")) {
        sys = std::make_unique<System>("system", scenario, &obs);
    }
    void run() {
        sc_core::sc_start(sc_core::sc_time(scenario.max_sim_ns, sc_core::SC_NS), sc_core::SC_EXIT_ON_STARVATION);
        obs.settle();
    }
    const StreamingMultiprocessor::LockStats& stats() const { return sys->gpu.sm(0).stats().locks; }
};

// One block of warps on a 1 GHz platform (1 cycle = 1 ns), bus 2 cycles, atomics 48 cycles,
// the arbiter 2 cycles; `program` starts on line 12.
std::string one_block(const std::string& policy, unsigned threads, const std::string& extra, const std::string& program) {
    return "name: m2\nplatform:\n  clock_mhz: 1000\n  sms: 1\n  bus_cycles: 2\n  sm: {atomic_latency_cycles: 48, "
           "arbiter_cycles: 2" + std::string(extra.empty() ? "" : ", " + extra) + "}\npolicy: {lock: " + policy +
           "}\nkernels:\n  - name: k\n    grid: [" + std::to_string(threads) + "]\n    block: [" + std::to_string(threads) +
           "]\n    shared_bytes: 16\n" + program;
}

}  // namespace

TEST_CASE("M2 seed walk-through: warp 1 holds the lock and warp 0 of higher priority takes it through the arbiter",
          "[m2]") {
    // Warp 1 (CPR 1) takes lock 0 at once; warp 0 (CPR 0) comes 100 cycles later.
    LockRun r(one_block("priority", 64, "", R"(    warp_priorities: [0, 1]
    program:
      - {op: if_warp, warps: [0], body: [{op: valu, cycles: 100}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 10, repeat: 20}
      - {op: unlock, id: 0}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    const auto ev = r.obs.of(0);
    REQUIRE(ev.size() >= 7);
    // S2: warp 1 finds the MSB clear, sets it and stores its id 0x1.
    CHECK(ev[0].kind == K::acquired);
    CHECK(ev[0].warp == 1);
    CHECK(ev[0].word == 0x8000'0001u);
    // S3, S4: warp 0 finds the lock held by warp 1 and pushes (0x0, 0x1) into the FIFO.
    CHECK(ev[1].kind == K::requested);
    CHECK(ev[1].warp == 0);
    CHECK(ev[1].other == 1);
    CHECK(ev[2].kind == K::arbiter_push);
    CHECK(ev[2].warp == 0);
    CHECK(ev[2].other == 1);
    // S5, S6: the arbiter sees CPR 0 outrank CPR 1 and signals warp 1.
    CHECK(ev[3].kind == K::arbiter_decision);
    CHECK(ev[3].verdict == LockVerdict::preempt);
    CHECK(ev[3].cpr == 0);
    CHECK(ev[3].other_cpr == 1);
    // S7: warp 1 releases the lock and abandons its critical section.
    CHECK(ev[4].kind == K::forced_release);
    CHECK(ev[4].warp == 1);
    CHECK(ev[4].other == 0);
    CHECK(ev[5].kind == K::rewound);
    CHECK(ev[5].warp == 1);
    CHECK(ev[5].redone > 0);
    // S8: warp 0 takes the lock (its id 0x0) and its counter starts at 0.
    CHECK(ev[6].kind == K::acquired);
    CHECK(ev[6].warp == 0);
    CHECK(ev[6].word == 0x8000'0000u);
    // The timing: the request travels the bus (2), the arbiter reads two CPRs over the bus
    // (2 + 2) and decides (2), the decision travels the bus (2), the lock word is written (48).
    CHECK(ns(ev[2].t) - ns(ev[1].t) == 2);
    CHECK(ns(ev[3].t) - ns(ev[2].t) == 6);
    CHECK(ns(ev[4].t) - ns(ev[3].t) == 2);
    CHECK(ns(ev[6].t) - ns(ev[4].t) == 48);
    // Then warp 1 tries again, loses to warp 0, waits, and gets the lock when warp 0 is done.
    std::vector<K> rest;
    for (size_t i = 7; i < ev.size(); ++i)
        if (ev[i].kind != K::requested && ev[i].kind != K::arbiter_push) rest.push_back(ev[i].kind);
    CHECK(rest == std::vector<K>{K::arbiter_decision, K::sync_failure, K::parked, K::released, K::woken, K::acquired,
                                 K::released});
    CHECK(r.stats().forced_releases == 1);
    CHECK(r.stats().redone_instructions == ev[5].redone);
    CHECK(r.obs.owner.empty());
}

TEST_CASE("M2 equal priority: the requester waits and releases the locks it holds", "[m2]") {
    // No warp_priorities: both warps CPR 0. Warp 1 holds lock 1 for 200 cycles; warp 0 takes
    // lock 0, then wants lock 1.
    LockRun r(one_block("priority", 64, "", R"(    program:
      - {op: if_warp, warps: [0], body: [{op: valu, cycles: 20}, {op: lock, id: 0}, {op: lock, id: 1},
                                          {op: unlock, id: 1}, {op: unlock, id: 0}]}
      - {op: if_warp, warps: [1], body: [{op: lock, id: 1}, {op: valu, cycles: 200}, {op: unlock, id: 1}]}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    std::vector<std::pair<K, uint32_t>> warp0;  // (event, lock) of warp 0
    for (const auto& e : r.obs.events)
        if (e.warp == 0 && e.slot != ~0u) warp0.push_back({e.kind, e.lock});
    const std::vector<std::pair<K, uint32_t>> expected = {
        {K::acquired, 0},        {K::requested, 1}, {K::sync_failure, 1}, {K::failure_release, 0},
        {K::rewound, ~0u},       {K::parked, 1},    {K::woken, 1},        {K::acquired, 0},
        {K::acquired, 1},        {K::released, 1},  {K::released, 0}};
    CHECK(warp0 == expected);
    for (const auto& e : r.obs.events) {
        CHECK(e.kind != K::forced_release);  // nobody outranks anybody
        if (e.kind == K::arbiter_decision) CHECK(e.verdict == LockVerdict::wait);
    }
    CHECK(r.stats().sync_failures == 1);
    CHECK(r.stats().forced_releases == 0);
    CHECK(r.stats().redone_instructions == 2);  // lock 0 and the failed lock 1
}

namespace {
// Warp 0 (CPR 0) takes lock 0, then wants lock 1, which warp 1 (CPR 0) took after warp 0's
// lock 0 and holds for 200 cycles: warp 0's critical section is the older.
std::string older_requester(const std::string& equal_priority) {
    return one_block("priority", 64, equal_priority.empty() ? "" : "lock_equal_priority: " + equal_priority, R"(    program:
      - {op: if_warp, warps: [0], body: [{op: lock, id: 0}, {op: valu, cycles: 20}, {op: lock, id: 1},
                                          {op: unlock, id: 1}, {op: unlock, id: 0}]}
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 10}, {op: lock, id: 1}, {op: valu, cycles: 200}, {op: unlock, id: 1}]}
)");
}
std::vector<std::pair<K, uint32_t>> events_of_warp(const LockObserver& obs, uint32_t warp) {
    std::vector<std::pair<K, uint32_t>> v;  // (event, lock)
    for (const auto& e : obs.events)
        if (e.warp == warp && e.slot != ~0u) v.push_back({e.kind, e.lock});
    return v;
}
}  // namespace

TEST_CASE("M2 lock_equal_priority wait (the seed, the default): an older equal requester releases its locks and redoes", "[m2]") {
    LockRun r(older_requester(""));
    r.run();
    REQUIRE(r.obs.violations.empty());
    CHECK(r.scenario.platform.sm.lock_equal_priority == LockEqualPriority::wait);
    const std::vector<std::pair<K, uint32_t>> expected = {
        {K::acquired, 0}, {K::requested, 1}, {K::sync_failure, 1}, {K::failure_release, 0}, {K::rewound, ~0u},
        {K::parked, 1},   {K::woken, 1},     {K::acquired, 0},     {K::acquired, 1},        {K::released, 1},
        {K::released, 0}};
    CHECK(events_of_warp(r.obs, 0) == expected);
    CHECK(r.stats().sync_failures == 1);
    CHECK(r.stats().redone_instructions == 3);  // lock 0, the valu and the failed lock 1
    CHECK(r.stats().acquisitions == 4);         // lock 0 twice
}

TEST_CASE("M2 lock_equal_priority wait-die: an older equal requester waits keeping its locks", "[m2]") {
    LockRun r(older_requester("wait-die"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    const std::vector<std::pair<K, uint32_t>> expected = {
        {K::acquired, 0}, {K::requested, 1}, {K::parked, 1}, {K::woken, 1}, {K::acquired, 1}, {K::released, 1},
        {K::released, 0}};
    CHECK(events_of_warp(r.obs, 0) == expected);
    for (const auto& e : r.obs.events)
        if (e.kind == K::parked) CHECK(e.word == 1);  // it waits holding lock 0
    CHECK(r.stats().sync_failures == 0);
    CHECK(r.stats().redone_instructions == 0);
    CHECK(r.stats().acquisitions == 3);
}

TEST_CASE("M2 the arbiter serves its FIFO in order and debuggers can read it", "[m2]") {
    // Warp 3 (CPR 2) holds lock 0; warps 0, 1, 2 (CPR 1, 0, 1) ask for it one cycle apart,
    // faster than the arbiter decides (6 cycles an entry).
    LockRun r(one_block("priority", 128, "", R"(    warp_priorities: [1, 0, 1, 2]
    program:
      - {op: if_warp, warps: [0, 1, 2], body: [{op: valu, cycles: 100}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 10, repeat: 10}
      - {op: unlock, id: 0}
)"));
    test::DebugProbe probe("probe");
    probe.bus.bind(r.sys->bus.in);
    // Step until the FIFO holds more than one entry, and read it through the debug aperture.
    uint64_t seen = 0;
    for (int i = 0; i < 20000 && seen < 2; ++i) {
        sc_core::sc_start(1, sc_core::SC_NS);
        seen = probe.read<uint64_t>(map::kDebugArbiter + map::kArbiterFifo);  // row 0: the block
    }
    REQUIRE(seen >= 2);
    const auto head = probe.read<LockRequest>(map::kDebugArbiter + map::kArbiterFifo + 8 + sizeof(LockRequest));
    CHECK(head.holder == 3);
    r.run();
    REQUIRE(r.obs.violations.empty());
    std::vector<std::pair<uint32_t, uint32_t>> pushes, decisions;
    std::vector<double> decided_at;
    for (const auto& e : r.obs.events) {
        if (e.kind == K::arbiter_push) pushes.push_back({e.warp, e.other});
        if (e.kind == K::arbiter_decision) {
            decisions.push_back({e.warp, e.other});
            decided_at.push_back(ns(e.t));
        }
    }
    REQUIRE(pushes.size() >= 3);
    const std::vector<std::pair<uint32_t, uint32_t>> first = {{0, 3}, {1, 3}, {2, 3}};
    CHECK(std::vector<std::pair<uint32_t, uint32_t>>(pushes.begin(), pushes.begin() + 3) == first);
    CHECK(decisions == pushes);  // every entry decided, in the order pushed
    for (size_t i = 1; i < 3; ++i) CHECK(decided_at[i] - decided_at[i - 1] >= 6);
    CHECK(r.sys->gpu.arbiter(0).stats().fifo_max >= 2);
    // Warp 1 (CPR 0) ends up ahead of warps 0 and 2: it takes the lock right after warp 0's
    // pre-emption of warp 3, pre-empting warp 0 in turn.
    std::vector<uint32_t> takers;
    for (const auto& e : r.obs.events)
        if (e.kind == K::acquired) takers.push_back(e.warp);
    REQUIRE(takers.size() >= 3);
    CHECK(takers[0] == 3);
    CHECK(takers[1] == 0);
    CHECK(takers[2] == 1);
}

TEST_CASE("M2 the hold limit frees a lock held by a long critical section", "[m2]") {
    // Both warps CPR 0. Warp 0 takes lock 0 for 40 instructions; the limit is 10. Warp 1
    // waits for the lock.
    LockRun r(one_block("priority", 64, "lock_hold_limit: 10", R"(    program:
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 20}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: valu, cycles: 4}
      - {op: unlock, id: 0}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    // Warp 0 acquires, executes exactly 10 instructions of 4 cycles, then releases at the limit.
    const LockEvent* acquired = nullptr;
    const LockEvent* limit = nullptr;
    for (const auto& e : r.obs.events) {
        if (!acquired && e.kind == K::acquired && e.warp == 0) acquired = &e;
        if (!limit && e.kind == K::hold_limit_release) limit = &e;
    }
    REQUIRE(acquired);
    REQUIRE(limit);
    CHECK(limit->warp == 0);
    CHECK(ns(limit->t) - ns(acquired->t) == 10 * 4);
    // The waiting warp gets the lock next; warp 0 takes it back later and finishes. Nothing
    // is redone: a release at the limit keeps the work done.
    std::vector<uint32_t> takers;
    for (const auto& e : r.obs.events)
        if (e.kind == K::acquired && ns(e.t) > ns(limit->t)) takers.push_back(e.warp);
    REQUIRE(!takers.empty());
    CHECK(takers[0] == 1);
    CHECK(r.stats().hold_limit_releases >= 1);
    CHECK(r.stats().redone_instructions == 0);
    CHECK(r.stats().releases == 2);  // both critical sections completed
    CHECK(r.obs.owner.empty());
}

namespace {
// Warp 0 holds lock 0 for 40 instructions of 4 cycles (81 counted: the loop's), the limit is
// 10; warps 1 and 2 (after 20 and 30 cycles) want it for one instruction of 200 cycles each,
// long enough for the others to be parked when they unlock. All CPR 0.
std::string hold_limit_queue(const std::string& action) {
    return one_block("priority", 96, "lock_hold_limit: 10" + (action.empty() ? "" : ", lock_hold_limit_action: " + action), R"(    program:
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 20}]}
      - {op: if_warp, warps: [2], body: [{op: valu, cycles: 30}]}
      - {op: if_warp, warps: [0], body: [{op: lock, id: 0}, {op: valu, cycles: 4, repeat: 40}, {op: unlock, id: 0}]}
      - {op: if_warp, warps: [1, 2], body: [{op: lock, id: 0}, {op: valu, cycles: 200}, {op: unlock, id: 0}]}
)");
}
// Who held lock 0, in turn (an acquisition or a take-back each).
std::vector<uint32_t> holders(const LockObserver& obs) {
    std::vector<uint32_t> v;
    for (const auto& e : obs.events)
        if (e.kind == K::acquired && e.lock == 0) v.push_back(e.warp);
    return v;
}
}  // namespace

TEST_CASE("M2 lock_hold_limit_action release (the seed, the default): the warp takes its lock again after the waiters", "[m2]") {
    LockRun r(hold_limit_queue(""));
    r.run();
    REQUIRE(r.obs.violations.empty());
    CHECK(r.scenario.platform.sm.lock_hold_limit_action == LockHoldLimitAction::release);
    // At its limit warp 0 releases; warp 1 (the oldest waiter) takes the lock. Warp 0 asks for
    // it again as a new requester, younger than warp 2, which is woken first when warp 1 ends.
    // Then warp 0 alone, releasing and taking it back at each limit (8 in all).
    const std::vector<uint32_t> expected{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(holders(r.obs) == expected);
    CHECK(r.stats().hold_limit_releases == 8);
    CHECK(r.stats().redone_instructions == 0);
    CHECK(r.stats().releases == 3);
}

TEST_CASE("M2 lock_hold_limit_action yield: the warp keeps its critical section's age and takes its lock back first", "[m2]") {
    LockRun r(hold_limit_queue("yield"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    // Warp 1 takes the lock at warp 0's limit; warp 0, the oldest waiter, gets it back when
    // warp 1 ends, ahead of warp 2.
    const std::vector<uint32_t> expected{0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    CHECK(holders(r.obs) == expected);
    CHECK(r.stats().hold_limit_releases == 8);
    CHECK(r.stats().redone_instructions == 0);
    CHECK(r.stats().releases == 3);
}

namespace {

// A random workload: several kernels with blocks of 8 warps, locks 0-3 taken one or two at a
// time in random orders (so warps take locks in opposite orders), random CPRs, a small hold
// limit, on 2 SMs.
std::string random_locks(const std::string& policy, unsigned seed) {
    std::mt19937 rng(seed);
    auto pick = [&](unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng); };
    std::ostringstream y;
    y << "name: stress\nplatform:\n  sms: 2\n  sm: {lock_hold_limit: 12, lock_backoff_cycles: 40}\n"
      << "policy: {lock: " << policy << "}\nkernels:\n";
    for (int k = 0; k < 6; ++k) {
        y << "  - name: k" << k << "\n    grid: [" << 256 * pick(2, 4) << "]\n    block: [256]\n    shared_bytes: 16\n"
          << "    warp_priorities: [";
        for (int w = 0; w < 8; ++w) y << (w ? ", " : "") << pick(0, 3);
        y << "]\n    program:\n";
        for (int group = 0; group < 3; ++group) {  // warps 0-2, 3-5, 6-7: a task each
            y << "      - {op: if_warp, warps: [" << group * 3 << ", " << group * 3 + 1
              << (group < 2 ? ", " + std::to_string(group * 3 + 2) : std::string()) << "], body: [{op: loop, count: "
              << pick(5, 20) << ", body: [{op: valu, cycles: " << pick(10, 200) << "}";
            const unsigned a = pick(0, 3), b = (a + pick(1, 3)) % 4;
            y << ", {op: lock, id: " << a << "}, {op: valu, cycles: 4, repeat: " << pick(1, 20) << "}";
            if (pick(0, 1)) y << ", {op: lock, id: " << b << "}, {op: valu, cycles: 2, repeat: " << pick(1, 8)
                              << "}, {op: unlock, id: " << b << "}";
            y << ", {op: unlock, id: " << a << "}]}]}\n";
        }
    }
    return y.str();
}

void stress(const std::string& policy) {
    LockRun r(random_locks(policy, 2026));
    test::DebugProbe probe("probe");
    probe.bus.bind(r.sys->bus.in);
    r.run();
    for (const auto& v : r.obs.violations) FAIL_CHECK(v);
    REQUIRE(r.obs.violations.empty());
    CHECK(r.obs.owner.empty());  // no lock left held
    uint64_t acquisitions = 0, deadlocks = 0, warps = 0;
    for (uint32_t i = 0; i < r.sys->gpu.sm_count(); ++i) {
        acquisitions += r.sys->gpu.sm(i).stats().locks.acquisitions;
        deadlocks += r.sys->gpu.sm(i).stats().locks.deadlocks;
        warps += r.sys->gpu.sm(i).stats().warps_run;
    }
    CHECK(r.obs.releases == r.obs.acquisitions);  // every lock taken (or taken back) was released once
    CHECK(r.obs.parked.empty());
    CHECK(acquisitions > 2000);
    CHECK(deadlocks == 0);
    // The stress reaches every path: failures, and under priority pre-emptions and the limit.
    std::map<K, uint64_t> kinds;
    for (const auto& e : r.obs.events) ++kinds[e.kind];
    CHECK(kinds[K::sync_failure] > 100);
    CHECK(kinds[K::failure_release] > 10);
    if (policy == "priority") {
        CHECK(kinds[K::forced_release] > 10);
        CHECK(kinds[K::hold_limit_release] > 10);
        CHECK(kinds[K::parked] > 100);
    }
    uint64_t expected_warps = 0;
    for (const auto& k : r.scenario.workload.kernels) expected_warps += k.grid[0] / 32;
    CHECK(warps == expected_warps);
    for (const auto& l : r.sys->host.launches()) {
        CHECK(l.done);
        CHECK(l.error.empty());
    }
    // Every lock word in every SM's shared memory is free again.
    for (uint32_t i = 0; i < r.sys->gpu.sm_count(); ++i) {
        std::vector<uint32_t> words(r.scenario.platform.sm.shared_memory / 4);
        const uint64_t at = HostLayout{}.mmio_base + map::kDebugSm + i * map::kDebugStride + map::kSmShared;
        REQUIRE(debug_transport(probe.bus, tlm::TLM_READ_COMMAND, at, words.data(), unsigned(words.size() * 4)) ==
                words.size() * 4);
        CHECK(std::count(words.begin(), words.end(), 0u) == long(words.size()));
    }
}

}  // namespace

TEST_CASE("M2 stress under lock priority: no lost or double-held lock", "[m2][stress]") { stress("priority"); }
TEST_CASE("M2 stress under lock spin: no lost or double-held lock", "[m2][stress]") { stress("spin"); }

TEST_CASE("M2 the watchdog stops warps that make no progress and names warps locks and holders", "[m2]") {
    // Warp 0 takes lock 0 at once and holds it for 60000 cycles; warp 1 asks for it 30000
    // cycles later. The watchdog (20000 cycles) looks from when warp 0 took the lock: it stops
    // both warps as soon as warp 1 waits, long before warp 0 would let go.
    const std::string yaml = one_block("priority", 64, "lock_hold_limit: 0, lock_watchdog_cycles: 20000", R"(    program:
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 30000}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 60000}
      - {op: unlock, id: 0}
)");
    const auto run = test::run_yaml(yaml);
    CHECK(run.out.exit_code == 1);
    CHECK(run.results["status"] == "error");
    const std::string status = run.kernel("k")["status"];
    CHECK_THAT(status, Contains("lock deadlock"));
    CHECK_THAT(status, Contains("sm[0] block 0: no critical section completed (nor a hold-limit hand-over) in 20000 cycles"));
    CHECK_THAT(status, Contains("warp 0 (CPR 0) holds lock 0"));
    CHECK_THAT(status, Contains("warp 1 (CPR 0) waits for lock 0 held by warp 0, its request with the arbiter"));
    CHECK(run.results["locks"]["deadlocks"] == 1);
    bool reported = false;
    for (const auto& e : run.results["errors"])
        if (e["error"] == "lock_deadlock") {
            reported = true;
            const double start = run.kernel("k")["first_warp_start_ns"];
            CHECK(e["time_ns"].get<double>() > start + 30000);  // when warp 1 began to wait,
            CHECK(e["time_ns"].get<double>() < start + 30500);  // not 20000 cycles after that
        }
    CHECK(reported);
    CHECK(run.results["sim_end_ns"].get<double>() < 60000);  // stopped, not waited out
}

TEST_CASE("M2 a code object that misuses a lock fails its kernel with lock misuse", "[m2][errors]") {
    // The loader refuses such programs; a code object built by other means reaches the SM.
    Scenario s = parse_scenario(one_block("spin", 64, "", "    program: [{op: valu}]\n"), "m2.yaml");
    ProgramStep lock;
    lock.insn = Instruction{Opcode::lock, 0, 2};
    s.workload.kernels[0].program = {lock};  // then the end, lock 2 still held
    const RunOutput out = run_scenario(s, RunOptions{false});
    const auto r = nlohmann::json::parse(out.results);
    CHECK(out.exit_code == 1);
    CHECK_THAT(r["kernels"][0]["status"].get<std::string>(), Contains("lock misuse"));
}

TEST_CASE("M2 shared memory hands out cleared ranges and merges freed ones", "[m2]") {
    SharedMemory m(64);
    auto a = m.allocate(16), b = m.allocate(16), c = m.allocate(32);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK(*a == 0);
    CHECK(*b == 16);
    CHECK(*c == 32);
    CHECK_FALSE(m.allocate(1));
    m.write32(*b, 0x8000'0003u);
    m.free(*a, 16);
    m.free(*b, 16);  // merges with a's hole: 32 bytes at 0
    auto d = m.allocate(32);
    REQUIRE(d);
    CHECK(*d == 0);
    CHECK(m.read32(16) == 0);  // cleared on allocation
    m.free(*c, 32);
    m.free(*d, 32);
    CHECK(m.allocate(64) == std::optional<uint32_t>(0));
    CHECK(m.allocate(0) == std::optional<uint32_t>(0));
}

TEST_CASE("M2 against the spin-lock baseline on the contention scenario", "[m2][baseline]") {
    SweepOptions options;
    options.out_dir = gpuvp::test::temp_dir();
    options.jobs = 2;
    const std::string& dir = options.out_dir;
    const SweepOutput out = run_sweep(std::string(GPUVP_SOURCE_DIR) + "/scenarios/lock-contention.yaml", {},
                                      {{"policy.lock", {"priority", "spin"}}}, options);
    auto load = [&](int point) {
        std::ifstream f(std::string(dir) + "/point-" + std::to_string(point) + "/results.json");
        return nlohmann::json::parse(f);
    };
    const auto pri = load(0), spin = load(1);
    REQUIRE(pri["policy"]["lock"] == "priority");
    REQUIRE(spin["policy"]["lock"] == "spin");
    const auto& p0 = pri["locks"]["by_priority"]["0"];
    const auto& s0 = spin["locks"]["by_priority"]["0"];
    const auto& p1 = pri["locks"]["by_priority"]["1"];
    const auto& s1 = spin["locks"]["by_priority"]["1"];
    // The real-time warps wait far less and finish far sooner.
    CHECK(p0["wait_ns"]["mean"].get<double>() * 5 < s0["wait_ns"]["mean"].get<double>());
    CHECK(p0["wait_ns"]["max"].get<double>() * 5 < s0["wait_ns"]["max"].get<double>());
    CHECK(p0["task_end_ns"]["max"].get<double>() * 2 < s0["task_end_ns"]["max"].get<double>());
    // The price is paid by the background warps: pre-empted, their work redone, later done.
    CHECK(pri["locks"]["forced_releases"].get<uint64_t>() > 0);
    CHECK(p1["redone_instructions"].get<uint64_t>() > 0);
    CHECK(spin["locks"]["forced_releases"] == 0);
    CHECK(spin["locks"]["redone_instructions"] == 0);
    CHECK(spin["locks"]["arbiter_requests"] == 0);
    const double slowdown = p1["task_end_ns"]["max"].get<double>() / s1["task_end_ns"]["max"].get<double>();
    CHECK(slowdown > 1.0);
    CHECK(slowdown < 1.25);
    // Everything ran; the spin point misses the scenario's real-time expectations.
    CHECK(pri["status"] == "ok");
    CHECK(spin["status"] == "ok");
    bool spin_missed = false;
    for (const auto& e : spin["expectations"]) spin_missed |= !e["passed"].get<bool>();
    CHECK(spin_missed);
    CHECK_THAT(out.locks_csv, Contains("priority,0,8,160,"));
    std::system(("rm -rf " + std::string(dir)).c_str());
}

TEST_CASE("M2 lock hand-overs are instant events in the trace on the warps' rows", "[m2][trace]") {
    const auto run = test::run_yaml(one_block("priority", 64, "", R"(    warp_priorities: [0, 1]
    program:
      - {op: if_warp, warps: [0], body: [{op: valu, cycles: 100}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 10, repeat: 20}
      - {op: unlock, id: 0}
)"),
                                    {}, true);
    std::vector<std::string> names;
    bool arbiter_row = false;
    for (const auto& e : run.trace["traceEvents"]) {
        if (e.value("cat", "") != "lock") continue;
        CHECK(e["ph"] == "i");
        CHECK(e["pid"] == 100);  // sm[0]
        names.push_back(e["name"]);
        if (e["tid"] == 998) arbiter_row = true;
        else CHECK(e["args"]["kernel"] == "k");
    }
    CHECK(arbiter_row);
    REQUIRE(names.size() >= 7);
    CHECK(names[0] == "lock 0 acquired");
    CHECK(names[3] == "warp 0 pre-empts warp 1 (lock 0)");
    CHECK(names[4] == "lock 0 forced release for warp 0");
    CHECK(names[6] == "lock 0 acquired");
    CHECK(run.results["locks"]["forced_releases"] == 1);
    CHECK(run.results["locks"]["by_priority"]["0"]["acquisitions"] == 1);
}

TEST_CASE("M2 equal-priority warps taking two locks in opposite orders both finish", "[m2]") {
    // Warp 0 takes lock 0 then lock 1, warp 1 lock 1 then lock 0, both CPR 0, in lockstep.
    LockRun r(one_block("priority", 64, "", R"(    program:
      - {op: if_warp, warps: [0], body: [{op: lock, id: 0}, {op: valu, cycles: 3, repeat: 5}, {op: lock, id: 1},
                                          {op: valu, cycles: 2}, {op: unlock, id: 1}, {op: unlock, id: 0}]}
      - {op: if_warp, warps: [1], body: [{op: lock, id: 1}, {op: valu, cycles: 3, repeat: 5}, {op: lock, id: 0},
                                          {op: valu, cycles: 2}, {op: unlock, id: 0}, {op: unlock, id: 1}]}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    // Both ask the arbiter, both are told to wait (equal priority). The younger critical
    // section gives way: it releases its lock and waits; the older one waits with its lock,
    // or finds the other's lock free by then and takes it.
    CHECK(r.stats().sync_failures == 1);
    CHECK(r.stats().releases == 4);
    for (const auto& l : r.sys->host.launches()) CHECK(l.error.empty());
    CHECK(r.sys->host.launches().at(0).done);
}

TEST_CASE("M2 the hold limit bounds an outer lock held across inner critical sections", "[m2]") {
    // Warp 0 holds lock 0 across 20 inner sections of lock 1 (4 instructions each); the limit
    // is 8 instructions. Lock 0's count goes on through the inner sections, so the limit is
    // reached while lock 1 is held too: both are released together. (Were the newest lock to
    // decide, lock 1's count of at most 4 would never reach it.)
    LockRun r(one_block("priority", 64, "lock_hold_limit: 8", R"(    program:
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 30}]}
      - {op: lock, id: 0}
      - {op: loop, count: 20, body: [{op: lock, id: 1}, {op: valu, cycles: 2, repeat: 4}, {op: unlock, id: 1}, {op: valu, cycles: 2}]}
      - {op: unlock, id: 0}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    const LockEvent* first = nullptr;
    bool both = false;
    for (const auto& e : r.obs.events)
        if (e.kind == K::hold_limit_release && e.warp == 0) {
            if (!first) first = &e;
            else if (e.t == first->t && e.lock != first->lock) both = true;
        }
    REQUIRE(first);
    CHECK(first->lock == 0);  // the oldest first, in the order taken
    CHECK(both);              // with lock 1, held at that moment
    CHECK(r.stats().releases == 2 * 21);  // every inner and outer section completed, in both warps
}

namespace {
// Found by review: two warps of equal priority sharing an inner lock under outer locks of
// their own. (The default platform: at 1.5 GHz these timings make the warps collide: under
// wait-die with gto's issue order; under the seed's wait with lrr's, where they livelock;
// under the seed's wait with gto the greedy warp gets through.)
std::string inner_shared(const std::string& equal_priority, const std::string& issue) {
    return R"(name: inner-shared
platform: {sms: 1, sm: {lock_hold_limit: 0, lock_watchdog_cycles: 30000, lock_equal_priority: )" + equal_priority + R"(}}
policy: {lock: priority, issue: )" + issue + R"(}
kernels:
  - name: k
    grid: [288]
    block: [96]
    shared_bytes: 16
    program:
      - {op: if_warp, warps: [2], body: [{op: loop, count: 2, body: [
          {op: lock, id: 0},
          {op: loop, count: 3, body: [{op: lock, id: 1}, {op: valu, cycles: 2, repeat: 3}, {op: valu, cycles: 10, repeat: 2}, {op: unlock, id: 1}]},
          {op: unlock, id: 0}]}]}
      - {op: if_warp, warps: [1], body: [{op: loop, count: 1, body: [
          {op: loop, count: 2, body: [{op: lock, id: 1}, {op: valu, cycles: 5, repeat: 5}, {op: unlock, id: 1}]},
          {op: lock, id: 3},
          {op: valu, cycles: 1, repeat: 2},
          {op: loop, count: 6, body: [{op: lock, id: 1}, {op: valu, cycles: 1, repeat: 3}, {op: unlock, id: 1}]},
          {op: unlock, id: 3}]}]}
)";
}
}  // namespace

TEST_CASE("M2 equal-priority warps sharing an inner lock under their own outer locks finish under wait-die", "[m2]") {
    // The older critical section waits with its locks; the younger gives way.
    LockRun r(inner_shared("wait-die", "gto"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    CHECK(r.stats().deadlocks == 0);
    CHECK(r.stats().releases == 3 * (2 * (3 + 1) + 2 + 1 + 6));  // every section completed, in each of 3 blocks
    CHECK(r.stats().sync_failures > 0);  // they did collide
    for (const auto& l : r.sys->host.launches()) CHECK(l.error.empty());
}

TEST_CASE("M2 equal-priority warps sharing an inner lock under their own outer locks livelock under the seed's wait", "[m2]") {
    // Each equal requester releases everything and waits: the two knock each other back
    // until the watchdog stops them.
    LockRun r(inner_shared("wait", "lrr"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    CHECK(r.stats().deadlocks == 1);
    CHECK(r.stats().sync_failures > 100);
    CHECK(!r.sys->host.launches().at(0).error.empty());
}

TEST_CASE("M2 warps taking locks in a cycle of three finish", "[m2]") {
    LockRun r(one_block("priority", 128, "lock_hold_limit: 256", R"(    program:
      - {op: if_warp, warps: [0], body: [{op: valu}, {op: lock, id: 2}, {op: valu, repeat: 2}, {op: unlock, id: 2}]}
      - {op: if_warp, warps: [2], body: [{op: valu}, {op: lock, id: 0}, {op: valu, repeat: 2},
          {op: loop, count: 3, body: [{op: lock, id: 2}, {op: valu, repeat: 2}, {op: unlock, id: 2}]}, {op: unlock, id: 0}]}
      - {op: if_warp, warps: [1], body: [{op: loop, count: 3, body: [{op: valu}, {op: lock, id: 1}, {op: valu, repeat: 6},
          {op: lock, id: 0}, {op: unlock, id: 1}, {op: unlock, id: 0}]}]}
      - {op: if_warp, warps: [3], body: [{op: lock, id: 2}, {op: lock, id: 0}, {op: valu, repeat: 6}, {op: lock, id: 1},
          {op: unlock, id: 2}, {op: unlock, id: 0}, {op: unlock, id: 1}]}
)"));
    r.run();
    REQUIRE(r.obs.violations.empty());
    CHECK(r.stats().deadlocks == 0);
    for (const auto& l : r.sys->host.launches()) CHECK(l.error.empty());
    CHECK(r.obs.owner.empty());
}

TEST_CASE("M2 hold-limit hand-overs count as progress for the watchdog", "[m2]") {
    // Two warps each hold lock 0 for 6000 instructions of 10 cycles; the watchdog's bound is
    // 20000 cycles. The hold limit (256) makes them alternate: the work goes on, nothing stops.
    const auto run = test::run_yaml(one_block("priority", 64, "lock_hold_limit: 256, lock_watchdog_cycles: 20000", R"(    program:
      - {op: lock, id: 0}
      - {op: valu, cycles: 10, repeat: 3000}
      - {op: unlock, id: 0}
)"));
    CHECK(run.kernel("k")["status"] == "ok");
    CHECK(run.results["locks"]["deadlocks"] == 0);
    CHECK(run.results["locks"]["hold_limit_releases"].get<uint64_t>() > 10);
}
