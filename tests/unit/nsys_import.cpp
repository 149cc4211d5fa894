// Nsight Systems' SQLite export (sc_main/profiler/nsys.cpp, database.cpp): fixtures built by the
// tests on the export's schema (tests/data/nsys/schema.sql), read as gpuvp reads a file (its
// bytes, sqlite3_deserialize); what each table becomes, and the errors naming table and row.
#include "sc_main/profiler/database.h"
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/trace_scenario.h"

#include "tests/files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>

using namespace gpuvp;
using gpuvp::test::slurp;
using gpuvp::test::temp_dir;

namespace {

const std::string kNsys = GPUVP_SOURCE_DIR "/tests/data/nsys/";
const std::string kSchema = slurp(kNsys + "schema.sql");
const std::string kTwoStreams = slurp(kNsys + "two-streams.sql");

// The export the schema and `rows` make, as gpuvp reads it from a file.
ProfilerTrace read(const std::string& rows, const std::string& file = "run.sqlite") {
    return parse_database(Database::from_sql(kSchema + rows, file).image(), file);
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

const TraceGpuOp& op_named(const ProfilerTrace& t, const std::string& name) {
    const auto it = std::find_if(t.ops.begin(), t.ops.end(), [&](const TraceGpuOp& o) { return o.name == name; });
    REQUIRE(it != t.ops.end());
    return *it;
}

}  // namespace

TEST_CASE("nsys: an export's kernels, copies, fills, graphs, calls, syncs and GPU", "[trace-import][nsys]") {
    const ProfilerTrace t = read(kTwoStreams);
    CHECK(t.format == ProfilerTrace::Format::nsys);
    REQUIRE(t.ops.size() == 5);
    // In start order, each with its table's row.
    CHECK(t.ops[0].kind == TraceGpuOp::Kind::copy);
    CHECK(t.ops[0].name == "Memcpy HtoD");
    CHECK(t.ops[0].bytes == 1048576);
    CHECK(std::string(t.ops[0].table) == "CUPTI_ACTIVITY_KIND_MEMCPY");
    const TraceGpuOp& gemm = t.ops[1];
    CHECK(gemm.kind == TraceGpuOp::Kind::kernel);
    CHECK(gemm.name == "void gemm_kernel<float>(float const*, float*, int)");  // demangledName
    CHECK(gemm.start_ns == 8500);
    CHECK(gemm.end_ns == 20500);
    CHECK(gemm.stream == 7);
    CHECK(gemm.correlation == 11);
    CHECK(gemm.grid == std::array<uint32_t, 3>{64, 2, 1});
    CHECK(gemm.block == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(gemm.registers == 64);
    CHECK(gemm.shared_bytes == 1024 + 16384);
    CHECK(gemm.offset == 1);
    CHECK(std::string(gemm.table) == "CUPTI_ACTIVITY_KIND_KERNEL");
    CHECK(t.ops[2].name == "relu_kernel(float*)");
    CHECK(t.ops[2].offset == 2);
    CHECK(t.ops[3].kind == TraceGpuOp::Kind::fill);
    CHECK(t.ops[3].bytes == 4096);
    const TraceGpuOp& graph = t.ops[4];
    CHECK(graph.kind == TraceGpuOp::Kind::graph);
    CHECK(graph.name == "CUDA graph 4");  // its graphExecId
    CHECK(graph.stream == 7);
    CHECK(graph.correlation == 16);
    CHECK(graph.end_ns - graph.start_ns == 14200);

    // Calls: names without CUPTI's version suffix, kinds by name, the thread's globalTid, the
    // stream of the work launched or of the sync record.
    REQUIRE(t.calls.size() == 8);
    CHECK(t.calls[0].name == "cudaMemcpyAsync");
    CHECK(t.calls[1].name == "cudaLaunchKernel");
    CHECK(t.calls[1].kind == TraceHostCall::Kind::launch);
    CHECK(t.calls[1].stream == 7);
    CHECK(t.calls[3].kind == TraceHostCall::Kind::stream_wait_event);
    CHECK(t.calls[3].stream == 13);
    CHECK(t.calls[6].kind == TraceHostCall::Kind::graph_launch);
    CHECK(t.calls[6].stream == 7);
    CHECK(t.calls[7].kind == TraceHostCall::Kind::stream_sync);
    for (const TraceHostCall& c : t.calls) CHECK(c.thread == 20703085779);

    // The wait names its record call and stream (CUDA_EVENT's row of event 5, recorded before
    // the wait); CUPTI's "not applicable" event is -1.
    REQUIRE(t.syncs.size() == 2);
    CHECK(t.syncs[0].kind == TraceSync::Kind::stream_wait_event);
    CHECK(t.syncs[0].stream == 13);
    CHECK(t.syncs[0].event == 5);
    CHECK(t.syncs[0].wait_on_event_record == 12);
    CHECK(t.syncs[0].wait_on_stream == 7);
    CHECK(t.syncs[1].kind == TraceSync::Kind::stream_sync);
    CHECK(t.syncs[1].event == -1);
    CHECK(t.syncs[1].wait_on_event_record == -1);

    // TARGET_INFO_GPU: the opt-in shared memory is a block's most; threads per SM from warps.
    REQUIRE(t.devices.size() == 1);
    const TraceDevice& d = t.devices[0];
    CHECK(d.id == 0);
    CHECK(d.name == "NVIDIA A100-SXM4-80GB");
    CHECK(d.sms == 108u);
    CHECK(d.warp_size == 32u);
    CHECK(d.shared_per_block == 166912u);
    CHECK(d.shared_per_sm == 167936u);
    CHECK(d.max_threads_per_sm == 2048u);
    CHECK(d.global_memory == 85899345920u);
    CHECK(d.compute_major == 8u);
    CHECK(!d.amd);
}

TEST_CASE("nsys: a kernel's label is the innermost NVTX range open at its launch", "[trace-import][nsys]") {
    const ProfilerTrace t = read(kTwoStreams);
    CHECK(op_named(t, "void gemm_kernel<float>(float const*, float*, int)").label == "forward");  // a registered string
    CHECK(op_named(t, "relu_kernel(float*)").label == "relu");
    CHECK(op_named(t, "Memset").label.empty());  // launched after both ranges closed; a mark is no range
    // Ranges that overlap without nesting (start/end): the latest-starting one still open.
    const ProfilerTrace u = read(kTwoStreams + R"(
        DELETE FROM NVTX_EVENTS;
        INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES
            (500, 4500, 60, 20703085779, 'a'), (3800, 9600, 60, 20703085779, 'b'), (9400, 9700, 60, 1, 'other thread');)");
    CHECK(op_named(u, "Memcpy HtoD").label == "a");
    CHECK(op_named(u, "void gemm_kernel<float>(float const*, float*, int)").label == "b");
    CHECK(op_named(u, "Memset").label == "b");
    // Nested ranges: an outer one still open after its inner one ended; two that start together
    // (the shorter is the inner); a range that starts, or ends, exactly at the call.
    const ProfilerTrace v = read(kTwoStreams + R"(
        DELETE FROM NVTX_EVENTS;
        INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES
            (1000, 9600, 59, 20703085779, 'outer'), (1000, 3000, 59, 20703085779, 'inner'),
            (4000, 4100, 59, 20703085779, 'at the start'), (8000, 8200, 59, 20703085779, 'ends at the call');)");
    CHECK(op_named(v, "Memcpy HtoD").label == "inner");                                          // its call at 1000
    CHECK(op_named(v, "void gemm_kernel<float>(float const*, float*, int)").label == "at the start");  // 4000
    CHECK(op_named(v, "relu_kernel(float*)").label == "ends at the call");                       // 8200
    CHECK(op_named(v, "Memset").label == "outer");                                               // 9500: inner ones ended
}

TEST_CASE("nsys: correlations of several processes are kept apart, and older exports read", "[trace-import][nsys]") {
    // A second process (pid 99) whose correlation 11 launches another kernel.
    const ProfilerTrace t = read(kTwoStreams + R"(
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue)
            VALUES (4100, 4200, 0, 1660944484, 11, 3, 0);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30000, 31000, 0, 1, 7, 11, 1660944384, 9, 12, NULL, 0, 0, 16, 1, 1, 1, 32,
            1, 1, 0, 0, 0, 0, 103, NULL, NULL, NULL);)");
    const TraceGpuOp& other = t.ops.back();
    CHECK(other.start_ns == 30000);
    CHECK(other.correlation == (int64_t(1) << 32 | 11));  // the second process met
    CHECK(other.stream == (int64_t(1) << 32 | 7));        // its stream 7 is not the first's
    const auto call = std::find_if(t.calls.begin(), t.calls.end(), [](const TraceHostCall& c) { return c.thread == 1660944484; });
    REQUIRE(call != t.calls.end());
    CHECK(call->correlation == other.correlation);
    CHECK(op_named(t, "void gemm_kernel<float>(float const*, float*, int)").correlation == 11);

    // Without ENUM_CUPTI_SYNC_TYPE, CUPTI's numbers; without CUDA_EVENT the wait names only its
    // event; without TARGET_INFO_GPU, no device described.
    const ProfilerTrace old = read(kTwoStreams + R"(
        DROP TABLE ENUM_CUPTI_SYNC_TYPE; DROP TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT; DROP TABLE TARGET_INFO_GPU;)");
    REQUIRE(old.syncs.size() == 2);
    CHECK(old.syncs[0].kind == TraceSync::Kind::stream_wait_event);
    CHECK(old.syncs[0].event == 5);
    CHECK(old.syncs[0].wait_on_event_record == -1);
    CHECK(old.devices.empty());

    // NULL where the schema allows it: no correlation, the one process.
    const ProfilerTrace nulls = read(kTwoStreams + R"(
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = NULL, globalPid = NULL WHERE rowid = 2;)");
    CHECK(op_named(nulls, "relu_kernel(float*)").correlation == -1);
    CHECK(op_named(nulls, "relu_kernel(float*)").stream == 13);
}

TEST_CASE("nsys: a wait joins the record its eventSyncId names, else the event's last record before it",
          "[trace-import][nsys]") {
    // Event 5 recorded twice before the wait: on stream 7 (correlation 12), then on stream 13
    // (correlation 18).
    const std::string twice = kTwoStreams + R"(
        ALTER TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ADD COLUMN eventSyncId INTEGER;
        ALTER TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT ADD COLUMN eventSyncId INTEGER;
        UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET eventSyncId = 1;
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (7100, 7200, 0, 20703085779, 18, 6, 0, NULL);
        INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 13, 18, 20703084544, 5, 2);)";
    const ProfilerTrace last = read(twice);
    CHECK(last.syncs[0].wait_on_event_record == 18);
    CHECK(last.syncs[0].wait_on_stream == 13);
    const ProfilerTrace named = read(twice + "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET eventSyncId = 1 WHERE syncType = 2;");
    CHECK(named.syncs[0].wait_on_event_record == 12);
    CHECK(named.syncs[0].wait_on_stream == 7);
}

TEST_CASE("nsys: read from a file, the format by its bytes, and a report refused with the command", "[trace-import][nsys]") {
    const std::string dir = temp_dir();
    const std::string file = dir + "/run.sqlite";
    {
        std::ofstream out(file, std::ios::binary);
        out << Database::from_sql(kSchema + kTwoStreams, file).image();
    }
    CHECK(trace_format(read_trace_text(file)) == TraceFormat::sqlite);
    const ProfilerTrace t = read_profiler_trace(file);
    CHECK(t.ops.size() == 5);
    CHECK(t.file == file);
    const std::string rep = error_of([&] { read_trace_text(dir + "/run.nsys-rep"); });
    CHECK(rep.find("an Nsight Systems report") != std::string::npos);
    CHECK(rep.find("nsys export --type sqlite --output " + dir + "/run.sqlite " + dir + "/run.nsys-rep") != std::string::npos);
}

TEST_CASE("nsys errors name the file, the table, the row and the column", "[trace-import][nsys]") {
    CHECK(error_of([] { read(kTwoStreams + "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridY = 'two' WHERE rowid = 2;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_KERNEL row 2: gridY: an integer expected, found \"two\"");
    CHECK(error_of([] { read(kTwoStreams + "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET blockX = 0 WHERE rowid = 1;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_KERNEL row 1: blockX: 0 is out of range");
    CHECK(error_of([] { read(kTwoStreams + "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET end = 0;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_MEMSET row 1: end is before start");
    CHECK(error_of([] { read(kTwoStreams + "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 77 WHERE rowid = 3;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_RUNTIME row 3: nameId: string id 77 is not in StringIds");
    CHECK(error_of([] { read(kTwoStreams + "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN gridZ;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_KERNEL has no column gridZ");
    CHECK(error_of([] { read("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"); }) ==
          "run.sqlite: an SQLite database with neither Nsight Systems' CUPTI_ACTIVITY_KIND_KERNEL nor rocpd's "
          "rocpd_kernel_dispatch: not a profiler's database gpuvp reads");
    CHECK(error_of([] { read(""); }).find("run.sqlite: no kernels") == 0);
    CHECK(error_of([] { read(kTwoStreams + "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -5 WHERE rowid = 1;"); }) ==
          "run.sqlite: CUPTI_ACTIVITY_KIND_KERNEL row 1: start: -5 is out of range");
    // A view that never ends is an error naming what was read, not a hang.
    const std::string endless = error_of([] {
        read(kTwoStreams + R"(DROP TABLE StringIds; CREATE VIEW StringIds (id, value) AS
            WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i, 'x' FROM r;)");
    });
    CHECK(endless.find("run.sqlite: StringIds row ") == 0);  // the row where the budget ran out
    CHECK_THAT(endless, Catch::Matchers::EndsWith(": reading StringIds takes more work than the file's size allows (a view "
                                                  "or trigger that does not end?)"));
    // Bytes that start as a database and are not one.
    std::string image = Database::from_sql(kSchema + kTwoStreams, "x").image();
    image.resize(image.size() / 2);
    CHECK(error_of([&] { parse_database(image, "cut.sqlite"); }).find("cut.sqlite: SQLite cannot read") == 0);
    CHECK(error_of([] { parse_database(std::string("SQLite format 3") + '\0' + std::string(200, '\x7f'), "junk.sqlite"); }) ==
          "junk.sqlite: SQLite cannot read the database: file is not a database");
}

TEST_CASE("nsys: the import makes a graph traced whole one piece of work and the wait an order", "[trace-import][nsys]") {
    TraceImportOptions o;
    TraceImportSummary sum;
    const std::string yaml = trace_scenario_yaml(read(kTwoStreams), o, &sum);
    CHECK(sum.kernels == 2);
    CHECK(sum.copies == 2);
    CHECK(sum.graphs == 1);
    CHECK(sum.gpu == "NVIDIA A100-SXM4-80GB");
    CHECK(sum.preset == "a100");
    CHECK(sum.streams == 2);
    CHECK(yaml.find("name: graph#0") != std::string::npos);
    CHECK(yaml.find("label: forward") != std::string::npos);  // the GEMM's NVTX range
    // relu waits for the GEMM through the event (its `after`).
    const size_t relu = yaml.find("name: relu_kernel#0");
    REQUIRE(relu != std::string::npos);
    const std::string line = yaml.substr(relu, yaml.find('\n', relu) - relu);
    CHECK(line.find("after: [gemm_kernel#0]") != std::string::npos);

    // An export of a graph traced whole and nothing else replays the graph.
    TraceImportSummary graph;
    trace_scenario_yaml(read(slurp(GPUVP_SOURCE_DIR "/fuzz/corpus/databases/graph-only.sql")), o, &graph);
    CHECK(graph.graphs == 1);
    CHECK(graph.kernels == 0);
}
