// rocprofv3's JSON output (`rocprofv3 --kernel-trace --hip-trace --memory-copy-trace
// --output-format json`, PREFIX_results.json) into a ProfilerTrace: per process, the kernel
// dispatches, memory copies and HIP API calls of buffer_records, named through strings and
// kernel_symbols, and the GPUs of agents. One nlohmann document; a value's place is said by its
// path ("rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[3].start_timestamp").
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/profiler/rocprofiler.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

namespace gpuvp {

namespace rocprofiler {

void agent_properties(const nlohmann::json& a, TraceDevice& d) {
    auto count = [&](const char* key) -> std::optional<uint32_t> {
        if (!a.is_object() || !a.contains(key) || !a[key].is_number_unsigned()) return std::nullopt;
        const uint64_t v = a[key].get<uint64_t>();
        return v > 0 && v <= UINT32_MAX ? std::optional<uint32_t>(uint32_t(v)) : std::nullopt;
    };
    d.sms = count("cu_count");
    d.warp_size = count("wave_front_size");
    d.max_threads_per_block = count("workgroup_max_size");
    if (const std::optional<uint32_t> lds = count("lds_size_in_kb"); lds && *lds <= UINT32_MAX / 1024)
        d.shared_per_sm = d.shared_per_block = *lds * 1024;
    if (const std::optional<uint32_t> waves = count("max_waves_per_cu"); waves && d.warp_size && uint64_t(*waves) * *d.warp_size <= UINT32_MAX)
        d.max_threads_per_sm = *waves * *d.warp_size;
}

uint32_t vgprs(uint32_t architected, uint32_t accumulation) {
    return uint32_t(std::min<uint64_t>(uint64_t(architected) + accumulation, UINT32_MAX));
}

void take_symbol(TraceGpuOp& op, const KernelSymbols& symbols, int64_t kernel_id) {
    const auto s = symbols.find(kernel_id);
    if (s == symbols.end()) {
        op.name = "kernel " + std::to_string(kernel_id);
        return;
    }
    op.name = s->second.name;
    op.registers = s->second.vgprs;
    op.scalar_registers = s->second.sgprs;
}

const char* copy_name(const std::string& operation) {
    static const std::pair<const char*, const char*> kDirections[] = {
        {"HOST_TO_DEVICE", "Memcpy HtoD"}, {"DEVICE_TO_HOST", "Memcpy DtoH"}, {"DEVICE_TO_DEVICE", "Memcpy DtoD"},
        {"HOST_TO_HOST", "Memcpy HtoH"},   {"PEER", "Memcpy PtoP"},
    };
    for (const auto& [suffix, name] : kDirections)
        if (operation.find(suffix) != std::string::npos) return name;
    return "Memcpy";
}

}  // namespace rocprofiler

namespace {

using json = nlohmann::json;

// A member of the document and where it is, for its errors.
struct At {
    const json& v;
    std::string path;
    const std::string& file;

    [[noreturn]] void fail(const std::string& why) const { throw TraceError(file, TraceError::Where::none, 0, path + ": " + why); }
    bool has(const char* key) const { return v.is_object() && v.contains(key); }
    At operator[](const char* key) const {
        if (!has(key)) fail(std::string("no member ") + key);
        return {v.at(key), path + "." + key, file};
    }
    At operator[](size_t i) const { return {v.at(i), path + "[" + std::to_string(i) + "]", file}; }
    size_t size() const {
        if (!v.is_array()) fail("an array expected");
        return v.size();
    }
    int64_t integer(int64_t min = 0, int64_t max = std::numeric_limits<int64_t>::max()) const {
        if (!v.is_number_integer()) fail("an integer expected, found " + v.dump().substr(0, 40));
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) fail("out of range");
        const int64_t x = v.get<int64_t>();
        if (x < min || x > max) fail(std::to_string(x) + " is out of range");
        return x;
    }
    // {"handle": N}, as rocprofiler writes an agent's, a queue's or a stream's id.
    int64_t handle() const { return (*this)["handle"].integer(); }
    std::string text() const {
        if (!v.is_string()) fail("a string expected");
        return v.get<std::string>();
    }
    std::array<uint32_t, 3> dims() const {
        std::array<uint32_t, 3> d{};
        const char* keys[] = {"x", "y", "z"};
        for (size_t i = 0; i < 3; ++i) d[i] = uint32_t((*this)[keys[i]].integer(1, std::numeric_limits<uint32_t>::max()));
        return d;
    }
};

class Reader {
public:
    Reader(const std::string& file) : file_(file) {
        trace.format = ProfilerTrace::Format::rocprofv3_json;
        trace.file = file;
    }

    void process(const At& p, size_t index) {
        // Kinds' and operations' names, by their numbers.
        std::vector<std::pair<std::string, std::vector<std::string>>> names;
        if (p.has("strings") && p["strings"].has("buffer_records")) {
            const At kinds = p["strings"]["buffer_records"];
            for (size_t k = 0; k < kinds.size(); ++k) {
                const At kind = kinds[k];
                std::vector<std::string> ops;
                if (kind.has("operations")) {
                    const At o = kind["operations"];
                    for (size_t i = 0; i < o.size(); ++i) ops.push_back(o[i].text());
                }
                names.emplace_back(kind.has("kind") ? kind["kind"].text() : std::string(), std::move(ops));
            }
        }
        auto operation = [&](const At& r) -> std::string {
            const int64_t k = r["kind"].integer(), o = r["operation"].integer();
            if (size_t(k) < names.size() && size_t(o) < names[size_t(k)].second.size()) return names[size_t(k)].second[size_t(o)];
            r.fail("kind " + std::to_string(k) + " operation " + std::to_string(o) + " has no name in strings.buffer_records");
        };
        // CUPTI-like correlations are per process: each process's kept apart above 32 bits.
        auto correlation = [&](const At& r) { return (int64_t(index) << 32) | r["correlation_id"]["internal"].integer(0, UINT32_MAX); };

        std::unordered_map<int64_t, int64_t> device_of;  // agent handle -> the device's number (its node id)
        if (p.has("agents")) {
            const At agents = p["agents"];
            for (size_t i = 0; i < agents.size(); ++i) {
                const At a = agents[i];
                const int64_t handle = a["id"].handle();
                const int64_t node = a.has("node_id") ? a["node_id"].integer() : handle;
                device_of[handle] = node;
                if (!a.has("type") || a["type"].integer() != 2) continue;  // 2: a GPU
                if (std::any_of(trace.devices.begin(), trace.devices.end(), [&](const TraceDevice& d) { return d.id == node; })) continue;
                TraceDevice d;
                d.id = node;
                d.amd = true;
                for (const char* key : {"product_name", "name"})
                    if (d.name.empty() && a.has(key) && a[key].v.is_string()) d.name = a[key].text();
                rocprofiler::agent_properties(a.v, d);
                trace.devices.push_back(std::move(d));
            }
        }
        auto device = [&](const At& id) {
            const int64_t h = id.handle();
            const auto d = device_of.find(h);
            return d != device_of.end() ? d->second : h;
        };

        rocprofiler::KernelSymbols symbols;
        if (p.has("kernel_symbols")) {
            const At ks = p["kernel_symbols"];
            for (size_t i = 0; i < ks.size(); ++i) {
                const At k = ks[i];
                rocprofiler::KernelSymbol s;
                for (const char* key : {"formatted_kernel_name", "kernel_name"})
                    if (s.name.empty() && k.has(key)) s.name = k[key].text();
                auto n = [&](const char* key) { return k.has(key) ? k[key].integer(0, UINT32_MAX) : 0; };
                s.vgprs = rocprofiler::vgprs(uint32_t(n("arch_vgpr_count")), uint32_t(n("accum_vgpr_count")));
                s.sgprs = uint32_t(n("sgpr_count"));
                symbols[k["kernel_id"].integer()] = std::move(s);
            }
        }

        if (!p.has("buffer_records")) return;
        const At records = p["buffer_records"];
        auto times = [&](const At& r, int64_t& start, int64_t& end) {
            start = r["start_timestamp"].integer(0, kMaxTraceTime);
            end = r["end_timestamp"].integer(0, kMaxTraceTime);
            if (end < start) r.fail("end_timestamp is before start_timestamp");
        };
        if (records.has("kernel_dispatch")) {
            const At ds = records["kernel_dispatch"];
            for (size_t i = 0; i < ds.size(); ++i) {
                const At r = ds[i];
                const At info = r["dispatch_info"];
                TraceGpuOp op;
                op.kind = TraceGpuOp::Kind::kernel;
                times(r, op.start_ns, op.end_ns);
                op.correlation = correlation(r);
                op.device = device(info["agent_id"]);
                op.stream = r.has("stream_id") ? r["stream_id"].handle() : info["queue_id"].handle();
                rocprofiler::take_symbol(op, symbols, info["kernel_id"].integer());
                // grid_size counts work-items (the AQL packet's); a partial workgroup is a block.
                op.block = info["workgroup_size"].dims();
                const std::array<uint32_t, 3> items = info["grid_size"].dims();
                for (size_t d = 0; d < 3; ++d) op.grid[d] = detail::blocks_of(items[d], op.block[d]);
                if (info.has("group_segment_size")) op.shared_bytes = uint32_t(info["group_segment_size"].integer(0, UINT32_MAX));
                op.offset = i;
                op.table = "buffer_records.kernel_dispatch";
                threads_.push_back(r.has("thread_id") ? r["thread_id"].integer() : 0);
                trace.ops.push_back(std::move(op));
            }
        }
        if (records.has("memory_copy")) {
            const At cs = records["memory_copy"];
            for (size_t i = 0; i < cs.size(); ++i) {
                const At r = cs[i];
                TraceGpuOp op;
                op.kind = TraceGpuOp::Kind::copy;
                times(r, op.start_ns, op.end_ns);
                op.correlation = correlation(r);
                op.name = rocprofiler::copy_name(operation(r));
                // The GPU that took part: the destination if it is one, else the source.
                const int64_t to = device(r["dst_agent_id"]), from = device(r["src_agent_id"]);
                op.device = std::any_of(trace.devices.begin(), trace.devices.end(), [&](const TraceDevice& d) { return d.id == to; }) ? to : from;
                op.stream = r.has("stream_id") ? r["stream_id"].handle() : 0;
                op.bytes = uint64_t(r["bytes"].integer());
                op.offset = i;
                op.table = "buffer_records.memory_copy";
                threads_.push_back(r.has("thread_id") ? r["thread_id"].integer() : 0);
                trace.ops.push_back(std::move(op));
            }
        }
        if (records.has("hip_api")) {
            const At hs = records["hip_api"];
            for (size_t i = 0; i < hs.size(); ++i) {
                const At r = hs[i];
                TraceHostCall c;
                c.name = operation(r);
                c.kind = host_call_kind(c.name);
                times(r, c.start_ns, c.end_ns);
                c.correlation = correlation(r);
                c.thread = r["thread_id"].integer();
                c.offset = i;
                trace.calls.push_back(std::move(c));
            }
        }
    }

    ProfilerTrace finish() {
        if (std::none_of(trace.ops.begin(), trace.ops.end(), [](const TraceGpuOp& o) { return o.kind == TraceGpuOp::Kind::kernel; }))
            throw TraceError(file_, TraceError::Where::none, 0, "no kernels (no buffer_records.kernel_dispatch records)");
        detail::finish_with_launches(trace, threads_);
        return std::move(trace);
    }

    ProfilerTrace trace;

private:
    const std::string& file_;
    std::vector<int64_t> threads_;  // each op's dispatching thread
};

}  // namespace

ProfilerTrace parse_rocprofv3_json(const std::string& text, const std::string& file) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        throw TraceError(file, TraceError::Where::byte, e.byte > 0 ? e.byte - 1 : 0, std::string("not JSON: ") + e.what());
    } catch (const json::exception& e) {  // a number beyond a double's range (out_of_range.406)
        throw TraceError(file, TraceError::Where::none, 0, std::string("not JSON gpuvp reads: ") + e.what());
    }
    if (!doc.is_object() || !doc.contains("rocprofiler-sdk-tool"))
        throw TraceError(file, TraceError::Where::none, 0, "no member rocprofiler-sdk-tool: not rocprofv3's JSON output");
    const At tool{doc.at("rocprofiler-sdk-tool"), "rocprofiler-sdk-tool", file};
    Reader reader(file);
    for (size_t i = 0; i < tool.size(); ++i) reader.process(At{tool[i].v, "rocprofiler-sdk-tool[" + std::to_string(i) + "]", file}, i);
    return reader.finish();
}

}  // namespace gpuvp
