// Progress reports during a run (what `gpuvp run` shows on a terminal).
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"
#include "tests/support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// The results without progress (in a child: one elaboration per process), then with progress
// reported after every slice; returns both and the reports.
struct Both {
    nlohmann::json plain, sliced;
    std::vector<gpuvp::Progress> seen;
};

Both run_both(const gpuvp::Scenario& s) {
    const std::string plain =
        gpuvp::test::in_child([&] { return gpuvp::run_scenario(s, gpuvp::RunOptions{false}).results; });
    Both b;
    gpuvp::RunOptions o{false};
    o.progress = [&](const gpuvp::Progress& p) { b.seen.push_back(p); };
    o.progress_seconds = 0;
    b.sliced = nlohmann::json::parse(gpuvp::run_scenario(s, o).results);
    b.plain = nlohmann::json::parse(plain);
    b.plain.erase("host_seconds");
    b.sliced.erase("host_seconds");
    return b;
}

}  // namespace

TEST_CASE("a run reporting its progress goes in slices and gives the same results", "[cli][progress]") {
    const Both b = run_both(gpuvp::load_scenario(std::string(GPUVP_SOURCE_DIR) + "/scenarios/lock-contention.yaml"));
    CHECK(b.plain.dump() == b.sliced.dump());
    REQUIRE(b.seen.size() >= 3);
    for (size_t i = 1; i < b.seen.size(); ++i) CHECK(b.seen[i].sim_ns >= b.seen[i - 1].sim_ns);
    CHECK(b.seen.front().kernels_done == 0);
    CHECK(b.seen.back().kernels_done == b.seen.back().kernels);
    CHECK(b.seen.back().sim_ns == b.sliced["sim_end_ns"].get<double>());
}

TEST_CASE("a run stopped by max_sim_ns ends the same with progress reports", "[cli][progress]") {
    // Work beyond the limit: the run stops at its last event before it (once, a hang).
    const gpuvp::Scenario s = gpuvp::parse_scenario(
        "name: cut\nmax_sim_ns: 20000.5\nkernels: [{name: k, grid: [16777216], block: [256], "
        "program: [{op: valu, cycles: 4, repeat: 100}]}]\n",
        "cut.yaml");
    const Both b = run_both(s);
    CHECK(b.plain.dump() == b.sliced.dump());
    CHECK(b.sliced["kernels"][0]["status"] == "did not complete by max_sim_ns");
    CHECK(b.sliced["sim_end_ns"].get<double>() <= 20000.5);
    CHECK(b.seen.back().kernels_done == 0);
}
