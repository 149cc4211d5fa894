// An imported kernel's body solved against simulations of the kernel alone
// (sc_main/replay/kernel_solve.h; docs/replay.md, "Kernel bodies"): alone on the GPU, each
// kernel then takes the duration the hardware measured, under `fifo` and under
// `priority-block`, whatever its waves and the dispatch make of it; one measured shorter than
// the model can dispatch it is counted, runs at its floor, and the replay names it.
#include "sc_main/replay/kernel_solve.h"
#include "sc_main/run/run.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

using namespace gpuvp;

namespace {

// 8 SMs of 64 warp slots of 32, 65536 registers, 64 KiB shared (no preset: the defaults' clock).
TraceDevice small_gpu() {
    TraceDevice d;
    d.name = "Test GPU";
    d.sms = 8;
    d.warp_size = 32;
    d.max_threads_per_sm = 2048;
    d.registers_per_sm = 65536;
    d.shared_per_sm = 65536;
    return d;
}

struct Launch {
    const char* name;
    uint32_t blocks, threads;
    int64_t duration_ns;
};

// One stream, each kernel launched 1 ms after the previous: each runs alone on the hardware.
ProfilerTrace lone_kernels(const std::vector<Launch>& launches) {
    ProfilerTrace t;
    t.file = "lone.json";
    t.devices = {small_gpu()};
    int64_t at = 1000, corr = 1;
    for (const Launch& l : launches) {
        TraceHostCall c;
        c.kind = TraceHostCall::Kind::launch;
        c.name = "cudaLaunchKernel";
        c.correlation = corr;
        c.start_ns = at;
        c.end_ns = at + 3000;
        c.thread = 1;
        t.calls.push_back(c);
        TraceGpuOp op;
        op.name = l.name;
        op.stream = 7;
        op.correlation = corr++;
        op.start_ns = at + 10'000;
        op.end_ns = op.start_ns + l.duration_ns;
        op.grid = {l.blocks, 1, 1};
        op.block = {l.threads, 1, 1};
        op.registers = 32;
        t.ops.push_back(op);
        at += 1'000'000;
    }
    return t;
}

}  // namespace

TEST_CASE("kernel solve: each imported kernel alone takes its measured time under fifo and priority-block",
          "[replay][solve]") {
    // Few and many blocks, one wave and many, two targets of one shape, and one kernel measured
    // far shorter than 4000 blocks can be dispatched on 8 SMs.
    const std::vector<Launch> launches{{"one_wave", 16, 128, 20'000},  {"waves", 2000, 256, 300'000},
                                       {"waves", 2000, 256, 150'000},  {"big_blocks", 40, 1024, 80'000},
                                       {"tiny", 1, 32, 4'000},         {"too_fast", 4000, 64, 500}};
    TraceImportOptions options;
    options.solve = [](const Scenario& p, const std::vector<BodyTarget>& targets, SolveStats& stats) {
        return solve_kernel_bodies(p, targets, stats);
    };
    TraceImportSummary sum;
    const Scenario s = load_trace_scenario(lone_kernels(launches), options, {}, &sum);
    CHECK(sum.solved);
    CHECK(sum.solve.shapes == 5);
    CHECK(sum.solve.simulations >= 2 * sum.solve.shapes);  // each shape's floor and a body at least
    CHECK(sum.dispatch_bound == 1);
    REQUIRE(s.workload.kernels.size() == launches.size());
    for (const KernelSpec& k : s.workload.kernels) {
        REQUIRE(k.measured);
        REQUIRE(k.measured->floor_ns);
        CHECK(*k.measured->floor_ns > 0);
    }
    const KernelSpec& fast = s.workload.kernels.back();
    CHECK(*fast.measured->floor_ns > 500);  // measured shorter than its floor: dispatch-bound
    REQUIRE(fast.program.size() >= 2);
    CHECK(fast.program[1].insn.op == Opcode::valu);
    CHECK(fast.program[1].insn.a == 1);  // a body of one cycle

    for (const DispatchPolicy policy : {DispatchPolicy::fifo, DispatchPolicy::priority_block}) {
        const std::string results = test::in_child([&] {
            Scenario run = s;
            run.policy.dispatch = policy;
            RunOptions quiet(false);
            return run_scenario(run, quiet).results;
        });
        const nlohmann::json r = nlohmann::json::parse(results);
        INFO("policy " << policy_name(policy));
        REQUIRE(r["status"] == "ok");
        CHECK(r["replay"]["dispatch_bound_kernels"] == 1);
        for (const auto& k : r["kernels"]) {
            INFO(k["name"].get<std::string>());
            const double simulated = k["end_ns"].get<double>() - k["first_warp_start_ns"].get<double>();
            const double measured = k["measured"]["end_ns"].get<double>() - k["measured"]["start_ns"].get<double>();
            const double floor = k["measured"]["floor_ns"].get<double>();
            // Within 1 % (the body is whole cycles), or at its floor where it was measured shorter.
            CHECK(simulated == Approx(std::max(measured, floor)).epsilon(0.01));
        }
    }
}

namespace {

// Two streams: `wide` (12 blocks of 1024 threads: 6 of the 8 SMs full) from 10 µs to 410 µs,
// and `beside` (64 blocks of 128 threads, one wave alone) from 100 to 150 µs beside it.
ProfilerTrace beside_a_wide_kernel() {
    ProfilerTrace t = lone_kernels({{"wide", 12, 1024, 400'000}, {"beside", 64, 128, 50'000}});
    t.ops[1].stream = 9;
    t.calls[1].start_ns = 90'000;
    t.calls[1].end_ns = 93'000;
    t.ops[1].start_ns = 100'000;
    t.ops[1].end_ns = 150'000;
    return t;
}

// The simulated over measured duration of each kernel of `s` replayed (in a child process).
std::map<std::string, double> ratios(const Scenario& s) {
    const nlohmann::json r = nlohmann::json::parse(test::in_child([&] {
        RunOptions quiet(false);
        return run_scenario(s, quiet).results;
    }));
    std::map<std::string, double> out;
    for (const auto& k : r["kernels"])
        out[k["name"].get<std::string>()] = (k["end_ns"].get<double>() - k["first_warp_start_ns"].get<double>()) /
                                            (k["measured"]["end_ns"].get<double>() - k["measured"]["start_ns"].get<double>());
    return out;
}

}  // namespace

TEST_CASE("kernel solve: a kernel that overlapped another on the hardware is not slowed a second time", "[replay][solve]") {
    TraceImportOptions options;
    options.solve = [](const Scenario& p, const std::vector<BodyTarget>& targets, SolveStats& stats) {
        return solve_kernel_bodies(p, targets, stats);
    };
    // Solved alone, `beside` finds 2 free SMs beside `wide` in the model: two waves, not one, on
    // top of the contention its measured 50 µs already holds.
    const Scenario alone = load_trace_scenario(beside_a_wide_kernel(), options, {}, nullptr);
    const auto before = ratios(alone);
    CHECK(before.at("beside#0") > 1.5);
    CHECK(before.at("wide#0") == Approx(1).epsilon(0.01));
    // Refined against replays of the whole trace: both take their measured time beside each other.
    options.refine = [](const Scenario& replay, RefineStats& stats) { return refine_overlapped_bodies(replay, stats); };
    TraceImportSummary sum;
    const Scenario refined = load_trace_scenario(beside_a_wide_kernel(), options, {}, &sum);
    CHECK(sum.refined);
    CHECK(sum.refine.kernels == 2);
    CHECK(sum.refine.replays >= 2);
    const auto after = ratios(refined);
    CHECK(after.at("beside#0") == Approx(1).epsilon(0.02));
    CHECK(after.at("wide#0") == Approx(1).epsilon(0.02));
}
