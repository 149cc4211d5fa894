// rocprofv3 beyond its CSV: the rocpd SQLite database (sc_main/profiler/rocpd.cpp; fixtures built
// on tests/data/rocpd/schema.sql, the tables with the run's id and the views without it) and
// the JSON output (rocprofv3_json.cpp; tests/data/traces/rocprofv3_results.json). Both hold the
// same small run: a copy, a GEMM and a ReLU on an MI300X, their HIP calls, a stream sync.
#include "sc_main/profiler/database.h"
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/trace_scenario.h"

#include "tests/files.h"

#include <catch2/catch.hpp>

#include <functional>
#include <string>

using namespace gpuvp;
using gpuvp::test::slurp;

namespace {

const std::string kRocpd = GPUVP_SOURCE_DIR "/tests/data/rocpd/";
const std::string kJson = GPUVP_SOURCE_DIR "/tests/data/traces/rocprofv3_results.json";
constexpr const char* kSuffix = "_0190ab12_3c4d_7e5f_8a9b_0123456789ab";

ProfilerTrace read_db(const std::string& more = {}) {
    return parse_database(Database::from_sql(slurp(kRocpd + "schema.sql") + slurp(kRocpd + "two-kernels.sql") + more, "run.db").image(),
                          "run.db");
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const TraceError& e) {
        return e.what();
    }
    FAIL("no TraceError");
    return {};
}

// What the two formats hold alike.
void check_run(const ProfilerTrace& t) {
    REQUIRE(t.ops.size() == 3);
    const TraceGpuOp& copy = t.ops[0];
    CHECK(copy.kind == TraceGpuOp::Kind::copy);
    CHECK(copy.name == "Memcpy HtoD");
    CHECK(copy.bytes == 1048576);
    CHECK(copy.device == 2);  // the GPU end of the copy
    const TraceGpuOp& gemm = t.ops[1];
    CHECK(gemm.name == "gemm(float*)");
    CHECK(gemm.device == 2);
    CHECK(gemm.stream == 1);
    CHECK(gemm.start_ns == 7000);
    CHECK(gemm.end_ns == 19000);
    CHECK(gemm.grid == std::array<uint32_t, 3>{64, 2, 1});  // 16384 x 2 work-items in blocks of 256
    CHECK(gemm.block == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(gemm.registers == 96);  // architected + accumulation VGPRs
    CHECK(gemm.scalar_registers == 40);
    CHECK(gemm.shared_bytes == 2048);  // the dispatch's LDS, static and dynamic
    CHECK(t.ops[2].name == "relu(float*)");
    CHECK(t.ops[2].grid == std::array<uint32_t, 3>{16, 1, 1});  // 1000 work-items: a partial block at the edge
    // The HIP calls only (not the HSA call inside the first launch), joined to their work.
    REQUIRE(t.calls.size() == 4);
    CHECK(t.calls[0].name == "hipMemcpyAsync");
    CHECK(t.calls[0].kind == TraceHostCall::Kind::copy);
    CHECK(t.calls[1].kind == TraceHostCall::Kind::launch);
    CHECK(t.calls[1].correlation == gemm.correlation);
    CHECK(t.calls[1].stream == 1);
    CHECK(t.calls[3].kind == TraceHostCall::Kind::stream_sync);
    for (const TraceHostCall& c : t.calls) CHECK(c.thread == 4321);
    // The GPU agent (the CPU's is no device).
    REQUIRE(t.devices.size() == 1);
    const TraceDevice& d = t.devices[0];
    CHECK(d.id == 2);
    CHECK(d.name == "AMD Instinct MI300X");
    CHECK(d.amd);
    CHECK(d.sms == 304u);
    CHECK(d.warp_size == 64u);
    CHECK(d.shared_per_sm == 65536u);
    CHECK(d.max_threads_per_sm == 2048u);
    // The import finds the preset by the name and replays the device.
    TraceImportSummary sum;
    trace_scenario_yaml(t, TraceImportOptions{}, &sum);
    CHECK(sum.preset == "mi300x");
    CHECK(sum.kernels == 2);
    CHECK(sum.copies == 1);
    CHECK(sum.calls == 4);
}

}  // namespace

TEST_CASE("rocpd: dispatches, copies, HIP calls and the GPU through the database's views", "[trace-import][rocpd]") {
    const ProfilerTrace t = read_db();
    CHECK(t.format == ProfilerTrace::Format::rocpd);
    check_run(t);
    CHECK(std::string(t.ops[1].table) == "rocpd_kernel_dispatch");
    CHECK(t.ops[1].offset == 1);
    CHECK(t.calls[1].correlation == 101);  // the event's stack_id: rocprofiler's internal correlation
}

TEST_CASE("rocpd: without HIP calls each kernel is launched at its start, and errors name view, row and column",
          "[trace-import][rocpd]") {
    const ProfilerTrace t = read_db(std::string("DELETE FROM rocpd_region") + kSuffix + ";");
    REQUIRE(t.calls.size() == 3);
    CHECK(t.calls[1].name == "kernel launch");
    CHECK(t.calls[1].start_ns == 7000);
    CHECK(t.calls[1].end_ns == 7000);

    CHECK(error_of([] { read_db(std::string("UPDATE rocpd_kernel_dispatch") + kSuffix + " SET grid_size_y = 0 WHERE id = 2;"); }) ==
          "run.db: rocpd_kernel_dispatch row 2: grid_size_y: 0 is out of range");
    CHECK(error_of([] { read_db(std::string("UPDATE rocpd_kernel_dispatch") + kSuffix + " SET event_id = 99 WHERE id = 1;"); }) ==
          "run.db: rocpd_kernel_dispatch row 1: event_id: 99 is not in rocpd_event");
    CHECK(error_of([] { read_db(std::string("UPDATE rocpd_region") + kSuffix + " SET end = 0 WHERE id = 103;"); }) ==
          "run.db: rocpd_region row 4: end is before start");
    CHECK(error_of([] { read_db(std::string("DELETE FROM rocpd_kernel_dispatch") + kSuffix + ";"); }) ==
          "run.db: no kernels (rocpd_kernel_dispatch has no rows)");
    CHECK(error_of([] { read_db("DROP VIEW rocpd_event;"); }) ==
          "run.db: a rocpd database without rocpd_event: not one rocprofv3 wrote with --kernel-trace (ROCm 7.0 and later)");
}

TEST_CASE("rocprofv3 JSON: the same run as its rocpd database, read the same", "[trace-import][rocpd]") {
    const std::string text = read_trace_text(kJson);
    CHECK(trace_format(text) == TraceFormat::rocprofv3_json);
    const ProfilerTrace t = read_profiler_trace(kJson);
    CHECK(t.format == ProfilerTrace::Format::rocprofv3_json);
    check_run(t);

    // Errors: where the JSON stops parsing (its byte), else the value's path.
    CHECK(error_of([&] { parse_rocprofv3_json(text.substr(0, 100), "r.json"); }).find("r.json: byte ") == 0);
    std::string bad = text;
    bad.replace(bad.find("\"x\": 16384"), 10, "\"x\": -1");
    CHECK(error_of([&] { parse_rocprofv3_json(bad, "r.json"); }) ==
          "r.json: rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[0].dispatch_info.grid_size.x: -1 is out of range");
    bad = text;
    bad.replace(bad.find("\"operation\": 3"), 14, "\"operation\": 9");
    CHECK(error_of([&] { parse_rocprofv3_json(bad, "r.json"); }) ==
          "r.json: rocprofiler-sdk-tool[0].buffer_records.hip_api[3]: kind 1 operation 9 has no name in strings.buffer_records");
    CHECK(error_of([] { parse_rocprofv3_json("{\"rocprofiler-sdk-tool\": [{}]}", "r.json"); }) ==
          "r.json: no kernels (no buffer_records.kernel_dispatch records)");
}
