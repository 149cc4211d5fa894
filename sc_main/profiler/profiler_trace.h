// A GPU profiler trace as read from its file, before it becomes a scenario: the devices, the
// host's runtime calls, the GPU's kernels, copies and fills, and the synchronisation records.
// Filled by the readers of sc_main/profiler/ (Kineto Chrome-trace JSON from CUDA or ROCm,
// rocprofv3 CSV, Nsight Systems' SQLite export); read by the converter to a scenario
// (trace_scenario.h). No SystemC here.
//
// Times are integer nanoseconds on the trace's own clock, read exactly from the file's
// decimal text (never through a double); the readers of the formats that give integers keep
// them in [0, kMaxTraceTime] (146 years of ns), so that differences of two never overflow.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp {

constexpr int64_t kMaxTraceTime = int64_t(1) << 62;

// The GPU a trace was recorded on, from Kineto's `deviceProperties` (its key names differ
// between CUDA and ROCm traces); what the trace does not say is unset.
struct TraceDevice {
    int64_t id = 0;
    std::string name;                   // "NVIDIA A100-PG509-200", "AMD Radeon Graphics"
    std::optional<uint32_t> sms;        // numSms (CUs on AMD)
    std::optional<uint32_t> warp_size;  // warpSize
    std::optional<uint32_t> max_threads_per_block, max_threads_per_sm;
    std::optional<uint32_t> registers_per_sm, registers_per_block;
    std::optional<uint32_t> shared_per_sm, shared_per_block;  // bytes
    std::optional<uint64_t> global_memory;                    // totalGlobalMem, bytes
    std::optional<uint32_t> compute_major, compute_minor;
    bool amd = false;  // a ROCm trace (warpSize 64, maxSharedMemoryPerMultiProcessor, ...)
};

// What the GPU ran: a kernel, a copy, a fill, or a CUDA graph traced whole (its kernels not
// recorded one by one), with what the hardware measured.
struct TraceGpuOp {
    enum class Kind : uint8_t { kernel, copy, fill, graph };
    Kind kind = Kind::kernel;
    std::string name;
    int64_t device = 0;
    int64_t stream = 0;
    int64_t correlation = -1;   // joins it to its host call; -1: none in the trace
    int64_t start_ns = 0, end_ns = 0;
    // Kernels: the grid in blocks and the block in work-items, as CUDA counts them.
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    bool shape_defaulted = false;  // the trace had no grid or block (ROCm): defaults were used
    uint32_t registers = 0;        // per thread (VGPRs on AMD)
    uint32_t scalar_registers = 0; // SGPRs (rocprofv3), 0 if not given
    uint32_t shared_bytes = 0;     // static + dynamic shared memory (LDS) per block
    uint64_t bytes = 0;            // copies and fills: bytes moved
    std::string label;             // the innermost NVTX range around its launch, where the trace has one
    // Where it is in the file: its '{' in the (gunzipped) Kineto JSON; a CSV's line; a
    // database's row (its rowid) of `table`; rocprofv3's JSON: its index in the array `table`.
    uint64_t offset = 0;
    const char* table = nullptr;
};

// One call of the host's runtime (cudaLaunchKernel, hipMemcpyWithStream, cudaDeviceSynchronize,
// ...), in the order the thread made them.
struct TraceHostCall {
    enum class Kind : uint8_t {
        launch,             // cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, hipExtModuleLaunchKernel
        graph_launch,       // cudaGraphLaunch: several kernels, one call
        copy,               // cudaMemcpyAsync, cudaMemcpy, hipMemcpyWithStream, hipMemcpyAsync, ...
        fill,               // cudaMemsetAsync, hipMemsetAsync, ...
        device_sync,        // cudaDeviceSynchronize, hipDeviceSynchronize
        stream_sync,        // cudaStreamSynchronize, hipStreamSynchronize
        event_sync,         // cudaEventSynchronize, hipEventSynchronize
        event_record,       // cudaEventRecord: marks the stream's last work so far
        stream_wait_event,  // cudaStreamWaitEvent: a stream waits for a recorded event
        other,              // anything else (cudaMalloc, cudaStreamIsCapturing, ...): CPU time only
    };
    Kind kind = Kind::other;
    std::string name;
    int64_t thread = 0;        // the host thread (Kineto tid)
    int64_t start_ns = 0, end_ns = 0;
    int64_t correlation = -1;
    // Where the trace says: HIP's `stream` handle, numbered as the stream of the ops its calls
    // launched; a cuda_sync record's stream; rocprofv3: its kernel's. Unset: not said.
    std::optional<int64_t> stream;
    uint64_t offset = 0;
};

// Kineto's `cuda_sync` records: what a synchronising call waited for.
struct TraceSync {
    enum class Kind : uint8_t { stream_sync, event_sync, context_sync, stream_wait_event };
    Kind kind = Kind::stream_sync;
    int64_t correlation = -1;  // of the host call it belongs to
    int64_t device = 0;
    int64_t stream = -1;       // the stream that waits (stream_wait_event) or is waited on
    int64_t start_ns = 0, end_ns = 0;
    // stream_wait_event and event_sync: the stream the event was recorded on and the
    // correlation of its cudaEventRecord call (-1 when the trace does not say), and the event
    // (CUPTI's id for it; -1: not said). Some traces give only the event: the importer then
    // joins the record to its event's record call (docs/replay.md).
    int64_t wait_on_stream = -1;
    int64_t wait_on_event_record = -1;
    int64_t event = -1;
    uint64_t offset = 0;
};

struct ProfilerTrace {
    enum class Format : uint8_t { kineto, rocprofv3, nsys, rocpd, rocprofv3_json };
    Format format = Format::kineto;
    std::string file;
    std::vector<TraceDevice> devices;
    std::vector<TraceGpuOp> ops;       // in start order (ties: file order)
    std::vector<TraceHostCall> calls;  // in start order (ties: file order), every thread
    std::vector<TraceSync> syncs;      // in start order
    uint64_t shapes_defaulted = 0;     // kernels whose grid or block the trace lacked
};

// Bad input in a trace: the file and where (a byte offset for JSON, a line for CSV, a table's
// row for a database) and why. Exit code 2.
class TraceError : public std::runtime_error {
public:
    enum class Where : uint8_t { none, byte, line, row };
    TraceError(const std::string& file, Where where, uint64_t at, const std::string& why)
        : std::runtime_error(format(file, where, at, why)), file_(file), where_(where), at_(at) {}
    // A database's row: "FILE: TABLE row N: why".
    TraceError(const std::string& file, const std::string& table, uint64_t row, const std::string& why)
        : TraceError(file, Where::row, row, table + " row " + std::to_string(row) + ": " + why) {}
    const std::string& file() const { return file_; }
    Where where() const { return where_; }
    uint64_t at() const { return at_; }

private:
    static std::string format(const std::string& f, Where w, uint64_t at, const std::string& why) {
        std::string s = f;
        if (w == Where::byte) s += ": byte " + std::to_string(at);
        if (w == Where::line) s += ":" + std::to_string(at);
        return s + ": " + why;
    }
    std::string file_;
    Where where_;
    uint64_t at_;
};

// An error about `op`, at its place in the file as its reader recorded it (TraceGpuOp::offset
// and table): a Kineto event's byte, a CSV's line, a database's table and row, a JSON array's
// element.
inline TraceError op_error(const ProfilerTrace& t, const TraceGpuOp& op, const std::string& why) {
    if (op.table && t.format == ProfilerTrace::Format::rocprofv3_json)
        return TraceError(t.file, TraceError::Where::none, 0, std::string(op.table) + "[" + std::to_string(op.offset) + "]: " + why);
    if (op.table) return TraceError(t.file, op.table, op.offset, why);
    return TraceError(t.file, t.format == ProfilerTrace::Format::kineto ? TraceError::Where::byte : TraceError::Where::line,
                      op.offset, why);
}

// The file's text, gunzipped if it is gzip (by its magic bytes, whatever its name). Throws
// TraceError if it cannot be read or is a broken gzip stream.
std::string read_trace_text(const std::string& path);
// The bytes gunzipped if they start with gzip's magic (1f 8b), else the bytes themselves.
// Concatenated gzip members are one stream. A broken or cut stream, or other bytes after it:
// TraceError at the compressed byte offset, naming `file`.
std::string gunzip_if_gzip(std::string bytes, const std::string& file);

// Whether the text is a profiler trace: Kineto JSON (an object with a `traceEvents` array), a
// rocprofv3 CSV (its kernel_trace header), rocprofv3's JSON (an object with
// `rocprofiler-sdk-tool`) or an SQLite database (Nsight Systems' export,
// rocprofv3's rocpd).
// Anything else is read as a scenario.
enum class TraceFormat : uint8_t { none, kineto, rocprofv3, rocprofv3_json, sqlite };
TraceFormat trace_format(const std::string& text);
// Why a text that is not a profiler trace (trace_format none) is not a scenario either, from its
// content; "" when it may be one (YAML, or a JSON object with a scenario's keys). For JSON text
// (it starts with '{' or '['): "the JSON text ends at byte N, before it is complete ...",
// "byte N: not JSON: ...", or "not a profiler trace or a scenario: a JSON object with ...".
std::string not_a_scenario(const std::string& text);
// What a file that is none of them is told.
inline constexpr const char* kNotATrace =
    "not a profiler trace (a Kineto JSON with traceEvents, rocprofv3's kernel_trace.csv, results.json or rocpd database, "
    "or an Nsight Systems SQLite export)";

// How far a reader has read its text: called now and then (about every half percent) with the
// bytes read and the text's size.
using ReadProgress = std::function<void(size_t read, size_t size)>;

// The readers. Throw TraceError on bad input (truncated or invalid JSON or CSV, a kernel event
// without the fields a kernel needs, no kernels at all).
ProfilerTrace parse_kineto(const std::string& text, const std::string& file, const ReadProgress& progress = {});
// rocprofv3's kernel_trace.csv, and optionally the hip_api_trace.csv of the same run (empty:
// none; the host's calls are then the kernels' own launches, one per kernel, 0 ns long).
ProfilerTrace parse_rocprofv3(const std::string& kernel_csv, const std::string& file,
                              const std::string& hip_api_csv = {}, const std::string& hip_api_file = {});
// rocprofv3's JSON output (PREFIX_results.json): kernel dispatches, memory copies, HIP API calls,
// agents. TraceError: the JSON's byte where it does not parse, else the path of the value.
ProfilerTrace parse_rocprofv3_json(const std::string& text, const std::string& file);
// An SQLite database's bytes (`nsys export --type sqlite`, rocprofv3's rocpd): the tables it
// has name the reader. TraceError if it is not a database, is corrupt, or has no profiler's tables.
ProfilerTrace parse_database(std::string bytes, const std::string& file);
// read_trace_text, then the reader its format names; for a rocprofv3 kernel_trace.csv, the
// hip_api_trace.csv beside it (same folder, same prefix) is read too when it is there.
ProfilerTrace read_profiler_trace(const std::string& path);
// The same for a file already read: `text` is read_trace_text(path), `format` its trace_format;
// `progress` as the Kineto reader reads (the other formats read too quickly to need it).
ProfilerTrace parse_profiler_trace(const std::string& text, TraceFormat format, const std::string& path,
                                   const ReadProgress& progress = {});

// A host call's kind by its function's name (CUDA runtime or driver, HIP; a version suffix as
// in cuMemcpyHtoD_v2 or cuLaunchKernel_ptsz is allowed): the list of TraceHostCall::Kind.
TraceHostCall::Kind host_call_kind(std::string_view name);

// A decimal number as a trace writes a time ("1712195495505583.0", "2413669097444.592", "12",
// "1.5e3") in units of 10^-scale of the result's unit, exactly: parse_decimal("1.5", 3) is
// 1500. Nothing if the text is not a number or does not fit in int64 (fractions beyond the
// scale are rounded half away from zero).
std::optional<int64_t> parse_decimal(const std::string& text, int scale);

namespace detail {
// The readers' last step: ops, calls and syncs in start order, ties in file order.
void sort_by_start(ProfilerTrace& trace);
// A call without a stream takes that of the work it launched (by correlation), else that of
// its sync record (formats whose calls carry no stream).
void streams_from_work(ProfilerTrace& trace);
// A trace without its host API calls: each op's launch is a call at its start, 0 ns long, named
// "kernel launch", on the thread that dispatched it (threads[i]: ops[i]'s).
void launches_at_start(ProfilerTrace& trace, const std::vector<int64_t>& threads);
// The last step of a reader whose calls come from a separate record of the host's API (rocprofv3's
// and rocpd's): launches_at_start if there are none, streams_from_work, sort_by_start.
void finish_with_launches(ProfilerTrace& trace, const std::vector<int64_t>& threads);
// A grid given in work-items (an AQL packet's, rocprofiler's) in blocks of `block`: a partial
// block at the edge is a block.
inline uint32_t blocks_of(uint32_t items, uint32_t block) { return uint32_t((uint64_t(items) + block - 1) / block); }
}  // namespace detail

}  // namespace gpuvp
