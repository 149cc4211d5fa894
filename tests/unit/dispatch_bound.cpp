// What kernel durations say of the GLC's cost of a placement (sc_main/replay/calibrate.h,
// dispatch_bound): each kernel's measured duration over its placements bounds a decision's
// cycles from above; the tightest kernel gives the bound. And calibrate's warnings of fitted
// values at an end of their ranges.
#include "sc_main/replay/calibrate.h"
#include "sc_main/scenario/trace_scenario.h"

#include <catch2/catch.hpp>

using namespace gpuvp;

namespace {

// A kernel of `blocks` blocks of 1024 threads (32 warps: two to an SM of 64 warp slots),
// measured running `ns`.
KernelSpec measured(const std::string& name, uint32_t blocks, int64_t ns) {
    KernelSpec k;
    k.name = name;
    k.block = {1024, 1, 1};
    k.grid = {1024 * blocks, 1, 1};
    k.measured = MeasuredTimes{0, 0, 1000, 1000 + ns, std::nullopt, {}, 0};
    return k;
}

}  // namespace

TEST_CASE("dispatch bound: the kernel with the fewest ns a placement bounds a decision's cycles", "[calibrate]") {
    Scenario s;
    s.platform.clock_mhz = 1000;
    s.platform.sm.warp_slots = 64;
    REQUIRE(blocks_per_sm(s.platform.sm, 1024, 32, 0) == 2);
    s.workload.kernels = {measured("one_placement", 2, 5),   // one placement: no bound
                          measured("five", 10, 100),         // 5 placements in 100 cycles: 20 each
                          measured("four", 8, 40),           // 4 in 40: 10 each, the tightest
                          measured("eight", 16, 400)};       // 50 each
    s.workload.kernels.push_back(measured("unmeasured", 100, 1));
    s.workload.kernels.back().measured.reset();  // no measured times: not evidence
    DispatchBound b = dispatch_bound(s, "t.json");
    REQUIRE(b.cycles);
    CHECK(*b.cycles == Approx(10));
    CHECK(b.kernel == "four");
    CHECK(b.trace == "t.json");
    CHECK(b.placements == 4);
    CHECK(b.duration_ns == 40);
    // Descriptors written one after another take their share first.
    s.platform.glc.descriptor_cycles = 2;
    b = dispatch_bound(s, "t.json");
    CHECK(*b.cycles == Approx((40.0 - 8 * 2) / 4));
    // Without a kernel of two placements or more: no bound.
    s.workload.kernels = {measured("one_placement", 2, 5)};
    CHECK_FALSE(dispatch_bound(s, "t.json").cycles);
}

TEST_CASE("calibrate warns of each fitted value at an end of its range and says what that suggests", "[calibrate]") {
    gpuvp::CalibrationResult r;
    r.values = {{"host.store_ns", 1000},                    // the top of 0..1000
                {"platform.cp.wakeup_cycles", 0},           // the bottom of 0..4000
                {"platform.memory.link_latency_ns", 400},   // inside 100..2000
                {"platform.glc.decision_cycles", 12}};      // not searched: no range
    const std::vector<std::string> w = gpuvp::calibration_warnings(r);
    REQUIRE(w.size() == 2);
    CHECK(w[0].rfind("host.store_ns = 1000 is at the top of its range (0..1000): the traces spend more time there", 0) == 0);
    CHECK(w[1].rfind("platform.cp.wakeup_cycles = 0 is at the bottom of its range (0..4000): the traces leave no time", 0) == 0);
    r.values = {{"host.store_ns", 999}};
    CHECK(gpuvp::calibration_warnings(r).empty());
}
