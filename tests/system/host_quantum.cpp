// Temporal decoupling of the host model (`host.quantum_ns`, firmware/host_quantum.h): the
// keeper on its own, and whole scenarios with and without a quantum. Every simulation runs in
// a child process (in_child): one elaboration per process.
#include <gpuvp/firmware/host_quantum.h>
#include "tests/support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <tlm>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using gpuvp::HostQuantum;
using gpuvp::test::in_child;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// ---- the keeper alone

// One SystemC thread running `body`.
struct Thread : sc_core::sc_module {
    std::function<void()> body;
    Thread(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_HAS_PROCESS(Thread);
        SC_THREAD(run);
    }
    void run() { body(); }
};

double ns(const sc_time& t) { return double(t.value()) / 1000; }  // the default resolution, 1 ps: exact

// Runs `body(keeper, log)` in a thread of a child process; `log` is a JSON array of what the
// body recorded.
nlohmann::json in_thread(const sc_time& quantum, const std::function<void(HostQuantum&, nlohmann::json&)>& body,
                         const sc_time& global_quantum = sc_core::SC_ZERO_TIME) {
    const std::string out = in_child([&] {
        // Only in this child: nothing in gpuvp sets the global quantum; the keeper must not read it.
        if (global_quantum != sc_core::SC_ZERO_TIME) tlm::tlm_global_quantum::instance().set(global_quantum);
        nlohmann::json log = nlohmann::json::array();
        HostQuantum qk(quantum);
        Thread t("t", [&] { body(qk, log); });
        sc_core::sc_start();
        return log.dump();
    });
    return nlohmann::json::parse(out);
}

// What a step left: SystemC time, local time, syncs so far.
nlohmann::json state(const HostQuantum& qk) {
    return {ns(sc_core::sc_time_stamp()), ns(qk.get_local_time()), qk.syncs()};
}

// ---- whole scenarios

struct ScenarioRun {
    std::string results, trace;
    nlohmann::ordered_json json;
};

// A bundled scenario (or YAML text) run in a child with `host.quantum_ns` set.
ScenarioRun run_with_quantum(const std::string& file_or_yaml, double quantum_ns, gpuvp::Overrides overrides = {},
                             bool is_yaml = false) {
    overrides.push_back({"host.quantum_ns", std::to_string(quantum_ns)});
    const std::string out = in_child([&] {
        const gpuvp::Scenario s =
            is_yaml ? gpuvp::parse_scenario(file_or_yaml, "test.yaml", overrides)
                    : gpuvp::load_scenario(std::string(GPUVP_SOURCE_DIR) + "/" + file_or_yaml, overrides);
        const gpuvp::RunOutput o = gpuvp::run_scenario(s, gpuvp::RunOptions{true});
        return o.results + std::string(1, '\0') + o.trace;
    });
    ScenarioRun r;
    const auto cut = out.find('\0');
    REQUIRE(cut != std::string::npos);
    r.results = out.substr(0, cut);
    r.trace = out.substr(cut + 1);
    r.json = nlohmann::ordered_json::parse(r.results);
    return r;
}

// When a trace event was written: a complete event ("X") at its end, any other at its start.
double written_at(const nlohmann::json& e) {
    return e["ts"].get<double>() + (e["ph"] == "X" ? e["dur"].get<double>() : 0.0);
}

// The same events, the same bytes each; where the order differs, both events were written at
// the same simulated instant. (SystemC does not order the processes that wake at one instant;
// its timed-event queue breaks such ties by its history, and fewer host waits change that
// history: events that different SMs write at one instant can then come in another order.)
void same_trace_events(const std::string& a, const std::string& b) {
    REQUIRE(!a.empty());
    nlohmann::json ta = nlohmann::json::parse(a), tb = nlohmann::json::parse(b);
    const nlohmann::json ea = ta["traceEvents"], eb = tb["traceEvents"];
    ta.erase("traceEvents");
    tb.erase("traceEvents");
    CHECK(ta == tb);
    REQUIRE(ea.size() == eb.size());
    CHECK(ea.size() > 10);
    std::vector<std::string> sa, sb;
    int reordered = 0;
    for (size_t i = 0; i < ea.size(); ++i) {
        sa.push_back(ea[i].dump());
        sb.push_back(eb[i].dump());
        if (sa.back() != sb.back()) {
            ++reordered;
            INFO("event " << i << "\na: " << sa.back() << "\nb: " << sb.back());
            CHECK(std::abs(written_at(ea[i]) - written_at(eb[i])) < 1e-7);  // µs: under a picosecond
        }
    }
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    CHECK(sa == sb);
    if (reordered) WARN(reordered << " of " << ea.size() << " trace events in another order at one instant");
}

struct Compared {
    uint64_t syncs0 = 0, syncs_q = 0, launches = 0;
};

// The results of quantum 0 and of `quantum_ns`: byte for byte the same but for the lines of
// host_seconds, host.quantum_ns and host.syncs; the traces byte for byte the same.
Compared same_results(const std::string& file_or_yaml, double quantum_ns, const gpuvp::Overrides& overrides = {},
                      bool is_yaml = false) {
    const ScenarioRun a = run_with_quantum(file_or_yaml, 0, overrides, is_yaml);
    const ScenarioRun b = run_with_quantum(file_or_yaml, quantum_ns, overrides, is_yaml);
    REQUIRE(a.json["host"]["quantum_ns"].get<double>() == 0);
    REQUIRE(b.json["host"]["quantum_ns"].get<double>() == quantum_ns);
    std::istringstream la(a.results), lb(b.results);
    std::string x, y;
    int lines = 0, differing = 0;
    for (; std::getline(la, x) && std::getline(lb, y); ++lines)
        if (x != y) {
            ++differing;
            INFO("a: " << x << "\nb: " << y);
            CHECK((x.find("\"host_seconds\"") != std::string::npos || x.find("\"quantum_ns\"") != std::string::npos ||
                   x.find("\"syncs\"") != std::string::npos));
        }
    CHECK(!std::getline(la, x));  // the same number of lines
    CHECK(!std::getline(lb, y));
    CHECK(lines > 100);
    CHECK(differing <= 3);
    same_trace_events(a.trace, b.trace);
    Compared c;
    c.syncs0 = a.json["host"]["syncs"].get<uint64_t>();
    c.syncs_q = b.json["host"]["syncs"].get<uint64_t>();
    c.launches = a.json["kernels"].size() + a.json["usa"]["draws"].size();
    return c;
}

}  // namespace

TEST_CASE("host quantum 0: the keeper waits at every annotation at once", "[quantum]") {
    const auto log = in_thread(sc_time(0, SC_NS), [](HostQuantum& qk, nlohmann::json& log) {
        for (int i = 0; i < 3; ++i) {
            qk.annotate(sc_time(10, SC_NS));
            log.push_back(state(qk));
        }
        qk.annotate(sc_core::SC_ZERO_TIME);  // a wait still (a delta cycle), as wait(SC_ZERO_TIME) is
        log.push_back(state(qk));
        qk.flush();  // nothing to wait out: no wait
        log.push_back(state(qk));
    });
    CHECK(log == nlohmann::json::parse("[[10,0,1],[20,0,2],[30,0,3],[30,0,4],[30,0,4]]"));
}

TEST_CASE("host quantum Q: the keeper runs ahead until its local time reaches Q", "[quantum]") {
    const auto log = in_thread(sc_time(100, SC_NS), [](HostQuantum& qk, nlohmann::json& log) {
        for (int i = 0; i < 4; ++i) {  // 30 60 90: ahead; 120 >= 100: waited out
            qk.annotate(sc_time(30, SC_NS));
            log.push_back(state(qk));
        }
        qk.annotate(sc_time(40, SC_NS));  // a new quantum from 120
        log.push_back(state(qk));
        qk.flush();  // before something others see: in step
        log.push_back(state(qk));
        qk.flush();
        log.push_back(state(qk));
        qk.annotate(sc_time(100, SC_NS));  // exactly Q: waited out
        log.push_back(state(qk));
        qk.annotate(sc_time(20, SC_NS));
        qk.wait_until(sc_time(200, SC_NS));  // already there (260 + 20 of local time): no wait
        log.push_back(state(qk));
        qk.wait_until(sc_time(500, SC_NS));  // one wait for local time and the rest
        log.push_back(state(qk));
        qk.annotate(sc_time(50, SC_NS));
        qk.wait_for(sc_time(1, sc_core::SC_US));  // local time and the period in one wait
        log.push_back(state(qk));
    });
    CHECK(log == nlohmann::json::parse(
                     "[[0,30,0],[0,60,0],[0,90,0],[120,0,1],[120,40,1],[160,0,2],[160,0,2],[260,0,3],"
                     "[260,20,3],[500,0,4],[1550,0,5]]"));
}

TEST_CASE("host quantum: the keeper ignores tlm_global_quantum", "[quantum]") {
    // The global quantum set (in a child process only) to 1 us: a plain tlm_quantumkeeper
    // would let 120 ns pass, this keeper waits at its own 100 ns; and to 10 ns.
    auto body = [](HostQuantum& qk, nlohmann::json& log) {
        tlm_utils::tlm_quantumkeeper plain;
        plain.reset();
        plain.inc(sc_time(120, SC_NS));
        log.push_back(plain.need_sync());
        for (int i = 0; i < 4; ++i) qk.annotate(sc_time(30, SC_NS));
        log.push_back(state(qk));
        log.push_back(ns(tlm::tlm_global_quantum::instance().get()));
    };
    const auto q100 = in_thread(sc_time(100, SC_NS), body, sc_time(1, sc_core::SC_US));
    CHECK(q100 == nlohmann::json::parse("[false,[120,0,1],1000]"));
    // A global quantum of 10 ns: a plain keeper would wait at 10 ns, this one still at 100.
    const auto q100_small = in_thread(sc_time(100, SC_NS), body, sc_time(10, SC_NS));
    CHECK(q100_small == nlohmann::json::parse("[true,[120,0,1],10]"));
    // Quantum 0 under a global quantum of 1 us: every annotation still waits at once.
    const auto q0 = in_thread(sc_time(0, SC_NS), body, sc_time(1, sc_core::SC_US));
    CHECK(q0 == nlohmann::json::parse("[false,[120,0,4],1000]"));
}

// An empty kernel (no copies through the BAR: prefetch, the code loaded once): every wait of
// the host counted by hand.
TEST_CASE("host quantum: the waits of one launch counted", "[quantum]") {
    const std::string yaml = "name: t\n" + std::string(gpuvp::test::kRoundPlatform) +
                             "policy: {launch: prefetch}\nhost: {code: once}\nkernels:\n  - {name: empty, program: [{op: kernarg_load}]}\n";
    const ScenarioRun a = run_with_quantum(yaml, 0, {}, true), b = run_with_quantum(yaml, 1000, {}, true);
    REQUIRE(a.json["totals"]["interrupts"] == 1);
    // Quantum 0: the launch waits after the kernel-argument store, the signal store, the read
    // of the read index, the packet body and the header (the doorbell is posted): 5. The
    // interrupt handler: its wait for irq, the reads of INT_STATUS and of the queue's STATUS,
    // the write to INT_STATUS, the signal's read, the wait for the next irq: 6.
    CHECK(a.json["host"]["syncs"] == 5 + 6);
    // Quantum 1000 ns: the stores before the read index (400 ns) are waited out before that
    // read, the read's latency and the two packet stores (600 ns) before the doorbell: 2. The
    // interrupt handler reads and writes the GPU's registers and memory only, each waited for
    // before the next: 6 still.
    CHECK(b.json["host"]["syncs"] == 2 + 6);
    CHECK(a.json["kernels"][0]["doorbell_ns"] == b.json["kernels"][0]["doorbell_ns"]);
    CHECK(a.json["kernels"][0]["milestones"]["host_saw_completion_ns"] ==
          b.json["kernels"][0]["milestones"]["host_saw_completion_ns"]);
}

TEST_CASE("host quantum 1000: default.yaml gives the same results with fewer host waits", "[quantum]") {
    const Compared c = same_results("scenarios/default.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.syncs_q < c.syncs0);
    // Serial launches (the default policy). Quantum 0: a launch waits after each of its 7
    // accesses (kernel-argument store, the two copies through the BAR, signal store, read of
    // the read index, packet body, header; the doorbell is posted). Quantum 1000 ns: it waits
    // before the first copy (200 ns of store), before the second copy (600 ns of the first),
    // before the read index (800 ns: copy and signal store) and before the doorbell (600 ns:
    // the read and the two packet stores): 4, 3 fewer. The interrupt handler waits the same.
    CHECK(c.syncs0 - c.syncs_q == 3 * c.launches);
}

TEST_CASE("host quantum 1000: queue-priorities.yaml gives the same results with fewer host waits", "[quantum]") {
    const Compared c = same_results("scenarios/queue-priorities.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.syncs_q < c.syncs0);
    CHECK(c.syncs0 - c.syncs_q == 3 * c.launches);
}

TEST_CASE("host quantum 1000: queue-priorities.yaml with prefetch launches gives the same results", "[quantum]") {
    const Compared c = same_results("scenarios/queue-priorities.yaml", 1000, {{"policy.launch", "prefetch"}});
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    // No copies: of the five waits of a launch two remain, before the read index and the doorbell.
    CHECK(c.syncs0 - c.syncs_q == 3 * c.launches);
}

TEST_CASE("host quantum 1000: dependencies.yaml with barrier packets gives the same results", "[quantum]") {
    const Compared c = same_results("scenarios/dependencies.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.syncs_q < c.syncs0);
}

TEST_CASE("host quantum 1000: malformed-packet.yaml with queue errors gives the same results", "[quantum]") {
    const Compared c = same_results("scenarios/malformed-packet.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.syncs_q < c.syncs0);
}

TEST_CASE("host quantum 1000: shading-phase-changing.yaml with draws gives the same results", "[quantum]") {
    const Compared c = same_results("scenarios/shading-phase-changing.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.syncs_q < c.syncs0);
}

TEST_CASE("host quantum 1000: the launch storm gives the same results with fewer host waits", "[quantum]") {
    const Compared c = same_results("scenarios/bench/launch_storm.yaml", 1000);
    INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
    CHECK(c.launches == 1000);
    CHECK(c.syncs0 - c.syncs_q == 3 * c.launches);
}

TEST_CASE("host quantum: a full ring and runtime overhead give the same results under any quantum", "[quantum]") {
    // A ring of 4 packets and 12 kernels submitted at once, each with the barrier bit (its
    // packet waits for the kernels before it): the ring fills and the host polls the read
    // index every 1 us. api_overhead_ns rides on the local time too.
    std::string yaml = "name: ring\n" + std::string(gpuvp::test::kRoundPlatform) +
                       "host: {api_overhead_ns: 350}\nqueues: [{name: q, size: 4}]\nkernels:\n";
    for (int i = 0; i < 12; ++i)
        yaml += "  - {name: k" + std::to_string(i) +
                ", barrier: true, program: [{op: kernarg_load}, {op: valu, cycles: 4, repeat: 50}]}\n";
    {
        const ScenarioRun r = run_with_quantum(yaml, 0, {}, true);
        const auto& k = r.json["kernels"];
        const double launch = k[1]["doorbell_ns"].get<double>() - k[0]["doorbell_ns"].get<double>();
        CHECK(launch == 2550);  // 350 + serial 2200
        // The last ones wait for room: a poll (the read 200 + 1 us) or more between doorbells.
        CHECK(k[11]["doorbell_ns"].get<double>() - k[10]["doorbell_ns"].get<double>() >= launch + 1200);
    }
    for (double q : {100.0, 1000.0, 1e6}) {
        INFO("quantum_ns " << q);
        const Compared c = same_results(yaml, q, {}, true);
        INFO("syncs " << c.syncs0 << " -> " << c.syncs_q);
        // Under one store's cost (200 ns) every store reaches the quantum: no wait is saved.
        if (q < 200) CHECK(c.syncs_q == c.syncs0);
        else CHECK(c.syncs_q < c.syncs0);
    }
}
