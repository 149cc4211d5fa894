// AQL queues as HSA defines them, whole platforms from scenario text: processed slots set back
// to INVALID, multi and single queues, a late producer's packet, and the CP learning of a
// header or a host-set signal through host memory's write notification (docs/models/cp.md).
// The round platform: 1 GHz, bus 2 cycles, host memory 200 ns, link 600 ns (300 each way).
// Every TEST_CASE is one simulation (one process).
#include "tests/support.h"

#include <catch2/catch.hpp>

using gpuvp::test::kRoundPlatform;
using gpuvp::test::run_yaml;

namespace {
std::string scenario(const std::string& body) { return "name: t\n" + std::string(kRoundPlatform) + body; }

// Packets 0-3 run and the ring of 4 wraps; at 40 µs producer A reserves packet 4 (slot 0) and
// writes it 20 µs later, then rings 4; producer B meanwhile writes packet 5 and rings 5.
std::string wrapped(const std::string& type) {
    return scenario("queues: [{name: q, size: 4" + type + R"(}]
kernels:
  - {name: k0, queue: q, program: [{op: kernarg_load}]}
  - {name: k1, queue: q, submit_ns: 100, program: [{op: kernarg_load}]}
  - {name: k2, queue: q, submit_ns: 200, program: [{op: kernarg_load}]}
  - {name: k3, queue: q, submit_ns: 300, program: [{op: kernarg_load}]}
  - {name: late, queue: q, submit_ns: 40000, publish_delay_ns: 20000, program: [{op: kernarg_load}]}
  - {name: next, queue: q, submit_ns: 40000, program: [{op: kernarg_load}]}
)");
}
}  // namespace

// The issue's case: without INVALID written back, the CP took slot 0's stale packet 0 for
// packet 4, ran k0 again and drove its signal from 0 to -1.
TEST_CASE("aql: after a wrap a second producer's doorbell does not rerun the stale packet in an unwritten slot", "[aql][queues]") {
    const auto r = run_yaml(wrapped(""));
    INFO(r.out.table);
    CHECK(r.results["status"] == "ok");
    CHECK(r.results["errors"].empty());
    for (const char* k : {"k0", "k1", "k2", "k3", "late", "next"}) {
        INFO(k);
        CHECK(r.kernel(k)["status"] == "ok");
    }
    CHECK(r.results["queues"][0]["type"] == "multi");  // the default
    CHECK(r.results["queues"][0]["packets_processed"] == 6);
    CHECK(r.results["totals"]["packets_processed"] == 6);
    // Packet 5 waited behind packet 4's INVALID header: it starts after packet 4 was written.
    CHECK(r.kernel("late")["first_block_dispatch_ns"].get<double>() > 60000);
    CHECK(r.kernel("next")["first_block_dispatch_ns"].get<double>() > r.kernel("late")["first_block_dispatch_ns"].get<double>());
    CHECK(r.kernel("late")["doorbell_ns"].get<double>() > 60000);  // rung after its header
}

// The same on a single queue: producer A's doorbell 4 after B's 5 goes down, an error there.
TEST_CASE("aql: on a single queue a late producer's doorbell going down is doorbell regressed", "[aql][queues]") {
    const auto r = run_yaml(wrapped(", type: single"));
    INFO(r.out.table);
    REQUIRE(r.results["errors"].size() == 1);
    CHECK(r.results["errors"][0]["error"] == "doorbell regressed");
    CHECK(r.results["errors"][0]["detail"] == "doorbell 4 after 5");
    CHECK(r.results["queues"][0]["type"] == "single");
    CHECK(r.results["queues"][0]["status"] == "doorbell regressed");
    for (const char* k : {"k0", "k1", "k2", "k3"}) CHECK(r.kernel(k)["status"] == "ok");
}

// A header written after its doorbell (the producer rang at the reservation): the CP looked,
// found INVALID and armed a watch; the header's write notification brings it back, with no
// other doorbell, at exactly the notification's latency.
TEST_CASE("aql: a header published after its doorbell is fetched at the write notification's latency", "[aql][queues][timing]") {
    const auto r = run_yaml(scenario(R"(
kernels:
  - {name: late, grid: [64], block: [64], publish_delay_ns: 10000, publish_doorbell: before, program: [{op: kernarg_load}]}
)"));
    INFO(r.out.table);
    const auto& k = r.kernel("late");
    REQUIRE(k["status"] == "ok");
    // serial launch: read index (200), kernargs (200), the two copies through the BAR (600
    // each), signal (200); then the slot is reserved (read index, 200) and the doorbell rung.
    const double doorbell = k["doorbell_ns"].get<double>();
    CHECK(doorbell == 1800);
    // The producer writes at 1800 + 10000: the body (200 of host time), the header at 12000.
    // The notice: host memory's latency 200, the link one way 300, the CP's bus 2: 12502. The
    // CP was idle: wakeup 600, then the packet read over the link (600 + 200).
    CHECK(r.ms("late", "packet_fetched_ns") == 12000 + 200 + 300 + 2 + 600 + 800);
    CHECK(r.results["totals"]["interrupts"].get<int>() >= 1);
}

// Barrier-AND on a signal the host sets at 20 µs: unsatisfied until then (looked at after each
// doorbell), released by the signal's write notification, with no poll in between.
TEST_CASE("aql: a barrier-AND notices a signal the host sets, at the write notification's latency", "[aql][queues][timing]") {
    const auto r = run_yaml(scenario(R"(
signals:
  - {name: go, set_ns: 20000}
kernels:
  - {name: k, grid: [64], block: [64], after: [go], program: [{op: kernarg_load}]}
)"));
    INFO(r.out.table);
    REQUIRE(r.kernel("k")["status"] == "ok");
    // Stored at 20000 (at memory then), the notice there at 20000 + 200 + 300 + 2; wakeup 600;
    // the signal read 800, barrier 300: the barrier packet is done at 22202 and k's packet,
    // read next, is fetched 800 later.
    CHECK(r.ms("k", "packet_fetched_ns") == 20000 + 200 + 300 + 2 + 600 + 800 + 300 + 800);
}

// Barrier-OR: one of two signals set by the host is enough; the other is set much later.
TEST_CASE("aql: a barrier-OR notices one of its signals set by the host, at the write notification's latency", "[aql][queues][timing]") {
    const auto r = run_yaml(scenario(R"(
signals:
  - {name: go, set_ns: 20000}
  - {name: later, set_ns: 200000}
kernels:
  - {name: k, grid: [64], block: [64], after_any: [later, go], program: [{op: kernarg_load}]}
)"));
    INFO(r.out.table);
    REQUIRE(r.kernel("k")["status"] == "ok");
    // As for AND, but the barrier reads both signals, one after the other (800 each).
    CHECK(r.ms("k", "packet_fetched_ns") == 20000 + 200 + 300 + 2 + 600 + 2 * 800 + 300 + 800);
    CHECK(r.kernel("k")["complete_ns"].get<double>() < 200000);
}

// A negative host signal fails the barrier as a failed kernel's does.
TEST_CASE("aql: a host signal set negative fails the barrier with dependency failed", "[aql][queues]") {
    const auto r = run_yaml(scenario(R"(
signals:
  - {name: abort, set_ns: 20000, value: -1}
kernels:
  - {name: k, grid: [64], block: [64], after: [abort], program: [{op: kernarg_load}]}
)"));
    REQUIRE(r.results["errors"].size() == 1);
    CHECK(r.results["errors"][0]["error"] == "dependency failed");
    CHECK(r.results["errors"][0]["field"] == "dep_signal[0]");
    CHECK(r.kernel("k")["status"].get<std::string>().rfind("not processed", 0) == 0);
}

// A header that is never written: the queue waits at it, nothing hangs, and the run ends when
// nothing is left to happen, saying what the queue waited for.
TEST_CASE("aql: a queue waiting at a header never written ends the run with the wait named", "[aql][queues]") {
    const auto r = run_yaml(scenario(R"(
kernels:
  - {name: a, grid: [64], block: [64], packet: {type: 1}, program: [{op: kernarg_load}]}
  - {name: b, grid: [64], block: [64], submit_ns: 100, program: [{op: kernarg_load}]}
)"));
    INFO(r.out.table);
    CHECK(r.results["status"] == "error");
    CHECK(r.results["queues"][0]["waiting_for"] == "packet 0: its header is still INVALID: waits for it to be written");
    for (const char* k : {"a", "b"}) {
        const std::string status = r.kernel(k)["status"];
        INFO(status);
        CHECK(status.rfind("did not complete", 0) == 0);
        CHECK(status.find("its header is still INVALID") != std::string::npos);
    }
}
