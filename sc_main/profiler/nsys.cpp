// Nsight Systems' SQLite export (`nsys export --type sqlite`) into a ProfilerTrace: CUPTI's
// kernel, copy, fill, runtime and synchronisation tables, CUDA graphs traced whole, the GPUs of
// TARGET_INFO_GPU, NVTX ranges as the kernels' labels. Tables and columns are found by name
// (docs/trace-import.md lists them and the export versions followed); times are integer ns on
// the report's clock.
#include "sc_main/profiler/database.h"
#include "sc_main/profiler/profiler_trace.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gpuvp {

namespace {

constexpr const char* kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kCopies = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kFills = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kSyncs = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr const char* kGraphs = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
constexpr const char* kEvents = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
constexpr const char* kSyncTypes = "ENUM_CUPTI_SYNC_TYPE";
constexpr const char* kGpus = "TARGET_INFO_GPU";
constexpr const char* kCudaDevices = "TARGET_INFO_CUDA_DEVICE";
constexpr const char* kNvtx = "NVTX_EVENTS";

// CUPTI's "not applicable" (uint32 -1) in a synchronisation record's stream or event.
constexpr int64_t kCuptiInvalid = 4294967295;

// NVTX_EVENTS.eventType: a push/pop range and a start/end range.
constexpr int64_t kNvtxPushPop = 59, kNvtxStartEnd = 60;

// CUpti_ActivityMemcpyKind, as a copy's name says it (the importer reads the direction).
const char* copy_name(int64_t kind) {
    switch (kind) {
    case 1: return "Memcpy HtoD";
    case 2: return "Memcpy DtoH";
    case 3: return "Memcpy HtoA";
    case 4: return "Memcpy AtoH";
    case 5: return "Memcpy AtoA";
    case 6: return "Memcpy AtoD";
    case 7: return "Memcpy DtoA";
    case 8: return "Memcpy DtoD";
    case 9: return "Memcpy HtoH";
    case 10: return "Memcpy PtoP";
    default: return "Memcpy";
    }
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": CUPTI's version suffix dropped (not "_ptsz").
std::string without_version(std::string name) {
    const size_t v = name.rfind("_v");
    if (v != std::string::npos && v + 2 < name.size() &&
        std::all_of(name.begin() + long(v) + 2, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        name.resize(v);
    return name;
}

class Reader {
public:
    Reader(const Database& db) : db_(db) {
        trace.format = ProfilerTrace::Format::nsys;
        trace.file = db.file();
    }

    ProfilerTrace read() {
        strings();
        devices();
        kernels();
        if (db_.has(kCopies)) copies(kCopies, TraceGpuOp::Kind::copy);
        if (db_.has(kFills)) copies(kFills, TraceGpuOp::Kind::fill);
        if (db_.has(kGraphs)) graphs();
        if (db_.has(kRuntime)) calls();
        if (db_.has(kSyncs)) syncs();
        if (db_.has(kEvents) && !trace.syncs.empty()) event_records();
        if (db_.has(kNvtx)) labels();
        if (std::none_of(trace.ops.begin(), trace.ops.end(), [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::kernel; }) &&
            std::none_of(trace.ops.begin(), trace.ops.end(), [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::graph; }))
            throw TraceError(trace.file, TraceError::Where::none, 0,
                             std::string("no kernels (") + kKernels + " has no rows and no CUDA graph was traced whole)");
        detail::streams_from_work(trace);
        detail::sort_by_start(trace);
        return std::move(trace);
    }

    ProfilerTrace trace;

private:
    const Database& db_;
    std::unordered_map<int64_t, std::string> strings_;  // StringIds
    std::map<int64_t, int64_t> process_;                // a process's number, by its pid
    std::vector<int64_t> sync_ids_;                     // each sync record's eventSyncId (-1: none)

    void strings() {
        if (!db_.has("StringIds")) return;
        DbTable t(db_, "StringIds");
        const int id = t.column({"id"}), value = t.column({"value"});
        while (t.next()) strings_[t.integer(id)] = t.text(value);
    }

    const std::string& string(const DbTable& t, int column) const {
        const int64_t id = t.integer(column);
        const auto s = strings_.find(id);
        if (s == strings_.end())
            throw t.error(t.column_name(column) + ": string id " + std::to_string(id) + " is not in StringIds");
        return s->second;
    }

    // CUPTI numbers correlations, streams and events per process: with several processes, each
    // one's are kept apart (the process's number, from 0 in the order met, above CUPTI's 32
    // bits). -1 (none) stays; a NULL process is the first's.
    int64_t per_process(const DbTable& t, int64_t id, std::optional<int> pid_column) {
        if (id < 0 || !pid_column || t.null(*pid_column)) return id;
        const int64_t pid = t.integer(*pid_column) >> 24;  // globalPid and globalTid: the pid above bit 24
        const auto [it, fresh] = process_.emplace(pid, int64_t(process_.size()));
        return (it->second << 32) | id;
    }
    // A correlation, stream or event id of CUPTI's (32 bits; "not applicable" and NULL: -1),
    // kept apart per process.
    int64_t cupti_id(const DbTable& t, int column, std::optional<int> pid_column) {
        if (t.null(column)) return -1;
        const int64_t id = t.integer(column, -1, kCuptiInvalid);
        return per_process(t, id == kCuptiInvalid ? -1 : id, pid_column);
    }

    void devices() {
        if (!db_.has(kGpus)) return;
        // TARGET_INFO_GPU's id is Nsight's own; the kernels' deviceId is CUDA's: its cuDevice
        // column, else through TARGET_INFO_CUDA_DEVICE where the export has them.
        std::unordered_map<int64_t, int64_t> cuda_of;
        if (db_.has(kCudaDevices)) {
            DbTable m(db_, kCudaDevices);
            const int gpu = m.column({"gpuId"}), cuda = m.column({"cudaId"});
            while (m.next()) cuda_of.emplace(m.integer(gpu), m.integer(cuda));
        }
        DbTable t(db_, kGpus);
        const int id = t.column({"id"});
        const std::optional<int> name = t.optional({"name"}), cu_device = t.optional({"cuDevice"});
        struct Field {
            std::optional<int> column;
            std::optional<uint32_t> TraceDevice::*out;
        };
        const Field fields[] = {
            {t.optional({"smCount"}), &TraceDevice::sms},
            {t.optional({"threadsPerWarp"}), &TraceDevice::warp_size},
            {t.optional({"maxThreadsPerBlock"}), &TraceDevice::max_threads_per_block},
            {t.optional({"maxRegistersPerSm"}), &TraceDevice::registers_per_sm},
            {t.optional({"maxRegistersPerBlock"}), &TraceDevice::registers_per_block},
            {t.optional({"maxShmemPerSm"}), &TraceDevice::shared_per_sm},
            {t.optional({"maxShmemPerBlock"}), &TraceDevice::shared_per_block},
            {t.optional({"computeMajor"}), &TraceDevice::compute_major},
            {t.optional({"computeMinor"}), &TraceDevice::compute_minor},
        };
        const std::optional<int> optin = t.optional({"maxShmemPerBlockOptin"});
        const std::optional<int> warps = t.optional({"maxWarpsPerSm"});
        const std::optional<int> memory = t.optional({"totalMemory"});
        while (t.next()) {
            TraceDevice d;
            const int64_t nsight = t.integer(id);
            const auto cuda = cuda_of.find(nsight);
            d.id = cu_device && !t.null(*cu_device) ? t.integer(*cu_device) : cuda != cuda_of.end() ? cuda->second : nsight;
            if (std::any_of(trace.devices.begin(), trace.devices.end(), [&](const TraceDevice& o) { return o.id == d.id; }))
                continue;  // a GPU seen by several processes
            if (name) d.name = t.text(*name);
            for (const Field& f : fields)
                if (f.column && !t.null(*f.column)) {
                    const uint32_t v = t.u32(*f.column);
                    if (v) d.*f.out = v;  // 0: not known
                }
            // A block may have what the kernel opts in to (cudaFuncSetAttribute), more than the
            // 48 KB default: the most a block can have is the larger.
            if (optin && !t.null(*optin)) {
                const uint32_t v = t.u32(*optin);
                if (v && (!d.shared_per_block || v > *d.shared_per_block)) d.shared_per_block = v;
            }
            if (warps && d.warp_size && !t.null(*warps)) {
                const uint64_t threads = uint64_t(t.u32(*warps)) * *d.warp_size;
                if (threads && threads <= UINT32_MAX) d.max_threads_per_sm = uint32_t(threads);
            }
            if (memory && !t.null(*memory)) {
                const int64_t bytes = t.integer(*memory, 0);
                if (bytes) d.global_memory = uint64_t(bytes);
            }
            trace.devices.push_back(std::move(d));
        }
    }

    // The columns every GPU table has.
    struct Common {
        int start, end, device, stream, correlation;
        std::optional<int> pid;
    };
    Common common(DbTable& t) {
        return {t.column({"start"}), t.column({"end"}), t.column({"deviceId"}), t.column({"streamId"}),
                t.column({"correlationId"}), t.optional({"globalPid"})};
    }
    void fill_common(const DbTable& t, const Common& c, TraceGpuOp& op) {
        std::tie(op.start_ns, op.end_ns) = t.interval(c.start, c.end);
        op.device = t.integer(c.device, 0);
        op.stream = cupti_id(t, c.stream, c.pid);
        if (op.stream < 0) throw t.error(t.column_name(c.stream) + ": no stream");
        op.correlation = cupti_id(t, c.correlation, c.pid);
        op.offset = t.row();
    }

    void kernels() {
        if (!db_.has(kKernels))
            throw TraceError(trace.file, TraceError::Where::none, 0,
                             std::string("an SQLite database without ") + kKernels +
                                 ": not an Nsight Systems export with CUDA's trace (nsys profile --trace=cuda)");
        DbTable t(db_, kKernels);
        const Common c = common(t);
        const int name = t.column({"demangledName", "shortName", "name"});
        const int grid[3] = {t.column({"gridX"}), t.column({"gridY"}), t.column({"gridZ"})};
        const int block[3] = {t.column({"blockX"}), t.column({"blockY"}), t.column({"blockZ"})};
        const std::optional<int> registers = t.optional({"registersPerThread"});
        const std::optional<int> shared_static = t.optional({"staticSharedMemory"});
        const std::optional<int> shared_dynamic = t.optional({"dynamicSharedMemory"});
        while (t.next()) {
            TraceGpuOp op;
            op.kind = TraceGpuOp::Kind::kernel;
            op.table = kKernels;
            fill_common(t, c, op);
            op.name = string(t, name);
            for (size_t d = 0; d < 3; ++d) {
                op.grid[d] = t.u32(grid[d], 1);
                op.block[d] = t.u32(block[d], 1);
            }
            op.registers = uint32_t(t.integer_or(registers, 0, 0, UINT32_MAX));
            const int64_t shared = t.integer_or(shared_static, 0, 0, UINT32_MAX) + t.integer_or(shared_dynamic, 0, 0, UINT32_MAX);
            if (shared > int64_t(UINT32_MAX)) throw t.error("staticSharedMemory + dynamicSharedMemory is out of range");
            op.shared_bytes = uint32_t(shared);
            trace.ops.push_back(std::move(op));
        }
    }

    void copies(const char* table, TraceGpuOp::Kind kind) {
        DbTable t(db_, table);
        const Common c = common(t);
        const int bytes = t.column({"bytes"});
        const std::optional<int> copy_kind = kind == TraceGpuOp::Kind::copy ? t.optional({"copyKind"}) : std::nullopt;
        while (t.next()) {
            TraceGpuOp op;
            op.kind = kind;
            op.table = table;
            fill_common(t, c, op);
            op.bytes = uint64_t(t.integer(bytes, 0));
            op.name = kind == TraceGpuOp::Kind::fill ? "Memset" : copy_name(t.integer_or(copy_kind, 0));
            trace.ops.push_back(std::move(op));
        }
    }

    // A CUDA graph traced whole (nsys --cuda-graph-trace=graph, the default where the driver
    // can): one row a launch, with its cudaGraphLaunch's correlation; no row for its kernels.
    void graphs() {
        DbTable t(db_, kGraphs);
        const Common c = common(t);
        const std::optional<int> graph = t.optional({"graphExecId", "graphId"});
        while (t.next()) {
            TraceGpuOp op;
            op.kind = TraceGpuOp::Kind::graph;
            op.table = kGraphs;
            fill_common(t, c, op);
            op.name = "CUDA graph";
            if (graph && !t.null(*graph)) op.name += " " + std::to_string(t.integer(*graph));
            trace.ops.push_back(std::move(op));
        }
    }

    void calls() {
        DbTable t(db_, kRuntime);
        const int start = t.column({"start"}), end = t.column({"end"});
        const int thread = t.column({"globalTid"});
        const int correlation_id = t.column({"correlationId"});
        const int name = t.column({"nameId"});
        while (t.next()) {
            TraceHostCall call;
            call.name = without_version(string(t, name));
            call.kind = host_call_kind(call.name);
            std::tie(call.start_ns, call.end_ns) = t.interval(start, end);
            call.thread = t.integer_or(thread, 0);
            call.correlation = cupti_id(t, correlation_id, thread);
            call.offset = t.row();
            trace.calls.push_back(std::move(call));
        }
    }

    // A synchronisation record's kind by its syncType: through ENUM_CUPTI_SYNC_TYPE's names
    // where the export has it, else CUPTI's numbers (CUpti_ActivitySynchronizationType: 1 event
    // synchronise, 2 stream wait event, 3 stream synchronise, 4 context synchronise).
    std::unordered_map<int64_t, TraceSync::Kind> sync_kinds() const {
        using K = TraceSync::Kind;
        std::unordered_map<int64_t, K> kinds{{1, K::event_sync}, {2, K::stream_wait_event}, {3, K::stream_sync}, {4, K::context_sync}};
        if (!db_.has(kSyncTypes)) return kinds;
        kinds.clear();
        DbTable t(db_, kSyncTypes);
        const int id = t.column({"id"}), name = t.column({"name"});
        const std::pair<const char*, K> known[] = {{"EVENT_SYNCHRONIZE", K::event_sync},
                                                   {"STREAM_WAIT_EVENT", K::stream_wait_event},
                                                   {"STREAM_SYNCHRONIZE", K::stream_sync},
                                                   {"CONTEXT_SYNCHRONIZE", K::context_sync}};
        while (t.next()) {
            const std::string n = t.text(name);
            for (const auto& [suffix, kind] : known) {
                const std::string x = suffix;
                if (n.size() >= x.size() && n.compare(n.size() - x.size(), x.size(), x) == 0) kinds.emplace(t.integer(id), kind);
            }
        }
        return kinds;
    }

    void syncs() {
        const std::unordered_map<int64_t, TraceSync::Kind> kinds = sync_kinds();
        DbTable t(db_, kSyncs);
        const Common c = common(t);
        const int type = t.column({"syncType"});
        const std::optional<int> event = t.optional({"eventId"});
        const std::optional<int> event_sync = t.optional({"eventSyncId"});
        while (t.next()) {
            TraceSync s;
            const auto kind = kinds.find(t.integer(type));
            if (kind == kinds.end()) continue;  // not one the replay knows
            s.kind = kind->second;
            std::tie(s.start_ns, s.end_ns) = t.interval(c.start, c.end);
            s.device = t.integer(c.device, -1, kCuptiInvalid);
            if (s.device == kCuptiInvalid) s.device = -1;
            s.stream = cupti_id(t, c.stream, c.pid);
            s.event = event ? cupti_id(t, *event, c.pid) : -1;
            s.correlation = cupti_id(t, c.correlation, c.pid);
            s.offset = t.row();
            sync_ids_.push_back(t.integer_or(event_sync, -1));
            trace.syncs.push_back(s);
        }
    }

    // The record an event wait or sync waits for: CUPTI_ACTIVITY_KIND_CUDA_EVENT's row of its
    // cudaEventRecord call (its correlation and stream), joined by eventSyncId where the export
    // has it, else the event's last record whose call started before the waiting call.
    void event_records() {
        DbTable t(db_, kEvents);
        const int correlation_id = t.column({"correlationId"}), stream = t.column({"streamId"}), event = t.column({"eventId"});
        const std::optional<int> pid = t.optional({"globalPid"}), sync_id = t.optional({"eventSyncId"});
        struct Record {
            int64_t correlation, stream;
        };
        std::unordered_map<int64_t, Record> by_sync_id;
        std::unordered_map<int64_t, std::vector<Record>> by_event;
        while (t.next()) {
            const Record r{cupti_id(t, correlation_id, pid), cupti_id(t, stream, pid)};
            if (sync_id && !t.null(*sync_id)) by_sync_id.emplace(t.integer(*sync_id), r);
            by_event[cupti_id(t, event, pid)].push_back(r);
        }
        std::unordered_map<int64_t, int64_t> call_start;  // correlation -> its call's start
        for (const TraceHostCall& c : trace.calls)
            if (c.correlation >= 0) call_start.emplace(c.correlation, c.start_ns);
        auto start_of = [&](int64_t corr) {
            const auto s = call_start.find(corr);
            return s != call_start.end() ? std::optional<int64_t>(s->second) : std::nullopt;
        };
        for (size_t i = 0; i < trace.syncs.size(); ++i) {
            TraceSync& s = trace.syncs[i];
            if (s.kind != TraceSync::Kind::event_sync && s.kind != TraceSync::Kind::stream_wait_event) continue;
            const Record* found = nullptr;
            if (const auto r = by_sync_id.find(sync_ids_[i]); sync_ids_[i] >= 0 && r != by_sync_id.end()) {
                found = &r->second;
            } else if (const auto e = by_event.find(s.event); s.event >= 0 && e != by_event.end()) {
                const std::optional<int64_t> waits = start_of(s.correlation);
                std::optional<int64_t> best;
                for (const Record& r : e->second) {
                    const std::optional<int64_t> at = start_of(r.correlation);
                    if (waits && at && *at <= *waits && (!best || *at >= *best)) {
                        best = at;
                        found = &r;
                    }
                }
            }
            if (!found) continue;
            s.wait_on_event_record = found->correlation;
            s.wait_on_stream = found->stream;
        }
    }

    // A kernel's label: the innermost NVTX range (push/pop or start/end) open on its launch
    // call's thread when the call started; text from `text`, else `textId`.
    void labels() {
        DbTable t(db_, kNvtx);
        const int start = t.column({"start"}), end = t.column({"end"}), type = t.column({"eventType"});
        const int thread = t.column({"globalTid"});
        const std::optional<int> text = t.optional({"text"}), text_id = t.optional({"textId"});
        struct Range {
            int64_t start, end;
            std::string text;
        };
        std::unordered_map<int64_t, std::vector<Range>> ranges;  // by thread
        while (t.next()) {
            const int64_t kind = t.integer(type);
            if (kind != kNvtxPushPop && kind != kNvtxStartEnd) continue;
            if (t.null(end)) continue;  // a range never closed
            Range r{t.integer(start, 0, kMaxTraceTime), t.integer(end, 0, kMaxTraceTime), {}};
            if (text && !t.null(*text))
                r.text = t.text(*text);
            else if (text_id && !t.null(*text_id))
                r.text = string(t, *text_id);
            if (r.text.empty() || r.end < r.start) continue;
            ranges[t.integer_or(thread, 0)].push_back(std::move(r));
        }
        if (ranges.empty()) return;
        // Each thread's launch calls in start order against its ranges in start order (the
        // longer first of two that start together): an open range whose end is before the call
        // holds no later call either; the last one open that has not ended is the innermost.
        std::unordered_map<int64_t, std::vector<const TraceHostCall*>> calls;  // by thread
        for (const TraceHostCall& c : trace.calls)
            if (c.correlation >= 0 && ranges.count(c.thread)) calls[c.thread].push_back(&c);
        std::unordered_map<int64_t, const std::string*> label_of;  // correlation -> its call's label
        for (auto& [thread, rs] : ranges) {
            std::stable_sort(rs.begin(), rs.end(), [](const Range& a, const Range& b) {
                return a.start != b.start ? a.start < b.start : a.end > b.end;
            });
            std::vector<const TraceHostCall*>& cs = calls[thread];
            std::stable_sort(cs.begin(), cs.end(), [](const TraceHostCall* a, const TraceHostCall* b) { return a->start_ns < b->start_ns; });
            std::vector<const Range*> open;
            size_t next = 0;
            for (const TraceHostCall* c : cs) {
                for (; next < rs.size() && rs[next].start <= c->start_ns; ++next) open.push_back(&rs[next]);
                while (!open.empty() && open.back()->end < c->start_ns) open.pop_back();
                if (!open.empty()) label_of.emplace(c->correlation, &open.back()->text);
            }
        }
        for (TraceGpuOp& op : trace.ops) {
            const auto l = label_of.find(op.correlation);
            if (l != label_of.end()) op.label = *l->second;
        }
    }
};

}  // namespace

ProfilerTrace read_nsys(const Database& db) { return Reader(db).read(); }

}  // namespace gpuvp
