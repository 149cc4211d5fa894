// What the readers of sc_main/profiler/ share: a trace file's text (gunzipped by its magic), which
// format it is, exact decimals, the host calls' kinds by function name, and read_profiler_trace.
#include "sc_main/profiler/profiler_trace.h"

#include <nlohmann/json.hpp>
#include "sc_main/profiler/database.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <unordered_map>

namespace gpuvp {

namespace {

bool is_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

std::string gunzip_if_gzip(std::string bytes, const std::string& file) {
    if (!is_gzip(bytes)) return bytes;
    struct Inflater {
        z_stream z{};
        ~Inflater() { inflateEnd(&z); }
    } inflater;
    z_stream& z = inflater.z;
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw TraceError(file, TraceError::Where::none, 0, "zlib cannot start");
    auto fail = [&](size_t at, const std::string& why) { return TraceError(file, TraceError::Where::byte, at, why); };
    std::string out;
    std::string chunk(size_t(1) << 18, '\0');
    size_t member = 0;  // where the member being inflated starts in `bytes`
    size_t fed = 0;     // bytes given to zlib so far
    for (;;) {
        if (z.avail_in == 0 && fed < bytes.size()) {
            const size_t more = std::min<size_t>(bytes.size() - fed, std::numeric_limits<uInt>::max());
            z.next_in = reinterpret_cast<Bytef*>(bytes.data() + fed);
            z.avail_in = uInt(more);
            fed += more;
        }
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = uInt(chunk.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk.data(), chunk.size() - z.avail_out);
        const size_t at = member + z.total_in;  // compressed bytes taken so far
        if (rc == Z_STREAM_END) {
            // Concatenated members (as `gzip` writes with -c twice) are one stream; nothing else may follow.
            if (at == bytes.size()) return out;
            if (!is_gzip(bytes.substr(at, 2))) throw fail(at, "bytes after the end of the gzip stream");
            member = at;
            inflateReset(&z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            throw fail(at, "broken gzip stream: " + (z.msg ? std::string(z.msg) : "inflate error " + std::to_string(rc)));
        } else if (z.avail_in == 0 && z.avail_out != 0 && fed == bytes.size()) {  // it wants more than there is
            throw fail(at, "the gzip stream is cut short");
        }
    }
}

std::string read_trace_text(const std::string& path) {
    // Nsight Systems' report is its own binary format: its SQLite export is what gpuvp reads.
    for (const char* report : {".nsys-rep", ".qdrep"}) {
        const std::string r = report;
        if (path.size() >= r.size() && path.compare(path.size() - r.size(), r.size(), r) == 0)
            throw TraceError(path, TraceError::Where::none, 0,
                             "an Nsight Systems report: gpuvp reads its SQLite export; write it with `nsys export --type "
                             "sqlite --output " + path.substr(0, path.size() - r.size()) + ".sqlite " + path + "` and give that file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path, TraceError::Where::none, 0, "cannot read the file");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw TraceError(path, TraceError::Where::none, 0, "cannot read the file");
    return gunzip_if_gzip(std::move(bytes), path);
}

TraceFormat trace_format(const std::string& text) {
    if (is_sqlite(text)) return TraceFormat::sqlite;
    std::string_view s = text;
    if (starts_with(s, "\xEF\xBB\xBF")) s.remove_prefix(3);  // a UTF-8 byte-order mark
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return TraceFormat::none;
    s.remove_prefix(first);
    if (s[0] == '{') {
        if (s.find("\"traceEvents\"") != std::string_view::npos) return TraceFormat::kineto;
        if (s.find("\"rocprofiler-sdk-tool\"") != std::string_view::npos) return TraceFormat::rocprofv3_json;
        return TraceFormat::none;
    }
    const std::string_view header = s.substr(0, s.find('\n'));
    if (header.find("Kernel_Name") != std::string_view::npos && header.find("Start_Timestamp") != std::string_view::npos)
        return TraceFormat::rocprofv3;
    return TraceFormat::none;
}

std::string not_a_scenario(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || (text[first] != '{' && text[first] != '[')) return "";
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        if (e.byte > text.size())  // (the text ran out)
            return "the JSON text ends at byte " + std::to_string(text.size()) +
                   ", before it is complete (the file is cut short?): a profiler trace or a scenario expected";
        std::string why = e.what();
        if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) why.erase(0, why.find("] ") + 2);
        return "byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": not JSON: " + why;
    } catch (const nlohmann::json::exception& e) {
        return std::string("not JSON gpuvp reads: ") + e.what();
    }
    if (doc.is_object() && (doc.contains("name") || doc.contains("kernels") || doc.contains("draws"))) return "";
    std::string what = doc.is_object() ? "a JSON object" : "a JSON " + std::string(doc.type_name());
    if (doc.is_object() && !doc.empty()) {
        what += " with ";
        size_t n = 0;
        for (auto it = doc.begin(); it != doc.end() && n < 5; ++it, ++n) what += (n ? ", " : "") + it.key();
        if (doc.size() > 5) what += ", ...";
    }
    return "not a profiler trace or a scenario: " + what +
           " (a PyTorch-profiler trace has traceEvents, rocprofv3's JSON rocprofiler-sdk-tool, a scenario name and kernels)";
}

// sign? digits [. digits] [(e|E) sign? digits], a digit at least before the exponent: its
// significant digits M and the value M x 10^(exponent - fraction digits + scale), rounded half
// away from zero.
std::optional<int64_t> parse_decimal(const std::string& text, int scale) {
    std::string_view s = text;
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    std::string digits;  // the significant digits, leading zeros dropped
    int64_t power = scale;
    bool any = false;
    size_t i = 0;
    for (; i < s.size() && std::isdigit(uint8_t(s[i])); ++i, any = true)
        if (!digits.empty() || s[i] != '0') digits += s[i];
    if (i < s.size() && s[i] == '.') {
        for (++i; i < s.size() && std::isdigit(uint8_t(s[i])); ++i, any = true) {
            if (!digits.empty() || s[i] != '0') digits += s[i];
            --power;
        }
    }
    if (!any) return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool minus = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) minus = s[i++] == '-';
        if (i == s.size()) return std::nullopt;
        int64_t e = 0;
        for (; i < s.size() && std::isdigit(uint8_t(s[i])); ++i)
            e = std::min<int64_t>(e * 10 + (s[i] - '0'), 1'000'000);  // far beyond any int64's digits
        power += minus ? -e : e;
    }
    if (i != s.size()) return std::nullopt;
    if (digits.empty()) return 0;
    // The digits kept (all, then `power` zeros; or all but the last -power, rounded).
    const int64_t keep = std::min<int64_t>(int64_t(digits.size()), int64_t(digits.size()) + power);
    if (keep < 0) return 0;
    const uint64_t limit = negative ? uint64_t(std::numeric_limits<int64_t>::max()) + 1 : uint64_t(std::numeric_limits<int64_t>::max());
    uint64_t v = 0;
    auto times10_plus = [&](unsigned d) {
        if (v > (limit - d) / 10) return false;
        v = v * 10 + d;
        return true;
    };
    for (int64_t k = 0; k < keep; ++k)
        if (!times10_plus(unsigned(digits[size_t(k)] - '0'))) return std::nullopt;
    for (int64_t k = 0; k < power; ++k)
        if (!times10_plus(0)) return std::nullopt;
    if (keep < int64_t(digits.size()) && digits[size_t(keep)] >= '5') {
        if (v == limit) return std::nullopt;
        ++v;
    }
    if (negative) return v == uint64_t(std::numeric_limits<int64_t>::max()) + 1 ? std::numeric_limits<int64_t>::min() : -int64_t(v);
    return int64_t(v);
}

TraceHostCall::Kind host_call_kind(std::string_view name) {
    using K = TraceHostCall::Kind;
    // CUDA's runtime and driver calls and HIP's: the vendor prefix off, then the function.
    std::string_view f = name;
    if (starts_with(f, "cuda") || starts_with(f, "hip"))
        f.remove_prefix(f[0] == 'c' ? 4 : 3);
    else if (starts_with(f, "cu"))
        f.remove_prefix(2);
    else
        return K::other;
    static constexpr std::pair<std::string_view, K> kExact[] = {
        {"LaunchKernel", K::launch},          {"LaunchKernelExC", K::launch},  {"LaunchKernelEx", K::launch},
        {"ExtLaunchKernel", K::launch},       {"ModuleLaunchKernel", K::launch}, {"ExtModuleLaunchKernel", K::launch},
        {"HccModuleLaunchKernel", K::launch}, {"LaunchCooperativeKernel", K::launch},
        {"GraphLaunch", K::graph_launch},     {"DeviceSynchronize", K::device_sync}, {"CtxSynchronize", K::device_sync},
        {"StreamSynchronize", K::stream_sync}, {"EventSynchronize", K::event_sync}, {"EventRecord", K::event_record},
        {"EventRecordWithFlags", K::event_record}, {"StreamWaitEvent", K::stream_wait_event},
    };
    for (const auto& [n, k] : kExact)
        if (f == n) return k;
    // cudaLaunchKernel_v7000 (CUPTI's versioned names), cuLaunchKernel_ptsz (per-thread stream).
    const std::string_view base = f.substr(0, f.find('_'));
    if (base != f)
        for (const auto& [n, k] : kExact)
            if (base == n) return k;
    if (starts_with(f, "Memcpy")) return K::copy;
    if (starts_with(f, "Memset")) return K::fill;
    return K::other;
}

namespace detail {

void sort_by_start(ProfilerTrace& t) {
    auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    std::stable_sort(t.ops.begin(), t.ops.end(), by_start);
    std::stable_sort(t.calls.begin(), t.calls.end(), by_start);
    std::stable_sort(t.syncs.begin(), t.syncs.end(), by_start);
}

void streams_from_work(ProfilerTrace& t) {
    std::unordered_map<int64_t, int64_t> stream_of;  // correlation -> its work's stream, else its sync record's
    for (const TraceGpuOp& op : t.ops)
        if (op.correlation >= 0) stream_of.emplace(op.correlation, op.stream);
    for (const TraceSync& s : t.syncs)
        if (s.correlation >= 0 && s.stream >= 0) stream_of.emplace(s.correlation, s.stream);
    for (TraceHostCall& c : t.calls)
        if (!c.stream) {
            const auto s = stream_of.find(c.correlation);
            if (s != stream_of.end()) c.stream = s->second;
        }
}

void launches_at_start(ProfilerTrace& t, const std::vector<int64_t>& threads) {
    for (size_t i = 0; i < t.ops.size(); ++i) {
        const TraceGpuOp& op = t.ops[i];
        TraceHostCall c;
        c.kind = TraceHostCall::Kind::launch;
        c.name = "kernel launch";
        c.thread = threads[i];
        c.start_ns = c.end_ns = op.start_ns;
        c.correlation = op.correlation;
        c.offset = op.offset;
        t.calls.push_back(std::move(c));
    }
}

void finish_with_launches(ProfilerTrace& t, const std::vector<int64_t>& threads) {
    if (t.calls.empty()) launches_at_start(t, threads);
    streams_from_work(t);
    sort_by_start(t);
}

}  // namespace detail

ProfilerTrace parse_database(std::string bytes, const std::string& file) {
    const Database db = Database::from_bytes(std::move(bytes), file);
    if (db.has("CUPTI_ACTIVITY_KIND_KERNEL")) return read_nsys(db);
    if (db.has("rocpd_kernel_dispatch")) return read_rocpd(db);
    throw TraceError(file, TraceError::Where::none, 0,
                     "an SQLite database with neither Nsight Systems' CUPTI_ACTIVITY_KIND_KERNEL nor rocpd's "
                     "rocpd_kernel_dispatch: not a profiler's database gpuvp reads");
}

ProfilerTrace read_profiler_trace(const std::string& path) {
    const std::string text = read_trace_text(path);
    return parse_profiler_trace(text, trace_format(text), path);
}

ProfilerTrace parse_profiler_trace(const std::string& text, TraceFormat format, const std::string& path,
                                   const ReadProgress& progress) {
    switch (format) {
    case TraceFormat::kineto: return parse_kineto(text, path, progress);
    case TraceFormat::rocprofv3: {
        // rocprofv3 writes PREFIXkernel_trace.csv and PREFIXhip_api_trace.csv side by side.
        const std::string suffix = "kernel_trace.csv";
        const std::filesystem::path p(path);
        const std::string name = p.filename().string();
        std::string api, api_path;
        if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            api_path = (p.parent_path() / (name.substr(0, name.size() - suffix.size()) + "hip_api_trace.csv")).string();
            std::error_code ec;
            if (std::filesystem::is_regular_file(api_path, ec))
                api = read_trace_text(api_path);
            else
                api_path.clear();
        }
        return parse_rocprofv3(text, path, api, api_path);
    }
    case TraceFormat::rocprofv3_json: return parse_rocprofv3_json(text, path);
    case TraceFormat::sqlite: return parse_database(text, path);
    case TraceFormat::none: break;
    }
    throw TraceError(path, TraceError::Where::none, 0, kNotATrace);
}

}  // namespace gpuvp
