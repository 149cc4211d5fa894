// trace.json's events, typed: the recorder fills a TraceRecord, trace.json is written from it,
// and the report reads it. `gpuvp report DIR` reads a trace.json back into one (read_trace).
// The layout is Chrome's trace-event format (docs/results.md): each event's members in the
// order trace_text writes them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gpuvp {

using TraceValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

struct TraceArg {
    std::string key;
    TraceValue value;
    TraceArg(std::string k, TraceValue v) : key(std::move(k)), value(std::move(v)) {}
    // Any integer, floating-point number, bool or text (an integer keeps its sign's type).
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
    TraceArg(std::string k, T v) : key(std::move(k)), value(as_value(v)) {}
    TraceArg(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}

private:
    template <class T>
    static TraceValue as_value(T v) {
        if constexpr (std::is_same_v<T, bool>) return v;
        else if constexpr (std::is_floating_point_v<T>) return double(v);
        else if constexpr (std::is_signed_v<T>) return int64_t(v);
        else return uint64_t(v);
    }
};

struct TraceEvent {
    std::string name;
    std::string cat;  // none on metadata events ('M')
    char ph = 'i';    // X complete, i instant, C counter, M metadata
    double ts_us = 0, dur_us = 0;  // ts: not on 'M'; dur: 'X' only
    uint32_t pid = 0;
    std::optional<uint32_t> tid;  // none on process-wide metadata (process_sort_index)
    std::vector<TraceArg> args;   // none written when empty

    const TraceValue* arg(std::string_view key) const {
        for (const TraceArg& a : args)
            if (a.key == key) return &a.value;
        return nullptr;
    }
    // An argument as a number (NaN if absent or not a number), or as text ("" if not text).
    double number(std::string_view key) const;
    std::string text(std::string_view key) const;
};

struct TraceRecord {
    std::vector<TraceEvent> events;  // metadata first, then in time order of recording
    std::string note;                // otherData.note: why events are missing (the limit); "" none
};

// Trace process ids (pid) and the rows (tid) of an SM's process.
struct TracePid {
    static constexpr uint32_t host = 1, cp = 2, glc = 3, launch = 4, kernels = 5, usa = 6, sm0 = 100;
    static constexpr uint32_t arbiter_tid = 998, table_tid = 999;
    static constexpr uint32_t usa_draw_tid0 = 1000;  // the shading array's draw rows
};

// trace.json's text (compact, a final newline).
std::string trace_text(const TraceRecord& t);
// A TraceRecord from trace.json's text; false, with `error` naming the byte offset or the event,
// if it is not a trace (a `traceEvents` array of objects).
bool read_trace(const std::string& text, TraceRecord& out, std::string* error);

}  // namespace gpuvp
