// The schedulers under the SMs: the core clock that runs every SM, the issue scheduler's ready
// list and the time queue under both. The ready list must give exactly the order of the
// priority queue it replaced (time, then order made ready), or results would change.
#include <gpuvp/models/common/time_queue.h>
#include <gpuvp/models/sm/core_clock.h>
#include <gpuvp/models/sm/ready_queue.h>

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

// The order a ready list must give the entries pushed to it: each after every entry not later.
struct ExpectedOrder {
    std::vector<std::pair<uint64_t, uint32_t>> entries;  // (time, slot), first first

    void push(ReadyQueue& q, uint64_t at, uint32_t slot) {
        q.push(ps(at), slot);
        auto it = entries.end();
        while (it != entries.begin() && std::prev(it)->first > at) --it;
        entries.insert(it, {at, slot});
    }
    // Takes `n` entries from `q`, each the one expected (and due, with `due`).
    void pop(ReadyQueue& q, size_t n, bool due = false) {
        for (; n > 0; --n) {
            if (due) REQUIRE(q.has_due());
            REQUIRE(q.front().at == ps(entries.front().first));
            REQUIRE(q.front().slot == entries.front().second);
            q.pop_front();
            entries.erase(entries.begin());
        }
    }
};

}  // namespace

TEST_CASE("the ready list gives the order of a priority queue on time then order made ready", "[scheduling]") {
    // 40 000 random operations against the reference: pushes a fixed delay on (as an ALU
    // instruction or a cache hit makes a warp ready), at random later times, at or before the
    // time already released; releases a cycle or so on and after long gaps; pops of what is due
    // and, as the SM drops stale entries, of what is not yet.
    using Ref = std::tuple<uint64_t, uint64_t, uint32_t>;  // time, order made ready, slot
    std::priority_queue<Ref, std::vector<Ref>, std::greater<>> ref;
    ReadyQueue q;
    std::mt19937_64 random(12345);
    const uint64_t delays[] = {667, 1334, 2668, 20000, 140000, 440000};
    uint64_t now = 0, order = 0;
    size_t popped = 0, pushed_due = 0, popped_early = 0;
    for (int op = 0; op < 40000; ++op) {
        const unsigned kind = random() % 14;
        if (kind < 7) {  // make a slot ready
            uint64_t at = now + delays[random() % 6];
            if (kind == 0) at = now + 500 * (random() % 3);  // repeats a time
            if (kind == 1 && now > 0) {
                at = now - random() % std::min<uint64_t>(now, 700);
                ++pushed_due;
            }
            if (kind == 2) at = now + 1 + random() % 4000;
            if (kind == 3) at = now + 1 + random() % 2000000;
            const uint32_t slot = uint32_t(random() % 64);
            q.push(ps(at), slot);
            ref.push({at, order++, slot});
        } else if (kind < 9) {  // the next cycle
            now += 667 * (1 + random() % 3);
            q.release(ps(now));
        } else if (kind == 9) {  // a long gap
            now += 100000 + random() % 3000000;
            q.release(ps(now));
        } else if (kind == 10) {  // drop the first entry, due or not
            REQUIRE(q.empty() == ref.empty());
            if (!ref.empty()) {
                REQUIRE(q.front().at == ps(std::get<0>(ref.top())));
                REQUIRE(q.front().slot == std::get<2>(ref.top()));
                popped_early += std::get<0>(ref.top()) > now;
                q.pop_front();
                ref.pop();
            }
        } else {  // issue what is due, in order
            q.release(ps(now));
            while (!ref.empty() && std::get<0>(ref.top()) <= now) {
                REQUIRE(q.has_due());
                const ReadyQueue::Entry e = q.front();
                REQUIRE(e.at == ps(std::get<0>(ref.top())));
                REQUIRE(e.slot == std::get<2>(ref.top()));
                q.pop_front();
                ref.pop();
                ++popped;
            }
            REQUIRE_FALSE(q.has_due());
            // What is not yet due comes in the same order too (the SM's next wake-up).
            REQUIRE(q.empty() == ref.empty());
            if (!ref.empty()) {
                REQUIRE(q.front().at == ps(std::get<0>(ref.top())));
                REQUIRE(q.front().slot == std::get<2>(ref.top()));
            }
        }
    }
    CHECK(popped > 10000);
    CHECK(pushed_due > 1000);
    CHECK(popped_early > 500);
}

TEST_CASE("the ready list keeps its order when more are due than it first has room for, across its wrap", "[scheduling]") {
    // The due list is a ring of 64 entries that doubles when full: half issued, then 200 more
    // made due (some earlier than the last, so they go in before it), in three rounds.
    ReadyQueue q;
    ExpectedOrder expected;
    uint32_t slot = 0;
    q.release(ps(1000000));
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 200; ++i, ++slot)
            expected.push(q, 1000 * uint64_t(round * 200 + i) - (i % 5 == 4 ? 1500 : 0), slot);
        expected.pop(q, expected.entries.size() / 2, true);
    }
    expected.pop(q, expected.entries.size());
    CHECK_FALSE(q.has_due());
    CHECK(q.empty());
}

TEST_CASE("the ready list keeps its order when warps made ready later are due sooner", "[scheduling]") {
    // 300 warps made ready one cycle apart, alternately 4 and 2 cycles on, half of them issued
    // between rounds (the SM's usual mix of ALU latencies): a warp 2 cycles on overtakes the
    // one made ready a cycle before it 4 cycles on, so the waiting entries are inserted before
    // others, not only appended.
    ReadyQueue q;
    ExpectedOrder expected;
    uint64_t now = 0;
    uint32_t slot = 0;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 100; ++i, ++slot) {
            now += 667;
            q.release(ps(now));
            expected.push(q, now + (slot % 2 ? 2 : 4) * 667, slot);
        }
        expected.pop(q, expected.entries.size() / 2);
    }
    expected.pop(q, expected.entries.size());
    CHECK(q.empty());
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
