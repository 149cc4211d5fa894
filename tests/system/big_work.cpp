// Large work without large memory: a kernel (or a draw) launched many times with `instances`,
// each instance its own AQL packet through the ring, and the structures that must stay bounded
// while a big grid or a long queue runs (model-visible counts, sampled during the run; never
// host time or RSS, which gpuvp_bench --big reports). One simulation per TEST_CASE.
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/platform/system.h>
#include "sc_main/regress/regress.h"
#include "sc_main/run/recorder.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

using namespace gpuvp;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using gpuvp::test::run_yaml;

namespace {

// Calls `check` every `period` until `done` says the run is over (then it stops, so the
// simulation can still end by starvation).
struct Sampler : sc_core::sc_module {
    SC_HAS_PROCESS(Sampler);
    Sampler(sc_core::sc_module_name n, sc_core::sc_time period, std::function<void()> check, std::function<bool()> done)
        : sc_module(n), period_(period), check_(std::move(check)), done_(std::move(done)) {
        SC_THREAD(run);
    }
    int samples = 0;

private:
    void run() {
        while (!done_()) {
            wait(period_);
            check_();
            ++samples;
        }
    }
    sc_core::sc_time period_;
    std::function<void()> check_;
    std::function<bool()> done_;
};

// A System with a Recorder wired as `gpuvp run` wires it (the host's launch lookup).
struct Recorded {
    Recorder rec;
    System sys;
    Recorded(const std::string& yaml, bool trace)
        : rec(trace), sys("system", parse_scenario(yaml, "big.yaml"), &rec) {
        rec.set_launch_lookup([this](uint32_t q, uint64_t packet, LaunchRef& ref) {
            const PostedPacket* p = sys.host.posted(q, packet);
            if (p) ref = LaunchRef{uint32_t(p->launch), p->instance, p->submit, p->doorbell};
            return p != nullptr;
        });
    }
};

const nlohmann::json& only_kernel(const gpuvp::test::Run& r) { return r.results["kernels"].at(0); }

}  // namespace

TEST_CASE("a grid's per-block state exists only from a block's dispatch to its end", "[big]") {
    // 4096 blocks of one warp on 2 SMs of 4 warp slots: at most 8 blocks resident at once.
    Recorded r(R"(
name: grid
platform: {sms: 2, sm: {warp_slots: 4}}
kernels:
  - {name: k, grid: [131072], block: [32], global_bytes: 4096, program: [{op: valu, cycles: 20}]}
)",
               true);
    size_t rows = 0, in_flight = 0, open = 0, records = 0;
    Sampler s("sampler", sc_core::sc_time(100, sc_core::SC_NS), [&] {
        for (uint32_t i = 0; i < r.sys.gpu.sm_count(); ++i) rows = std::max(rows, r.sys.gpu.sm(i).block_rows());
        in_flight = std::max(in_flight, r.sys.gpu.glc().blocks_in_flight());
        open = std::max(open, r.rec.open_blocks());
        records = std::max(records, r.rec.records());
    }, [&] { return r.sys.host.all_done(); });
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS), sc_core::SC_EXIT_ON_STARVATION);
    REQUIRE(r.sys.host.all_done());
    CHECK(r.sys.gpu.glc().blocks_dispatched() == 4096);
    CHECK(s.samples > 100);
    CHECK(rows <= 4);       // each SM's block status table: what fits
    CHECK(rows >= 1);
    CHECK(in_flight <= 8);  // the GLC's blocks not yet counted by a notice
    CHECK(open <= 8);       // the trace's started blocks
    CHECK(open >= 4);
    CHECK(records == 1);    // one kernel record, not one per block
    CHECK(r.rec.open_blocks() == 0);
    CHECK(r.sys.gpu.glc().blocks_in_flight() == 0);
}

TEST_CASE("instances: 200 packets through a ring of 8 hold only the packets in flight", "[big][instances]") {
    Recorded r(R"(
name: queue
queues: [{name: q0, size: 8}]
kernels:
  - {name: k, grid: [64], block: [64], global_bytes: 4096, instances: 200,
     program: [{op: kernarg_load}, {op: valu, cycles: 4}]}
)",
               false);
    size_t host = 0, records = 0;
    Sampler s("sampler", sc_core::sc_time(200, sc_core::SC_NS), [&] {
        host = std::max(host, r.sys.host.in_flight());
        records = std::max(records, r.rec.records());
    }, [&] { return r.sys.host.all_done(); });
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS), sc_core::SC_EXIT_ON_STARVATION);
    REQUIRE(r.sys.host.all_done());
    const LaunchRecord& l = r.sys.host.launches().at(0);
    CHECK(l.slots == 8);
    CHECK(l.posted == 200);
    CHECK(l.ended == 200);
    CHECK(l.failed == 0);
    CHECK(s.samples > 100);
    CHECK(host == 8);          // the ring's worth of signals and kernarg segments, all used, never more
    CHECK(records <= 1 + 8);   // instance 0's record and those of instances in flight
    CHECK(r.rec.records() == 1);
    CHECK(r.sys.host.in_flight() == 0);
    const InstanceStats* st = r.rec.instance_stats(0);
    REQUIRE(st);
    CHECK(st->completed == 200);
    CHECK(st->ok == 200);
    CHECK(st->turnaround.n == 200);
    CHECK(r.sys.gpu.cp().queue(0).read_index == 200);
}

TEST_CASE("instances: every packet completes and the results summarize them", "[big][instances]") {
    auto r = run_yaml(R"(
name: instances
queues: [{name: q0, size: 4}]
kernels:
  - {name: k, grid: [128], block: [64], global_bytes: 4096, instances: 40, interval_ns: 100,
     program: [{op: kernarg_load}, {op: valu, cycles: 8}]}
expect:
  - {kernel: k, metric: instances_ok, min: 40, max: 40}
  - {kernel: k, metric: instances_failed, max: 0}
  - {kernel: k, metric: instance_turnaround_max_ns, min: 1}
  - {compare: "k.instance_turnaround_max_ns <= 1 * k.turnaround_ns"}
  - {metric: kernels.k.instances.submitted, min: 40, max: 40}
)");
    INFO(r.out.results);
    CHECK(r.out.exit_code == 0);
    CHECK(r.results["status"] == "ok");
    const auto& k = only_kernel(r);
    CHECK(k["status"] == "ok");
    CHECK(k["blocks"] == 2);  // per instance
    CHECK(k["warps"] == 4);
    const auto& in = k["instances"];
    CHECK(in["count"] == 40);
    CHECK(in["interval_ns"] == 100.0);
    CHECK(in["submitted"] == 40);
    CHECK(in["ok"] == 40);
    CHECK(in["failed"] == 0);
    for (const char* f : {"launch_latency_ns", "dispatch_latency_ns", "response_ns", "turnaround_ns"}) {
        INFO(f);
        CHECK(in[f]["min"].get<double>() > 0);
        CHECK(in[f]["min"].get<double>() <= in[f]["mean"].get<double>());
        CHECK(in[f]["mean"].get<double>() <= in[f]["max"].get<double>());
    }
    // The entry is the whole set: instance 0's start, the last instance's end.
    CHECK(k["launch_latency_ns"] == k["milestones"]["kernarg_load_done_ns"].get<double>() - k["submit_ns"].get<double>());
    CHECK(k["complete_ns"].get<double>() > k["milestones"]["complete_ns"].get<double>());
    CHECK(k["turnaround_ns"] == k["complete_ns"].get<double>() - k["submit_ns"].get<double>());
    CHECK(k["end_ns"].get<double>() < k["complete_ns"].get<double>());
    // The last instance was submitted at 39 x 100 ns; its turnaround is among the instances'.
    const double last = k["complete_ns"].get<double>() - 39 * 100;
    CHECK(last >= in["turnaround_ns"]["min"].get<double>());
    CHECK(last <= in["turnaround_ns"]["max"].get<double>());
    CHECK(r.results["totals"]["packets_processed"] == 40);
    CHECK(r.results["totals"]["blocks_dispatched"] == 80);
    CHECK(r.results["queues"][0]["packets_processed"] == 40);
    for (const auto& e : r.results["expectations"]) CHECK(e["passed"] == true);
    CHECK_THAT(r.out.table, Contains("kernel k: 40 instances, 40 ok; per instance, min / mean / max (p50 / p90 / p99) ns: launch "));
}

TEST_CASE("instances: the i-th is submitted interval_ns after the one before and named k[i] in the trace", "[big][instances]") {
    // 50 us apart on an idle GPU: each instance's doorbell reaches the CP exactly 50 us after the last.
    auto r = run_yaml(R"(
name: spaced
kernels:
  - {name: k, grid: [64], block: [64], submit_ns: 1000, instances: 5, interval_ns: 50000,
     program: [{op: kernarg_load}, {op: valu, cycles: 4}]}
)",
                      {}, true);
    REQUIRE(r.results["status"] == "ok");
    std::map<uint64_t, double> row;  // instance -> its kernel row's start
    for (const auto& e : r.trace["traceEvents"]) {
        if (e.value("cat", "") == "kernel") {
            const uint64_t i = e["args"]["instance"].get<uint64_t>();
            CHECK(e["name"] == "k[" + std::to_string(i) + "]");
            CHECK(e["args"]["kernel"] == "k");
            row[i] = e["ts"].get<double>();
        }
        if (e.value("cat", "") == "warp") {
            CHECK(e["args"]["kernel"] == "k");
            CHECK(e["args"].contains("instance"));
            CHECK_THAT(e["name"].get<std::string>(), StartsWith("k[" + std::to_string(e["args"]["instance"].get<int>()) + "] b0 warp "));
        }
    }
    REQUIRE(row.size() == 5);
    for (uint64_t i = 1; i < 5; ++i) CHECK(row[i] - row[i - 1] == Approx(50.0).epsilon(1e-9));
    const auto& k = only_kernel(r);
    CHECK(k["submit_ns"] == 1000.0);
    // The last instance, submitted at 201 us, ends the set.
    CHECK(k["complete_ns"].get<double>() > 201000);
    CHECK(k["complete_ns"].get<double>() < 201000 + k["instances"]["turnaround_ns"]["max"].get<double>() + 0.001);
}

TEST_CASE("instances: 1 gives the entry of a kernel without the key and a summary beside it", "[big][instances]") {
    const std::string kernel = "name: one\nkernels:\n  - {name: k, grid: [256], block: [64], program: [{op: kernarg_load}, {op: valu, cycles: 4}]";
    // One elaboration per process: the run without the key in a child.
    nlohmann::json a = nlohmann::json::parse(gpuvp::test::in_child([&] { return only_kernel(run_yaml(kernel + "}\n")).dump(); }));
    nlohmann::json b = only_kernel(run_yaml(kernel + ", instances: 1}\n"));
    REQUIRE(b.contains("instances"));
    CHECK_FALSE(a.contains("instances"));
    CHECK(b["instances"]["count"] == 1);
    CHECK(b["instances"]["turnaround_ns"]["max"] == a["turnaround_ns"]);
    CHECK(b["instances"]["launch_latency_ns"]["min"] == a["launch_latency_ns"]);
    b.erase("instances");
    CHECK(a == b);
}

TEST_CASE("instances: a rejected first packet stops the queue and the host stops at a full ring", "[big][instances]") {
    auto r = run_yaml(R"(
name: stopped
queues: [{name: q0, size: 4}]
kernels:
  - {name: k, grid: [64], block: [64], instances: 100, packet: {type: 7}, program: [{op: valu}]}
)");
    const auto& k = only_kernel(r);
    INFO(k.dump(2));
    CHECK(r.out.exit_code == 1);
    CHECK(k["status"] == "100 of 100 instances did not end ok; the first, instance 0: unknown packet type: header.type: "
                         "type 7 is not an AQL packet type");
    CHECK(k["instances"]["ok"] == 0);
    CHECK(k["instances"]["failed"] == 100);
    // The host filled the ring behind the stopped packet, then gave up: no poll until max_sim_ns.
    CHECK(k["instances"]["submitted"].get<int>() <= 5);
    CHECK(r.results["sim_end_ns"].get<double>() < 1e6);
    CHECK(k["complete_ns"].is_null());
    CHECK(k["instances"]["turnaround_ns"]["max"].is_null());
}

TEST_CASE("instances: draws launched many times through a small ring all complete", "[big][instances][m4]") {
    auto r = run_yaml(R"(
name: frames
queues: [{name: gfx, size: 4}]
draws:
  - {name: frame, queue: gfx, instances: 12, interval_ns: 200, vertex_tasks: 4, vertex_cycles: 50,
     pixel_tasks_per_vertex_task: 2, pixel_cycles: 40}
expect:
  - {draw: frame, metric: instances_ok, min: 12}
  - {metric: draws_ok, min: 1, max: 1}
)");
    INFO(r.out.results);
    CHECK(r.out.exit_code == 0);
    const auto& d = r.results["usa"]["draws"].at(0);
    CHECK(d["status"] == "ok");
    CHECK(d["instances"]["count"] == 12);
    CHECK(d["instances"]["ok"] == 12);
    CHECK_FALSE(d["instances"].contains("launch_latency_ns"));
    CHECK(d["instances"]["turnaround_ns"]["max"].get<double>() <= d["turnaround_ns"].get<double>());
    CHECK(d["vertex_tasks"] == 4);  // per instance
    CHECK(r.results["usa"]["tasks"]["vertex"] == 48);
    CHECK(r.results["usa"]["tasks"]["pixel"] == 96);
    CHECK(r.results["totals"]["packets_processed"] == 12);
    CHECK_THAT(r.out.table, Contains("draw frame: 12 instances, 12 ok; per instance, min / mean / max (p50 / p90 / p99) ns: response "));
}

TEST_CASE("instances: the loader's keys and ranges and rules", "[big][instances][scenario]") {
    auto error = [](const std::string& yaml) -> std::string {
        try {
            parse_scenario(yaml, "t.yaml");
        } catch (const ScenarioError& e) {
            return e.what();
        }
        return "no error";
    };
    const std::string head = "name: t\nkernels:\n";
    CHECK(error(head + "  - {name: k, instances: 0, program: [{op: valu}]}\n") ==
          "t.yaml:3: kernels[0].instances: 0 is out of range 1..4294967295");
    CHECK(error(head + "  - {name: k, instances: 4294967296, program: [{op: valu}]}\n") ==
          "t.yaml:3: kernels[0].instances: 4294967296 is out of range 1..4294967295");
    CHECK(error(head + "  - {name: k, interval_ns: -1, program: [{op: valu}]}\n") ==
          "t.yaml:3: kernels[0].interval_ns: -1 is out of range: must be >= 0");
    CHECK(error(head + "  - {name: k, instances: 3, program: [{op: valu}]}\n  - {name: j, after: [k], program: [{op: valu}]}\n") ==
          "t.yaml:4: kernels[1].after[0]: 'k' has 3 instances, and 'after' waits for one completion signal: put 'j' on "
          "queue 'q0' after it with 'barrier: true' (it then waits for every earlier packet of that queue)");
    CHECK(error(head + "  - {name: k, program: [{op: valu}]}\nexpect:\n  - {kernel: k, metric: instances_ok, min: 1}\n") ==
          "t.yaml:5: expect[0].metric: 'instances_ok' needs the kernel's 'instances' key");
    CHECK(error(head + "  - {name: k, program: [{op: valu}]}\nexpect:\n  - {compare: \"k.instance_turnaround_max_ns < 1 * k.turnaround_ns\"}\n") ==
          "t.yaml:5: expect[0].compare: 'k.instance_turnaround_max_ns' needs the kernel's 'instances' key");
    CHECK(error("name: t\ndraws:\n  - {name: d, instances: 0}\n") == "t.yaml:3: draws[0].instances: 0 is out of range 1..4294967295");
    // A kernel with instances may wait for others itself: its first instance's barrier holds the queue.
    const Scenario s = parse_scenario(head + "  - {name: a, program: [{op: valu}]}\n  - {name: b, after: [a], instances: 7, interval_ns: 10, program: [{op: valu}]}\n", "t.yaml");
    CHECK(s.workload.kernels[1].instances == 7);
    CHECK(s.workload.kernels[1].instances_key);
    CHECK(s.workload.kernels[1].interval_ns == 10);
    CHECK_FALSE(s.workload.kernels[0].instances_key);
}

TEST_CASE("instances: a kernel that waits for others runs every instance after them", "[big][instances]") {
    auto r = run_yaml(R"(
name: after
queues: [{name: a}, {name: b, size: 4}]
kernels:
  - {name: first, queue: a, grid: [256], block: [64], program: [{op: valu, cycles: 200, repeat: 10}]}
  - {name: many, queue: b, after: [first], instances: 10, program: [{op: valu, cycles: 4}]}
)");
    REQUIRE(r.results["status"] == "ok");
    const double first_end = r.kernel("first")["complete_ns"].get<double>();
    CHECK(r.kernel("many")["first_warp_start_ns"].get<double>() > first_end);
    CHECK(r.kernel("many")["instances"]["ok"] == 10);
    // All ten were submitted at 0: the earliest first warp of any of them comes after `first`.
    CHECK(r.kernel("many")["instances"]["response_ns"]["min"].get<double>() > first_end);
}

TEST_CASE("the big scenarios load and the bundled regression leaves them out", "[big][scenario]") {
    const std::string dir = std::string(GPUVP_SOURCE_DIR) + "/scenarios";
    const Scenario grid = load_scenario(dir + "/big/grid-1m-blocks.yaml");
    CHECK(block_count(grid.workload.kernels.at(0)) == (1u << 20));
    const Scenario queue = load_scenario(dir + "/big/queue-100k-packets.yaml");
    CHECK(queue.workload.kernels.at(0).instances == 100000);
    CHECK(queue.workload.queues.at(0).size == 1024);
    for (const std::string& f : regress_files({dir})) CHECK(f.find("/big/") == std::string::npos);
    // validate counts the launches.
    FILE* p = popen((std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " validate " + dir +
                     "/big/queue-100k-packets.yaml 2>&1").c_str(),
                    "r");
    REQUIRE(p);
    char buf[512] = {};
    const size_t n = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    CHECK(std::string(buf, n) == dir + "/big/queue-100k-packets.yaml: ok (1 kernels (100000 launches), 0 draws, 1 queues)\n");
}

TEST_CASE("instances: a host quantum changes no result but the host's waits", "[big][instances][quantum]") {
    // The interrupt handler's walk over the packets in flight must catch up with SystemC time
    // where a walk over every launch did, or the decoupled host sees completions at other times.
    const std::string yaml = R"(
name: quantum
queues: [{name: q0, size: 16}, {name: q1, size: 8}]
kernels:
  - {name: a, queue: q0, grid: [128], block: [64], instances: 300, program: [{op: kernarg_load}, {op: valu, cycles: 4}]}
  - {name: b, queue: q1, grid: [64], block: [64], instances: 200, interval_ns: 150, program: [{op: valu, cycles: 30}]}
  - {name: c, queue: q0, submit_ns: 2000, program: [{op: valu}]}
)";
    auto strip = [](nlohmann::json r) {
        r.erase("host_seconds");
        r.erase("host");
        return r;
    };
    const auto plain = nlohmann::json::parse(gpuvp::test::in_child([&] { return run_yaml(yaml).results.dump(); }));
    const auto decoupled = run_yaml(yaml, {{"host.quantum_ns", "1000"}}).results;
    CHECK(plain["status"] == "ok");
    CHECK(strip(plain) == strip(decoupled));
    CHECK(decoupled["host"]["syncs"].get<uint64_t>() < plain["host"]["syncs"].get<uint64_t>());
}
