// A replayed trace's kernels end to end: a scenario whose kernels carry what the hardware
// measured (set in code: the YAML loader does not read `measured:`), run; results.json's
// `replay` against the record's own times, an expectation on it, the console table and the
// report's Replay section.
#include "sc_main/report/report.h"
#include "tests/files.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using nlohmann::json;

namespace {

// k#0 and k#1 back to back on one queue (k#1 waits for k#0: the barrier bit), k#2 long after, on
// an idle GPU.
const std::string kScenario = std::string("name: replay-three\n") + gpuvp::test::kRoundPlatform + R"(
queues: [{name: s}]
kernels:
  - {name: "k#0", queue: s, submit_ns: 0, program: [{op: valu, cycles: 4, repeat: 200}]}
  - {name: "k#1", queue: s, submit_ns: 0, barrier: true, program: [{op: valu, cycles: 4, repeat: 100}]}
  - {name: "k#2", queue: s, submit_ns: 100000, program: [{op: valu, cycles: 4, repeat: 50}]}
expect:
  - {metric: replay.makespan_ratio, min: 0.01, max: 100}
  - {metric: replay.same_stream_gap_ns.simulated.count, min: 1, max: 1}
  - {compare: "replay.makespan_ns.simulated > 0.5 * replay.makespan_ns.measured"}
)";

double num(const json& j) { return j.get<double>(); }

}  // namespace

TEST_CASE("replay: two kernels back to back and one on an idle GPU, measured against simulated", "[replay][system]") {
    gpuvp::Scenario s = gpuvp::parse_scenario(kScenario, "replay.yaml");
    // What the hardware measured: k#1 was queued when k#0 ended (500 ns gap); k#2's call came with
    // the GPU idle (4000 ns to its start).
    s.workload.kernels[0].measured = gpuvp::MeasuredTimes{0, 1000, 3000, 8000, std::nullopt, {}, 0};
    s.workload.kernels[1].measured = gpuvp::MeasuredTimes{1200, 2000, 8500, 12000, std::nullopt, {}, 0};
    s.workload.kernels[2].measured = gpuvp::MeasuredTimes{100000, 101000, 104000, 106000, std::nullopt, {}, 0};
    const gpuvp::RunOutput out = gpuvp::run_scenario(s);
    const json r = json::parse(out.results);
    const json &k0 = r["kernels"][0], &k1 = r["kernels"][1], &k2 = r["kernels"][2];
    for (const json* k : {&k0, &k1, &k2}) REQUIRE((*k)["status"] == "ok");
    CHECK(k1["measured"] == json{{"launch_ns", 1200}, {"launch_end_ns", 2000}, {"start_ns", 8500}, {"end_ns", 12000}, {"floor_ns", nullptr},
                                     {"inferred_after", json::array()}, {"unmatched_waits", 0}});
    CHECK_FALSE(k0.contains("call_start_ns"));  // open loop: submit_ns and doorbell_ns stand for the call
    REQUIRE(r.contains("replay"));
    const json& x = r["replay"];
    CHECK(x["kernels"] == 3);

    // The simulated gap is the record's own: k#1 starts after k#0 ends (it waited for k#0's
    // completion); k#2's call came after k#1 ended, so it gives none.
    REQUIRE(num(k1["doorbell_ns"]) < num(k0["end_ns"]));
    const double gap = num(k1["first_warp_start_ns"]) - num(k0["end_ns"]);
    CHECK(gap > 0);
    CHECK(x["same_stream_gap_ns"]["simulated"] == json{{"median", gap}, {"p90", gap}, {"max", gap}, {"count", 1}});
    CHECK(x["same_stream_gap_ns"]["measured"] == json{{"median", 500.0}, {"p90", 500.0}, {"max", 500.0}, {"count", 1}});

    // Idle launch latency: k#0 is the first k, k#1 came while k#0 was queued; k#2 alone counts.
    const double idle = num(k2["first_warp_start_ns"]) - num(k2["submit_ns"]);
    CHECK(x["idle_launch_latency_ns"]["simulated"]["count"] == 1);
    CHECK(num(x["idle_launch_latency_ns"]["simulated"]["median"]) == Approx(idle).margin(1e-3));
    CHECK(num(x["idle_launch_latency_ns"]["measured"]["max"]) == 4000);

    // Paired: the same launches on both sides. k#1's gap after k#0, and k#2's idle latency.
    CHECK(x["same_stream_gap_ns"]["error"] ==
          json{{"median_abs", std::round((gap - 500) * 1000) / 1000}, {"p90_abs", std::round((gap - 500) * 1000) / 1000}, {"count", 1}});
    CHECK(x["idle_launch_latency_ns"]["error"]["count"] == 1);
    CHECK(num(x["idle_launch_latency_ns"]["error"]["median_abs"]) == Approx(std::fabs(idle - 4000)).margin(1e-3));

    // Duration ratios, simulated (first warp -> last block) over measured: 5000, 3500 and 2000 ns.
    std::vector<double> ratios;
    const double measured_ns[] = {5000, 3500, 2000};
    for (size_t i = 0; i < 3; ++i) {
        const json& k = r["kernels"][i];
        ratios.push_back((num(k["end_ns"]) - num(k["first_warp_start_ns"])) / measured_ns[i]);
    }
    std::sort(ratios.begin(), ratios.end());
    CHECK(x["kernel_duration_ratio"]["count"] == 3);
    CHECK(num(x["kernel_duration_ratio"]["median"]) == Approx(ratios[1]).margin(1e-6));  // rank 2 of 3
    CHECK(num(x["kernel_duration_ratio"]["p90"]) == Approx(ratios[2]).margin(1e-6));     // rank 3
    CHECK(num(x["kernel_duration_ratio"]["max"]) == Approx(ratios[2]).margin(1e-6));

    // Makespan: from k#0's launch (submit 0) to k#2's end; measured 106000.
    CHECK(num(x["makespan_ns"]["simulated"]) == Approx(num(k2["end_ns"]) - num(k0["submit_ns"])).margin(1e-3));
    CHECK(num(x["makespan_ns"]["measured"]) == 106000);
    CHECK(num(x["makespan_ratio"]) == Approx(num(x["makespan_ns"]["simulated"]) / 106000).margin(1e-6));
    CHECK(x["cross_stream_overlap"] == json{{"measured", 0.0}, {"simulated", 0.0}});  // one stream

    // The expectations read it.
    REQUIRE(r["expectations"].size() == 3);
    CHECK(r["expectations"][0]["value"] == x["makespan_ratio"]);
    for (const json& e : r["expectations"]) CHECK(e["passed"] == true);
    CHECK(out.exit_code == 0);

    // The console's table, and the report's section from the same run.
    INFO(out.table);
    CHECK(out.table.find("Replay: the model against the hardware, 3 kernels") != std::string::npos);
    CHECK(out.table.find("  same-stream gap  ") != std::string::npos);
    CHECK(out.table.find("makespan              measured 106000.0 ns") != std::string::npos);
    CHECK(out.table.find("  paired |error|        gap median ") != std::string::npos);
    const std::string dir = gpuvp::test::temp_dir();
    std::string error;
    REQUIRE(gpuvp::write_run_output(dir, out, true, &error));
    const std::string page = gpuvp::test::slurp(dir + "/report.html");
    CHECK(page.find("<section id=\"replay\">") != std::string::npos);
    CHECK(page.find("<a href=\"#replay\">Replay</a>") != std::string::npos);
}

TEST_CASE("replay: a run without measured kernels has no replay section, and its paths read null", "[replay][system]") {
    gpuvp::Scenario s = gpuvp::parse_scenario(kScenario, "replay.yaml");
    const gpuvp::RunOutput out = gpuvp::run_scenario(s);
    const json r = json::parse(out.results);
    CHECK_FALSE(r.contains("replay"));
    CHECK_FALSE(r["kernels"][0].contains("measured"));
    for (const json& e : r["expectations"]) CHECK(e["passed"] == false);  // null: not a number
    CHECK(out.exit_code == 1);
    CHECK(out.table.find("Replay") == std::string::npos);
}
