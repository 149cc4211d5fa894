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
