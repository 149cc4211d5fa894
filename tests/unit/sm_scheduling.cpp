// The schedulers under the SMs: the core clock that runs every SM, the issue scheduler (gto and
// lrr, held against a full scan of every slot) and the time queue.
#include <gpuvp/models/common/time_queue.h>
#include <gpuvp/models/sm/core_clock.h>
#include <gpuvp/models/sm/issue_scheduler.h>

#include <catch2/catch.hpp>
#include <systemc>

#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

sc_time ps(uint64_t v) { return sc_time::from_value(v); }

// What the issue scheduler must pick, written the plain way: every slot's ready cycle and age,
// looked at in full for each pick.
struct NaiveIssue {
    IssuePolicy policy;
    std::vector<uint64_t> ready;   // kNever: not waiting to issue
    std::vector<uint64_t> placed;  // kNever: no warp
    uint64_t now = 0;
    uint32_t greedy = SlotMask::kNone, last = SlotMask::kBits - 1;
    bool first_issued = false;
    static constexpr uint64_t kNever = IssueScheduler::kNever;

    NaiveIssue(IssuePolicy p, uint32_t slots) : policy(p), ready(slots, kNever), placed(slots, kNever) {}
    bool due(uint32_t s) const { return ready[s] <= now; }
    uint32_t pick() {
        uint32_t best = SlotMask::kNone;
        const uint32_t n = uint32_t(ready.size());
        if (policy == IssuePolicy::gto) {
            if (greedy != SlotMask::kNone && due(greedy)) {
                best = greedy;
            } else {
                for (uint32_t s = 0; s < n; ++s)
                    if (due(s) && (best == SlotMask::kNone || placed[s] < placed[best])) best = s;
            }
        } else {
            for (uint32_t i = 1; i <= n && best == SlotMask::kNone; ++i) {
                const uint32_t s = (last + i) % SlotMask::kBits;
                if (s < n && due(s)) best = s;
            }
            for (uint32_t s = 0; s < n && best == SlotMask::kNone; ++s)
                if (due(s)) best = s;
        }
        if (best != SlotMask::kNone) ready[best] = kNever;
        return best;
    }
    void issued(uint32_t s) {  // (after the warp's leaving, if the instruction was its end)
        if (policy == IssuePolicy::gto) {
            if (!first_issued) greedy = placed[s] != kNever ? s : SlotMask::kNone;
        } else {
            last = s;
        }
        first_issued = true;
    }
    uint64_t next_cycle() const {
        uint64_t at = kNever;
        for (uint64_t r : ready)
            if (r > now) at = std::min(at, r);
        return at;
    }
};

// Drives the scheduler and the reference with the same random operations, as an SM does: warps
// placed and leaving, made ready a few cycles on (an ALU instruction), far on (a memory
// access), again while waiting (a unit's wake-up), cycles one apart and long gaps; `width`
// picks a cycle, some of which do not issue (a fetch miss).
void check_against_naive(IssuePolicy policy, uint32_t slots, uint32_t width, uint64_t seed) {
    IssueScheduler q(policy, slots);
    NaiveIssue ref(policy, slots);
    std::mt19937_64 random(seed);
    std::vector<bool> resident(slots, false);
    const uint64_t delays[] = {0, 1, 2, 4, 24, 63, 64, 65, 300, 700};
    size_t picks = 0, greedy_picks = 0, far_made = 0, placed_same_cycle = 0, ended = 0;
    for (int op = 0; op < 30000; ++op) {
        const unsigned kind = unsigned(random() % 16);
        const uint32_t s = uint32_t(random() % slots);
        if (kind < 3) {  // a warp placed in a free slot, ready a few cycles on
            if (resident[s]) continue;
            resident[s] = true;
            for (uint32_t x = 0; x < slots; ++x) placed_same_cycle += resident[x] && x != s && ref.placed[x] == ref.now;
            q.placed(s, ref.now);
            ref.placed[s] = ref.now;
            q.make_ready(s, ref.now + 4);
            ref.ready[s] = ref.now + 4;
        } else if (kind == 3) {  // a warp leaves
            if (!resident[s]) continue;
            resident[s] = false;
            q.left(s);
            ref.ready[s] = NaiveIssue::kNever;
            ref.placed[s] = NaiveIssue::kNever;
            if (ref.greedy == s) ref.greedy = SlotMask::kNone;
        } else if (kind < 6) {  // made ready again (a unit wakes a waiting warp, or delays it)
            if (!resident[s]) continue;
            const uint64_t at = ref.now + delays[random() % 10];
            far_made += at - ref.now > 64;
            q.make_ready(s, at);
            ref.ready[s] = at;
        } else {  // a cycle: release, pick up to `width` that issue
            const uint64_t next = ref.next_cycle();
            REQUIRE(q.next_cycle() == next);
            uint64_t to = ref.now + 1;
            if (kind == 7) to = ref.now + 1 + random() % 200;        // a gap
            if (kind == 8 && next != NaiveIssue::kNever) to = next;  // where the SM would wake
            q.release(to);
            ref.now = to;
            ref.first_issued = false;
            for (uint32_t issued = 0; issued < width;) {
                const uint32_t got = q.pick();
                const uint32_t want = ref.pick();
                REQUIRE(got == want);
                if (got == SlotMask::kNone) break;
                ++picks;
                greedy_picks += got == ref.greedy;
                if (random() % 8 == 0) {  // no issue: waits for its fetch
                    q.make_ready(got, ref.now + 20);
                    ref.ready[got] = ref.now + 20;
                    continue;
                }
                if (random() % 16 == 0) {  // its end: it leaves with the instruction it issued
                    ++ended;
                    resident[got] = false;
                    q.left(got);
                    ref.placed[got] = NaiveIssue::kNever;
                    if (ref.greedy == got) ref.greedy = SlotMask::kNone;
                    q.issued(got);
                    ref.issued(got);
                    ++issued;
                    continue;
                }
                q.issued(got);
                ref.issued(got);
                ++issued;
                const uint64_t at = ref.now + delays[1 + random() % 9];  // its next instruction
                q.make_ready(got, at);
                ref.ready[got] = at;
            }
            // Whatever was not picked stays due (more ready than the width).
            bool any_due = false;
            for (uint32_t x = 0; x < slots; ++x) any_due |= ref.due(x);
            REQUIRE(q.has_due() == any_due);
        }
        bool any_pending = false;
        for (uint64_t r : ref.ready) any_pending |= r != NaiveIssue::kNever;
        REQUIRE(q.empty() == !any_pending);
    }
    CHECK(picks > 5000);
    CHECK(far_made > 100);
    CHECK(ended > 100);
    if (policy == IssuePolicy::gto) {
        CHECK(greedy_picks > 500);
        CHECK(placed_same_cycle > 0);
    }
}

}  // namespace

TEST_CASE("gto issues the greedy warp while it is ready, else the oldest ready, as a full scan picks", "[scheduling]") {
    for (uint32_t slots : {4u, 48u, 64u, 65u, 128u})
        for (uint32_t width : {1u, 2u}) {
            INFO("slots " << slots << ", issue width " << width);
            check_against_naive(IssuePolicy::gto, slots, width, 1000 + slots * 10 + width);
        }
}

TEST_CASE("lrr issues the next ready slot after the one that issued last, as a full scan picks", "[scheduling]") {
    for (uint32_t slots : {4u, 48u, 64u, 65u, 128u})
        for (uint32_t width : {1u, 3u}) {
            INFO("slots " << slots << ", issue width " << width);
            check_against_naive(IssuePolicy::lrr, slots, width, 2000 + slots * 10 + width);
        }
}

TEST_CASE("gto: the greedy warp keeps issuing, and when it waits the oldest takes over, ties by slot", "[scheduling]") {
    // Four warps: slots 2 and 0 placed at cycle 0 (0 is older by its slot), slot 3 at 1, slot 1
    // at 2. All ready from cycle 5.
    IssueScheduler q(IssuePolicy::gto, 4);
    q.placed(2, 0);
    q.placed(0, 0);
    q.placed(3, 1);
    q.placed(1, 2);
    for (uint32_t s = 0; s < 4; ++s) q.make_ready(s, 5);
    q.release(5);
    CHECK(q.pick() == 0);  // the oldest: slot 0 (placed with slot 2, lower index)
    q.issued(0);
    q.make_ready(0, 6);    // one cycle on: ready again at 6
    q.release(6);
    CHECK(q.pick() == 0);  // greedy
    q.issued(0);
    q.make_ready(0, 10);   // a 4-cycle instruction: not ready at 7
    q.release(7);
    CHECK(q.pick() == 2);  // the oldest ready
    q.issued(2);
    q.make_ready(2, 8);
    q.release(10);         // slot 0 ready again, but slot 2 is greedy now
    CHECK(q.pick() == 2);
    q.issued(2);
    q.make_ready(2, 30);
    q.left(2);             // leaves: the greedy warp is gone
    CHECK(q.pick() == 0);  // the oldest left
    CHECK(q.pick() == 3);
    CHECK(q.pick() == 1);
    CHECK(q.pick() == SlotMask::kNone);
    CHECK(q.empty());
}

TEST_CASE("gto: after the greedy warp's end the oldest ready warp issues, not the one that took its rank or slot", "[scheduling]") {
    // Slots 1, 0 and 2 placed at cycles 0, 1 and 2 (ranks 0, 1, 2), all ready from 5.
    IssueScheduler q(IssuePolicy::gto, 3);
    q.placed(1, 0);
    q.placed(0, 1);
    q.placed(2, 2);
    for (uint32_t s = 0; s < 3; ++s) q.make_ready(s, 5);
    q.release(5);
    CHECK(q.pick() == 1);  // the oldest
    q.issued(1);
    q.make_ready(1, 8);    // a 3-cycle instruction
    q.release(6);
    CHECK(q.pick() == 0);  // slot 1 not ready at 6: the oldest ready, now greedy
    q.issued(0);
    q.make_ready(0, 7);
    q.release(7);
    CHECK(q.pick() == 0);  // greedy
    q.left(0);             // that instruction was its end
    q.issued(0);
    q.placed(0, 7);        // a new warp in its slot, the youngest
    q.make_ready(0, 8);
    q.release(8);          // no greedy warp: the oldest (slot 1), not the new warp in slot 0
    CHECK(q.pick() == 1);
    CHECK(q.pick() == 2);
    CHECK(q.pick() == 0);
    CHECK(q.pick() == SlotMask::kNone);
}

TEST_CASE("lrr: the next ready slot after the last that issued, wrapping", "[scheduling]") {
    IssueScheduler q(IssuePolicy::lrr, 6);
    for (uint32_t s : {1u, 3u, 4u}) q.make_ready(s, 2);
    q.release(2);
    CHECK(q.pick() == 1);  // none issued yet: from slot 0
    q.issued(1);
    CHECK(q.pick() == 3);
    q.issued(3);
    q.make_ready(1, 3);
    q.make_ready(3, 3);
    q.release(3);
    CHECK(q.pick() == 4);  // after 3
    q.issued(4);
    CHECK(q.pick() == 1);  // wraps
    q.issued(1);
    CHECK(q.pick() == 3);
    CHECK(q.pick() == SlotMask::kNone);
}

TEST_CASE("the issue scheduler's wheel and time queue give the next cycle with a warp due", "[scheduling]") {
    IssueScheduler q(IssuePolicy::lrr, 8);
    CHECK(q.next_cycle() == IssueScheduler::kNever);
    q.make_ready(0, 64);   // the wheel's last cycle
    q.make_ready(1, 65);   // beyond it
    q.make_ready(2, 1000);
    CHECK(q.next_cycle() == 64);
    q.make_ready(0, 2000);  // again, later: its cycle 64 is forgotten
    CHECK(q.next_cycle() == 65);
    q.release(70);
    CHECK(q.pick() == 1);
    CHECK(q.pick() == SlotMask::kNone);
    CHECK(q.next_cycle() == 1000);
    q.make_ready(2, 71);  // sooner: its time-queue entry goes stale
    CHECK(q.next_cycle() == 71);
    q.release(1500);
    CHECK(q.pick() == 2);
    CHECK(q.pick() == SlotMask::kNone);
    CHECK(q.next_cycle() == 2000);
    q.left(0);
    CHECK(q.next_cycle() == IssueScheduler::kNever);
    CHECK(q.empty());
}

TEST_CASE("a slot set shifts its members when a rank is inserted or removed, across its two words", "[scheduling]") {
    SlotMask m;
    for (unsigned i : {0u, 5u, 62u, 63u, 64u, 100u}) m.set(i);
    m.insert_at(5);  // 5 -> 6, 62 -> 63, 63 -> 64, 64 -> 65, 100 -> 101
    std::vector<unsigned> got;
    for (uint32_t i = m.first(); i != SlotMask::kNone; i = m.first_after(i)) got.push_back(i);
    CHECK(got == std::vector<unsigned>{0, 6, 63, 64, 65, 101});
    m.remove_at(6);
    got.clear();
    for (uint32_t i = m.first(); i != SlotMask::kNone; i = m.first_after(i)) got.push_back(i);
    CHECK(got == std::vector<unsigned>{0, 62, 63, 64, 100});
    m.remove_at(0);
    m.insert_at(70);
    got.clear();
    for (uint32_t i = m.first(); i != SlotMask::kNone; i = m.first_after(i)) got.push_back(i);
    CHECK(got == std::vector<unsigned>{61, 62, 63, 100});
    CHECK(m.first_after(127) == SlotMask::kNone);
}

TEST_CASE("the time queue keeps equal times in the order added or in value order", "[scheduling]") {
    TimeQueue<int> fifo;
    TimeQueue<int, true> by_value;
    const std::vector<std::pair<uint64_t, int>> adds = {{30, 5}, {10, 7}, {30, 1}, {20, 9}, {10, 2}, {30, 3}};
    for (auto [t, v] : adds) {
        fifo.push(ps(t), v);
        by_value.push(ps(t), v);
    }
    std::vector<int> f, b;
    for (; !fifo.empty(); fifo.pop()) f.push_back(fifo.front().value);
    for (; !by_value.empty(); by_value.pop()) b.push_back(by_value.front().value);
    CHECK(f == std::vector<int>{7, 2, 9, 5, 1, 3});
    CHECK(b == std::vector<int>{2, 7, 9, 1, 3, 5});

    // Long runs: entries earlier than most enter from the front (the room before the head).
    TimeQueue<int> q;
    std::vector<std::pair<uint64_t, int>> ref;
    std::mt19937 random(7);
    for (int i = 0; i < 5000; ++i) {
        if (random() % 3 == 0 && !q.empty()) {
            REQUIRE(q.front().at == ps(ref.front().first));
            REQUIRE(q.front().value == ref.front().second);
            q.pop();
            ref.erase(ref.begin());
        } else {
            const uint64_t t = (ref.empty() ? 0 : ref.front().first) + random() % 100;
            q.push(ps(t), i);
            auto it = std::upper_bound(ref.begin(), ref.end(), t, [](uint64_t a, const auto& e) { return a < e.first; });
            ref.insert(it, {t, i});
        }
    }
    for (; !q.empty(); q.pop(), ref.erase(ref.begin())) REQUIRE(q.front().value == ref.front().second);
    CHECK(ref.empty());
}

namespace {

// A client that records when it ran and asks for the times given.
struct Recorder : CoreClock::Client {
    uint32_t index = 0;
    std::vector<std::pair<double, uint32_t>>* log = nullptr;
    std::vector<double> next_ns;  // its answers, one per cycle; then none
    std::function<void()> also;   // run during its cycle
    size_t cycles = 0;
    sc_time cycle(const sc_time& now) override {
        log->push_back({now.to_seconds() * 1e9, index});
        if (also) also();
        const size_t i = cycles++;
        return i < next_ns.size() ? sc_time(next_ns[i], SC_NS) : sc_core::sc_max_time();
    }
};

}  // namespace

TEST_CASE("the core clock runs the clients due at a time in index order and sleeps when none is", "[scheduling]") {
    CoreClock clock("core_clock");
    std::vector<std::pair<double, uint32_t>> log;
    std::vector<Recorder> clients(4);
    for (Recorder& r : clients) {
        r.log = &log;
        r.index = clock.attach(r);
    }
    // Client 3 asks for 10 ns at 0; client 2 for 5 ns, then (at 5 ns) 10 ns: at 10 ns it still
    // runs before client 3. Client 0 asks for 10 and 20 ns, client 1 for nothing; at 20 ns
    // client 0 wakes client 1 for the same time (a delta cycle later) and client 3 for 1 ms.
    clients[3].next_ns = {10};
    clients[0].next_ns = {10, 20};
    clients[2].next_ns = {5, 10, 20};
    clients[0].also = [&] {
        if (sc_core::sc_time_stamp() == sc_time(20, SC_NS)) {
            clock.wake(1, sc_time(20, SC_NS));
            clock.wake(3, sc_time(1, sc_core::SC_MS));
        }
    };
    sc_core::sc_start();
    const std::vector<std::pair<double, uint32_t>> expected = {
        {0, 0}, {0, 1}, {0, 2}, {0, 3}, {5, 2}, {10, 0}, {10, 2}, {10, 3}, {20, 0}, {20, 2}, {20, 1}, {1e6, 3}};
    CHECK(log == expected);
    CHECK(clock.cycles_run() == expected.size());
    // Idle time costs nothing: from 20 ns to 1 ms the clock did not run; the simulation ends
    // when no client has work.
    CHECK(sc_core::sc_time_stamp() == sc_time(1, sc_core::SC_MS));
    CHECK_FALSE(sc_core::sc_pending_activity());
}

namespace {

// Another process of the simulation: at 25 ns it marks that it ran and wakes client 1 for 35 ns.
struct Neighbour : sc_core::sc_module {
    CoreClock* clock = nullptr;
    bool ran = false;
    explicit Neighbour(sc_core::sc_module_name name) : sc_module(name) {
        SC_HAS_PROCESS(Neighbour);
        SC_THREAD(run);
    }
    void run() {
        wait(25, SC_NS);
        ran = true;
        clock->wake(1, sc_time(35, SC_NS));
    }
};

}  // namespace

TEST_CASE("the core clock runs ahead of SystemC's time only while nothing else is pending, never past the horizon",
          "[scheduling]") {
    CoreClock clock("core_clock");
    Neighbour other("other");
    other.clock = &clock;
    std::vector<std::pair<double, uint32_t>> log;
    struct Seen {
        uint64_t now_ns, stamp_ns, annotation_ns;
        bool other_ran;
    };
    auto ns_of = [](const sc_time& t) { return t.value() / 1000; };  // (1 ps resolution)
    std::vector<Seen> seen;
    std::vector<Recorder> clients(2);
    for (Recorder& r : clients) {
        r.log = &log;
        r.index = clock.attach(r);
        r.also = [&] {
            seen.push_back({ns_of(clock.now()), ns_of(sc_core::sc_time_stamp()), ns_of(clock.annotation()), other.ran});
        };
    }
    clients[0].next_ns = {10, 20, 30, 40, 50};
    clock.run_ahead_until(sc_time(45, SC_NS));
    sc_core::sc_start(sc_time(45, SC_NS));
    // The same cycles in the same order as without running ahead, up to the horizon.
    auto cycles = [&] {
        std::vector<std::pair<long long, uint32_t>> c;
        for (const auto& [at, client] : log) c.push_back({std::llround(at), client});
        return c;
    };
    const std::vector<std::pair<long long, uint32_t>> expected = {{0, 0}, {0, 1}, {10, 0}, {20, 0}, {30, 0}, {35, 1}, {40, 0}};
    CHECK(cycles() == expected);
    REQUIRE(seen.size() == expected.size());
    // 0 ns ran beside the neighbour's start (it was pending then), 10 ns in a time step of its
    // own; 20 ns ran ahead in 10 ns's step (nothing else pending before 25 ns); 30 ns waited for
    // the neighbour at 25 ns, which ran first; 35 and 40 ns ran ahead in 30 ns's step.
    const std::vector<uint64_t> stamps = {0, 0, 10, 10, 30, 30, 30};
    for (size_t i = 0; i < seen.size(); ++i) {
        INFO("cycle " << i << " at " << seen[i].now_ns << " ns");
        CHECK(seen[i].stamp_ns == stamps[i]);
        CHECK(seen[i].annotation_ns == seen[i].now_ns - seen[i].stamp_ns);
        CHECK(seen[i].other_ran == (seen[i].now_ns >= 25));
    }
    CHECK(clock.steps_run_ahead() == 3);
    CHECK(sc_core::sc_time_stamp() == sc_time(45, SC_NS));  // 50 ns is past the horizon: not run yet
    // On to the end: SystemC's time catches up with the last cycle before the clock sleeps.
    clock.run_ahead_until(sc_core::sc_max_time());
    sc_core::sc_start();
    CHECK(cycles().back() == std::pair<long long, uint32_t>{50, 0});
    CHECK(sc_core::sc_time_stamp() == sc_time(50, SC_NS));
}

namespace {

// A method process (methods run before threads at one instant) that stops the simulation at 30 ns.
struct Stopper : sc_core::sc_module {
    bool armed = false;
    explicit Stopper(sc_core::sc_module_name name) : sc_module(name) {
        SC_HAS_PROCESS(Stopper);
        SC_METHOD(run);
    }
    void run() {
        if (armed) return sc_core::sc_stop();
        armed = true;
        next_trigger(sc_time(30, SC_NS));
    }
};

}  // namespace

TEST_CASE("the core clock does not run ahead after sc_stop", "[scheduling]") {
    CoreClock clock("core_clock");
    Stopper stopper("stopper");
    std::vector<std::pair<double, uint32_t>> log;
    Recorder client;
    client.log = &log;
    client.index = clock.attach(client);
    for (int i = 1; i <= 1000; ++i) client.next_ns.push_back(10.0 * i);  // work every 10 ns up to 10 us
    clock.run_ahead_until(sc_core::sc_max_time());
    sc_core::sc_start();
    // The stop at 30 ns ends the run there: the clock's cycle at 30 ns may run (same instant), none after.
    REQUIRE_FALSE(log.empty());
    CHECK(std::llround(log.back().first) <= 30);
    CHECK(sc_core::sc_time_stamp() == sc_time(30, SC_NS));
}
