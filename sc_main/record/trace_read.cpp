// trace.json's text back into a TraceRecord (`gpuvp report DIR`, a variant's trace from its child
// process): one parse, each event's members checked and typed as they are read.
#include "sc_main/record/trace_record.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace gpuvp {

double TraceEvent::number(std::string_view key) const {
    const TraceValue* v = arg(key);
    if (!v) return NAN;
    if (const auto* i = std::get_if<int64_t>(v)) return double(*i);
    if (const auto* u = std::get_if<uint64_t>(v)) return double(*u);
    if (const auto* d = std::get_if<double>(v)) return *d;
    return NAN;
}

std::string TraceEvent::text(std::string_view key) const {
    const TraceValue* v = arg(key);
    const auto* s = v ? std::get_if<std::string>(v) : nullptr;
    return s ? *s : std::string();
}

namespace {

using json = nlohmann::json;

// The document read as it is parsed (no DOM: a full trace would take hundreds of MB as one):
// the root object's traceEvents and otherData.note, each event's members typed; anything else
// stepped over. The first thing wrong stops the parse, named in `error`.
class Reader : public nlohmann::json_sax<json> {
public:
    TraceRecord trace;
    std::string error;
    bool events_seen = false;

    bool null() override { return value("null", Kind::none); }
    bool boolean(bool v) override {
        b_ = v;
        return value("boolean", Kind::boolean);
    }
    bool number_integer(number_integer_t v) override {
        i_ = v;
        return value("number", Kind::integer);
    }
    bool number_unsigned(number_unsigned_t v) override {
        u_ = v;
        return value("number", Kind::unsigned_integer);
    }
    bool number_float(number_float_t v, const string_t&) override {
        d_ = v;
        return value("number", Kind::floating);
    }
    bool string(string_t& v) override {
        s_ = &v;
        return value("string", Kind::text);
    }
    bool binary(binary_t&) override { return value("binary", Kind::none); }
    bool start_object(std::size_t) override { return value("object", Kind::object); }
    bool start_array(std::size_t) override { return value("array", Kind::array); }
    bool key(string_t& k) override {
        if (skip_ == 0) key_ = std::move(k);
        return true;
    }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
        error = "not JSON at byte " + std::to_string(position) + ": " + e.what();
        return false;
    }

private:
    enum class Kind { none, boolean, integer, unsigned_integer, floating, text, object, array };
    enum class In { root, events, event, args, other };

    bool fail(std::string what) {
        error = std::move(what);
        return false;
    }
    // The event being read (or the element that should have been one).
    std::string where() const { return "traceEvents[" + std::to_string(trace.events.size()) + "]"; }
    bool is_number(Kind k) const { return k == Kind::integer || k == Kind::unsigned_integer || k == Kind::floating; }
    double as_double(Kind k) const { return k == Kind::integer ? double(i_) : k == Kind::unsigned_integer ? double(u_) : d_; }

    // A value (or the start of an object or array) where the parse is.
    bool value(const char* type, Kind k) {
        const bool open = k == Kind::object || k == Kind::array;
        if (skip_ > 0) {
            skip_ += open;
            return true;
        }
        if (stack_.empty()) {  // the root
            if (k != Kind::object) return fail(std::string("an object expected, found ") + type);
            stack_.push_back(In::root);
            return true;
        }
        switch (stack_.back()) {
        case In::root:
            if (key_ == "traceEvents") {
                if (k != Kind::array) return fail(std::string("traceEvents: an array expected, found ") + type);
                events_seen = true;
                trace.events.clear();  // (a repeated member: the last counts)
                stack_.push_back(In::events);
                return true;
            }
            if (key_ == "otherData" && k == Kind::object) {
                stack_.push_back(In::other);
                return true;
            }
            break;
        case In::other:
            if (key_ == "note") {
                if (k != Kind::text) return fail(std::string("otherData.note: a string expected, found ") + type);
                trace.note = std::move(*s_);
                return true;
            }
            break;
        case In::events:
            if (k != Kind::object) return fail(where() + ": an object expected, found " + type);
            event_ = TraceEvent{};
            ph_seen_ = pid_seen_ = false;
            stack_.push_back(In::event);
            return true;
        case In::event: return member(type, k);
        case In::args:
            switch (k) {
            case Kind::boolean: event_.args.push_back({key_, TraceValue(b_)}); break;
            case Kind::integer: event_.args.push_back({key_, TraceValue(int64_t(i_))}); break;
            case Kind::unsigned_integer: event_.args.push_back({key_, TraceValue(uint64_t(u_))}); break;
            case Kind::floating: event_.args.push_back({key_, TraceValue(double(d_))}); break;
            case Kind::text: event_.args.push_back({key_, TraceValue(std::move(*s_))}); break;
            default: break;  // (null, arrays and objects: not an argument the record holds)
            }
            break;
        }
        if (open) skip_ = 1;  // stepped over, with what it holds
        return true;
    }

    // A member of the event being read.
    bool member(const char* type, Kind k) {
        const std::string& m = key_;
        auto wrong = [&](const char* want) { return fail(where() + "." + m + ": " + want + " expected, found " + type); };
        auto id = [&](uint32_t& out) {
            if (k != Kind::unsigned_integer) return wrong("a non-negative integer");
            if (u_ > std::numeric_limits<uint32_t>::max()) return fail(where() + "." + m + ": out of range");
            out = uint32_t(u_);
            return true;
        };
        if (m == "ph") {
            if (k != Kind::text) return wrong("a string");
            if (s_->size() != 1) return fail(where() + ".ph: one character expected, found \"" + *s_ + "\"");
            event_.ph = (*s_)[0];
            ph_seen_ = true;
        } else if (m == "name" || m == "cat") {
            if (k != Kind::text) return wrong("a string");
            (m == "name" ? event_.name : event_.cat) = std::move(*s_);
        } else if (m == "ts" || m == "dur") {
            if (!is_number(k)) return wrong("a number");
            (m == "ts" ? event_.ts_us : event_.dur_us) = as_double(k);
        } else if (m == "pid") {
            if (!id(event_.pid)) return false;
            pid_seen_ = true;
        } else if (m == "tid") {
            uint32_t tid = 0;
            if (!id(tid)) return false;
            event_.tid = tid;
        } else if (m == "args") {
            if (k != Kind::object) return wrong("an object");
            event_.args.clear();
            stack_.push_back(In::args);
        } else if (k == Kind::object || k == Kind::array) {
            skip_ = 1;
        }
        return true;
    }

    bool close() {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const In was = stack_.back();
        stack_.pop_back();
        if (was == In::event) {
            if (!ph_seen_) return fail(where() + ".ph: missing");
            if (!pid_seen_) return fail(where() + ".pid: missing");
            trace.events.push_back(std::move(event_));
        }
        return true;
    }

    std::vector<In> stack_;
    std::string key_;
    size_t skip_ = 0;  // > 0: inside a value stepped over, at that depth
    TraceEvent event_;
    bool ph_seen_ = false, pid_seen_ = false;
    bool b_ = false;
    int64_t i_ = 0;
    uint64_t u_ = 0;
    double d_ = 0;
    std::string* s_ = nullptr;
};

}  // namespace

bool read_trace(const std::string& text, TraceRecord& out, std::string* error) {
    Reader r;
    const bool parsed = json::sax_parse(text, &r);
    if (parsed && !r.events_seen) r.error = "traceEvents: missing";
    if (!parsed || !r.events_seen) {
        if (error) *error = r.error.empty() ? "not a trace" : r.error;
        out = TraceRecord{};
        return false;
    }
    out = std::move(r.trace);
    return true;
}

}  // namespace gpuvp
