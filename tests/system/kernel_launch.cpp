// The AQL path end to end: exact stage times, completion and interrupt, queue priorities,
// barrier packets and the barrier bit. Every TEST_CASE is one simulation (one process).
#include "tests/support.h"

#include <catch2/catch.hpp>

using gpuvp::test::kRoundPlatform;
using gpuvp::test::run_yaml;

namespace {
std::string scenario(const std::string& body) { return "name: t\n" + std::string(kRoundPlatform) + body; }

const char* kEmpty = R"(
kernels:
  - {name: empty, grid: [64], block: [64], program: [{op: kernarg_load}]}
)";
}  // namespace

TEST_CASE("serial launch: an empty kernel's stages land at the times the latencies add up to", "[launch][timing][m5]") {
    auto r = run_yaml(scenario(kEmpty), {{"policy.launch", "serial"}});
    const auto& k = r.kernel("empty");
    REQUIRE(k["status"] == "ok");
    // Host: read index (200), kernargs (200), the prior art's copies of the kernel arguments and
    // of the code object through the BAR (link/2 300 + device 300, twice), signal (200),
    // packet body (200), header (200).
    CHECK(k["doorbell_ns"].get<double>() == 2200);
    // Doorbell crosses the link (300) and the bus (2); CP wakes (600); packet read over the
    // link from host memory (600 + 200).
    CHECK(r.ms("empty", "packet_fetched_ns") == 3902);
    // Decode (900) and the system-scope acquire fence (450).
    CHECK(r.ms("empty", "packet_decoded_ns") == 5252);
    CHECK(r.ms("empty", "launched_ns") == 5252);
    // CP -> WLM (2), the descriptor (of the device copy) through the L2 (100 + 300).
    CHECK(r.ms("empty", "descriptor_fetched_ns") == 5654);
    CHECK(r.ms("empty", "isu_written_ns") == 5956);       // setup 300, ISU broadcast 2
    CHECK(r.ms("empty", "kernel_registered_ns") == 5958);  // GLC row 2
    CHECK(k["first_block_dispatch_ns"].get<double>() == 5970);  // one placement decision, 12
    CHECK(k["first_warp_start_ns"].get<double>() == 5972);      // block descriptor over the bus, 2
    CHECK(r.ms("empty", "first_fetch_issued_ns") == 5976);      // warp launch, 4
    CHECK(k["milestones"]["kernarg_prefetch_issued_ns"].is_null());  // no prefetch in serial
    // The three serial trips after the copy: first fetch, then the argument load, each
    // L1 20 + L2 100 + device 300.
    CHECK(r.ms("empty", "first_fetch_returned_ns") == 6396);
    CHECK(r.ms("empty", "first_instruction_issued_ns") == 6396);
    CHECK(k["first_instruction_ns"].get<double>() == 6396 + 420);
    CHECK(k["dispatch_latency_ns"].get<double>() == 6816 - 2200);
    CHECK(k["launch_latency_ns"].get<double>() == 6816);
    CHECK(k["response_ns"].get<double>() == 5972);
    // Two warps share the issue slot: warp 1 issues its kernarg load a cycle after warp 0,
    // waits for the same L1D fill (6816), issues `end` a cycle after warp 0 (6817); the
    // block-done notice takes 2.
    CHECK(k["end_ns"].get<double>() == 6819);
    // GLC -> CP (2), completion 300 + system release fence 750; the signal's atomic decrement
    // reaches host memory half a round trip (800 / 2) later.
    CHECK(k["complete_ns"].get<double>() == 6821 + 1050 + 400);
    // The stages tile the path from submit to the kernel arguments.
    double sum = 0;
    for (const auto& s : k["stages"]) sum += s["ns"].get<double>();
    CHECK(sum == 6816);
}

TEST_CASE("prefetch launch: the first fetch and the argument prefetch overlap and the load then hits", "[launch][timing][m5]") {
    auto r = run_yaml(scenario(kEmpty), {{"policy.launch", "prefetch"}});
    const auto& k = r.kernel("empty");
    REQUIRE(k["status"] == "ok");
    // No copy of the arguments; the code object is copied as under serial (host.code:
    // per-launch, 600): read index, kernargs, code copy, signal, body, header.
    CHECK(k["doorbell_ns"].get<double>() == 1600);
    CHECK(r.ms("empty", "packet_fetched_ns") == 3302);
    CHECK(r.ms("empty", "descriptor_fetched_ns") == 5054);
    CHECK(k["first_warp_start_ns"].get<double>() == 5372);
    // At 5376 the ISU sends the first fetch (L1I 20 + L2 100 + device 300 = 420) and the
    // argument prefetch (L1D 20 + link 600 + host 200 = 820) together.
    CHECK(r.ms("empty", "first_fetch_issued_ns") == 5376);
    CHECK(r.ms("empty", "kernarg_prefetch_issued_ns") == 5376);
    CHECK(r.ms("empty", "first_fetch_returned_ns") == 5376 + 420);
    CHECK(r.ms("empty", "kernarg_prefetch_returned_ns") == 5376 + 820);
    // Execution starts when both are acknowledged: the max of the two paths.
    CHECK(r.ms("empty", "first_instruction_issued_ns") == 5376 + std::max(420, 820));
    // The argument load hits in the L1D (20).
    CHECK(k["first_instruction_ns"].get<double>() == 6196 + 20);
    CHECK(k["dispatch_latency_ns"].get<double>() == 6216 - 1600);
    CHECK(k["launch_latency_ns"].get<double>() == 6216);
    CHECK(r.results["sms"][0]["l1d"]["read_hits"].get<int>() >= 1);
}

namespace {
// The empty kernel's doorbell and launch latency under a policy, host.code and host latency,
// in a child process of its own.
struct Launch {
    double doorbell, dispatch, launch;
};
Launch launch_of(const std::string& policy, const std::string& code, int host_ns = 200,
                 const std::string& serial_args = "device-copy") {
    const auto j = nlohmann::json::parse(gpuvp::test::in_child([&] {
        const auto r = run_yaml(scenario(kEmpty), {{"policy.launch", policy},
                                                   {"host.code", code},
                                                   {"host.serial_args", serial_args},
                                                   {"platform.memory.host_latency_ns", std::to_string(host_ns)}});
        return r.kernel("empty").dump();
    }));
    REQUIRE(j["status"] == "ok");
    return {j["doorbell_ns"].get<double>(), j["dispatch_latency_ns"].get<double>(), j["launch_latency_ns"].get<double>()};
}
}  // namespace

TEST_CASE("host.code: both launch policies copy the code object per launch, or neither does with once", "[launch][timing][m5]") {
    // Copies through the BAR cost link/2 300 + device 300 = 600 each.
    const Launch serial = launch_of("serial", "per-launch"), prefetch = launch_of("prefetch", "per-launch");
    const Launch serial_once = launch_of("serial", "once"), prefetch_once = launch_of("prefetch", "once");
    CHECK(serial.doorbell == 2200);         // arguments and code copied
    CHECK(prefetch.doorbell == 1600);       // the code copied, the arguments not
    CHECK(serial_once.doorbell == 1600);    // the arguments copied, the code loaded before time 0
    CHECK(prefetch_once.doorbell == 1000);  // nothing copied
    // The code costs both policies the same, so the saving is the mechanism's alone: the
    // argument copy (600) plus the dispatch saving, here 0 (420 + 420 serial against
    // max(420, 820) + 20 prefetch).
    CHECK(serial.dispatch == prefetch.dispatch);
    CHECK(serial.launch - prefetch.launch == 600);
    CHECK(serial_once.launch - prefetch_once.launch == 600);
    CHECK(serial.launch - serial_once.launch == 600);  // the code copy, under either policy
    CHECK(prefetch.launch - prefetch_once.launch == 600);
}

TEST_CASE("the launch saving falls 1 ns per ns of host latency and crosses 0 at 3 device + 2 l2 - link/2", "[launch][timing][m5]") {
    // Round platform: 3 * 300 + 2 * 100 - 600 / 2 = 800 ns of host latency, whatever host.code.
    for (const char* code : {"per-launch", "once"}) {
        INFO("host.code " << code);
        CHECK(launch_of("serial", code, 700).launch - launch_of("prefetch", code, 700).launch == 100);
        CHECK(launch_of("serial", code, 800).launch - launch_of("prefetch", code, 800).launch == 0);
        CHECK(launch_of("serial", code, 900).launch - launch_of("prefetch", code, 900).launch == -100);
    }
}

TEST_CASE("host.serial_args host-memory: serial copies no arguments and its argument load reads host memory", "[launch][timing][m5]") {
    // Seed 004's background 3: the packet points at the arguments in host memory. The host's
    // path is prefetch's (the code copied, the arguments not: 1600), and so is the GPU's up to
    // the first fetch at 5376 (L1I 20 + L2 100 + device 300 = 420); the argument load then
    // misses and reads host memory: L1D 20 + link 600 + host 200 = 820.
    auto r = run_yaml(scenario(kEmpty), {{"policy.launch", "serial"}, {"host.serial_args", "host-memory"}});
    const auto& k = r.kernel("empty");
    REQUIRE(k["status"] == "ok");
    CHECK(r.results["host"]["serial_args"] == "host-memory");
    CHECK(k["doorbell_ns"].get<double>() == 1600);
    CHECK(r.ms("empty", "first_fetch_issued_ns") == 5376);
    CHECK(k["milestones"]["kernarg_prefetch_issued_ns"].is_null());
    CHECK(r.ms("empty", "first_instruction_issued_ns") == 5376 + 420);
    CHECK(k["first_instruction_ns"].get<double>() == 5796 + 820);
    CHECK(k["launch_latency_ns"].get<double>() == 6616);
    CHECK(r.results["memory"]["host_memory"]["reads"].get<int>() >= 3);  // read index, packet, arguments
}

TEST_CASE("against a serial that reads host memory, prefetch saves min(fetch, argument read) - the hit at any host latency", "[launch][timing][m5]") {
    // serial: fetch (420) then the argument read (20 + 600 + host); prefetch: both at once, then
    // the load's hit (20). The saving is 420 + 620 + host - max(420, 620 + host) - 20 = 400 at
    // every host latency: no crossover (against the device copy it crosses 0 at 800, above).
    for (int host : {200, 800, 2000}) {
        INFO("host_latency_ns " << host);
        CHECK(launch_of("serial", "per-launch", host, "host-memory").launch - launch_of("prefetch", "per-launch", host).launch == 400);
    }
}

TEST_CASE("the completion signal reaches 0 and the interrupt tells the host", "[launch][irq]") {
    auto r = run_yaml(scenario(kEmpty));
    const auto& k = r.kernel("empty");
    REQUIRE(k["status"] == "ok");
    // The host only records completion when it read the signal as 0 after an interrupt.
    CHECK(r.ms("empty", "host_saw_completion_ns") > k["complete_ns"].get<double>());
    CHECK(r.results["totals"]["interrupts"].get<int>() >= 1);
    CHECK(r.results["status"] == "ok");
    CHECK(r.out.exit_code == 0);
}

TEST_CASE("the default empty kernel's doorbell-to-first-instruction latency is in the measured HSA band", "[launch][calibration]") {
    auto r = run_yaml("name: t\nkernels:\n  - {name: empty, program: [{op: kernarg_load}]}\n");
    double d = r.kernel("empty")["dispatch_latency_ns"].get<double>();
    CHECK(d >= 3500);  // AMD Kaveri measurements: 3.5-7 us; gem5: 4.4 us a packet
    CHECK(d <= 7000);
}

TEST_CASE("a higher-priority queue is served first even when a lower one rang at the same time", "[launch][queues]") {
    auto r = run_yaml(scenario(R"(
policy: {launch: prefetch}
queues:
  - {name: lo, priority: 2}
  - {name: hi, priority: 0}
kernels:
  - {name: a, queue: lo, program: [{op: kernarg_load}]}
  - {name: b, queue: hi, program: [{op: kernarg_load}]}
)"));
    // Each host copies its code object (600) before its doorbell (host.code: per-launch).
    CHECK(r.ms("b", "packet_fetched_ns") == 3302);
    // lo waits for hi's packet to be decoded and handed to the WLM (4654), then its own read.
    CHECK(r.ms("a", "packet_fetched_ns") == 4654 + 800);
}

TEST_CASE("queues of one priority are served round-robin", "[launch][queues]") {
    auto r = run_yaml(scenario(R"(
queues:
  - {name: q0, priority: 1}
  - {name: q1, priority: 1}
kernels:
  - {name: a0, queue: q0, program: [{op: kernarg_load}]}
  - {name: a1, queue: q0, program: [{op: kernarg_load}]}
  - {name: b0, queue: q1, program: [{op: kernarg_load}]}
  - {name: b1, queue: q1, program: [{op: kernarg_load}]}
)"));
    double a0 = r.ms("a0", "packet_fetched_ns"), b0 = r.ms("b0", "packet_fetched_ns");
    double a1 = r.ms("a1", "packet_fetched_ns"), b1 = r.ms("b1", "packet_fetched_ns");
    CHECK(a0 < b0);
    CHECK(b0 < a1);
    CHECK(a1 < b1);
    for (const char* k : {"a0", "a1", "b0", "b1"}) CHECK(r.kernel(k)["status"] == "ok");
}

namespace {
const char* kLong = "[{op: kernarg_load}, {op: valu, cycles: 100, repeat: 200}]";
const char* kShort = "[{op: kernarg_load}, {op: valu, cycles: 10}]";
}  // namespace

TEST_CASE("a barrier-AND packet holds a kernel until every kernel it waits for has completed", "[launch][barrier]") {
    auto r = run_yaml(scenario(std::string(R"(
queues: [{name: q0}, {name: q1}, {name: q2}]
kernels:
  - {name: a, queue: q0, program: )") + kLong + R"(}
  - {name: c, queue: q2, program: )" + kShort + R"(}
  - {name: b, queue: q1, after: [a, c], program: )" + kShort + R"(}
)"));
    const double a_done = r.kernel("a")["complete_ns"], c_done = r.kernel("c")["complete_ns"];
    REQUIRE(c_done < a_done);
    CHECK(r.kernel("b")["doorbell_ns"].get<double>() < c_done);  // rung long before
    CHECK(r.kernel("b")["first_block_dispatch_ns"].get<double>() > a_done);
    CHECK(r.kernel("b")["status"] == "ok");
}

TEST_CASE("a barrier-OR packet releases a kernel when any one kernel it waits for completes", "[launch][barrier]") {
    auto r = run_yaml(scenario(std::string(R"(
queues: [{name: q0}, {name: q1}, {name: q2}]
kernels:
  - {name: slow, queue: q0, program: )") + kLong + R"(}
  - {name: quick, queue: q1, program: )" + kShort + R"(}
  - {name: b, queue: q2, after_any: [slow, quick], program: )" + kShort + R"(}
)"));
    const double b_start = r.kernel("b")["first_block_dispatch_ns"];
    CHECK(b_start > r.kernel("quick")["complete_ns"].get<double>());
    CHECK(b_start < r.kernel("slow")["complete_ns"].get<double>());
}

TEST_CASE("the barrier bit makes a packet wait for the queue's earlier kernels to complete", "[launch][barrier]") {
    const std::string body = std::string(R"(
kernels:
  - {name: a, program: )") + kLong + R"(}
  - {name: b, program: )" + kShort + R"(}
)";
    auto r = run_yaml(scenario(body), {{"kernels.b.barrier", "true"}});
    CHECK(r.kernel("b")["first_block_dispatch_ns"].get<double>() > r.kernel("a")["complete_ns"].get<double>());
}

TEST_CASE("without the barrier bit a queue's kernels run concurrently", "[launch][barrier]") {
    auto r = run_yaml(scenario(std::string(R"(
kernels:
  - {name: a, program: )") + kLong + R"(}
  - {name: b, program: )" + kShort + R"(}
)"));
    CHECK(r.kernel("b")["first_block_dispatch_ns"].get<double>() < r.kernel("a")["complete_ns"].get<double>());
    CHECK(r.kernel("b")["complete_ns"].get<double>() < r.kernel("a")["complete_ns"].get<double>());
}

TEST_CASE("two warps of 1-cycle instructions on one SM share the issue slot and take twice as long", "[sm][timing]") {
    // Alone, a warp issues valu (1 cycle) and loop_end every cycle: 2000 cycles for 1000
    // iterations. Two warps on one SM with one issue slot alternate: about 4000 cycles.
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [64], block: [64], program: [{op: valu, cycles: 1, repeat: 1000}]}\n"),
                      {{"platform.sms", "1"}});
    const double busy = r.kernel("k")["end_ns"].get<double>() - r.kernel("k")["first_warp_start_ns"].get<double>();
    CHECK(busy > 4000);
    CHECK(busy < 4000 + 500);  // launch, first fetch, notice
}

TEST_CASE("two warps of 8-cycle instructions on one SM contend far less", "[sm][timing]") {
    // Each iteration: valu (8 cycles) + loop_end (1): 9000 cycles for one warp. A second warp
    // wants the slot 2 cycles in 9; the two collide once an iteration (the one that became
    // ready first issues first), costing a cycle: far from the doubling of 1-cycle work.
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [64], block: [64], program: [{op: valu, cycles: 8, repeat: 1000}]}\n"),
                      {{"platform.sms", "1"}});
    const double busy = r.kernel("k")["end_ns"].get<double>() - r.kernel("k")["first_warp_start_ns"].get<double>();
    CHECK(busy > 9000);
    CHECK(busy < 10000 + 500);
}

TEST_CASE("a kernel may wait for one submitted later: its signal is 1 from the start", "[launch][barrier]") {
    auto r = run_yaml(scenario(R"(
queues: [{name: q0}, {name: q1}]
kernels:
  - {name: b, queue: q0, after: [a], program: [{op: kernarg_load}]}
  - {name: a, queue: q1, submit_ns: 20000, program: [{op: kernarg_load}, {op: valu, cycles: 16, repeat: 100}]}
)"));
    CHECK(r.kernel("b")["first_block_dispatch_ns"].get<double>() > r.kernel("a")["complete_ns"].get<double>());
}

TEST_CASE("a kernel waiting for a failed kernel fails too and names the dependency", "[launch][barrier][malformed]") {
    auto r = run_yaml(scenario(R"(
queues: [{name: q0}, {name: q1}]
kernels:
  - {name: a, queue: q0, packet: {grid_size_x: 0}, program: [{op: kernarg_load}]}
  - {name: b, queue: q1, after: [a], program: [{op: kernarg_load}]}
)"));
    CHECK(r.kernel("a")["status"].get<std::string>().rfind("invalid grid size", 0) == 0);
    // b's queue stops at its barrier-AND packet (packet 0); b itself (packet 1) is not processed.
    const std::string b = r.kernel("b")["status"];
    CHECK(b.rfind("not processed", 0) == 0);
    CHECK(b.find("dependency failed: dep_signal[0]") != std::string::npos);
    CHECK(b.find("its kernel failed") != std::string::npos);
    CHECK(r.results["queues"][1]["status"] == "dependency failed");
}

TEST_CASE("one submit needing more packets than its ring holds still goes through", "[launch][queues]") {
    std::string kernels = "queues: [{name: small, size: 4}, {name: other}]\nkernels:\n";
    std::string deps;
    for (int i = 0; i < 16; ++i) {
        kernels += "  - {name: d" + std::to_string(i) + ", queue: other, program: [{op: kernarg_load}]}\n";
        deps += (i ? ", d" : "d") + std::to_string(i);
    }
    kernels += "  - {name: last, queue: small, after: [" + deps + "], program: [{op: kernarg_load}]}\n";
    auto r = run_yaml(scenario(kernels));
    CHECK(r.kernel("last")["status"] == "ok");
    CHECK(r.results["queues"][0]["packets_processed"].get<int>() == 5);  // 4 barrier-AND packets and the kernel
}

TEST_CASE("partial blocks at the grid's edge run only their own work-items", "[launch][sm]") {
    // 600 work-items in blocks of 512: one whole block (16 warps) and one of 88 (3 warps).
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [600], block: [512], program: [{op: kernarg_load}]}\n"));
    CHECK(r.kernel("k")["blocks"].get<int>() == 2);
    CHECK(r.kernel("k")["warps"].get<int>() == 19);
    CHECK(r.results["totals"]["warps"].get<int>() == 19);
}

TEST_CASE("a run stopped by max_sim_ns says so and names what its queue waits for", "[launch]") {
    auto r = run_yaml(scenario(std::string("kernels:\n  - {name: k, program: ") + kLong + "}\n"), {{"max_sim_ns", "3000"}});
    const std::string st = r.kernel("k")["status"];
    CHECK(st.rfind("did not complete by max_sim_ns", 0) == 0);
    CHECK(r.out.exit_code == 1);
}

TEST_CASE("a run stopped with warps resident shows them up to the stop: trace events and occupancy", "[launch][trace]") {
    // 4 blocks of 2 warps, each warp 100 000 cycles long, cut by max_sim_ns soon after they start.
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [256], block: [64], program: [{op: valu, cycles: 100, repeat: 1000}]}\n"),
                      {{"max_sim_ns", "20000"}}, true);
    CHECK(r.kernel("k")["status"].get<std::string>().rfind("did not complete by max_sim_ns", 0) == 0);
    CHECK(r.results["totals"]["warps"] == 0);  // none ended
    const double end_ns = r.results["sim_end_ns"].get<double>();
    int in_flight = 0;
    double warp_ns = 0;
    for (const auto& e : r.trace["traceEvents"]) {
        if (e.value("cat", "") != "warp") continue;
        CHECK(e["args"]["in_flight"] == true);
        CHECK(e["args"]["kernel"] == "k");
        CHECK(e["ph"] == "X");
        CHECK((e["ts"].get<double>() + e["dur"].get<double>()) * 1000 == Approx(end_ns).margin(0.001));  // up to the stop
        warp_ns += e["dur"].get<double>() * 1000;
        ++in_flight;
    }
    CHECK(in_flight == 8);
    // The occupancy holds the same warp time: the SM overview shows them.
    double occupied_ns = 0;
    for (const auto& sm : r.results["sms"])
        for (const auto& w : sm["occupancy"]["warps"]) occupied_ns += w.get<double>() * sm["occupancy"]["bin_ns"].get<double>();
    CHECK(warp_ns > 0);
    CHECK(occupied_ns == Approx(warp_ns).margin(1.0));  // (each bin's mean is rounded to 0.001 warps)
}

TEST_CASE("an argument block larger than a line is prefetched whole and its load hits", "[launch][m5]") {
    // 200 bytes of arguments on a 64-byte-aligned address: 4 lines, one request each.
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [32], block: [32], kernarg_bytes: 200, program: [{op: kernarg_load}]}\n"),
                      {{"policy.launch", "prefetch"}});
    CHECK(r.results["sms"][0]["kernarg_prefetches"].get<int>() == 4);
    double kernarg_load = -1;
    for (const auto& s : r.kernel("k")["stages"])
        if (s["stage"] == "kernarg_load") kernarg_load = s["ns"].get<double>();
    CHECK(kernarg_load == 20);  // every line hits in the L1D
}

TEST_CASE("without the prefetch the argument load misses in the L1D", "[launch][m5]") {
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [32], block: [32], kernarg_bytes: 200, program: [{op: kernarg_load}]}\n"),
                      {{"policy.launch", "serial"}});
    CHECK(r.results["sms"][0]["kernarg_prefetches"].get<int>() == 0);
    double kernarg_load = -1;
    for (const auto& s : r.kernel("k")["stages"])
        if (s["stage"] == "kernarg_load") kernarg_load = s["ns"].get<double>();
    CHECK(kernarg_load == 20 + 100 + 300);  // L1D miss, L2 miss, device memory (the host's copy)
}

TEST_CASE("a kernel without arguments issues no prefetch", "[launch][m5]") {
    auto r = run_yaml(scenario("kernels:\n  - {name: k, grid: [32], block: [32], kernarg_bytes: 0, program: [{op: valu, cycles: 4}]}\n"),
                      {{"policy.launch", "prefetch"}});
    CHECK(r.kernel("k")["status"] == "ok");
    CHECK(r.results["sms"][0]["kernarg_prefetches"].get<int>() == 0);
    CHECK(r.kernel("k")["milestones"]["kernarg_prefetch_issued_ns"].is_null());
    // The first instruction waits only for its fetch.
    CHECK(r.ms("k", "first_instruction_issued_ns") == r.ms("k", "first_fetch_returned_ns"));
}
