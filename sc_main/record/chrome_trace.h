// Chrome's trace-event format (docs/results.md) as events with names, categories, process and
// row ids and arguments: what trace.json is made of. Only the trace record's writer and reader
// (trace_record.cpp) use it: they turn the typed trace record into these events and back. Each
// event's members are in the order chrome_text writes them.
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

using ChromeValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

// An argument's name is a view of text that outlives the record: a literal (the recorder's
// names, gpuvp's own), or the record's `names` (a read trace's names that are none of gpuvp's).
// It is never a view of a std::string that goes away with the event.
struct ChromeArg {
    std::string_view key;
    ChromeValue value;
    ChromeArg(std::string_view k, ChromeValue v) : key(k), value(std::move(v)) {}
    // Any integer, floating-point number, bool or text (an integer keeps its sign's type).
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
    ChromeArg(std::string_view k, T v) : key(k), value(as_value(v)) {}
    ChromeArg(std::string_view k, const char* v) : key(k), value(std::string(v)) {}

private:
    template <class T>
    static ChromeValue as_value(T v) {
        if constexpr (std::is_same_v<T, bool>) return v;
        else if constexpr (std::is_floating_point_v<T>) return double(v);
        else if constexpr (std::is_signed_v<T>) return int64_t(v);
        else return uint64_t(v);
    }
};

struct ChromeEvent {  // one event of traceEvents
    std::string name;
    std::string cat;  // none on metadata events ('M')
    char ph = 'i';    // X complete, i instant, C counter, M metadata
    double ts_us = 0, dur_us = 0;  // ts: not on 'M'; dur: 'X' only
    uint32_t pid = 0;
    std::optional<uint32_t> tid;  // none on process-wide metadata (process_sort_index)
    std::vector<ChromeArg> args;   // none written when empty

    const ChromeValue* arg(std::string_view key) const {
        for (const ChromeArg& a : args)
            if (a.key == key) return &a.value;
        return nullptr;
    }
    // An argument as a number (NaN if absent or not a number), or as text ("" if not text).
    double number(std::string_view key) const;
    std::string text(std::string_view key) const;
};

struct ChromeTrace {
    std::vector<ChromeEvent> events;  // metadata first, then in time order of recording
    // otherData's members that are not objects or arrays, in their order (a `note`, if any, is text).
    std::vector<ChromeArg> other;
    // The text of argument names the events view that are none of gpuvp's own (a trace.json
    // written by something else, read by read_chrome); shared by the record's copies. Null: none.
    std::shared_ptr<const std::set<std::string, std::less<>>> names;
};

// trace.json's text written event by event (compact; the text ends with a newline).
class ChromeWriter {
public:
    explicit ChromeWriter(size_t events = 0);  // (how many are coming: room reserved)
    void add(const ChromeEvent& e);
    std::string finish(const std::vector<ChromeArg>& other);  // other: otherData's members (none: no otherData)

private:
    std::string out_;
    bool first_ = true;
};
// The events as trace.json's text.
std::string chrome_text(const ChromeTrace& t);
// A ChromeTrace from trace.json's text; false, with `error` naming the byte offset or the event,
// if it is not a trace (a `traceEvents` array of objects).
bool read_chrome(const std::string& text, ChromeTrace& out, std::string* error);

namespace detail {
// read_chrome by the general JSON parser alone. read_chrome reads the text gpuvp writes (ASCII
// strings without escapes, an event's arguments its only nested object) on a path of its own
// and gives anything else to this one; the tests and the fuzz target hold the two to the same
// records.
bool read_chrome_parsed(const std::string& text, ChromeTrace& out, std::string* error);
}  // namespace detail

}  // namespace gpuvp
