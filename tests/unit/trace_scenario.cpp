// A profiler trace as a scenario (sc_main/scenario/trace_scenario.h): the rules of
// docs/replay.md, "What each event becomes", on traces written here event by event.
#include "sc_main/scenario/trace_scenario.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

// An A100-like device: 108 SMs, 64 warp slots of 32, 65536 registers, 164 KiB shared.
TraceDevice a100() {
    TraceDevice d;
    d.id = 0;
    d.name = "NVIDIA A100-PG509-200";
    d.sms = 108;
    d.warp_size = 32;
    d.max_threads_per_sm = 2048;
    d.registers_per_sm = 65536;
    d.shared_per_sm = 167936;
    return d;
}

TraceGpuOp kernel(const std::string& name, int64_t stream, int64_t corr, int64_t start, int64_t end,
                  std::array<uint32_t, 3> grid = {1, 1, 1}, std::array<uint32_t, 3> block = {128, 1, 1}) {
    TraceGpuOp op;
    op.name = name;
    op.stream = stream;
    op.correlation = corr;
    op.start_ns = start;
    op.end_ns = end;
    op.grid = grid;
    op.block = block;
    op.registers = 32;
    return op;
}

TraceHostCall call(TraceHostCall::Kind kind, const std::string& name, int64_t corr, int64_t start, int64_t end,
                   int64_t thread = 1) {
    TraceHostCall c;
    c.kind = kind;
    c.name = name;
    c.correlation = corr;
    c.start_ns = start;
    c.end_ns = end;
    c.thread = thread;
    return c;
}

const KernelSpec& find(const Scenario& s, const std::string& name) {
    for (const KernelSpec& k : s.workload.kernels)
        if (k.name == name) return k;
    FAIL("no kernel " << name);
    throw std::logic_error("unreachable");
}

// Two streams: k on stream 7, a copy on 7, then stream 20 waits for the copy (an event recorded
// on 7) and runs g; the host syncs stream 20, then the device.
ProfilerTrace two_streams() {
    using K = TraceHostCall::Kind;
    ProfilerTrace t;
    t.file = "two.json";
    t.devices = {a100()};
    t.ops = {kernel("void at::native::(anonymous namespace)::elementwise_kernel<128, 2>(int, float*)", 7, 10, 12'000, 20'000,
                    {216, 1, 1}),
             [] {
                 TraceGpuOp c;
                 c.kind = TraceGpuOp::Kind::copy;
                 c.name = "Memcpy HtoD (Pageable -> Device)";
                 c.stream = 7;
                 c.correlation = 11;
                 c.start_ns = 21'000;
                 c.end_ns = 25'000;
                 c.bytes = 4096;
                 return c;
             }(),
             kernel("ampere_sgemm_128x64_nn", 20, 14, 27'000, 40'000)};
    t.calls = {call(K::other, "cudaMalloc", -1, 1'000, 2'000),
               call(K::launch, "cudaLaunchKernel", 10, 5'000, 6'000),
               call(K::copy, "cudaMemcpyAsync", 11, 7'000, 8'000),
               call(K::event_record, "cudaEventRecord", 12, 9'000, 9'500),
               call(K::stream_wait_event, "cudaStreamWaitEvent", 13, 10'000, 10'200),
               call(K::launch, "cudaLaunchKernel", 14, 11'000, 12'000),
               call(K::stream_sync, "cudaStreamSynchronize", 15, 13'000, 41'000),
               call(K::device_sync, "cudaDeviceSynchronize", 16, 42'000, 43'000)};
    TraceSync wait;
    wait.kind = TraceSync::Kind::stream_wait_event;
    wait.correlation = 13;
    wait.stream = 20;
    wait.wait_on_stream = 7;
    wait.wait_on_event_record = 12;
    TraceSync sync;
    sync.kind = TraceSync::Kind::stream_sync;
    sync.correlation = 15;
    sync.stream = 20;
    t.syncs = {wait, sync};
    return t;
}

}  // namespace

TEST_CASE("trace import: streams, names, measured times and the platform from deviceProperties", "[trace-scenario]") {
    TraceImportSummary sum;
    const Scenario s = load_trace_scenario(two_streams(), {}, {}, &sum);
    CHECK(s.name == "two");
    CHECK(s.platform.sms == 108);
    CHECK(s.platform.sm.warp_slots == 64);
    CHECK(s.platform.sm.shared_memory == 167936);
    REQUIRE(s.workload.queues.size() == 2);
    CHECK(s.workload.queues[0].name == "stream7");
    CHECK(s.workload.queues[1].name == "stream20");
    REQUIRE(s.workload.kernels.size() == 2);
    const KernelSpec& k = find(s, "elementwise_kernel#0");
    CHECK(k.queue == "stream7");
    CHECK(k.grid == std::array<uint32_t, 3>{216 * 128, 1, 1});
    CHECK(k.block == std::array<uint32_t, 3>{128, 1, 1});
    CHECK(k.barrier);
    CHECK(k.global_bytes == 0);
    // Time 0 is the first replayed launch call's start (5 µs on the trace's clock).
    REQUIRE(k.measured);
    CHECK(k.measured->launch_ns == 0);
    CHECK(k.measured->launch_end_ns == 1000);
    CHECK(k.measured->start_ns == 7000);
    CHECK(k.measured->end_ns == 15000);
    CHECK(k.submit_ns == 0);
    REQUIRE(s.workload.copies.size() == 1);
    CHECK(s.workload.copies[0].name == "memcpy_HtoD#0");
    CHECK(s.workload.copies[0].duration_ns == 4000);
    CHECK(s.workload.copies[0].queue == "stream7");
    // The cross-stream wait: g waits for the copy the event recorded.
    CHECK(find(s, "ampere_sgemm_128x64_nn#0").after == std::vector<std::string>{"memcpy_HtoD#0"});
    CHECK(sum.kernels == 2);
    CHECK(sum.copies == 1);
    CHECK(sum.streams == 2);
    CHECK(sum.gpu == "NVIDIA A100-PG509-200");
    CHECK(sum.preset == "a100");
    CHECK(s.preset == "a100");
    CHECK(s.platform.clock_mhz == 1410);
}

TEST_CASE("trace import: a kernel's body makes its measured duration at the platform's occupancy", "[trace-scenario]") {
    const Scenario s = load_trace_scenario(two_streams(), {}, {}, nullptr);
    // 216 blocks of 4 warps: an SM holds 16 (64 slots), 108 SMs hold them all: one wave. 8 µs at
    // the a100 preset's 1410 MHz is 11280 cycles, less the GLC's placement of the 216 blocks, 16
    // at a time (14 decisions of 12 cycles; a descriptor costs 0): 11112 after the argument load.
    const KernelSpec& k = find(s, "elementwise_kernel#0");
    REQUIRE(k.program.size() >= 2);
    CHECK(k.program[0].insn.op == Opcode::kernarg_load);
    CHECK(k.program[1].insn.op == Opcode::valu);
    CHECK(k.program[1].insn.a == 11112);
    CHECK(k.program[1].repeat == 1);
}

TEST_CASE("trace import: the host's calls: launches, waits and CPU time in the gaps", "[trace-scenario]") {
    const Scenario s = load_trace_scenario(two_streams(), {}, {}, nullptr);
    const auto& calls = s.workload.calls;
    REQUIRE(calls.size() == 5);
    using K = HostCall::Kind;
    CHECK(calls[0].kind == K::launch);
    CHECK(calls[0].work == std::vector<std::string>{"elementwise_kernel#0"});
    CHECK(calls[0].gap_ns == 0);
    CHECK(calls[0].duration_ns == 1000);
    CHECK(calls[1].kind == K::launch);
    CHECK(calls[1].work == std::vector<std::string>{"memcpy_HtoD#0"});
    CHECK(calls[1].gap_ns == 1000);
    // The event record and the stream wait are CPU time: in the next launch's gap.
    CHECK(calls[2].kind == K::launch);
    CHECK(calls[2].gap_ns == 3000);
    CHECK(calls[3].kind == K::sync_queue);
    CHECK(calls[3].queue == "stream20");
    CHECK(calls[3].gap_ns == 1000);
    CHECK(calls[4].kind == K::sync_device);
    CHECK(calls[4].gap_ns == 1000);
    CHECK(s.workload.replay == ReplayMode::closed);
}

TEST_CASE("trace import: the YAML written loads as the same scenario, and takes --set", "[trace-scenario]") {
    const ProfilerTrace t = two_streams();
    const std::string yaml = trace_scenario_yaml(t, {}, nullptr);
    const Scenario direct = load_trace_scenario(t, {}, {{"policy.dispatch", "priority-warp"}}, nullptr);
    const Scenario read = parse_scenario(yaml, "two.yaml", {{"policy.dispatch", "priority-warp"}});
    CHECK(read.policy.dispatch == DispatchPolicy::priority_warp);
    CHECK(direct.policy.dispatch == DispatchPolicy::priority_warp);
    REQUIRE(read.workload.kernels.size() == direct.workload.kernels.size());
    for (size_t i = 0; i < read.workload.kernels.size(); ++i) {
        CHECK(read.workload.kernels[i].name == direct.workload.kernels[i].name);
        CHECK(read.workload.kernels[i].program.size() == direct.workload.kernels[i].program.size());
        CHECK(read.workload.kernels[i].measured->end_ns == direct.workload.kernels[i].measured->end_ns);
    }
    CHECK(read.workload.calls.size() == direct.workload.calls.size());
    CHECK(read.platform.sms == direct.platform.sms);
}

TEST_CASE("trace import: repeated kernels get their launch index, long bodies loop", "[trace-scenario]") {
    ProfilerTrace t = two_streams();
    t.ops.push_back(kernel("void at::native::(anonymous namespace)::elementwise_kernel<128, 2>(int, float*)", 7, 20,
                           50'000, 150'000, {216, 1, 1}));
    t.calls.push_back(call(TraceHostCall::Kind::launch, "cudaLaunchKernel", 20, 44'000, 45'000));
    const Scenario s = load_trace_scenario(t, {}, {}, nullptr);
    const KernelSpec& k = find(s, "elementwise_kernel#1");
    // 100 µs at 1.41 GHz: 141000 cycles, less the GLC's placements: 216 blocks, 16 a placement
    // (an SM's 64 warp slots, 4 warps a block), 14 decisions of 12 cycles: 140832 = 2 x 65535 + 9762.
    REQUIRE(k.program.size() >= 3);
    CHECK(k.program[1].insn.a == 65535);
    CHECK(k.program[1].repeat == 2);
    CHECK(k.program[2].insn.a == 9762);
}

TEST_CASE("trace import: what the platform cannot hold is an error naming it, or skipped and counted", "[trace-scenario]") {
    ProfilerTrace t = two_streams();
    t.ops[2].block = {2048, 1, 1};
    try {
        load_trace_scenario(t, {}, {}, nullptr);
        FAIL("no error");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Contains("kernel ampere_sgemm_128x64_nn"));
        CHECK_THAT(e.what(), Contains("a block of 2048 threads (the most is 1024)"));
        CHECK_THAT(e.what(), Contains("--skip-unfit"));
    }
    TraceImportOptions skip;
    skip.skip_unfit = true;
    TraceImportSummary sum;
    const Scenario s = load_trace_scenario(t, skip, {}, &sum);
    CHECK(sum.skipped_unfit == 1);
    CHECK(s.workload.kernels.size() == 1);
    // Its launch call is CPU time now: no call names it.
    for (const HostCall& c : s.workload.calls)
        for (const std::string& w : c.work) CHECK(w != "ampere_sgemm_128x64_nn#0");

    ProfilerTrace big = two_streams();
    big.ops[0].grid = {40'000'000, 1, 1};  // x 128 work-items: past 32 bits
    CHECK_THROWS_WITH(load_trace_scenario(big, {}, {}, nullptr), Contains("beyond the AQL packet's 32-bit grid size"));
    ProfilerTrace shared = two_streams();
    shared.ops[0].shared_bytes = 200'000;
    CHECK_THROWS_WITH(load_trace_scenario(shared, {}, {}, nullptr), Contains("200000 bytes of shared memory per block"));
    ProfilerTrace none = two_streams();
    none.ops.erase(std::remove_if(none.ops.begin(), none.ops.end(),
                                  [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::kernel; }),
                   none.ops.end());
    CHECK_THROWS_WITH(load_trace_scenario(none, {}, {}, nullptr), Contains("no kernels in the trace"));
    TraceImportOptions other;
    other.device = 3;
    CHECK_THROWS_WITH(load_trace_scenario(two_streams(), other, {}, nullptr), Contains("no kernels on device 3"));
}

TEST_CASE("trace import: a trace that does not name its GPU is imported on the default platform and says so: "
          "--platform or a --set of platform.* names it", "[trace-scenario]") {
    ProfilerTrace t = two_streams();
    t.devices.clear();  // no deviceProperties (an older profiler's trace)
    t.ops[0].shared_bytes = 163840;  // fits an A100's SM (167936), not the default's (65536)
    CHECK_THROWS_WITH(load_trace_scenario(t, {}, {}, nullptr),
                      Contains("163840 bytes of shared memory per block (an SM has 65536) (--skip-unfit leaves such "
                               "kernels out); " + std::string(kUnnamedGpu)));
    TraceImportSummary sum;
    const Scenario set = load_trace_scenario(t, {}, {{"platform.preset", "a100"}}, &sum);  // --set platform.preset=a100
    CHECK(set.preset == "a100");
    CHECK(set.platform.sm.shared_memory == 167936);
    CHECK_FALSE(sum.default_platform);
    TraceImportOptions preset;  // what --preset a100 gives
    preset.platform = PlatformSource{"--preset a100", "preset: a100\n"};
    CHECK(load_trace_scenario(t, preset, {}, &sum).platform.sm.shared_memory == 167936);
    CHECK_FALSE(sum.default_platform);
    CHECK(load_trace_scenario(t, {}, {{"platform", "{preset: a100}"}}, &sum).preset == "a100");  // --set platform={...}
    CHECK_FALSE(sum.default_platform);
    // What no platform holds says nothing of the GPU.
    ProfilerTrace huge = t;
    huge.ops[0].block = {2048, 1, 1};
    try {
        load_trace_scenario(huge, {}, {}, nullptr);
        FAIL("no error");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Contains("a block of 2048 threads (the most is 1024)"));
        CHECK(std::string(e.what()).find(kUnnamedGpu) == std::string::npos);
    }
    // The file `gpuvp import --preset a100` writes names the GPU, and loads as the same platform.
    const std::string yaml = trace_scenario_yaml(t, preset, &sum);
    CHECK_THAT(yaml, Contains("preset: a100"));
    CHECK(parse_scenario(yaml, "t.yaml").platform.sm.shared_memory == 167936);
    // What fits the default platform is imported on it, and the summary says so (the warning).
    ProfilerTrace fits = two_streams();
    fits.devices.clear();
    load_trace_scenario(fits, {}, {}, &sum);
    CHECK(sum.default_platform);
    CHECK(sum.gpu.empty());
    // On a trace that names its GPU, --set platform.* is a what-if over that GPU (the cycles are its).
    const Scenario what_if = load_trace_scenario(two_streams(), {}, {{"platform.preset", "v100"}}, &sum);
    CHECK_FALSE(sum.default_platform);
    CHECK(what_if.preset == "v100");
}

TEST_CASE("trace import: work without a launch call in the trace is launched at its time by a thread of its own", "[trace-scenario]") {
    ProfilerTrace t = two_streams();
    t.calls.clear();
    t.syncs.clear();
    const Scenario s = load_trace_scenario(t, {}, {}, nullptr);
    REQUIRE(s.workload.calls.size() == 3);
    CHECK(s.workload.calls[0].gap_ns == 0);
    CHECK(s.workload.calls[1].gap_ns == 9000);   // the copy started 9 µs after the kernel
    CHECK(s.workload.calls[2].gap_ns == 6000);
    for (const HostCall& c : s.workload.calls) CHECK(c.thread == 0);
}

// --- Events named only by their id (docs/replay.md, "Events") --------------------------------

namespace {

// Kineto events as CUPTI 13 and PyTorch write them: a runtime call with only cbid and
// correlation, a kernel, a cuda_sync record naming only its event.
std::string runtime(const std::string& name, int64_t corr, double ts, double dur) {
    return R"({"ph": "X", "cat": "cuda_runtime", "name": ")" + name + R"(", "pid": 9, "tid": 9, "ts": )" +
           std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"cbid": 1, "correlation": )" +
           std::to_string(corr) + "}}";
}
std::string gpu_kernel(const std::string& name, int64_t stream, int64_t corr, double ts, double dur) {
    return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": )" + std::to_string(stream) +
           R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"device": 0, "stream": )" +
           std::to_string(stream) + R"(, "correlation": )" + std::to_string(corr) +
           R"(, "registers per thread": 32, "grid": [4, 1, 1], "block": [128, 1, 1]}})";
}
// A `Stream Wait Event` (stream >= 0: the stream that waits) or an `Event Sync` (stream -1).
std::string event_sync(int64_t stream, int64_t event, int64_t corr, double ts, int64_t on_stream = -1, int64_t on_record = -1) {
    const std::string kind = stream >= 0 ? "Stream Wait Event" : "Event Sync";
    return R"({"ph": "X", "cat": "cuda_sync", "name": ")" + kind + R"(", "pid": 0, "tid": 1, "ts": )" + std::to_string(ts) +
           R"(, "dur": 0.5, "args": {"cuda_sync_kind": ")" + kind + R"(", "wait_on_stream": )" + std::to_string(on_stream) +
           R"(, "wait_on_cuda_event_record_corr_id": )" + std::to_string(on_record) + R"(, "wait_on_cuda_event_id": )" +
           std::to_string(event) + R"(, "stream": )" + std::to_string(stream) + R"(, "correlation": )" +
           std::to_string(corr) + R"(, "device": 0}})";
}
Scenario import_events(const std::vector<std::string>& events, TraceImportSummary& sum,
                       const TraceImportOptions& options = {}) {
    std::string text = "{\"traceEvents\": [";
    for (size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "") + events[i];
    return load_trace_scenario(parse_kineto(text + "]}", "events.json"), options, {}, &sum);
}
size_t count_kind(const Scenario& s, HostCall::Kind k) {
    return size_t(std::count_if(s.workload.calls.begin(), s.workload.calls.end(), [&](const HostCall& c) { return c.kind == k; }));
}

// ka runs on stream 7 (5-20 µs), kb on stream 8 beside it; the thread records event 5 after
// launching ka (cudaEventRecordWithFlags: no event, no stream in the trace), launches kb, makes
// stream 8 wait for event 5, launches kc on stream 8 (it starts at 21 µs, after ka), and
// synchronizes with event 5 (it returns at 21 µs).
std::vector<std::string> joined_events() {
    return {runtime("cudaLaunchKernel", 1, 1, 1),          gpu_kernel("ka", 7, 1, 5, 15),
            runtime("cudaEventRecordWithFlags", 2, 3, 0.5), runtime("cudaLaunchKernel", 3, 4, 1),
            gpu_kernel("kb", 8, 3, 6, 2),                   runtime("cudaStreamWaitEvent", 4, 8, 0.5),
            event_sync(8, 5, 4, 8.1),                       runtime("cudaLaunchKernel", 5, 10, 1),
            gpu_kernel("kc", 8, 5, 21, 2),                  runtime("cudaEventSynchronize", 6, 11, 10),
            event_sync(-1, 5, 6, 11.1)};
}

}  // namespace

TEST_CASE("trace import: a wait and a sync naming only their event join the event's record call", "[trace-scenario][trace-import]") {
    TraceImportSummary sum;
    const Scenario s = import_events(joined_events(), sum);
    CHECK(sum.events_joined == 2);
    CHECK(sum.events_unresolved == 0);
    // The event recorded ka: the thread's last work before its cudaEventRecordWithFlags, not kb,
    // its last before the wait.
    CHECK(find(s, "kc#0").after == std::vector<std::string>{"ka#0"});
    CHECK(find(s, "kb#0").after.empty());
    std::vector<std::string> synced;
    for (const HostCall& c : s.workload.calls)
        if (c.kind == HostCall::Kind::sync_work) synced = c.work;
    CHECK(synced == std::vector<std::string>{"ka#0"});
}

TEST_CASE("trace import: what cannot be joined is counted and replayed without its wait", "[trace-scenario][trace-import]") {
    TraceImportSummary sum;
    TraceImportOptions no_inference;  // (an unresolved wait is otherwise inferred where the timeline shows it)
    no_inference.infer_waits = false;
    std::vector<std::string> events = joined_events();
    SECTION("no record call before them on the thread") {
        events[2] = runtime("cudaEventRecordWithFlags", 2, 12, 0.5);  // after the sync
    }
    SECTION("one record call, two events: which one it recorded is not known") {
        events.push_back(runtime("cudaStreamWaitEvent", 7, 22, 0.5));
        events.push_back(event_sync(8, 6, 7, 22.1));
        events.push_back(runtime("cudaLaunchKernel", 8, 23, 1));
        events.push_back(gpu_kernel("kd", 8, 8, 25, 2));
        const Scenario s = import_events(events, sum, no_inference);
        CHECK(sum.events_unresolved == 3);
        CHECK(find(s, "kd#0").after.empty());
    }
    SECTION("the measured timeline disagrees: kc started before ka ended") {
        events[8] = gpu_kernel("kc", 8, 5, 12, 2);
        events[9] = runtime("cudaEventSynchronize", 6, 11, 1);  // and the sync returned at 12 µs
    }
    SECTION("the trace names other events' record calls: it has CUPTI's event records, none of these") {
        events.push_back(runtime("cudaEventRecord", 7, 22, 0.5));
        events.push_back(event_sync(-1, 6, 8, 23, 9, 7));  // recorded on stream 9, which has no work
        events.push_back(runtime("cudaEventQuery", 8, 23, 0.5));
    }
    SECTION("the records name no event") {
        events[6] = event_sync(8, -1, 4, 8.1);
        events[10] = event_sync(-1, -1, 6, 11.1);
    }
    const Scenario s = import_events(events, sum, no_inference);
    CHECK(sum.events_joined == 0);
    CHECK(sum.events_unresolved >= 2);
    CHECK(sum.unmatched_waits >= 1);  // the wait before kc (and kd)
    CHECK(find(s, "kc#0").after.empty());
    CHECK(count_kind(s, HostCall::Kind::sync_work) == 0);
}

TEST_CASE("trace import: h200-two-streams' waits and syncs on its events are joined and agree with what was measured",
          "[trace-scenario][trace-import]") {
    // Its four Stream Wait Event and four Event Sync records name only their events (55 to 58).
    const ProfilerTrace t = read_profiler_trace(GPUVP_SOURCE_DIR "/examples/traces/h200-two-streams.json.gz");
    TraceImportSummary sum;
    const Scenario s = load_trace_scenario(t, {}, {}, &sum);
    CHECK(sum.events_joined == 8);
    CHECK(sum.events_unresolved == 0);
    // Each round's event is recorded after the ReLU on stream 46 (the thread's last launch before
    // cudaEventRecordWithFlags): stream 50's next work after the wait, a memset, waits for it.
    auto copy = [&](const std::string& name) -> const CopySpec& {
        for (const CopySpec& c : s.workload.copies)
            if (c.name == name) return c;
        FAIL("no copy " << name);
        throw std::logic_error("unreachable");
    };
    std::vector<std::string> relus;
    for (int round = 0; round < 4; ++round) {
        const std::string relu = "vectorized_elementwise_kernel_5#" + std::to_string(round);
        relus.push_back(relu);
        const KernelSpec& k = find(s, relu);
        CHECK(k.queue == "stream46");
        const CopySpec& m = copy("memset#" + std::to_string(2 * round));
        CHECK(m.queue == "stream50");
        CHECK(m.after == std::vector<std::string>{relu});
        // As measured: the memset was launched long before, and started only after the ReLU ended.
        CHECK(m.measured->launch_end_ns + 300'000 < m.measured->start_ns);
        CHECK(k.measured->end_ns <= m.measured->start_ns);
        CHECK(m.measured->start_ns - k.measured->end_ns < 3'000);
    }
    // Nothing else waits across streams.
    size_t afters = 0;
    for (const KernelSpec& k : s.workload.kernels) afters += k.after.size();
    for (const CopySpec& c : s.workload.copies) afters += c.after.size();
    CHECK(afters == 4);
    // cudaEventSynchronize waits for the same ReLU, then cudaStreamSynchronize for stream 50.
    std::vector<std::string> synced;
    const auto& calls = s.workload.calls;
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls[i].kind == HostCall::Kind::sync_work) {
            REQUIRE(calls[i].work.size() == 1);
            synced.push_back(calls[i].work[0]);
            REQUIRE(i + 1 < calls.size());
            CHECK(calls[i + 1].kind == HostCall::Kind::sync_queue);
            CHECK(calls[i + 1].queue == "stream50");
        }
    CHECK(synced == relus);
}

// --- Wait calls the trace gives no target for (docs/replay.md, "Inferred waits") -------------

namespace {

Scenario import_with(const std::vector<std::string>& events, const TraceImportOptions& options, TraceImportSummary& sum) {
    std::string text = "{\"traceEvents\": [";
    for (size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "") + events[i];
    return load_trace_scenario(parse_kineto(text + "]}", "events.json"), options, {}, &sum);
}

// joined_events() without its Stream Wait Event record, as older profilers write it: the
// cudaStreamWaitEvent call alone.
std::vector<std::string> unrecorded_wait() {
    std::vector<std::string> events = joined_events();
    events.erase(events.begin() + 6);
    return events;
}

}  // namespace

TEST_CASE("trace import: a wait call without its record is inferred from the timeline, or counted", "[trace-scenario][trace-import]") {
    TraceImportSummary sum;
    TraceImportOptions options;
    SECTION("kc started 1 µs after ka ended, its launch and kb long done: it waited for ka") {
        const Scenario s = import_with(unrecorded_wait(), options, sum);
        CHECK(sum.inferred_waits == 1);
        CHECK(sum.unmatched_waits == 0);
        CHECK(find(s, "kc#0").after == std::vector<std::string>{"ka#0"});
        CHECK(find(s, "kc#0").measured->inferred_after == std::vector<std::string>{"ka#0"});
        CHECK(find(s, "kb#0").after.empty());
    }
    SECTION("switched off: counted on kc, replayed without the wait") {
        options.infer_waits = false;
        const Scenario s = import_with(unrecorded_wait(), options, sum);
        CHECK(sum.inferred_waits == 0);
        CHECK(sum.unmatched_waits == 1);
        CHECK(find(s, "kc#0").after.empty());
        CHECK(find(s, "kc#0").measured->unmatched_waits == 1);
    }
    SECTION("kc started 9 µs after ka ended: the timeline shows no wait") {
        std::vector<std::string> events = unrecorded_wait();
        for (std::string& e : events)
            if (e.find("\"kc\"") != std::string::npos) e = gpu_kernel("kc", 8, 5, 29, 2);
        const Scenario s = import_with(events, options, sum);
        CHECK(sum.inferred_waits == 0);
        CHECK(sum.unmatched_waits == 1);
        CHECK(find(s, "kc#0").after.empty());
    }
    SECTION("a recorded wait is the record's, not inferred") {
        const Scenario s = import_with(joined_events(), options, sum);
        CHECK(sum.inferred_waits == 0);
        CHECK(sum.unmatched_waits == 0);
        CHECK(find(s, "kc#0").measured->inferred_after.empty());
    }
}

TEST_CASE("trace import: without their Stream Wait Event records, real traces' waits are inferred where the timeline proves them",
          "[trace-scenario][trace-import]") {
    // name -> what it waits for across streams, kernels and copies.
    auto afters = [](const Scenario& s) {
        std::map<std::string, std::set<std::string>> a;
        for (const KernelSpec& k : s.workload.kernels) a[k.name].insert(k.after.begin(), k.after.end());
        for (const CopySpec& c : s.workload.copies) a[c.name].insert(c.after.begin(), c.after.end());
        return a;
    };
    auto measured = [](const Scenario& s, const std::string& name) -> const MeasuredTimes& {
        for (const KernelSpec& k : s.workload.kernels)
            if (k.name == name) return *k.measured;
        for (const CopySpec& c : s.workload.copies)
            if (c.name == name) return *c.measured;
        FAIL("no work " << name);
        throw std::logic_error("unreachable");
    };
    for (const char* name : {"h200-two-streams", "a100-alexnet-step"}) {
        INFO(name);
        ProfilerTrace t = read_profiler_trace(std::string(GPUVP_SOURCE_DIR "/examples/traces/") + name + ".json.gz");
        TraceImportSummary with_records, without;
        const Scenario recorded = load_trace_scenario(t, {}, {}, &with_records);
        t.syncs.erase(std::remove_if(t.syncs.begin(), t.syncs.end(),
                                     [](const TraceSync& s) { return s.kind == TraceSync::Kind::stream_wait_event; }),
                      t.syncs.end());
        const Scenario inferred = load_trace_scenario(t, {}, {}, &without);
        CHECK(with_records.inferred_waits == 0);
        CHECK(without.inferred_waits > 0);
        const auto r = afters(recorded), i = afters(inferred);
        size_t proven = 0, recovered = 0;
        for (const auto& [work, waits] : i)
            for (const std::string& j : waits) CHECK(r.at(work).count(j));  // nothing inferred that was not recorded
        for (const auto& [work, waits] : r)
            for (const std::string& j : waits) {
                // The timeline proves it where the work started within 5 µs of j's end and its
                // launch had returned before j ended.
                const MeasuredTimes &k = measured(recorded, work), &m = measured(recorded, j);
                if (k.start_ns - m.end_ns > 5000 || k.launch_end_ns >= m.end_ns) continue;
                ++proven;
                recovered += i.at(work).count(j);
            }
        CHECK(proven > 0);
        CHECK(recovered == proven);
        CHECK(without.inferred_waits == proven);
    }
}

TEST_CASE("trace import: a stream's queue holds its deepest backlog on the hardware", "[trace-scenario]") {
    // 300 launches 1 µs apart, each kernel 10 µs on the GPU: by the last launch about 270 are
    // queued; the default ring of 256 packets would hold the host where the runtime did not.
    ProfilerTrace t;
    t.file = "backlog.json";
    t.devices = {a100()};
    for (int i = 0; i < 300; ++i) {
        t.ops.push_back(kernel("k", 7, i + 1, 5'000 + int64_t(i) * 10'000, 15'000 + int64_t(i) * 10'000));
        t.calls.push_back(call(TraceHostCall::Kind::launch, "cudaLaunchKernel", i + 1, 1'000 + int64_t(i) * 1'000,
                               1'500 + int64_t(i) * 1'000));
    }
    t.ops.push_back(kernel("other", 9, 1000, 1'000'000, 1'001'000));  // one op on another stream: no backlog
    t.calls.push_back(call(TraceHostCall::Kind::launch, "cudaLaunchKernel", 1000, 900'000, 901'000));
    const Scenario s = load_trace_scenario(t, {}, {}, nullptr);
    REQUIRE(s.workload.queues.size() == 2);
    CHECK(s.workload.queues[0].name == "stream7");
    CHECK(s.workload.queues[0].size == 512);
    CHECK(s.workload.queues[1].size == QueueSpec{}.size);
}
