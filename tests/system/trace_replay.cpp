// Replaying a trace's work (docs/replay.md): copies that hold their stream without the SMs, the
// host's calls in a closed loop (a sync waits for the GPU, so a faster or slower GPU moves what
// comes after it), the open loop at the measured times, and cross-stream waits on a copy.
// The round platform: 1 GHz, bus 2 cycles, host memory 200 ns, link 600 ns (300 each way).
// Every TEST_CASE is one simulation (one process).
#include "tests/support.h"

#include <catch2/catch.hpp>

using gpuvp::test::error_of;
using gpuvp::test::kRoundPlatform;
using gpuvp::test::run_yaml;
using Catch::Matchers::Contains;

namespace {
std::string scenario(const std::string& body) {
    return "name: t\n" + std::string(kRoundPlatform) + body;
}
double at(const nlohmann::json& k, const char* field) { return k[field].get<double>(); }
}  // namespace

// A copy between two kernels of one queue: the second waits for the copy's 5 µs, which uses no
// SM (the SMs run nothing meanwhile).
TEST_CASE("replay: a copy holds its queue for its duration without the SMs", "[replay]") {
    const auto r = run_yaml(scenario(R"(
copies: [{name: c0, duration_ns: 5000, bytes: 4096}]
kernels:
  - {name: k0, barrier: true, program: [{op: valu, cycles: 100}]}
  - {name: k1, barrier: true, program: [{op: valu, cycles: 100}]}
host:
  code: once
  calls:
    - {call: launch, work: [k0], duration_ns: 3000}
    - {call: launch, work: [c0], duration_ns: 3000}
    - {call: launch, work: [k1], duration_ns: 3000}
)"), {}, true);
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    const auto& k0 = r.kernel("k0");
    const auto& k1 = r.kernel("k1");
    // Each call starts when the previous returned: its 3 µs of runtime work, then its packets.
    CHECK(at(k0, "submit_ns") == 0);
    CHECK(at(k0, "call_start_ns") == 0);
    CHECK(at(k0, "call_end_ns") == at(k0, "doorbell_ns"));
    CHECK(at(k0, "doorbell_ns") > 3000);
    CHECK(at(k1, "submit_ns") > at(k0, "call_end_ns") + 3000);  // after the copy's call
    CHECK(at(k1, "call_start_ns") == at(k1, "submit_ns"));
    // k1 starts after the copy, which started after k0's completion: 5 µs of copy engine time
    // at least between k0's completion and k1's first block.
    CHECK(at(k1, "first_block_dispatch_ns") >= at(k0, "complete_ns") + 5000);
    CHECK(r.results["queues"][0]["packets_processed"] == 3);
    // The trace shows the copy engine's work on the queue's row of the CP: packet 1, 5 µs at least.
    size_t copies = 0;
    for (const auto& e : r.trace["traceEvents"])
        if (e["name"] == "copy packet 1") {
            ++copies;
            CHECK(e["ph"] == "X");
            CHECK(e["dur"].get<double>() >= 5.0);
        }
    CHECK(copies == 1);
}

// A sync-device call waits for what was launched; the calls after it move with the GPU: the
// launch after it starts `gap_ns` after the host saw the first kernel complete, at any speed.
TEST_CASE("replay: closed loop: a sync waits for the GPU and moves the calls after it", "[replay]") {
    auto run = [](const char* cycles) {  // each run in a process of its own: its results
        return nlohmann::json::parse(gpuvp::test::in_child([&] {
            return run_yaml(scenario(std::string(R"(
kernels:
  - {name: k0, program: [{op: valu, cycles: )") + cycles + R"(}]}
  - {name: k1, program: [{op: valu, cycles: 10}]}
host:
  code: once
  calls:
    - {call: launch, work: [k0], duration_ns: 2000}
    - {call: sync-device}
    - {call: launch, work: [k1], gap_ns: 1000, duration_ns: 2000}
)")).results.dump();
        }));
    };
    const auto slow = run("50000");
    const auto fast = run("5000");
    auto kernel = [](const nlohmann::json& r, const char* name) {
        for (const auto& k : r["kernels"])
            if (k["name"] == name) return k;
        FAIL("no kernel " << name);
        return nlohmann::json();
    };
    for (const auto* r : {&slow, &fast}) {
        REQUIRE((*r)["status"] == "ok");
        CHECK(at(kernel(*r, "k1"), "submit_ns") == kernel(*r, "k0")["milestones"]["host_saw_completion_ns"].get<double>() + 1000);
    }
    // 45 µs less of k0 moves k1's launch 45 µs earlier.
    CHECK(at(kernel(slow, "k1"), "submit_ns") - at(kernel(fast, "k1"), "submit_ns") == Approx(45000).margin(1));
}

// host.launch_tail_ns: the part of a launch call from its packets' writes to its return. The
// packets take 1600 ns on the round platform (the read index 200, four stores of 200, the
// doorbell 600), so the doorbell rings tail - 1600 ns before a long call returns; a call shorter
// than its tail starts its packets at once and returns with its doorbell.
TEST_CASE("replay: a launch call rings its doorbell within its tail and returns at its measured end", "[replay]") {
    const auto r = run_yaml(scenario(R"(
kernels:
  - {name: k0, program: [{op: valu, cycles: 100}]}
  - {name: k1, program: [{op: valu, cycles: 100}]}
host:
  code: once
  launch_tail_ns: 3000
  calls:
    - {call: launch, work: [k0], duration_ns: 5000}
    - {call: launch, work: [k1], gap_ns: 1000, duration_ns: 1000}
)"));
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    const auto& k0 = r.kernel("k0");
    const auto& k1 = r.kernel("k1");
    CHECK(at(k0, "doorbell_ns") == 5000 - 3000 + 1600);
    CHECK(at(k0, "call_end_ns") == 5000);
    CHECK(at(k1, "call_start_ns") == 6000);
    CHECK(at(k1, "doorbell_ns") == 6000 + 1600);
    CHECK(at(k1, "call_end_ns") == 6000 + 1600);
}

// The open loop ignores the calls: every launch at its submit_ns, whatever the GPU does.
TEST_CASE("replay: open loop launches at the measured times", "[replay]") {
    const auto r = run_yaml(scenario(R"(
kernels:
  - {name: k0, program: [{op: valu, cycles: 50000}]}
  - {name: k1, submit_ns: 7000, program: [{op: valu, cycles: 10}]}
host:
  code: once
  replay: open
  calls:
    - {call: launch, work: [k0], duration_ns: 2000}
    - {call: sync-device}
    - {call: launch, work: [k1], gap_ns: 1000, duration_ns: 2000}
)"));
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    CHECK(at(r.kernel("k1"), "submit_ns") == 7000);
    CHECK(at(r.kernel("k1"), "first_block_dispatch_ns") < at(r.kernel("k0"), "end_ns"));  // no barrier, an SM free
}

// A kernel of another queue waits for a copy (a cross-stream wait): a barrier-AND packet on the
// copy's completion signal.
TEST_CASE("replay: a kernel waits for a copy of another queue", "[replay]") {
    const auto r = run_yaml(scenario(R"(
queues: [{name: a}, {name: b}]
copies: [{name: c0, queue: a, duration_ns: 20000}]
kernels:
  - {name: k0, queue: b, after: [c0], program: [{op: valu, cycles: 10}]}
host:
  code: once
  calls:
    - {call: launch, work: [c0], duration_ns: 1000}
    - {call: launch, work: [k0], duration_ns: 1000}
    - {call: sync-queue, queue: b}
)"));
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    CHECK(at(r.kernel("k0"), "first_block_dispatch_ns") > 20000);
}

// A sync-work call waits for the work it names; a sync-queue for its queue only.
TEST_CASE("replay: sync-work and sync-queue wait for what they name", "[replay]") {
    const auto r = run_yaml(scenario(R"(
queues: [{name: a}, {name: b}]
kernels:
  - {name: long, queue: a, program: [{op: valu, cycles: 40000}]}
  - {name: short, queue: b, program: [{op: valu, cycles: 100}]}
  - {name: after_short, queue: b, program: [{op: valu, cycles: 10}]}
  - {name: after_long, queue: b, program: [{op: valu, cycles: 10}]}
host:
  code: once
  calls:
    - {call: launch, work: [long], duration_ns: 1000}
    - {call: launch, work: [short], duration_ns: 1000}
    - {call: sync-queue, queue: b}
    - {call: launch, work: [after_short], duration_ns: 1000}
    - {call: sync-work, work: [long]}
    - {call: launch, work: [after_long], duration_ns: 1000}
)"));
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    CHECK(at(r.kernel("after_short"), "submit_ns") == r.kernel("short")["milestones"]["host_saw_completion_ns"].get<double>());
    CHECK(at(r.kernel("after_short"), "submit_ns") < at(r.kernel("long"), "end_ns"));
    CHECK(at(r.kernel("after_long"), "submit_ns") == r.kernel("long")["milestones"]["host_saw_completion_ns"].get<double>());
}

// Two host threads: each makes its calls in order, at the same time as the other.
TEST_CASE("replay: each host thread makes its calls in its own order", "[replay]") {
    const auto r = run_yaml(scenario(R"(
queues: [{name: a}, {name: b}]
kernels:
  - {name: k0, queue: a, program: [{op: valu, cycles: 10}]}
  - {name: k1, queue: b, program: [{op: valu, cycles: 10}]}
host:
  code: once
  calls:
    - {call: launch, work: [k0], gap_ns: 4000, duration_ns: 1000}
    - {call: launch, thread: 1, work: [k1], gap_ns: 1500, duration_ns: 1000}
)"));
    INFO(r.out.table);
    REQUIRE(r.results["status"] == "ok");
    CHECK(at(r.kernel("k0"), "submit_ns") == 4000);
    CHECK(at(r.kernel("k1"), "submit_ns") == 1500);
}

TEST_CASE("replay: the loader checks what the calls and copies name", "[replay][loader]") {
    const std::string head = "name: t\nqueues: [{name: a}]\nkernels: [{name: k, queue: a, program: [{op: valu, cycles: 1}]}]\n";
    CHECK_THAT(error_of(head + "host: {calls: [{call: launch, work: [nope]}]}\n").what(),
               Contains("'nope' is no kernel or copy"));
    CHECK_THAT(error_of(head + "host: {calls: [{call: sync-device}]}\n").what(),
               Contains("'k' is launched by no call"));
    CHECK_THAT(error_of(head + "host: {calls: [{call: launch, work: [k]}, {call: launch, work: [k]}]}\n").what(),
               Contains("'k' is launched by an earlier call too"));
    CHECK_THAT(error_of(head + "host: {calls: [{call: launch, work: [k]}, {call: sync-queue}]}\n").what(),
               Contains("a sync-queue call, and only it, names a queue"));
    CHECK_THAT(error_of(head + "host: {calls: [{call: launch, work: [k]}, {call: sync-queue, queue: z}]}\n").what(),
               Contains("unknown queue 'z'"));
    CHECK_THAT(error_of(head + "host: {calls: [{call: lunch, work: [k]}]}\n").what(), Contains("did you mean 'launch'"));
    CHECK_THAT(error_of(head + "copies: [{name: c, queue: a, after: [zz]}]\n").what(), Contains("'zz' is no kernel or copy"));
    CHECK_THAT(error_of(head + "copies: [{name: k, queue: a}]\n").what(), Contains("'k' is already a copy's name"));
    CHECK_THAT(error_of("name: t\nkernels: [{name: k, program: [{op: valu, cycles: 1}], measured: {start_ns: 5, end_ns: 4}}]\n").what(),
               Contains("kernels[0].measured.end_ns: is before start_ns"));
}
