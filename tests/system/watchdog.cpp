// The GPU's watchdog (platform.watchdog_ns): kernels in flight and no forward progress for a
// whole window stop the run with the GPU's state; a run that goes idle with work unfinished
// is a hang too. One simulation per TEST_CASE.
#include <gpuvp/platform/system.h>
#include "tests/support.h"

#include <catch2/catch.hpp>

using Catch::Matchers::Contains;
using gpuvp::test::run_yaml;

namespace gpuvp {
namespace {

// Warp 0 takes lock 0 and keeps it through a critical section of 2e9 instructions (2 s at
// 1 GHz: for ever, as far as the run goes); warp 1 spins on lock 0 (spin: it fails, backs off,
// tries again). Nothing a warp does inside a critical section, and no failed try, is forward
// progress. Loose round robin, so that the spinner gets its turns (under gto the holder, ready
// every cycle, would keep the issue slot and the spinner would never try). `extra`: more
// top-level keys and platform keys.
const char* kLivelockProgram = R"(  sm: {lock_watchdog_cycles: 0}
policy: {lock: spin, issue: lrr}
kernels:
  - name: k
    grid: [64]
    block: [64]
    shared_bytes: 16
    program:
      - {op: if_warp, warps: [1], body: [{op: valu, cycles: 100}]}
      - {op: lock, id: 0}
      - {op: valu, cycles: 1, repeat: 2000000000}
      - {op: unlock, id: 0}
)";

test::Run livelock(const std::string& platform_extra, const std::string& extra = "") {
    return run_yaml("name: livelock\n" + extra + "platform:\n  clock_mhz: 1000\n  sms: 2\n" + platform_extra +
                    kLivelockProgram);
}

std::string joined(const nlohmann::json& lines) {
    std::string s;
    for (const auto& l : lines) s += l.get<std::string>() + "\n";
    return s;
}

}  // namespace

TEST_CASE("without a hang handler the GPU reports the hang as an SC_ERROR of type gpuvp/watchdog", "[watchdog]") {
    // As an SoC platform that set no handler sees it: SystemC's default action for an error
    // throws it out of sc_start.
    const Scenario s = parse_scenario(std::string("name: soc\nplatform:\n  clock_mhz: 1000\n  sms: 1\n  watchdog_ns: 50000\n") +
                                          kLivelockProgram,
                                      "soc.yaml");
    System sys("system", s);
#if defined(__SANITIZE_ADDRESS__)
    // ASan's throw interceptor misreads SystemC's thread stacks and reports a false
    // stack-buffer-overflow on any exception out of sc_start: under ASan the error stops the
    // simulation instead, and the report is counted by its type.
    sc_core::sc_report_handler::set_actions("gpuvp/watchdog", sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_STOP);
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
    CHECK(sc_core::sc_report_handler::get_count("gpuvp/watchdog") == 1);
    CHECK(sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) == 1);
#else
    try {
        sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
        FAIL("sc_start returned without the watchdog's error");
    } catch (const sc_core::sc_report& r) {
        CHECK(std::string(r.get_msg_type()) == "gpuvp/watchdog");
        CHECK(r.get_severity() == sc_core::SC_ERROR);
        CHECK_THAT(std::string(r.get_msg()), Contains("no forward progress from") && Contains("with 1 kernel(s) or draw(s) in flight") &&
                                                 Contains("holds lock 0") && Contains("tries lock 0 held by warp 0"));
    }
#endif
    CHECK(sc_core::sc_time_stamp() < sc_core::sc_time(200, sc_core::SC_US));
    CHECK(sys.gpu.progress() > 0);
}

TEST_CASE("the watchdog stops a run without forward progress and dumps the warps and who holds which lock", "[watchdog]") {
    const auto r = livelock("  watchdog_ns: 100000\n");
    INFO(r.out.table);
    const auto& hang = r.results["hang"];
    REQUIRE(hang.is_object());
    CHECK(hang["cause"] == "watchdog");
    CHECK(hang["in_flight"] == 1);
    const double since = hang["no_progress_since_ns"], at = hang["detected_ns"];
    CHECK(at - since == Approx(100000));  // one whole window without progress
    // The window that saw no progress starts at most one window after the last progress (the
    // warps' first instructions, a few microseconds in).
    CHECK(since <= 100000 + 10000);
    CHECK(r.results["sim_end_ns"].get<double>() == Approx(at));  // stopped there, not at max_sim_ns
    const std::string state = joined(hang["state"]);
    CHECK_THAT(state, Contains("cp kernel slot 0: queue 0, packet 0"));
    CHECK_THAT(state, Contains("glc kernel slot 0: priority 0, 1 blocks: 0 undispatched, 1 dispatched, 0 finished"));
    CHECK_THAT(state, Contains("sm[0] block row 0: kernel slot 0, block 0"));
    CHECK_THAT(state, Contains("warp 0 (CPR 0)"));
    CHECK_THAT(state, Contains("holds lock 0"));
    CHECK_THAT(state, Contains("warp 1 (CPR 0)"));
    CHECK_THAT(state, Contains("tries lock 0 held by warp 0: backing off until"));
    CHECK_THAT(state, Contains("idle (no warps, and so in the GLC's table): sm[1]"));
    CHECK_THAT(r.kernel("k")["status"].get<std::string>(), Contains("did not complete: the watchdog stopped the run"));
    CHECK(r.out.record->kernels[0].status.state == gpuvp::LaunchStatus::State::unfinished);
    CHECK(r.results["status"] == "error");
    CHECK(r.out.exit_code == 1);
    CHECK_THAT(r.out.table, Contains("HANG: the watchdog saw no forward progress"));
}

TEST_CASE("without the watchdog the same run goes on until max_sim_ns", "[watchdog]") {
    const auto r = livelock("  watchdog_ns: 0\n", "max_sim_ns: 1000000\n");
    CHECK(r.results["hang"].is_null());
    CHECK(r.results["sim_end_ns"].get<double>() > 990000);
    CHECK_THAT(r.kernel("k")["status"].get<std::string>(), Contains("did not complete by max_sim_ns"));
    CHECK(r.out.record->kernels[0].status == gpuvp::LaunchStatus::from_text(r.kernel("k")["status"].get<std::string>()));
    CHECK(r.results["locks"]["sync_failures"].get<int>() > 1000);  // it was busy all along
}

TEST_CASE("a kernel waiting for one queued behind it is a deadlock the run reports with the state", "[watchdog]") {
    const auto r = run_yaml(R"(name: ordering-deadlock
queues: [{name: q}, {name: other}]
kernels:
  - {name: first, queue: q, after: [second], program: [{op: valu}]}
  - {name: second, queue: q, submit_ns: 100, program: [{op: valu}]}
  - {name: elsewhere, queue: other, program: [{op: valu}]}
expect:
  - {metric: hangs, min: 1, max: 1}
  - {metric: kernels_failed, min: 2, max: 2}
)");
    const auto& hang = r.results["hang"];
    REQUIRE(hang.is_object());
    CHECK(hang["cause"] == "idle");
    CHECK(hang["in_flight"] == 0);
    CHECK_THAT(joined(hang["state"]), Contains("barrier-AND waits on signals 0x") &&
                                          Contains("(second's completion signal)"));
    CHECK_THAT(r.kernel("first")["status"].get<std::string>(), Contains("went idle with the kernel unfinished"));
    CHECK(r.kernel("elsewhere")["status"] == "ok");  // its queue went on
    CHECK(r.out.expectations_passed);
    CHECK(r.out.exit_code == 0);  // the failures were expected
}

TEST_CASE("the watchdog adds no event to idle time and does not fire across a long idle gap", "[watchdog]") {
    // Two kernels 20 ms apart with a 1 ms watchdog: the GPU is idle in between, so the watchdog
    // has nothing to watch; the run ends when the second kernel does, as with the watchdog off.
    const std::string yaml = R"(name: gap
kernels:
  - {name: a, program: [{op: valu, cycles: 100}]}
  - {name: b, submit_ns: 20000000, program: [{op: valu, cycles: 100}]}
)";
    const std::string on = test::in_child([&] { return run_yaml(yaml, {{"platform.watchdog_ns", "1000000"}}).out.results; });
    const std::string off = test::in_child([&] { return run_yaml(yaml, {{"platform.watchdog_ns", "0"}}).out.results; });
    auto a = nlohmann::json::parse(on), b = nlohmann::json::parse(off);
    CHECK(a["hang"].is_null());
    CHECK(a["status"] == "ok");
    CHECK(a["sim_end_ns"] == b["sim_end_ns"]);
    CHECK(a["kernels"] == b["kernels"]);
}

}  // namespace gpuvp
