// M4 (seed 003) in whole platforms: draws through the command processor beside kernels, the
// array's tables through the debug aperture, and the adaptive balance against the static split.
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/usa/adaptive_balance.h>
#include <gpuvp/models/usa/load_flags.h>
#include <gpuvp/models/usa/shading_policy.h>
#include <gpuvp/models/usa/static_split.h>
#include <gpuvp/models/usa/unified_shading_array.h>
#include <gpuvp/platform/system.h>
#include "sc_main/sweep/sweep.h"
#include "tests/files.h"
#include "tests/support.h"

#include <tlm_utils/simple_target_socket.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <fstream>
#include <map>

using namespace gpuvp;
using Catch::Matchers::Contains;

TEST_CASE("M4 a draw packet goes through the CP to the array and its completion signal is written", "[m4]") {
    const auto r = test::run_yaml(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 12, vertex_cores: 4}
policy: {shading: adaptive}
draws:
  - {name: f0, submit_ns: 0, vertex_tasks: 32, vertex_cycles: 100, pixel_tasks_per_vertex_task: 3, pixel_cycles: 50}
)",
                                  {}, true);
    INFO(r.out.results);
    CHECK(r.out.exit_code == 0);
    CHECK(r.results["status"] == "ok");
    const auto& u = r.results["usa"];
    REQUIRE(u["draws"].size() == 1);
    const auto& d = u["draws"][0];
    CHECK(d["status"] == "ok");
    CHECK(d["vertex_tasks"] == 32);
    CHECK(d["pixel_tasks"] == 96);
    const double doorbell = d["doorbell_ns"], arrived = d["arrived_ns"], first = d["first_task_ns"];
    const double vdone = d["vertex_done_ns"], end = d["end_ns"], complete = d["complete_ns"];
    CHECK(doorbell < arrived);
    CHECK(first == arrived);  // idle vertex cores take tasks at once
    CHECK(arrived < vdone);
    CHECK(vdone < end);
    // As for kernels: done -> CP (bus 2) -> completion_cycles 300 -> the signal's atomic.
    CHECK(complete >= end + 302);
    CHECK(d["turnaround_ns"] == complete - d["submit_ns"].get<double>());
    CHECK(u["tasks"]["vertex"] == 32);
    CHECK(u["tasks"]["pixel"] == 96);
    CHECK(u["cores"]["vertex"].get<int>() + u["cores"]["pixel"].get<int>() == 12);
    CHECK(u["cores"]["clusters"] == 2);  // the second SSC has 4 cores
    CHECK(u["reassignments"].get<int>() > 0);
    CHECK(u["utilization"].get<double>() > 0.5);
    CHECK(u["utilization"].get<double>() <= 1.0);
    // The time by flags adds up to the active time; the busy time is the tasks' time.
    double by_flags = 0;
    for (const auto& [flags, t] : u["flags_time_ns"].items()) {
        CHECK(flags.find("11") == std::string::npos);
        by_flags += t.get<double>();
    }
    CHECK(by_flags == Approx(u["active_ns"].get<double>()).epsilon(1e-9));
    CHECK(u["busy_ns"]["vertex"].get<double>() >= 32 * 100);
    CHECK(u["busy_ns"]["pixel"].get<double>() >= 96 * 50);
    int in_clusters = 0;
    for (const auto& c : u["clusters"]) in_clusters += c["vertex"].get<int>() + c["pixel"].get<int>();
    CHECK(in_clusters == 12);
    CHECK(u["clusters"][1]["vertex"].get<int>() + u["clusters"][1]["pixel"].get<int>() == 4);
    CHECK(r.results["queues"][0]["packets_processed"] == 1);
    CHECK(r.results["totals"]["interrupts"].get<int>() >= 1);
    // The trace: the array's process, a row per core, flag and split counters, the moves.
    std::map<std::string, int> seen;
    for (const auto& e : r.trace["traceEvents"]) {
        if (e.value("pid", 0) != 6) continue;
        const std::string ph = e["ph"];
        if (ph == "C") {
            ++seen["counter " + e["name"].get<std::string>()];
            if (e["name"] == "load flags") {
                CHECK(e["args"]["idle_vertex"].get<int>() <= 2);
                CHECK(e["args"]["idle_pixel"].get<int>() <= 2);
            }
        } else if (ph == "X" && e["cat"] == "shading") {
            ++seen["task"];
            CHECK(e["args"]["draw"] == "f0");
        } else if (ph == "X" && e["cat"] == "draw") {
            ++seen["draw"];
            CHECK(e["name"] == "f0");
        } else if (ph == "i") {
            ++seen["move"];
        } else if (ph == "M" && e["name"] == "thread_name") {
            ++seen["row " + e["args"]["name"].get<std::string>()];
        }
    }
    CHECK(seen["task"] == 128);
    CHECK(seen["draw"] == 1);
    CHECK(seen["move"] == u["reassignments"].get<int>());
    CHECK(seen["row SSC1 core8"] == 1);
    CHECK(seen["row SSC2 core4"] == 1);
    CHECK(seen["row SSC2 core5"] == 0);  // the partial last cluster has no fifth core
    CHECK(seen["counter load flags"] > 0);
    CHECK(seen["counter cores by type"] > 0);
}

TEST_CASE("M4 with one draw slot the CP holds the next draw until the array finishes one", "[m4]") {
    const auto r = test::run_yaml(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 8, vertex_cores: 4, max_draws: 1}
policy: {shading: adaptive}
draws:
  - {name: a, vertex_tasks: 16, vertex_cycles: 100, pixel_tasks_per_vertex_task: 2, pixel_cycles: 50}
  - {name: b, vertex_tasks: 16, vertex_cycles: 100, pixel_tasks_per_vertex_task: 2, pixel_cycles: 50}
  - {name: c, vertex_tasks: 16, vertex_cycles: 100, pixel_tasks_per_vertex_task: 2, pixel_cycles: 50}
)");
    CHECK(r.out.exit_code == 0);
    const auto& d = r.results["usa"]["draws"];
    REQUIRE(d.size() == 3);
    for (size_t i = 1; i < 3; ++i) {
        CHECK(d[i]["status"] == "ok");
        // The CP frees the draw slot when it has written the completion signal, then sends the
        // next draw (a descriptor write).
        CHECK(d[i]["arrived_ns"].get<double>() > d[i - 1]["complete_ns"].get<double>());
    }
}

TEST_CASE("M4 kernels and draws share the command processor and both complete", "[m4]") {
    const auto r = test::run_yaml(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 8, vertex_cores: 4}
policy: {shading: adaptive}
queues: [{name: compute}, {name: gfx}]
kernels:
  - {name: k, queue: compute, grid: [4096], block: [256], program: [{op: valu, cycles: 4, repeat: 50}]}
draws:
  - {name: f0, queue: gfx, vertex_tasks: 64, vertex_cycles: 100, pixel_tasks_per_vertex_task: 2, pixel_cycles: 50}
expect:
  - {draw: f0, metric: complete_ns, max: 1e6}
  - {kernel: k, metric: complete_ns, max: 1e6}
  - {metric: draws_ok, min: 1}
)");
    CHECK(r.out.exit_code == 0);
    CHECK(r.kernel("k")["status"] == "ok");
    CHECK(r.results["usa"]["draws"][0]["status"] == "ok");
    CHECK(r.results["expectations"][0]["draw"] == "f0");
    CHECK(r.results["expectations"][0]["passed"] == true);
    CHECK(r.results["expectations"][2]["value"] == 1);
}

TEST_CASE("M4 a draw packet the CP rejects stops its queue and names the field", "[m4][errors]") {
    const auto r = test::run_yaml(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 8, vertex_cores: 4}
policy: {shading: adaptive}
queues: [{name: gfx}, {name: other}]
draws:
  - {name: bad, queue: gfx, packet: {vertex_tasks: 0}}
  - {name: after_bad, queue: gfx, submit_ns: 100}
  - {name: wrong_format, queue: other, packet: {format: 2}}
expect:
  - {metric: draws_failed, min: 3, max: 3}
)");
    INFO(r.out.results);
    CHECK(r.out.exit_code == 0);  // the expectation states the failures
    const auto& d = r.results["usa"]["draws"];
    CHECK(d[0]["status"] == "invalid draw: vertex_tasks: 0 is outside 1..1048576");
    CHECK_THAT(d[1]["status"].get<std::string>(), Contains("not processed: queue stopped by invalid draw at packet 0"));
    CHECK_THAT(d[2]["status"].get<std::string>(), Contains("unsupported packet: format: vendor-specific format 2 is not served"));
    CHECK(r.results["queues"][0]["status"] == "invalid draw");
    CHECK(r.results["errors"].size() == 2);
    CHECK(r.results["usa"]["tasks"]["vertex"] == 0);
    CHECK(r.results["status"] == "error");
}

TEST_CASE("M4 a kernel with the barrier bit waits for the draw before it on its queue", "[m4]") {
    const auto r = test::run_yaml(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 8, vertex_cores: 4}
policy: {shading: adaptive}
kernels:
  - {name: k, submit_ns: 10, barrier: true, program: [{op: valu}]}
draws:
  - {name: f0, vertex_tasks: 64, vertex_cycles: 100, pixel_tasks_per_vertex_task: 2, pixel_cycles: 50}
)");
    CHECK(r.out.exit_code == 0);
    const auto& d = r.results["usa"]["draws"][0];
    CHECK(d["packet"] == 0);
    CHECK(r.kernel("k")["packet"] == 1);
    CHECK(r.kernel("k")["first_block_dispatch_ns"].get<double>() > d["complete_ns"].get<double>());
}

TEST_CASE("M4 the array's flags and tables read through the debug aperture", "[m4]") {
    Scenario s = parse_scenario(std::string("name: t\n") + test::kRoundPlatform + R"(  usa: {cores: 12, vertex_cores: 5}
policy: {shading: adaptive}
draws:
  - {name: f0, vertex_tasks: 200, vertex_cycles: 100, pixel_tasks_per_vertex_task: 1, pixel_cycles: 50}
)",
                                "t");
    System sys("system", s);
    test::DebugProbe probe("probe");
    probe.bus.bind(sys.bus.in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint32_t flags = probe.read<uint32_t>(map::kDebugUsa + map::kUsaFlags);
    CHECK((flags & 3) == 2);         // 5 idle vertex cores: 10
    CHECK((flags >> 2 & 3) == 2);    // 7 idle pixel cores: 10
    CHECK((flags >> 8 & 0xff) == 5);
    CHECK((flags >> 16 & 0xff) == 7);
    // Core 8 is SSC2 core1, vertex-typed by the breadth-first initial split; core 4 is pixel.
    auto row = probe.read<UsaCoreRow>(map::kDebugUsa + map::kUsaCoreTable + 8 * map::kTableRowBytes);
    CHECK(row.cluster == 1);
    CHECK(row.position == 0);
    CHECK(row.type == uint8_t(CoreType::vertex));
    CHECK(probe.read<UsaCoreRow>(map::kDebugUsa + map::kUsaCoreTable + 4 * map::kTableRowBytes).type ==
          uint8_t(CoreType::pixel));
    // Mid-draw: every core busy, the draw's row counting.
    sc_core::sc_start(5, sc_core::SC_US);
    flags = probe.read<uint32_t>(map::kDebugUsa + map::kUsaFlags);
    CHECK((flags & 0xf) == 0);  // 00/00: no idle core
    const auto draw = probe.read<UsaDrawRow>(map::kDebugUsa + map::kUsaDrawTable);
    CHECK(draw.valid == 1);
    CHECK(draw.vertex_tasks == 200);
    CHECK(draw.vertex_started > draw.vertex_done);
    CHECK(draw.vertex_done > 0);
    row = probe.read<UsaCoreRow>(map::kDebugUsa + map::kUsaCoreTable);
    CHECK(row.busy == 1);
    CHECK(row.end_ps > 5'000'000);
}

// The bundled streams under the three policies (each point a process of its own).
namespace {

std::vector<nlohmann::json> three_policies(const std::string& scenario) {
    SweepOptions options;
    options.out_dir = gpuvp::test::temp_dir();
    options.jobs = 2;
    const std::string& dir = options.out_dir;
    const SweepOutput out =
        run_sweep(std::string(GPUVP_SOURCE_DIR) + "/scenarios/" + scenario, {},
                  {{"policy.shading", {"static", "adaptive", "adaptive-depth-first"}}}, options);
    // A draw-only stream: the table is the draws' alone, with no empty kernel table above it.
    CHECK(out.table.rfind("Draws (M4)", 0) == 0);
    CHECK(out.table.find("| kernel |") == std::string::npos);
    CHECK(std::ifstream(std::string(dir) + "/draws.csv").good());
    std::vector<nlohmann::json> r;
    for (int point = 0; point < 3; ++point) {
        std::ifstream f(std::string(dir) + "/point-" + std::to_string(point) + "/results.json");
        r.push_back(nlohmann::json::parse(f));
    }
    std::system(("rm -rf " + std::string(dir)).c_str());
    return r;
}

double last_end(const nlohmann::json& r) {
    double t = 0;
    for (const auto& d : r["usa"]["draws"]) t = std::max(t, d["end_ns"].get<double>());
    return t;
}

void adaptive_beats_static(const std::string& scenario, double factor) {
    const auto r = three_policies(scenario);
    for (const auto& p : r) CHECK(p["status"] == "ok");
    const double st = last_end(r[0]), ad = last_end(r[1]), df = last_end(r[2]);
    INFO("static " << st << ", adaptive " << ad << ", depth-first " << df);
    CHECK(ad < factor * st);
    CHECK(df < factor * st);  // the same decisions with the depth-first map
    CHECK(r[2]["usa"]["reassignments"].get<int>() > 0);
    CHECK(r[1]["usa"]["utilization"].get<double>() > r[0]["usa"]["utilization"].get<double>());
    CHECK(r[0]["usa"]["reassignments"] == 0);
    CHECK(r[1]["usa"]["reassignments"].get<int>() > 0);
}

}  // namespace

TEST_CASE("M4 against the static split on the vertex-heavy stream", "[m4][baseline]") {
    adaptive_beats_static("shading-vertex-heavy.yaml", 0.8);
}
TEST_CASE("M4 against the static split on the pixel-heavy stream", "[m4][baseline]") {
    adaptive_beats_static("shading-pixel-heavy.yaml", 0.8);
}
TEST_CASE("M4 against the static split on the phase-changing stream", "[m4][baseline]") {
    adaptive_beats_static("shading-phase-changing.yaml", 0.85);
}
