// The profiler-trace readers (sc_main/profiler/): exact decimals, gzip, format detection, Kineto
// JSON from CUDA and ROCm (the eight real traces of examples/traces/ and small hand-made ones),
// rocprofv3's CSVs (tests/data/traces/), and the errors each names by byte or line.
#include "sc_main/profiler/profiler_trace.h"

#include "tests/files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <string>

using namespace gpuvp;
using gpuvp::test::slurp;
using gpuvp::test::temp_dir;

namespace {

const std::string kTraces = GPUVP_SOURCE_DIR "/examples/traces/";
const std::string kData = GPUVP_SOURCE_DIR "/tests/data/traces/";

TraceError error_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const TraceError& e) {
        return e;
    }
    FAIL("no TraceError");
    throw std::logic_error("unreachable");
}

size_t count_ops(const ProfilerTrace& t, TraceGpuOp::Kind k) {
    return size_t(std::count_if(t.ops.begin(), t.ops.end(), [&](const TraceGpuOp& o) { return o.kind == k; }));
}
size_t count_calls(const ProfilerTrace& t, TraceHostCall::Kind k) {
    return size_t(std::count_if(t.calls.begin(), t.calls.end(), [&](const TraceHostCall& c) { return c.kind == k; }));
}
size_t count_syncs(const ProfilerTrace& t, TraceSync::Kind k) {
    return size_t(std::count_if(t.syncs.begin(), t.syncs.end(), [&](const TraceSync& s) { return s.kind == k; }));
}
template <class V>
bool in_start_order(const V& v) {
    return std::is_sorted(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
}
void write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

// A Kineto trace from its deviceProperties' and traceEvents' texts.
std::string kineto(const std::string& events, const std::string& devices = "") {
    return "{\"schemaVersion\": 1, \"deviceProperties\": [" + devices + "],\n\"traceEvents\": [" + events + "]}";
}
const std::string kKernel =
    R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,
        "args": {"device": 0, "stream": 7, "correlation": 3, "registers per thread": 32, "shared memory": 1024,
                 "grid": [4, 2, 1], "block": [128, 1, 1]}})";

}  // namespace

TEST_CASE("parse_decimal: exact decimals, rounded half away from zero", "[trace-import]") {
    CHECK(parse_decimal("1712195495505583.123", 3) == 1712195495505583123);
    CHECK(parse_decimal("1712195495505583.0", 3) == 1712195495505583000);
    CHECK(parse_decimal("2413669097444.592", 3) == 2413669097444592);
    CHECK(parse_decimal("12", 3) == 12000);
    CHECK(parse_decimal("1.5", 3) == 1500);
    CHECK(parse_decimal("+7", 0) == 7);
    CHECK(parse_decimal("-4.25", 2) == -425);
    CHECK(parse_decimal("0", 3) == 0);
    CHECK(parse_decimal("-0", 0) == 0);
    CHECK(parse_decimal("000012.500", 1) == 125);
    // Exponents.
    CHECK(parse_decimal("1.5e3", 3) == 1500000);
    CHECK(parse_decimal("1E-3", 3) == 1);
    CHECK(parse_decimal("1.7e15", 3) == 1700000000000000000);
    CHECK(parse_decimal("1.712195495505583123e15", 3) == 1712195495505583123);
    CHECK(parse_decimal("1712195495505583123e-3", 3) == 1712195495505583123);
    CHECK(parse_decimal("25E+1", 0) == 250);
    CHECK(parse_decimal("1e-400", 3) == 0);
    CHECK(parse_decimal("0e999999999", 3) == 0);
    // Beyond the scale: half away from zero.
    CHECK(parse_decimal("2.5", 0) == 3);
    CHECK(parse_decimal("-2.5", 0) == -3);
    CHECK(parse_decimal("2.4999", 0) == 2);
    CHECK(parse_decimal("0.0005", 3) == 1);
    CHECK(parse_decimal("-0.0005", 3) == -1);
    CHECK(parse_decimal("0.00049", 3) == 0);
    CHECK(parse_decimal("0.9", 0) == 1);
    CHECK(parse_decimal("5e-1", 0) == 1);
    CHECK(parse_decimal("4e-2", 0) == 0);
    // A double cannot carry a µs time of today to the ns: the reason for all this.
    CHECK(std::llround(1712195495505582.988 * 1000) != 1712195495505582988);
    CHECK(parse_decimal("1712195495505582.988", 3) == 1712195495505582988);
    // The edges of int64.
    const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
    CHECK(parse_decimal("9223372036854775807", 0) == max);
    CHECK(parse_decimal("-9223372036854775808", 0) == min);
    CHECK(parse_decimal("9223372036854775.807", 3) == max);
    CHECK(parse_decimal("9223372036854775.8074", 3) == max);
    CHECK_FALSE(parse_decimal("9223372036854775.8075", 3));  // rounds past it
    CHECK_FALSE(parse_decimal("9223372036854775808", 0));
    CHECK_FALSE(parse_decimal("-9223372036854775809", 0));
    CHECK_FALSE(parse_decimal("1e19", 0));
    CHECK_FALSE(parse_decimal("1e999999999999", 0));
    CHECK_FALSE(parse_decimal("1712195495505583.123", 9));
    // Not numbers.
    for (const char* bad : {"", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "0x10", "nan", "inf", "1,5",
                            "--1", "1e5.5", "1..", "\"1\"", "1f"}) {
        INFO(bad);
        CHECK_FALSE(parse_decimal(bad, 3));
    }
    CHECK(parse_decimal(".5", 1) == 5);
    CHECK(parse_decimal("5.", 1) == 50);
}

TEST_CASE("trace_format: Kineto JSON, rocprofv3's kernel trace, or none", "[trace-import]") {
    CHECK(trace_format(kineto(kKernel)) == TraceFormat::kineto);
    CHECK(trace_format(" \n\t" + kineto("")) == TraceFormat::kineto);
    CHECK(trace_format("\xEF\xBB\xBF" + kineto("")) == TraceFormat::kineto);
    CHECK(trace_format(read_trace_text(kTraces + "a100-triton-one-kernel.json.gz")) == TraceFormat::kineto);
    CHECK(trace_format(slurp(kData + "run1_kernel_trace.csv")) == TraceFormat::rocprofv3);
    CHECK(trace_format("Kernel_Name,Start_Timestamp\r\nk,1\r\n") == TraceFormat::rocprofv3);
    // A scenario, JSON without traceEvents, a JSON array, the HIP API trace alone, nothing.
    CHECK(trace_format(slurp(GPUVP_SOURCE_DIR "/scenarios/default.yaml")) == TraceFormat::none);
    CHECK(trace_format("{\"kernels\": []}") == TraceFormat::none);
    CHECK(trace_format("[{\"traceEvents\": []}]") == TraceFormat::none);
    CHECK(trace_format(slurp(kData + "run1_hip_api_trace.csv")) == TraceFormat::none);
    CHECK(trace_format("Kernel_Name\nStart_Timestamp\n") == TraceFormat::none);
    CHECK(trace_format("") == TraceFormat::none);
    CHECK(trace_format("   ") == TraceFormat::none);
    const TraceError e = error_of([] { read_profiler_trace(GPUVP_SOURCE_DIR "/scenarios/default.yaml"); });
    CHECK(std::string(e.what()).find("not a profiler trace") != std::string::npos);
}

TEST_CASE("the V100 trace: 4350 kernels, times exact to the ns, in start order", "[trace-import]") {
    const std::string path = kTraces + "v100-training-4350-kernels.json.gz";
    const ProfilerTrace t = read_profiler_trace(path);
    CHECK(t.format == ProfilerTrace::Format::kineto);
    CHECK(t.file == path);
    CHECK(count_ops(t, TraceGpuOp::Kind::kernel) == 4350);
    CHECK(count_ops(t, TraceGpuOp::Kind::copy) == 1600);
    CHECK(count_ops(t, TraceGpuOp::Kind::fill) == 145);
    CHECK(count_calls(t, TraceHostCall::Kind::launch) == 4350);
    CHECK(t.calls.size() == 15329);
    CHECK(t.shapes_defaulted == 0);
    CHECK(in_start_order(t.ops));
    CHECK(in_start_order(t.calls));
    // The earliest kernel: "ts": 1712195495505582.988, "dur": 4.928 in the file.
    const TraceGpuOp& first = t.ops.front();
    REQUIRE(first.kind == TraceGpuOp::Kind::kernel);
    CHECK(first.start_ns == 1712195495505582988);
    CHECK(first.end_ns == 1712195495505587916);
    CHECK(first.correlation == 135071);
    CHECK(first.stream == 7);
    CHECK(first.grid == std::array<uint32_t, 3>{4, 106, 1});
    CHECK(first.block == std::array<uint32_t, 3>{128, 1, 1});
    CHECK(first.registers == 30);
    // Its offset is where its event object starts in the gunzipped text.
    const std::string text = read_trace_text(path);
    REQUIRE(first.offset < text.size());
    CHECK(text[first.offset] == '{');
    CHECK(text.substr(first.offset, 2000).find("\"ts\": 1712195495505582.988") != std::string::npos);
    // Every kernel has its launch call: the same correlation on a cudaLaunchKernel.
    std::set<int64_t> launches;
    for (const TraceHostCall& c : t.calls)
        if (c.kind == TraceHostCall::Kind::launch) launches.insert(c.correlation);
    for (const TraceGpuOp& op : t.ops)
        if (op.kind == TraceGpuOp::Kind::kernel) CHECK(launches.count(op.correlation) == 1);
    REQUIRE(t.devices.size() == 8);
    CHECK(t.devices[0].name == "Tesla V100-SXM2-32GB");
    CHECK(t.devices[0].sms == 80u);
    CHECK_FALSE(t.devices[0].amd);
}

TEST_CASE("the AlexNet trace: kernels, copies, fills, launches and waits on events", "[trace-import]") {
    const ProfilerTrace t = read_profiler_trace(kTraces + "a100-alexnet-step.json.gz");
    CHECK(count_ops(t, TraceGpuOp::Kind::kernel) == 79);
    CHECK(count_ops(t, TraceGpuOp::Kind::copy) == 16);
    CHECK(count_ops(t, TraceGpuOp::Kind::fill) == 3);
    std::set<int64_t> streams;
    for (const TraceGpuOp& op : t.ops)
        if (op.kind == TraceGpuOp::Kind::kernel) streams.insert(op.stream);
    CHECK(streams == std::set<int64_t>{7, 20});
    CHECK(count_calls(t, TraceHostCall::Kind::launch) == 79);
    CHECK(count_calls(t, TraceHostCall::Kind::copy) == 16);
    CHECK(count_calls(t, TraceHostCall::Kind::stream_wait_event) == 34);
    CHECK(count_calls(t, TraceHostCall::Kind::event_record) == 30);
    CHECK(count_syncs(t, TraceSync::Kind::stream_sync) == 16);
    CHECK(count_syncs(t, TraceSync::Kind::context_sync) == 5);
    CHECK(count_syncs(t, TraceSync::Kind::stream_wait_event) == 20);
    CHECK(in_start_order(t.syncs));
    for (const TraceSync& s : t.syncs) {
        if (s.kind == TraceSync::Kind::stream_wait_event) {
            CHECK(s.stream >= 7);
            CHECK(s.wait_on_stream >= 7);
            CHECK(s.wait_on_stream != s.stream);
            CHECK(s.wait_on_event_record >= 5169);
        }
        if (s.kind == TraceSync::Kind::context_sync) CHECK(s.stream == -1);  // 4294967295 in the file
    }
    // The first copy: 92928 bytes, 12 µs; cudaStreamSynchronize takes its stream from its sync record.
    const auto copy = std::find_if(t.ops.begin(), t.ops.end(), [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::copy; });
    CHECK(copy->bytes == 92928);
    CHECK(copy->end_ns - copy->start_ns == 12000);
    for (const TraceHostCall& c : t.calls)
        if (c.kind == TraceHostCall::Kind::stream_sync) CHECK(c.stream == 7);
    REQUIRE(t.devices.size() == 8);
    const TraceDevice& d = t.devices[0];
    CHECK(d.sms == 108u);
    CHECK(d.warp_size == 32u);
    CHECK(d.shared_per_sm == 167936u);
    CHECK(d.shared_per_block == 166912u);  // sharedMemPerBlockOptin, above sharedMemPerBlock's 49152
    CHECK(d.registers_per_sm == 65536u);
    CHECK(d.max_threads_per_sm == 2048u);
    CHECK(d.global_memory == 42297524224u);
    CHECK(d.compute_major == 8u);
    // A kernel using more than 48 KB of shared memory (it opted in).
    CHECK(std::any_of(t.ops.begin(), t.ops.end(), [](const TraceGpuOp& o) { return o.shared_bytes == 67584; }));
}

TEST_CASE("the event-sync trace: a record of each sync kind, with what it waited on", "[trace-import]") {
    const ProfilerTrace t = read_profiler_trace(kTraces + "a100-event-sync-3-streams.json.gz");
    CHECK(count_ops(t, TraceGpuOp::Kind::kernel) == 3);
    CHECK(count_syncs(t, TraceSync::Kind::event_sync) == 3);
    CHECK(count_syncs(t, TraceSync::Kind::context_sync) == 1);
    CHECK(count_syncs(t, TraceSync::Kind::stream_wait_event) == 1);
    const TraceSync& first = t.syncs.front();  // cudaEventQuery on an event not yet recorded
    CHECK(first.kind == TraceSync::Kind::event_sync);
    CHECK(first.wait_on_stream == -1);
    CHECK(first.wait_on_event_record == -1);
    CHECK(first.event == 9);  // wait_on_cuda_event_id
    CHECK(first.correlation == 24);
    const auto wait = std::find_if(t.syncs.begin(), t.syncs.end(), [](const TraceSync& s) { return s.kind == TraceSync::Kind::stream_wait_event; });
    CHECK(wait->stream == 24);
    CHECK(wait->wait_on_stream == 20);
    CHECK(wait->wait_on_event_record == 1385);
    CHECK(wait->event == 19);
    CHECK(wait->correlation == 1389);
    // The stream that waits is the cudaStreamWaitEvent call's.
    const auto call = std::find_if(t.calls.begin(), t.calls.end(), [](const TraceHostCall& c) { return c.correlation == 1389; });
    CHECK(call->kind == TraceHostCall::Kind::stream_wait_event);
    CHECK(call->stream == 24);
    CHECK(count_calls(t, TraceHostCall::Kind::device_sync) == 1);
    std::set<int64_t> streams;
    for (const TraceGpuOp& op : t.ops) streams.insert(op.stream);
    CHECK(streams == std::set<int64_t>{20, 24, 28});
}

TEST_CASE("the H200 traces: kernels, fills, streams, threads and sync records", "[trace-import]") {
    struct Expected {
        const char* file;
        size_t kernels, fills, calls;
        std::set<int64_t> streams, threads;
    };
    for (const Expected& e : {Expected{"h200-cnn-train-step.json.gz", 122, 8, 241, {7}, {443, 472}},
                              Expected{"h200-transformer-infer.json.gz", 1317, 0, 1579, {7}, {443}},
                              Expected{"h200-two-streams.json.gz", 40, 8, 83, {46, 50}, {443}}}) {
        INFO(e.file);
        const ProfilerTrace t = read_profiler_trace(kTraces + e.file);
        CHECK(count_ops(t, TraceGpuOp::Kind::kernel) == e.kernels);
        CHECK(count_ops(t, TraceGpuOp::Kind::fill) == e.fills);
        CHECK(count_ops(t, TraceGpuOp::Kind::copy) == 0);
        CHECK(t.calls.size() == e.calls);
        std::set<int64_t> streams, threads;
        for (const TraceGpuOp& op : t.ops) streams.insert(op.stream);
        for (const TraceHostCall& c : t.calls) threads.insert(c.thread);
        CHECK(streams == e.streams);
        CHECK(threads == e.threads);
        CHECK(in_start_order(t.ops));
        CHECK(t.shapes_defaulted == 0);
        REQUIRE(t.devices.size() == 1);
        CHECK(t.devices[0].name == "NVIDIA H200");
        CHECK(t.devices[0].sms == 132u);
        CHECK(count_syncs(t, TraceSync::Kind::context_sync) == (e.streams.size() == 2 ? 3 : 2));
    }
    // CUPTI 13 with PyTorch 2.11: the event waits and syncs name their event and nothing else;
    // the record calls (cudaEventRecordWithFlags) carry no event and no stream.
    const ProfilerTrace t = read_profiler_trace(kTraces + "h200-two-streams.json.gz");
    CHECK(count_calls(t, TraceHostCall::Kind::event_record) == 4);
    CHECK(count_calls(t, TraceHostCall::Kind::stream_wait_event) == 4);
    CHECK(count_calls(t, TraceHostCall::Kind::event_sync) == 4);
    CHECK(count_syncs(t, TraceSync::Kind::stream_sync) == 4);
    std::vector<int64_t> waited, synced;
    for (const TraceSync& s : t.syncs) {
        if (s.kind != TraceSync::Kind::stream_wait_event && s.kind != TraceSync::Kind::event_sync) continue;
        CHECK(s.wait_on_stream == -1);
        CHECK(s.wait_on_event_record == -1);
        (s.kind == TraceSync::Kind::stream_wait_event ? waited : synced).push_back(s.event);
        if (s.kind == TraceSync::Kind::stream_wait_event) CHECK(s.stream == 50);
    }
    CHECK(waited == std::vector<int64_t>{55, 56, 57, 58});
    CHECK(synced == std::vector<int64_t>{55, 56, 57, 58});
    for (const TraceHostCall& c : t.calls)
        if (c.kind == TraceHostCall::Kind::event_record) {
            CHECK(c.name == "cudaEventRecordWithFlags");
            CHECK_FALSE(c.stream);
        }
}

TEST_CASE("the Triton trace: cuLaunchKernel is a launch, and its kernel's times are exact", "[trace-import]") {
    const ProfilerTrace t = read_profiler_trace(kTraces + "a100-triton-one-kernel.json.gz");
    REQUIRE(t.ops.size() == 1);
    CHECK(t.ops[0].name == "triton_poi_fused_add_cos_sin_0");
    CHECK(t.ops[0].start_ns == 2413669097444592);  // 2413669097444.592 µs
    CHECK(t.ops[0].end_ns == 2413669097446352);    // + 1.76 µs
    REQUIRE(t.calls.size() == 2);
    CHECK(t.calls[0].name == "cuLaunchKernel");
    CHECK(t.calls[0].kind == TraceHostCall::Kind::launch);
    CHECK(t.calls[0].correlation == t.ops[0].correlation);
    CHECK(t.calls[0].thread == 1670242);
    CHECK(t.calls[0].end_ns - t.calls[0].start_ns == 47768);
    CHECK(t.calls[1].kind == TraceHostCall::Kind::device_sync);
}

TEST_CASE("the MI250 trace: an AMD device, shapes from the HIP launch calls, HIP stream handles numbered", "[trace-import]") {
    const ProfilerTrace t = read_profiler_trace(kTraces + "mi250-rocm6.2-minitoy-train.json.gz");
    CHECK(count_ops(t, TraceGpuOp::Kind::kernel) == 14);
    CHECK(count_ops(t, TraceGpuOp::Kind::copy) == 2);
    REQUIRE(t.devices.size() == 4);
    for (const TraceDevice& d : t.devices) {
        CHECK(d.amd);
        CHECK(d.warp_size == 64u);
        CHECK(d.sms == 104u);
        CHECK(d.shared_per_sm == 65536u);  // maxSharedMemoryPerMultiProcessor
    }
    // The kernel records have no grid or block: their launch calls give them.
    CHECK(t.shapes_defaulted == 0);
    for (const TraceGpuOp& op : t.ops) {
        CHECK_FALSE(op.shape_defaulted);
        CHECK(op.device == 2);
        CHECK(op.stream == 0);
    }
    auto kernel = [&](int64_t correlation) -> const TraceGpuOp& {
        return *std::find_if(t.ops.begin(), t.ops.end(), [&](const TraceGpuOp& o) { return o.correlation == correlation; });
    };
    // hipLaunchKernel: grid [3,1,1] blocks of [128,1,1]; one with 512 bytes of shared memory.
    CHECK(kernel(118).grid == std::array<uint32_t, 3>{3, 1, 1});
    CHECK(kernel(118).block == std::array<uint32_t, 3>{128, 1, 1});
    CHECK(kernel(125).shared_bytes == 512);
    CHECK(kernel(133).block == std::array<uint32_t, 3>{32, 4, 1});
    // hipExtModuleLaunchKernel's grid is its global work size: [512,1,1] items of [256,1,1] is 2 blocks.
    CHECK(kernel(121).grid == std::array<uint32_t, 3>{2, 1, 1});
    CHECK(kernel(132).grid == std::array<uint32_t, 3>{2, 8, 1});
    CHECK(kernel(132).block == std::array<uint32_t, 3>{256, 1, 1});
    // Copies take their size from hipMemcpyWithStream's "size": "2560".
    for (const TraceGpuOp& op : t.ops)
        if (op.kind == TraceGpuOp::Kind::copy) CHECK(op.bytes == 2560);
    // HIP's "stream": "0x0" is the stream its kernels ran on (0).
    CHECK(count_calls(t, TraceHostCall::Kind::launch) == 14);
    CHECK(count_calls(t, TraceHostCall::Kind::copy) == 2);
    for (const TraceHostCall& c : t.calls) {
        if (c.kind == TraceHostCall::Kind::launch || c.kind == TraceHostCall::Kind::copy) CHECK(c.stream == 0);
        if (c.kind == TraceHostCall::Kind::other) CHECK_FALSE(c.stream);
    }
    std::set<int64_t> threads;
    for (const TraceHostCall& c : t.calls) threads.insert(c.thread);
    CHECK(threads == std::set<int64_t>{597913, 598009});
}

TEST_CASE("ROCm kernels with no shape anywhere get the documented defaults", "[trace-import]") {
    const std::string devices = R"({"id": 1, "name": "AMD Instinct MI300X", "numSms": 304, "warpSize": 64},
                                   {"id": 2, "name": "AMD Radeon Graphics", "warpSize": 64})";
    const std::string events = R"(
      {"ph": "X", "cat": "kernel", "name": "a", "pid": 1, "tid": 0, "ts": 5, "dur": 1, "args": {"device": 1, "stream": 0, "correlation": 9}},
      {"ph": "X", "cat": "kernel", "name": "b", "pid": 2, "tid": 3, "ts": 6, "dur": 1, "args": {"correlation": 10}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 7, "tid": 7, "ts": 4, "dur": 1,
       "args": {"correlation": 9, "stream": "0x7f00deadbeef"}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 7, "tid": 7, "ts": 5, "dur": 1,
       "args": {"correlation": 11, "stream": "0x1234"}})";
    const ProfilerTrace t = parse_kineto(kineto(events, devices), "rocm.json");
    REQUIRE(t.ops.size() == 2);
    CHECK(t.shapes_defaulted == 2);
    // 256 work-items a block, a block per CU of the device (304), else 1.
    CHECK(t.ops[0].shape_defaulted);
    CHECK(t.ops[0].block == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(t.ops[0].grid == std::array<uint32_t, 3>{304, 1, 1});
    CHECK(t.ops[1].device == 2);  // the pid, without args.device
    CHECK(t.ops[1].stream == 3);  // the tid, without args.stream
    CHECK(t.ops[1].grid == std::array<uint32_t, 3>{1, 1, 1});
    CHECK(t.devices[0].amd);
    CHECK(t.devices[0].name == "AMD Instinct MI300X");
    // A handle whose calls launched a kernel is that kernel's stream; any other stays unset.
    CHECK(t.calls[0].stream == 0);
    CHECK_FALSE(t.calls[1].stream);
}

TEST_CASE("a small Kineto trace: every kept event, ties in file order, the rest skipped", "[trace-import]") {
    const std::string events = R"J(
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": "not checked", "args": {"Input Dims": [[1, 2]]}},
      {"ph": "s", "cat": "ac2g", "name": "launch", "id": 3, "pid": 1, "tid": 1, "ts": 1},
      )J" + kKernel + R"J(,
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 10.5, "dur": 0, "args": {"grid": [1,1,1], "block": [32,1,1]}},
      {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 9, "dur": 1.0,
       "args": {"device": 0, "stream": 7, "correlation": 2, "bytes": 512}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 8.25, "dur": 1.5,
       "args": {"correlation": 3}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 7, "dur": 1e0,
       "args": {"correlation": 2}},
      {"ph": "X", "cat": "cuda_driver", "name": "cuMemcpyHtoDAsync_v2", "pid": 1, "tid": 2, "ts": 7, "dur": 0.001, "args": {}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 12, "dur": 3,
       "args": {"correlation": 4}},
      {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 13, "dur": 2,
       "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 4, "device": 0}},
      {"ph": "X", "cat": "cuda_sync", "name": "Something New", "pid": 0, "tid": 7, "ts": 13, "dur": 2, "args": {}},
      {"ph": "i", "cat": "kernel", "name": "an instant", "pid": 0, "tid": 7, "ts": 1})J";
    const std::string text = kineto(events, R"({"id": 0, "name": "NVIDIA H100", "numSms": 132, "warpSize": 32,
        "sharedMemPerBlock": 49152, "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472})");
    const ProfilerTrace t = parse_kineto(text, "small.json");
    REQUIRE(t.ops.size() == 3);
    CHECK(t.ops[0].kind == TraceGpuOp::Kind::fill);
    CHECK(t.ops[0].bytes == 512);
    CHECK(t.ops[0].start_ns == 9000);
    CHECK(t.ops[1].name == "k");  // 10.5 µs as k2, before it in the file
    CHECK(t.ops[2].name == "k2");
    const TraceGpuOp& k = t.ops[1];
    CHECK(k.start_ns == 10500);
    CHECK(k.end_ns == 12500);
    CHECK(k.correlation == 3);
    CHECK(k.registers == 32);
    CHECK(k.shared_bytes == 1024);
    CHECK(k.grid == std::array<uint32_t, 3>{4, 2, 1});
    CHECK(k.block == std::array<uint32_t, 3>{128, 1, 1});
    CHECK(text.substr(k.offset).rfind(R"({"ph": "X", "cat": "kernel", "name": "k",)", 0) == 0);
    CHECK(t.ops[2].correlation == -1);
    CHECK(t.ops[2].end_ns == t.ops[2].start_ns);
    REQUIRE(t.calls.size() == 4);
    CHECK(t.calls[0].kind == TraceHostCall::Kind::fill);  // 7 µs, first in the file
    CHECK(t.calls[1].kind == TraceHostCall::Kind::copy);
    CHECK(t.calls[1].thread == 2);
    CHECK(t.calls[1].end_ns - t.calls[1].start_ns == 1);
    CHECK(t.calls[2].kind == TraceHostCall::Kind::launch);
    CHECK(t.calls[2].start_ns == 8250);
    CHECK(t.calls[3].kind == TraceHostCall::Kind::stream_sync);
    CHECK(t.calls[3].stream == 7);
    REQUIRE(t.syncs.size() == 1);  // the unknown sync kind is not kept
    CHECK(t.syncs[0].kind == TraceSync::Kind::stream_sync);
    CHECK(t.syncs[0].wait_on_event_record == -1);
    CHECK(t.syncs[0].event == -1);
    REQUIRE(t.devices.size() == 1);
    CHECK(t.devices[0].shared_per_block == 232448u);
    CHECK_FALSE(t.devices[0].amd);
    CHECK_FALSE(t.devices[0].registers_per_sm);
}

TEST_CASE("host calls' kinds by function name", "[trace-import]") {
    using K = TraceHostCall::Kind;
    const std::pair<const char*, K> names[] = {
        {"cudaLaunchKernel", K::launch},          {"cuLaunchKernel", K::launch},           {"cudaLaunchKernelExC", K::launch},
        {"hipLaunchKernel", K::launch},           {"hipExtModuleLaunchKernel", K::launch}, {"hipModuleLaunchKernel", K::launch},
        {"cuLaunchKernel_ptsz", K::launch},       {"cudaGraphLaunch", K::graph_launch},    {"hipGraphLaunch", K::graph_launch},
        {"cudaMemcpyAsync", K::copy},             {"hipMemcpyWithStream", K::copy},        {"cuMemcpyHtoD_v2", K::copy},
        {"cudaMemsetAsync", K::fill},             {"hipMemsetD32", K::fill},               {"cudaDeviceSynchronize", K::device_sync},
        {"hipDeviceSynchronize", K::device_sync}, {"cudaStreamSynchronize", K::stream_sync}, {"hipStreamSynchronize", K::stream_sync},
        {"cudaEventSynchronize", K::event_sync},  {"hipEventSynchronize", K::event_sync},  {"cudaEventRecord", K::event_record},
        {"hipEventRecordWithFlags", K::event_record}, {"cudaStreamWaitEvent", K::stream_wait_event},
        {"hipStreamWaitEvent", K::stream_wait_event}, {"cudaMalloc", K::other},            {"cudaMemGetInfo", K::other},
        {"cudaStreamIsCapturing", K::other},      {"hipGetDevicePropertiesR0600", K::other}, {"__hipRegisterFatBinary", K::other},
        {"cublasSgemm", K::other},                {"", K::other},
    };
    for (const auto& [name, kind] : names) {
        INFO(name);
        CHECK(host_call_kind(name) == kind);
    }
}

TEST_CASE("gzip: the same trace as the plain text, broken and cut streams are errors at a byte", "[trace-import]") {
    const std::string gz_path = kTraces + "a100-alexnet-step.json.gz";
    const std::string gz = slurp(gz_path);
    const std::string text = read_trace_text(gz_path);
    REQUIRE(text.size() == 319512);
    CHECK(trace_format(text) == TraceFormat::kineto);
    const std::string dir = temp_dir();
    write(dir + "/alexnet.json", text);
    const ProfilerTrace a = read_profiler_trace(gz_path), b = read_profiler_trace(dir + "/alexnet.json");
    REQUIRE(a.ops.size() == b.ops.size());
    for (size_t i = 0; i < a.ops.size(); ++i) {
        CHECK(a.ops[i].start_ns == b.ops[i].start_ns);
        CHECK(a.ops[i].offset == b.ops[i].offset);
    }
    CHECK(a.calls.size() == b.calls.size());
    // The magic decides, not the name; bytes without it come back as they are.
    write(dir + "/alexnet-no-suffix", gz);
    CHECK(read_trace_text(dir + "/alexnet-no-suffix") == text);
    CHECK(gunzip_if_gzip("plain", "f") == "plain");
    CHECK(gunzip_if_gzip("", "f").empty());
    CHECK(gunzip_if_gzip(gz + gz, "f") == text + text);  // concatenated members
    // Cut short, one byte changed, bytes after the end.
    const TraceError cut = error_of([&] { gunzip_if_gzip(gz.substr(0, gz.size() / 2), "cut.gz"); });
    CHECK(cut.where() == TraceError::Where::byte);
    CHECK(cut.at() <= gz.size() / 2);
    CHECK(cut.at() > gz.size() / 2 - 1024);
    CHECK(cut.file() == "cut.gz");
    CHECK(std::string(cut.what()).rfind("cut.gz: byte ", 0) == 0);
    std::string broken = gz;
    broken[200] = char(broken[200] ^ 0x55);
    CHECK(error_of([&] { gunzip_if_gzip(broken, "broken.gz"); }).where() == TraceError::Where::byte);
    std::string header_only = gz.substr(0, 5);
    CHECK(error_of([&] { gunzip_if_gzip(header_only, "h.gz"); }).where() == TraceError::Where::byte);
    const TraceError tail = error_of([&] { gunzip_if_gzip(gz + "junk", "tail.gz"); });
    CHECK(tail.at() == gz.size());
    CHECK(error_of([] { read_trace_text("/nonexistent/trace.json.gz"); }).where() == TraceError::Where::none);
}

TEST_CASE("Kineto errors: cut JSON, a kernel without ts, a bad number, no kernels", "[trace-import]") {
    // JSON cut short: where the text ends.
    const std::string text = read_trace_text(kTraces + "a100-triton-one-kernel.json.gz");
    const size_t cut = text.size() / 2;
    const TraceError e = error_of([&] { parse_kineto(text.substr(0, cut), "cut.json"); });
    CHECK(e.at() == cut);
    CHECK(std::string(e.what()).find("cut.json: the JSON text ends at byte " + std::to_string(cut) +
                                     ", before the trace is complete (the file is cut short?): ") == 0);
    CHECK(error_of([] { parse_kineto("{\"traceEvents\": [}", "x.json"); }).at() == 17);
    // A kernel event wrong: the byte where its object starts.
    const std::string before = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "ts": 1, "dur": 1}, )";
    auto kernel_error = [&](const std::string& kernel) {
        const TraceError k = error_of([&] { parse_kineto(before + kernel + "]}", "k.json"); });
        CHECK(k.where() == TraceError::Where::byte);
        CHECK(k.at() == before.size());
        return std::string(k.what());
    };
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "name": "k", "dur": 1})").find("without ts or dur") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1})").find("without ts or dur") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": -0.5})").find("negative") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": "1", "dur": 1})").find("ts: a number") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": null})").find("dur") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1e300, "dur": 1})").find("out of range") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, "args": {"stream": "7"}})").find("stream") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, "args": {"correlation": 1.5}})").find("integer") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, "args": {"grid": [1, 2], "block": [1, 1, 1]}})").find("grid") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, "args": {"grid": [1, 0, 1], "block": [1, 1, 1]}})").find("grid[1]") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, "args": {"block": [4294967296, 1, 1]}})").find("out of range") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "gpu_memcpy", "ts": 1, "dur": 1, "args": {"bytes": -1}})").find("bytes") != std::string::npos);
    CHECK(kernel_error(R"({"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "ts": 1, "dur": 1, "args": {"wait_on_cuda_event_id": "5"}})")
              .find("args.wait_on_cuda_event_id: an integer expected") != std::string::npos);
    // A trace without kernels.
    for (const std::string& none : {kineto(""), std::string("{\"traceEvents\": {}}"), std::string("[]"), std::string("{}"),
                                    kineto(R"({"ph": "X", "cat": "cpu_op", "name": "k", "ts": 1, "dur": 1})")}) {
        const TraceError n = error_of([&] { parse_kineto(none, "none.json"); });
        CHECK(n.where() == TraceError::Where::none);
        CHECK(std::string(n.what()).find("no kernels") != std::string::npos);
    }
}

TEST_CASE("rocprofv3: kernel_trace.csv with its hip_api_trace.csv beside it", "[trace-import]") {
    const ProfilerTrace t = read_profiler_trace(kData + "run1_kernel_trace.csv");
    CHECK(t.format == ProfilerTrace::Format::rocprofv3);
    REQUIRE(t.ops.size() == 3);
    // In start order: the quoted name (5000 ns) before the second line's kernel (6000 ns).
    CHECK(t.ops[0].name == "__amd_rocclr_fillBufferAligned");
    CHECK(t.ops[1].name == "kernel \"quoted\", with a comma");
    CHECK(t.ops[2].name == "void add<float, 4>(float*, float const*, int)");
    const TraceGpuOp& fill = t.ops[0];
    CHECK(fill.kind == TraceGpuOp::Kind::kernel);
    CHECK(fill.device == 2);  // "Agent 2"
    CHECK(fill.stream == 0);  // Stream_Id
    CHECK(fill.correlation == 10);
    CHECK(fill.start_ns == 1000);
    CHECK(fill.end_ns == 4500);
    CHECK(fill.grid == std::array<uint32_t, 3>{1, 1, 1});
    CHECK(fill.block == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(fill.registers == 16);  // 12 VGPRs + 4 AccVGPRs
    CHECK(fill.scalar_registers == 48);
    CHECK(fill.offset == 2);      // its line
    // Grid_Size counts work-items: 1000 of 64 is 16 blocks, the last one partial.
    CHECK(t.ops[2].grid == std::array<uint32_t, 3>{16, 1, 1});
    CHECK(t.ops[2].shared_bytes == 1024);
    CHECK(t.ops[1].grid == std::array<uint32_t, 3>{7, 4, 1});
    CHECK(t.ops[1].block == std::array<uint32_t, 3>{16, 16, 1});
    CHECK(t.ops[1].stream == 1);
    REQUIRE(t.devices.size() == 1);
    CHECK(t.devices[0].id == 2);
    CHECK(t.devices[0].amd);
    CHECK(t.shapes_defaulted == 0);
    // The HIP API trace's rows are the calls, a launch's stream its kernel's.
    REQUIRE(t.calls.size() == 8);
    CHECK(count_calls(t, TraceHostCall::Kind::launch) == 3);
    CHECK(count_calls(t, TraceHostCall::Kind::copy) == 1);
    CHECK(count_calls(t, TraceHostCall::Kind::stream_sync) == 1);
    CHECK(count_calls(t, TraceHostCall::Kind::device_sync) == 1);
    CHECK(count_calls(t, TraceHostCall::Kind::other) == 2);
    CHECK(in_start_order(t.calls));
    const auto module = std::find_if(t.calls.begin(), t.calls.end(), [](const TraceHostCall& c) { return c.correlation == 12; });
    CHECK(module->name == "hipModuleLaunchKernel");
    CHECK(module->thread == 71);
    CHECK(module->stream == 1);
    CHECK(module->offset == 6);
    CHECK_FALSE(t.calls.front().stream);  // __hipRegisterFatBinary
}

TEST_CASE("rocprofv3: columns in any order, older column names, no HIP API trace", "[trace-import]") {
    // ROCm 6.2's columns (Group_Segment_Size, no Stream_Id), reordered, CR LF, numeric agents.
    const std::string csv =
        "\"Grid_Size_X\",\"Kernel_Name\",\"Grid_Size_Y\",\"Grid_Size_Z\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
        "\"Start_Timestamp\",\"End_Timestamp\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Correlation_Id\",\"Group_Segment_Size\"\r\n"
        "8192,\"__amd_rocclr_fillBufferAligned\",1,1,256,1,1,4484384343929154,4484384343935074,8,1,252734,15,0\r\n"
        "16384,\"NormKernel1(int, double, double, double const*, double*)\",1,1,128,1,1,4484384527705139,4484384528106260,8,2,252734,33,1024\r\n"
        "\r\n";
    const ProfilerTrace t = parse_rocprofv3(csv, "old_kernel_trace.csv");
    REQUIRE(t.ops.size() == 2);
    CHECK(t.ops[0].grid == std::array<uint32_t, 3>{32, 1, 1});
    CHECK(t.ops[1].grid == std::array<uint32_t, 3>{128, 1, 1});
    CHECK(t.ops[1].name == "NormKernel1(int, double, double, double const*, double*)");
    CHECK(t.ops[1].device == 8);
    CHECK(t.ops[1].stream == 2);  // Queue_Id, without Stream_Id
    CHECK(t.ops[1].shared_bytes == 1024);
    CHECK(t.ops[1].registers == 0);
    CHECK(t.ops[1].offset == 3);
    // Each kernel's launch: a call at its start, 0 ns long, on its thread.
    REQUIRE(t.calls.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CHECK(t.calls[i].kind == TraceHostCall::Kind::launch);
        CHECK(t.calls[i].start_ns == t.ops[i].start_ns);
        CHECK(t.calls[i].end_ns == t.ops[i].start_ns);
        CHECK(t.calls[i].correlation == t.ops[i].correlation);
        CHECK(t.calls[i].thread == 252734);
        CHECK(t.calls[i].stream == t.ops[i].stream);
    }
    // rocpd's CSV: another case for some names, a Guid column first.
    const std::string rocpd =
        "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
        "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Lds_Block_Size\",\"Scratch_Size\",\"Vgpr_Count\","
        "\"Accum_Vgpr_Count\",\"Sgpr_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
        "\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
        "\"00006409-00d1\",\"KERNEL_DISPATCH\",\"Agent 4\",1,0,714789,1,3,\"__omp_offloading_30_57b9f\",1,1678314002982197,"
        "1678314003082277,8456,0,16,0,32,256,1,1,233472,1,1\n";
    const ProfilerTrace r = parse_rocprofv3(rocpd, "out_kernel_trace.csv");
    REQUIRE(r.ops.size() == 1);
    CHECK(r.ops[0].shared_bytes == 8456);
    CHECK(r.ops[0].registers == 16);
    CHECK(r.ops[0].scalar_registers == 32);
    CHECK(r.ops[0].grid == std::array<uint32_t, 3>{912, 1, 1});
}

TEST_CASE("rocprofv3 errors name the file and line", "[trace-import]") {
    const std::string header =
        "Kernel_Name,Agent_Id,Queue_Id,Correlation_Id,Start_Timestamp,End_Timestamp,Workgroup_Size_X,Workgroup_Size_Y,"
        "Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n";
    const std::string good = "k,1,1,1,100,200,64,1,1,64,1,1\n";
    CHECK(parse_rocprofv3(header + good, "k.csv").ops.size() == 1);
    auto error = [&](const std::string& csv, const std::string& hip = {}) {
        return error_of([&] { parse_rocprofv3(csv, "k.csv", hip, hip.empty() ? "" : "h.csv"); });
    };
    // A missing column: the header's line, the column named.
    const TraceError missing = error("Kernel_Name,Agent_Id,Queue_Id,Correlation_Id,End_Timestamp\nk,1,1,1,2\n");
    CHECK(missing.where() == TraceError::Where::line);
    CHECK(missing.at() == 1);
    CHECK(std::string(missing.what()) == "k.csv:1: no column Start_Timestamp in the header");
    CHECK(std::string(error(header.substr(header.find(',') + 1) + good).what()).find("Kernel_Name") != std::string::npos);
    // A record of the wrong length, a bad number, a bad agent, a workgroup of 0, time going back.
    const TraceError fields = error(header + good + "k,1,1,1,100,200,64,1,1,64,1\n");
    CHECK(fields.at() == 3);
    CHECK(std::string(fields.what()).find("11 fields where the header has 12") != std::string::npos);
    const TraceError number = error(header + good + good + "k,1,1,1,1e2,200,64,1,1,64,1,1\n");
    CHECK(number.at() == 4);
    CHECK(std::string(number.what()).find("Start_Timestamp: an integer expected, found \"1e2\"") != std::string::npos);
    CHECK(error(header + "k,GPU 1,1,1,100,200,64,1,1,64,1,1\n").at() == 2);
    CHECK(std::string(error(header + "k,1,1,1,100,200,0,1,1,64,1,1\n").what()).find("Workgroup_Size_X: 0 is out of range") != std::string::npos);
    CHECK(std::string(error(header + "k,1,1,1,300,200,64,1,1,64,1,1\n").what()).find("before") != std::string::npos);
    CHECK(std::string(error(header + "k,1,1,1,100,200,64,1,1,4294967296,1,1\n").what()).find("out of range") != std::string::npos);
    // Quotes: a field left open, text after a closing quote. The line is where the record starts.
    CHECK(error(header + good + "\"k,1,1,1,100,200,64,1,1,64,1,1\n").at() == 3);
    CHECK(error(header + "\"k\"x,1,1,1,100,200,64,1,1,64,1,1\n").at() == 2);
    // A quoted line break stays in the name and the next record's line counts it.
    const ProfilerTrace t = parse_rocprofv3(header + "\"two\nlines\",1,1,1,100,200,64,1,1,64,1,1\n" + good, "k.csv");
    CHECK(t.ops[0].name == "two\nlines");
    CHECK(t.ops[1].offset == 4);
    // Every kernel's grid smaller than its workgroup: the columns swapped (some ROCm releases),
    // named at the first kernel's line. One such kernel among others is a small grid, read.
    const TraceError swapped = error(header + "k,1,1,1,100,200,256,1,1,64,1,1\n" + "k,1,1,2,300,400,128,1,1,1,1,1\n" +
                                     "k,1,1,3,500,600,64,1,1,64,1,1\n");  // (one workgroup: the same either way)
    CHECK(swapped.at() == 2);
    CHECK(std::string(swapped.what()).find("every kernel's Grid_Size is smaller than its Workgroup_Size in some dimension: "
                                           "the two look swapped") != std::string::npos);
    CHECK(parse_rocprofv3(header + "k,1,1,1,100,200,64,1,1,128,1,1\n" + "k,1,1,2,300,400,256,1,1,64,1,1\n", "k.csv").ops[1].grid ==
          std::array<uint32_t, 3>{1, 1, 1});
    // No kernels; the HIP API trace's errors name its own file.
    CHECK(std::string(error(header).what()).find("no kernels") != std::string::npos);
    CHECK(error("").at() == 1);
    const TraceError hip = error(header + good, "Domain,Function,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp\nHIP,f,1,x,1,2\n");
    CHECK(hip.file() == "h.csv");
    CHECK(hip.at() == 2);
    CHECK(std::string(error(header + good, "Domain,Function\nHIP,f\n").what()).find("h.csv:1: no column Thread_Id") == 0);
}
