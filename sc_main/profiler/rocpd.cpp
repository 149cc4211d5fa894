// rocprofv3's rocpd SQLite database (`rocprofv3 --output-format rocpd`, ROCm 7.0 and later;
// schema 3) into a ProfilerTrace, through the suffix-less views the database defines over its
// tables (rocpd_kernel_dispatch, rocpd_info_kernel_symbol, rocpd_region, rocpd_event,
// rocpd_string, rocpd_memory_copy, rocpd_info_agent): dispatches, copies, the HIP API calls
// and the GPUs. docs/trace-import.md lists what is read.
#include "sc_main/profiler/database.h"
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/profiler/rocprofiler.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace gpuvp {

namespace {

constexpr const char* kDispatches = "rocpd_kernel_dispatch";
constexpr const char* kSymbols = "rocpd_info_kernel_symbol";
constexpr const char* kRegions = "rocpd_region";
constexpr const char* kEvents = "rocpd_event";
constexpr const char* kStrings = "rocpd_string";
constexpr const char* kCopies = "rocpd_memory_copy";
constexpr const char* kAgents = "rocpd_info_agent";

class Reader {
public:
    Reader(const Database& db) : db_(db) {
        trace.format = ProfilerTrace::Format::rocpd;
        trace.file = db.file();
    }

    ProfilerTrace read() {
        for (const char* view : {kDispatches, kEvents, kStrings})
            if (!db_.has(view))
                throw TraceError(trace.file, TraceError::Where::none, 0,
                                 std::string("a rocpd database without ") + view +
                                     ": not one rocprofv3 wrote with --kernel-trace (ROCm 7.0 and later)");
        strings();
        events();
        if (db_.has(kAgents)) agents();
        if (db_.has(kSymbols)) symbols();
        std::vector<int64_t> threads;  // each kernel's dispatching thread
        dispatches(threads);
        if (db_.has(kCopies)) copies(threads);
        if (std::none_of(trace.ops.begin(), trace.ops.end(), [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::kernel; }))
            throw TraceError(trace.file, TraceError::Where::none, 0, std::string("no kernels (") + kDispatches + " has no rows)");
        if (db_.has(kRegions)) calls();
        detail::finish_with_launches(trace, threads);
        return std::move(trace);
    }

    ProfilerTrace trace;

private:
    const Database& db_;
    std::unordered_map<int64_t, std::string> strings_;
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> events_;  // id -> its correlation (stack_id), its category
    rocprofiler::KernelSymbols symbols_;
    std::unordered_map<int64_t, bool> gpu_;  // agent id -> a GPU

    void strings() {
        DbTable t(db_, kStrings);
        const int id = t.column({"id"}), text = t.column({"string"});
        while (t.next()) strings_[t.integer(id)] = t.text(text);
    }

    const std::string& string(const DbTable& t, int column) const {
        static const std::string none;
        if (t.null(column)) return none;
        const int64_t id = t.integer(column);
        const auto s = strings_.find(id);
        if (s == strings_.end())
            throw t.error(t.column_name(column) + ": string id " + std::to_string(id) + " is not in rocpd_string");
        return s->second;
    }

    // rocpd_event: a record's internal correlation is its stack_id (correlation_id holds the
    // external one, 0 unless the program set it).
    void events() {
        DbTable t(db_, kEvents);
        const int id = t.column({"id"}), stack = t.column({"stack_id"});
        const std::optional<int> category = t.optional({"category_id"});
        while (t.next()) events_[t.integer(id)] = {t.integer_or(stack, -1, -1), t.integer_or(category, -1)};
    }

    // A row's event: its correlation and category (nullptr: NULL).
    const std::pair<int64_t, int64_t>* event_of(const DbTable& t, int event) const {
        if (t.null(event)) return nullptr;
        const auto e = events_.find(t.integer(event));
        if (e == events_.end())
            throw t.error(t.column_name(event) + ": " + std::to_string(t.integer(event)) + " is not in rocpd_event");
        return &e->second;
    }
    int64_t correlation(const DbTable& t, int event) const {
        const std::pair<int64_t, int64_t>* e = event_of(t, event);
        return e ? e->first : -1;
    }

    // The GPUs: their CU count, wavefront size and LDS from the agent record rocprofiler keeps
    // in extdata (JSON).
    void agents() {
        DbTable t(db_, kAgents);
        const int id = t.column({"id"}), type = t.column({"type"});
        const std::optional<int> name = t.optional({"product_name"}), model = t.optional({"name"});
        const std::optional<int> extdata = t.optional({"extdata"});
        while (t.next()) {
            const bool gpu = t.text(type) == "GPU";
            gpu_[t.integer(id)] = gpu;
            if (!gpu) continue;
            TraceDevice d;
            d.id = t.integer(id);
            d.amd = true;
            d.name = name ? t.text(*name) : "";
            if (d.name.empty() && model) d.name = t.text(*model);
            if (extdata) rocprofiler::agent_properties(nlohmann::json::parse(t.text(*extdata), nullptr, false), d);
            trace.devices.push_back(std::move(d));
        }
    }

    void symbols() {
        DbTable t(db_, kSymbols);
        const int id = t.column({"id"});
        const std::optional<int> display = t.optional({"display_name"});
        const int name = t.column({"kernel_name"});
        const std::optional<int> vgpr = t.optional({"arch_vgpr_count"}), agpr = t.optional({"accum_vgpr_count"});
        const std::optional<int> sgpr = t.optional({"sgpr_count"});
        while (t.next()) {
            rocprofiler::KernelSymbol s;
            s.name = display ? t.text(*display) : "";  // NULL or empty: the mangled name
            if (s.name.empty()) s.name = t.text(name);
            s.vgprs = rocprofiler::vgprs(uint32_t(t.integer_or(vgpr, 0, 0, UINT32_MAX)), uint32_t(t.integer_or(agpr, 0, 0, UINT32_MAX)));
            s.sgprs = uint32_t(t.integer_or(sgpr, 0, 0, UINT32_MAX));
            symbols_[t.integer(id)] = std::move(s);
        }
    }

    void dispatches(std::vector<int64_t>& threads) {
        DbTable t(db_, kDispatches);
        const int agent = t.column({"agent_id"}), kernel = t.column({"kernel_id"});
        const int stream = t.column({"stream_id"}), queue = t.column({"queue_id"});
        const int start = t.column({"start"}), end = t.column({"end"}), event = t.column({"event_id"});
        const std::optional<int> thread = t.optional({"tid"}), lds = t.optional({"group_segment_size"});
        const int wg[3] = {t.column({"workgroup_size_x"}), t.column({"workgroup_size_y"}), t.column({"workgroup_size_z"})};
        const int grid[3] = {t.column({"grid_size_x"}), t.column({"grid_size_y"}), t.column({"grid_size_z"})};
        while (t.next()) {
            TraceGpuOp op;
            op.kind = TraceGpuOp::Kind::kernel;
            op.table = kDispatches;
            op.offset = t.row();
            std::tie(op.start_ns, op.end_ns) = t.interval(start, end);
            op.device = t.integer(agent, 0);
            // The HIP stream the kernel was launched on (0: the null stream); without HIP, its queue.
            op.stream = t.null(stream) ? t.integer(queue, 0) : t.integer(stream, 0);
            op.correlation = correlation(t, event);
            rocprofiler::take_symbol(op, symbols_, t.integer(kernel));
            // grid_size_* counts work-items (the AQL packet's); a partial workgroup at the edge
            // is a block.
            for (size_t d = 0; d < 3; ++d) {
                op.block[d] = t.u32(wg[d], 1);
                const uint32_t items = t.u32(grid[d], 1);
                op.grid[d] = detail::blocks_of(items, op.block[d]);
            }
            op.shared_bytes = uint32_t(t.integer_or(lds, 0, 0, UINT32_MAX));  // the packet's: static and dynamic
            threads.push_back(thread ? t.integer_or(*thread, 0) : 0);
            trace.ops.push_back(std::move(op));
        }
    }

    void copies(std::vector<int64_t>& threads) {
        DbTable t(db_, kCopies);
        const int start = t.column({"start"}), end = t.column({"end"}), event = t.column({"event_id"});
        const int name = t.column({"name_id"}), size = t.column({"size"});
        const int dst = t.column({"dst_agent_id"}), src = t.column({"src_agent_id"});
        const std::optional<int> stream = t.optional({"stream_id"}), queue = t.optional({"queue_id"}), thread = t.optional({"tid"});
        while (t.next()) {
            TraceGpuOp op;
            op.kind = TraceGpuOp::Kind::copy;
            op.table = kCopies;
            op.offset = t.row();
            std::tie(op.start_ns, op.end_ns) = t.interval(start, end);
            op.name = rocprofiler::copy_name(string(t, name));
            op.bytes = uint64_t(t.integer(size, 0));
            // The GPU that took part: the destination if it is one, else the source.
            const int64_t to = t.integer(dst), from = t.integer(src);
            op.device = gpu_.count(to) && gpu_[to] ? to : from;
            op.stream = t.integer_or(stream, t.integer_or(queue, 0));
            op.correlation = correlation(t, event);
            threads.push_back(thread ? t.integer_or(*thread, 0) : 0);
            trace.ops.push_back(std::move(op));
        }
    }

    // The HIP API's calls (rocpd_region rows whose event's category names HIP): HSA's calls
    // and markers are inside or beside them, not the program's calls.
    void calls() {

        DbTable t(db_, kRegions);
        const int start = t.column({"start"}), end = t.column({"end"}), name = t.column({"name_id"});
        const int thread = t.column({"tid"}), event = t.column({"event_id"});
        while (t.next()) {
            const std::pair<int64_t, int64_t>* e = event_of(t, event);
            const auto category = e ? strings_.find(e->second) : strings_.end();
            if (category == strings_.end() || category->second.rfind("HIP_", 0) != 0) continue;
            TraceHostCall c;
            c.name = string(t, name);
            c.kind = host_call_kind(c.name);
            std::tie(c.start_ns, c.end_ns) = t.interval(start, end);
            c.thread = t.integer(thread);
            c.correlation = e->first;
            c.offset = t.row();
            trace.calls.push_back(std::move(c));
        }
    }
};

}  // namespace

ProfilerTrace read_rocpd(const Database& db) { return Reader(db).read(); }

}  // namespace gpuvp
