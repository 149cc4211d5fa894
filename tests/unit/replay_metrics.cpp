// The model against the hardware (sc_main/record/replay_metrics.h), without a simulation: small
// timelines whose figures are worked out by hand in the comments; and replay_sides, the two
// sides as a run's record gives them.
#include "sc_main/record/run_record.h"
#include "sc_main/record/replay_metrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using gpuvp::Distribution;
using gpuvp::KernelTimes;
using gpuvp::ReplaySides;

namespace {

KernelTimes kernel(const std::string& name, const std::string& stream, double launch, double launch_end, double start,
                   double end) {
    return {name, stream, launch, launch_end, start, end, std::nullopt, {}};
}

// A kernel that never ran.
KernelTimes unrun(const std::string& name, const std::string& stream, double launch) {
    return {name, stream, launch, launch, std::nullopt, std::nullopt, std::nullopt, {}};
}

}  // namespace

TEST_CASE("replay: a same-stream gap counts only when the next launch had returned before the previous ended", "[replay]") {
    // Stream s, in start order: a 100-200; b returned at 30 < 200: gap 250 - 200 = 50; c returned at
    // 410 > b's end 300: the GPU waited for the host, no gap; d returned at 450 < 600: gap 610 - 600 =
    // 10; e returned at 700, d's end: not before it, no gap. Stream t: one kernel, no gap. The list is
    // not in start order (d before c).
    const std::vector<KernelTimes> ks = {
        kernel("a#0", "s", 0, 10, 100, 200),     kernel("t#1", "t", 5, 15, 1000, 1100),
        kernel("b#2", "s", 20, 30, 250, 300),    kernel("d#4", "s", 420, 450, 610, 700),
        kernel("c#3", "s", 400, 410, 500, 600),  kernel("e#5", "s", 460, 700, 720, 800),
    };
    CHECK(gpuvp::same_stream_gaps(ks) == std::vector<double>{50, 10});
    // A kernel that never ran takes no part: without c, b and d are consecutive, and d returned at
    // 450, after b's end at 300: only a -> b is left.
    std::vector<KernelTimes> without_c = ks;
    without_c[4] = unrun("c#3", "s", 400);
    CHECK(gpuvp::same_stream_gaps(without_c) == std::vector<double>{50});
    // Two kernels of one stream that overlap on the hardware give a negative gap.
    CHECK(gpuvp::same_stream_gaps({kernel("x", "s", 0, 1, 10, 100), kernel("y", "s", 2, 3, 90, 120)}) ==
          std::vector<double>{-10});
}

TEST_CASE("replay: the idle launch latency leaves out busy calls and each name's first launch", "[replay]") {
    // In launch order:
    //   gemm#0 at 0: the first gemm (loads code): left out.
    //   gemm#1 at 150: gemm#0 (launched at 0) runs until 200: left out.
    //   gemm#2 at 400: everything before ended by 300: 430 - 400 = 30.
    //   relu#3 at 600: idle, but the first relu: left out.
    //   gemm#5 at 850: everything before ended by 800: 1100 - 850 = 250.
    //   relu#4 at 900: gemm#5, launched at 850, is queued (it starts at 1100): left out.
    //   gemm#6 at 1200: the last end before, gemm#5's, is 1200 itself (ended, not running): 10.
    const std::vector<KernelTimes> ks = {
        kernel("gemm#0", "a", 0, 5, 100, 200),     kernel("gemm#1", "a", 150, 160, 210, 300),
        kernel("gemm#2", "a", 400, 410, 430, 500), kernel("relu#3", "a", 600, 610, 700, 800),
        kernel("relu#4", "b", 900, 905, 950, 1000), kernel("gemm#5", "a", 850, 860, 1100, 1200),
        kernel("gemm#6", "b", 1200, 1205, 1210, 1300),
    };
    CHECK(gpuvp::idle_launch_latencies(ks) == std::vector<double>{30, 250, 10});
    // The name is the part before the last '#'.
    CHECK(gpuvp::base_name("gemm#12") == "gemm");
    CHECK(gpuvp::base_name("void at::native::kernel<float, #2>#7") == "void at::native::kernel<float, #2>");
    CHECK(gpuvp::base_name("plain") == "plain");
    // Two calls at one instant find each other queued.
    CHECK(gpuvp::idle_launch_latencies({kernel("a#0", "s", 0, 1, 5, 10), kernel("a#1", "t", 100, 101, 150, 160),
                                        kernel("a#2", "s", 100, 102, 120, 130)})
              .empty());
    // Without the index, every launch is a name's first.
    std::vector<KernelTimes> named = ks;
    for (size_t i = 0; i < named.size(); ++i) named[i].name = "k" + std::to_string(i);
    CHECK(gpuvp::idle_launch_latencies(named) == std::vector<double>{});
}

TEST_CASE("replay: cross-stream overlap is the share of kernel time another stream runs beside", "[replay]") {
    // a:k1 0-100 and b:k2 50-150 overlap 50 each; a:k3 200-300 and a:k4 220-260 overlap each other but
    // on one stream: 100 of 340 ns.
    std::vector<KernelTimes> ks = {kernel("k1", "a", 0, 0, 0, 100), kernel("k2", "b", 0, 0, 50, 150),
                                   kernel("k3", "a", 0, 0, 200, 300), kernel("k4", "a", 0, 0, 220, 260)};
    CHECK(gpuvp::cross_stream_overlap(ks) == Approx(100.0 / 340).margin(1e-6));
    // b:k5 240-250 runs beside k3 and k4: 10 ns more for each of the three, 130 of 350.
    ks.push_back(kernel("k5", "b", 0, 0, 240, 250));
    CHECK(*gpuvp::cross_stream_overlap(ks) == 0.371429);
    // One stream: none; no kernel time: null.
    CHECK(*gpuvp::cross_stream_overlap({ks[0], ks[2], ks[3]}) == 0);
    CHECK_FALSE(gpuvp::cross_stream_overlap({}));
    CHECK_FALSE(gpuvp::cross_stream_overlap({unrun("u", "a", 0), kernel("z", "b", 0, 0, 5, 5)}));
}

TEST_CASE("replay: a kernel overlapped on the hardware is one another kernel ran beside, on any stream",
          "[replay]") {
    // a 0-100; b 50-150 (overlaps a and c); c 140-200; d 200-300 (starts at c's end: alone);
    // e 400-500 and f 400-450 (same start); g 600-650 on the same stream as a; h never ran;
    // i 1000-1000 (no duration) inside j 900-1100.
    const std::vector<KernelTimes> m = {
        kernel("a#0", "s", 0, 1, 0, 100),      kernel("b#1", "t", 0, 1, 50, 150),   kernel("c#2", "s", 0, 1, 140, 200),
        kernel("d#3", "s", 0, 1, 200, 300),    kernel("e#4", "s", 0, 1, 400, 500),  kernel("f#5", "t", 0, 1, 400, 450),
        kernel("g#6", "s", 0, 1, 600, 650),    unrun("h#7", "s", 0),                kernel("i#8", "s", 0, 1, 1000, 1000),
        kernel("j#9", "t", 0, 1, 900, 1100),
    };
    CHECK(gpuvp::overlapped_kernels(m) ==
          std::vector<bool>{true, true, true, false, true, true, false, false, true, true});
    // Each simulated kernel twice as long as measured, but b three times: alone (d, g) ratio 2;
    // overlapped (a, b, c, e, f, j; i has no measured duration) 2 but b 3.
    ReplaySides sides{m, m};
    for (KernelTimes& k : sides.simulated)
        if (k.end_ns) k.end_ns = *k.start_ns + (*k.end_ns - *k.start_ns) * (k.name == "b#1" ? 3 : 2);
    CHECK(gpuvp::kernel_duration_ratios(sides, false) == std::vector<double>{2, 2});
    CHECK(gpuvp::kernel_duration_ratios(sides, true) == std::vector<double>{2, 3, 2, 2, 2, 2});
    const gpuvp::ReplayRecord r = gpuvp::replay_summary(sides);
    CHECK(r.kernel_duration_ratio.count == 8);
    CHECK(r.kernel_duration_ratio_alone->count == 2);
    CHECK(r.kernel_duration_ratio_overlapped->count == 6);
    CHECK(r.kernel_duration_ratio_overlapped->max == 3);
}

TEST_CASE("replay: percentiles are nearest rank", "[replay]") {
    std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    std::shuffle(ten.begin(), ten.end(), std::mt19937(7));
    const Distribution d = gpuvp::distribution(ten);
    CHECK(d.count == 10);
    CHECK(*d.median == 5);  // rank ceil(0.5 * 10) = 5
    CHECK(*d.p90 == 9);     // rank 9
    CHECK(*d.max == 10);
    const Distribution four = gpuvp::distribution({4, 1, 3, 2});
    CHECK(*four.median == 2);  // rank 2: the lower middle
    CHECK(*four.p90 == 4);     // rank ceil(3.6) = 4
    const Distribution eleven = gpuvp::distribution({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    CHECK(*eleven.median == 6);  // rank ceil(5.5) = 6
    CHECK(*eleven.p90 == 10);    // rank ceil(9.9) = 10
    const Distribution one = gpuvp::distribution({-7});
    CHECK((*one.median == -7 && *one.p90 == -7 && *one.max == -7 && one.count == 1));
}

TEST_CASE("replay: both sides summarised, side by side", "[replay]") {
    // Measured: k#0 100-300, k#1 launched at 20 (returned 30), 320-420. Simulated: k#0 120-360,
    // k#1 returned at 40, 400-500.
    ReplaySides sides;
    sides.measured = {kernel("k#0", "s", 0, 10, 100, 300), kernel("k#1", "s", 20, 30, 320, 420)};
    sides.simulated = {kernel("k#0", "s", 0, 15, 120, 360), kernel("k#1", "s", 20, 40, 400, 500)};
    const gpuvp::ReplayRecord r = gpuvp::replay_summary(sides);
    CHECK(r.kernels == 2);
    // Gaps: 320 - 300 and 400 - 360.
    CHECK((r.same_stream_gap_ns.measured.count == 1 && *r.same_stream_gap_ns.measured.median == 20));
    CHECK((r.same_stream_gap_ns.simulated.count == 1 && *r.same_stream_gap_ns.simulated.max == 40));
    // k#0 is the first k; k#1's call came while k#0 was queued: no idle latency on either side.
    CHECK(r.idle_launch_latency_ns.measured.count == 0);
    CHECK_FALSE(r.idle_launch_latency_ns.simulated.median);
    // Durations 240 / 200 and 100 / 100: ratios 1.2 and 1.
    CHECK(r.kernel_duration_ratio.count == 2);
    CHECK(*r.kernel_duration_ratio.median == 1);
    CHECK(*r.kernel_duration_ratio.p90 == 1.2);
    CHECK(*r.kernel_duration_ratio.max == 1.2);
    // Makespans 420 and 500.
    CHECK(*r.makespan_ns.measured == 420);
    CHECK(*r.makespan_ns.simulated == 500);
    CHECK(*r.makespan_ratio == 1.190476);
    CHECK(*r.cross_stream_overlap.measured == 0);
    // A simulated kernel that never ran: left out of the ratios and the simulated figures.
    sides.simulated[1] = unrun("k#1", "s", 20);
    const gpuvp::ReplayRecord partial = gpuvp::replay_summary(sides);
    CHECK(partial.kernel_duration_ratio.count == 1);
    CHECK(*partial.makespan_ns.simulated == 360);
    CHECK(partial.same_stream_gap_ns.simulated.count == 0);
}

TEST_CASE("replay: paired errors compare the same launches, the hardware's predecessor and idle launches", "[replay]") {
    // Stream s on the hardware: a 100-200, then b (returned at 50) 210-300: b's gap 10 after a.
    // In the model b ran first, 150-250, and a 260-300: its own gap list pairs them the other
    // way round, the paired error keeps the hardware's pair: b's start - a's end = 150 - 300 =
    // -150, minus 10: -160.
    // Idle launches on the hardware: g#1 at 1000 (after everything ended), start 1030: 30. In
    // the model g#1's call starts at 1000 too, and g#0 (launched 900) still runs until 1100: the
    // model's side gives no idle latency for it, but the paired error takes the same launch:
    // 1120 - 1000 - 30 = +90. g#0 is its name's first launch: not compared.
    ReplaySides sides;
    sides.measured = {kernel("a#0", "s", 0, 10, 100, 200), kernel("b#1", "s", 40, 50, 210, 300),
                      kernel("g#0", "t", 900, 905, 910, 950), kernel("g#1", "t", 1000, 1005, 1030, 1060)};
    sides.simulated = {kernel("a#0", "s", 0, 10, 260, 300), kernel("b#1", "s", 40, 50, 150, 250),
                       kernel("g#0", "t", 900, 905, 1000, 1100), kernel("g#1", "t", 1000, 1005, 1120, 1150)};
    const auto gaps = gpuvp::same_stream_gap_errors(sides);
    REQUIRE(gaps.size() == 4);
    CHECK_FALSE(gaps[0]);
    CHECK(*gaps[1] == -160);
    CHECK_FALSE((gaps[2] || gaps[3]));
    const auto idle = gpuvp::idle_launch_latency_errors(sides);
    CHECK(*idle[3] == 90);
    CHECK_FALSE((idle[0] || idle[1] || idle[2]));
    CHECK(gpuvp::idle_launch_latencies(sides.simulated).empty());
    const gpuvp::ReplayRecord r = gpuvp::replay_summary(sides);
    REQUIRE(r.same_stream_gap_ns.error);
    CHECK(r.same_stream_gap_ns.error->count == 1);
    CHECK(*r.same_stream_gap_ns.error->median_abs == 160);
    CHECK(*r.idle_launch_latency_ns.error->p90_abs == 90);
    // A launch that did not run in the model is not compared.
    sides.simulated[3] = unrun("g#1", "t", 1000);
    CHECK(gpuvp::replay_summary(sides).idle_launch_latency_ns.error->count == 0);
    CHECK_FALSE(gpuvp::replay_summary(sides).idle_launch_latency_ns.error->median_abs);
    // The percentiles are of the absolute errors: -5, +1, -3, +20 -> 1, 3, 5, 20.
    const gpuvp::PairedError e = gpuvp::paired_error({-5, 1, -3, 20});
    CHECK(e.count == 4);
    CHECK(*e.median_abs == 3);
    CHECK(*e.p90_abs == 20);
}

TEST_CASE("replay: empty inputs give count 0 and nulls", "[replay]") {
    const Distribution d = gpuvp::distribution({});
    CHECK(d.count == 0);
    CHECK_FALSE((d.median || d.p90 || d.max));
    CHECK(gpuvp::same_stream_gaps({}).empty());
    CHECK(gpuvp::idle_launch_latencies({}).empty());
    CHECK_FALSE(gpuvp::makespan({}));
    const gpuvp::ReplayRecord none = gpuvp::replay_summary({});
    CHECK(none.kernels == 0);
    CHECK(none.kernel_duration_ratio.count == 0);
    CHECK_FALSE((none.makespan_ns.measured || none.makespan_ns.simulated || none.makespan_ratio));
    CHECK_FALSE((none.cross_stream_overlap.measured || none.cross_stream_overlap.simulated));
    // Nothing ran in the model: the simulated side is empty, the measured one is not.
    ReplaySides unran;
    unran.measured = {kernel("k#0", "s", 0, 1, 10, 20)};
    unran.simulated = {unrun("k#0", "s", 0)};
    const gpuvp::ReplayRecord r = gpuvp::replay_summary(unran);
    CHECK(*r.makespan_ns.measured == 20);
    CHECK_FALSE(r.makespan_ns.simulated);
    CHECK_FALSE(r.makespan_ratio);
    CHECK(r.kernel_duration_ratio.count == 0);
    // Written as results.json writes it: null, and count 0.
    const auto j = gpuvp::fields::to_json(r);
    CHECK(j["same_stream_gap_ns"]["simulated"]["median"].is_null());
    CHECK(j["same_stream_gap_ns"]["simulated"]["count"] == 0);
    CHECK(j["makespan_ratio"].is_null());
}

TEST_CASE("replay: the record's kernels as the two sides, the simulated one from its first launch call", "[replay]") {
    std::vector<gpuvp::KernelRecord> ks(3);
    // An ordinary kernel (no measured times) is not replayed.
    ks[0].name = "setup";
    ks[0].submit_ns = 0;
    // Open loop: submit_ns and doorbell_ns stand for the launch call.
    ks[1].name = "k#0";
    ks[1].queue = "s";
    ks[1].submit_ns = 1000;
    ks[1].doorbell_ns = 2200;
    ks[1].first_warp_start_ns = 6000.5;
    ks[1].end_ns = 9000;
    ks[1].measured = gpuvp::MeasuredTimes{0, 1500, 4000, 7000, std::nullopt, {}, 0};
    // Closed loop: the host's launch call.
    ks[2].name = "k#1";
    ks[2].queue = "s";
    ks[2].submit_ns = 1600;
    ks[2].doorbell_ns = 2800;
    ks[2].call_start_ns = 1500;
    ks[2].call_end_ns = 3000;
    ks[2].measured = gpuvp::MeasuredTimes{1600, 3100, 7100, 9100, std::nullopt, {}, 0};
    const ReplaySides sides = gpuvp::replay_sides(ks);
    REQUIRE(sides.measured.size() == 2);
    REQUIRE(sides.simulated.size() == 2);
    CHECK(sides.measured[1].launch_end_ns == 3100);
    CHECK(*sides.measured[0].end_ns == 7000);
    // 0 is the earliest simulated launch call, k#0's submit at 1000.
    const KernelTimes &a = sides.simulated[0], &b = sides.simulated[1];
    CHECK((a.name == "k#0" && a.stream == "s"));
    CHECK((a.launch_ns == 0 && a.launch_end_ns == 1200 && *a.start_ns == 5000.5 && *a.end_ns == 8000));
    CHECK((b.launch_ns == 500 && b.launch_end_ns == 2000));
    // A kernel that never ran keeps no start or end.
    ks[2].first_warp_start_ns.reset();
    ks[2].end_ns.reset();
    CHECK_FALSE(gpuvp::replay_sides(ks).simulated[1].start_ns);
}
