// trace.json's events, typed: the recorder fills a TraceRecord, trace.json is written from it,
// and the report reads it. `gpuvp report DIR` reads a trace.json back into one (read_trace).
// The layout is Chrome's trace-event format (docs/results.md): each event's members in the
// order trace_text writes them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gpuvp {

using TraceValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

// An argument's name is a view of text that outlives the record: a literal (the recorder's
// names, gpuvp's own), or the record's `names` (a read trace's names that are none of gpuvp's).
// It is never a view of a std::string that goes away with the event.
struct TraceArg {
    std::string_view key;
    TraceValue value;
    TraceArg(std::string_view k, TraceValue v) : key(k), value(std::move(v)) {}
    // Any integer, floating-point number, bool or text (an integer keeps its sign's type).
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
    TraceArg(std::string_view k, T v) : key(k), value(as_value(v)) {}
    TraceArg(std::string_view k, const char* v) : key(k), value(std::string(v)) {}

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
    // The text of argument names the events view that are none of gpuvp's own (a trace.json
    // written by something else, read by read_trace); shared by the record's copies. Null: none.
    std::shared_ptr<const std::set<std::string, std::less<>>> names;
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

namespace detail {
// read_trace by the general JSON parser alone. read_trace reads the text gpuvp writes (ASCII
// strings without escapes, an event's arguments its only nested object) on a path of its own
// and gives anything else to this one; the tests and the fuzz target hold the two to the same
// records.
bool read_trace_parsed(const std::string& text, TraceRecord& out, std::string* error);
}  // namespace detail

}  // namespace gpuvp
