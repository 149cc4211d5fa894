// trace.json's text back into a ChromeTrace (`gpuvp report DIR`, a variant's trace from its child
// process): one pass, each event's members checked and typed as they are read. The text gpuvp
// writes is read by a pass of its own (TextReader); anything it does not take goes to
// nlohmann's parser (SaxReader), which reads any JSON and names what is wrong.
#include "sc_main/record/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

namespace gpuvp {

double ChromeEvent::number(std::string_view key) const {
    const ChromeValue* v = arg(key);
    if (!v) return NAN;
    if (const auto* i = std::get_if<int64_t>(v)) return double(*i);
    if (const auto* u = std::get_if<uint64_t>(v)) return double(*u);
    if (const auto* d = std::get_if<double>(v)) return *d;
    return NAN;
}

std::string ChromeEvent::text(std::string_view key) const {
    const ChromeValue* v = arg(key);
    const auto* s = v ? std::get_if<std::string>(v) : nullptr;
    return s ? *s : std::string();
}

namespace {

using json = nlohmann::json;

// The arguments' names a read trace's events view: gpuvp's own (static text, as the recorder
// writes them), or a copy kept in the record's `names`. The names a reader met last are looked
// up first (a trace has a few names, each on many events).
class Names {
public:
    std::string_view operator()(std::string_view k) {
        if (k.empty()) return {};
        std::string_view& seen = seen_[(k.size() * 7 + uint8_t(k.front()) * 3 + uint8_t(k.back())) % seen_.size()];
        if (seen.size() != k.size() || std::memcmp(seen.data(), k.data(), k.size()) != 0) seen = find(k);
        return seen;
    }
    void into(ChromeTrace& t) { t.names = std::move(other_); }

private:
    std::string_view find(std::string_view k) {
        static constexpr std::string_view kOwn[] = {
            "block", "core", "cpr", "detail", "draw", "field", "idle_pixel", "idle_vertex", "instance", "instructions",
            "kernel", "left_out_blocks", "left_out_launches", "left_out_tables", "left_out_warps", "level", "limit", "lock", "name", "note", "other", "other_cpr", "packet", "pixel", "queue", "redone_instructions",
            "row", "slice", "slot", "sm", "sort_index", "start_ns", "status", "switched", "task", "values", "vertex",
            "wait_ns", "warp", "word", "workgroup"};
        for (const std::string_view own : kOwn)
            if (own == k) return own;
        if (!other_) other_ = std::make_shared<std::set<std::string, std::less<>>>();
        auto it = other_->find(k);
        if (it == other_->end()) it = other_->emplace(k).first;
        return *it;
    }
    std::array<std::string_view, 64> seen_{};
    std::shared_ptr<std::set<std::string, std::less<>>> other_;
};

// The document read as it is parsed (no DOM: a full trace would take hundreds of MB as one):
// the root object's traceEvents and otherData's scalar members, each event's members typed; anything else
// stepped over. The first thing wrong stops the parse, named in `error`.
class SaxReader : public nlohmann::json_sax<json> {
public:
    ChromeTrace trace;
    Names names;
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
            if (key_ == "note" && k != Kind::text) return fail(std::string("otherData.note: a string expected, found ") + type);
            if (!scalar(trace.other, k)) break;
            return true;
        case In::events:
            if (k != Kind::object) return fail(where() + ": an object expected, found " + type);
            event_ = ChromeEvent{};
            ph_seen_ = pid_seen_ = false;
            stack_.push_back(In::event);
            return true;
        case In::event: return member(type, k);
        case In::args: scalar(event_.args, k); break;
        }
        if (open) skip_ = 1;  // stepped over, with what it holds
        return true;
    }

    // A scalar member (an event's argument, otherData's member) kept in `into`; false for null,
    // arrays and objects, which the record does not hold.
    bool scalar(std::vector<ChromeArg>& into, Kind k) {
        switch (k) {
        case Kind::boolean: into.push_back({names(key_), ChromeValue(b_)}); return true;
        case Kind::integer: into.push_back({names(key_), ChromeValue(int64_t(i_))}); return true;
        case Kind::unsigned_integer: into.push_back({names(key_), ChromeValue(uint64_t(u_))}); return true;
        case Kind::floating: into.push_back({names(key_), ChromeValue(double(d_))}); return true;
        case Kind::text: into.push_back({names(key_), ChromeValue(std::move(*s_))}); return true;
        default: return false;
        }
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
    ChromeEvent event_;
    bool ph_seen_ = false, pid_seen_ = false;
    bool b_ = false;
    int64_t i_ = 0;
    uint64_t u_ = 0;
    double d_ = 0;
    std::string* s_ = nullptr;
};

// The text chrome_text writes, read without the general parser: strings of ASCII without control
// characters or escapes, numbers, true, false and null, an event's arguments its one nested object,
// whitespace anywhere JSON allows it, each root member once (traceEvents, otherData with scalar
// members, a note among them text, and scalars). Members are read in any order, with the meaning SaxReader gives them.
// Anything else (an escape, a byte not ASCII, a member of the wrong type, an event without its
// ph or pid, text that is not JSON) ends it with false: SaxReader then reads the text from the
// start, and either reads it or names what is wrong.
class TextReader {
public:
    explicit TextReader(const std::string& text) : p_(text.data()), end_(text.data() + text.size()) {}

    bool read(ChromeTrace& out) {
        if (!take('{')) return false;
        bool events = false, other = false;
        do {
            std::string_view k;
            if (!string(k) || !take(':')) return false;
            if (is(k, "traceEvents") && !events) {
                events = true;
                if (!take('[')) return false;
                if (take(']')) continue;
                do
                    if (!event(out.events.emplace_back())) return false;
                while (take(','));
                if (!take(']')) return false;
            } else if (is(k, "otherData") && !other) {
                other = true;
                if (!take('{')) return false;
                if (take('}')) continue;
                do {
                    std::string_view m;
                    if (!string(m) || !take(':')) return false;
                    space();
                    if (is(m, "note") && (p_ == end_ || *p_ != '"')) return false;
                    if (!member(m, out.other)) return false;
                } while (take(','));
                if (!take('}')) return false;
            } else if (is(k, "traceEvents") || is(k, "otherData") || !scalar()) {  // (displayTimeUnit)
                return false;
            }
        } while (take(','));
        if (!take('}')) return false;
        space();
        if (p_ != end_ || !events) return false;
        names_.into(out);
        return true;
    }

private:
    enum class Num { none, integer, unsigned_integer, floating };

    void space() {
        while (p_ < end_ && static_cast<unsigned char>(*p_) <= ' ' &&
               (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
            ++p_;
    }
    bool take(char c) {
        if (p_ < end_ && *p_ == c) {  // (the compact text: no space)
            ++p_;
            return true;
        }
        space();
        if (p_ < end_ && *p_ == c) {
            ++p_;
            return true;
        }
        return false;
    }
    // A string's text, if it is ASCII without control characters or escapes (as the parser reads it).
    bool string(std::string_view& s) {
        if (!take('"')) return false;
        const char* const b = p_;
        // Eight bytes at a time up to the first that is '"', '\\', below 0x20 or above 0x7f
        // (the lowest byte these tests flag is exact; those above it may not be).
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        constexpr uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        while (end_ - p_ >= 8) {
            uint64_t w;
            std::memcpy(&w, p_, 8);
            const uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            const uint64_t flagged = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | ((w - ones * 0x20) & ~w) | w;
            if (flagged & highs) {
                p_ += size_t(__builtin_ctzll(flagged & highs)) / 8;
                break;
            }
            p_ += 8;
        }
#endif
        while (p_ < end_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                s = std::string_view(b, size_t(p_ - b));
                ++p_;
                return true;
            }
            if (c < 0x20 || c >= 0x80 || c == '\\') return false;
            ++p_;
        }
        return false;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    template <size_t N>
    static bool is(std::string_view k, const char (&name)[N]) {
        return k.size() == N - 1 && std::memcmp(k.data(), name, N - 1) == 0;
    }
    // A number by JSON's grammar, typed as nlohmann's parser types it: an integer without a
    // fraction or exponent that fits (signed if negative, else unsigned), else a double. None
    // for anything else, a double out of range included (the parser decides on those).
    Num number(int64_t& i, uint64_t& u, double& d) {
        space();
        const char* const b = p_;
        const char* q = p_;
        const bool minus = q < end_ && *q == '-';
        q += minus;
        if (q == end_ || !digit(*q)) return Num::none;
        uint64_t m = 0;  // the digits as one integer (while there are at most 19 of them)
        size_t digits = 0, fraction = 0;
        if (*q == '0') {
            ++q;
            ++digits;
        } else {
            for (; q < end_ && digit(*q); ++q, ++digits) m = m * 10 + uint64_t(*q - '0');
        }
        bool integer = true, exponent = false;
        if (q < end_ && *q == '.') {
            integer = false;
            if (++q == end_ || !digit(*q)) return Num::none;
            for (; q < end_ && digit(*q); ++q, ++fraction) m = m * 10 + uint64_t(*q - '0');
        }
        if (q < end_ && (*q == 'e' || *q == 'E')) {
            integer = false;
            exponent = true;
            if (++q < end_ && (*q == '+' || *q == '-')) ++q;
            if (q == end_ || !digit(*q)) return Num::none;
            while (q < end_ && digit(*q)) ++q;
        }
        p_ = q;
        if (digits + fraction <= 19) {  // (m is exact)
            if (integer && !minus) {
                u = m;
                return Num::unsigned_integer;
            }
            if (integer && m <= uint64_t(1) << 63) {
                i = int64_t(0 - m);
                return Num::integer;
            }
            // A decimal of at most 2^53 in its digits over an exact power of ten: the quotient, one
            // rounding, is the correctly rounded value the parser's strtod gives.
            static constexpr double kTens[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
            if (!integer && !exponent && m <= uint64_t(1) << 53) {
                d = double(m) / kTens[fraction];
                if (minus) d = -d;
                return Num::floating;
            }
        } else if (integer) {
            if (minus) {
                if (std::from_chars(b, q, i).ec == std::errc()) return Num::integer;
            } else if (std::from_chars(b, q, u).ec == std::errc()) {
                return Num::unsigned_integer;
            }
        }
        const auto r = std::from_chars(b, q, d);  // (a whole number too big for its type: a double)
        return r.ec == std::errc() && r.ptr == q && std::isfinite(d) ? Num::floating : Num::none;
    }
    bool word(const char* w, size_t n) {
        if (size_t(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
        p_ += n;
        return true;
    }
    // A value that is not an object or an array, stepped over.
    bool scalar() {
        space();
        if (p_ == end_) return false;
        std::string_view s;
        int64_t i;
        uint64_t u;
        double d;
        switch (*p_) {
        case '"': return string(s);
        case 't': return word("true", 4);
        case 'f': return word("false", 5);
        case 'n': return word("null", 4);
        default: return number(i, u, d) != Num::none;
        }
    }
    bool event(ChromeEvent& e) {
        if (!take('{')) return false;
        bool ph = false, pid = false;
        if (take('}')) return false;  // (no ph: the parser names it)
        do {
            std::string_view k, s;
            if (!string(k) || !take(':')) return false;
            int64_t i;
            uint64_t u;
            double d;
            if (is(k, "name") || is(k, "cat")) {
                if (!string(s)) return false;
                (is(k, "name") ? e.name : e.cat).assign(s);
            } else if (is(k, "ph")) {
                if (!string(s) || s.size() != 1) return false;
                e.ph = s[0];
                ph = true;
            } else if (is(k, "ts") || is(k, "dur")) {
                const Num n = number(i, u, d);
                if (n == Num::none) return false;
                (is(k, "ts") ? e.ts_us : e.dur_us) = n == Num::integer ? double(i) : n == Num::unsigned_integer ? double(u) : d;
            } else if (is(k, "pid") || is(k, "tid")) {
                if (number(i, u, d) != Num::unsigned_integer || u > std::numeric_limits<uint32_t>::max()) return false;
                if (is(k, "pid")) {
                    e.pid = uint32_t(u);
                    pid = true;
                } else {
                    e.tid = uint32_t(u);
                }
            } else if (is(k, "args")) {
                if (!args(e)) return false;
            } else if (!scalar()) {
                return false;
            }
        } while (take(','));
        return take('}') && ph && pid;
    }
    // The arguments, typed as SaxReader types them (null: none), into a vector of their size.
    bool args(ChromeEvent& e) {
        if (!take('{')) return false;
        args_.clear();
        if (!take('}')) {
            do {
                std::string_view k;
                if (!string(k) || !take(':') || !member(k, args_)) return false;
            } while (take(','));
            if (!take('}')) return false;
        }
        e.args.assign(std::make_move_iterator(args_.begin()), std::make_move_iterator(args_.end()));
        return true;
    }

    // A member's value that is not an object or an array, typed as SaxReader types it, into `into`
    // (null: none).
    bool member(std::string_view k, std::vector<ChromeArg>& into) {
        space();
        if (p_ == end_) return false;
        std::string_view s;
        int64_t i;
        uint64_t u;
        double d;
        switch (*p_) {
        case '"':
            if (!string(s)) return false;
            into.emplace_back(names_(k), ChromeValue(std::in_place_type<std::string>, s));
            return true;
        case 't':
            if (!word("true", 4)) return false;
            into.emplace_back(names_(k), ChromeValue(true));
            return true;
        case 'f':
            if (!word("false", 5)) return false;
            into.emplace_back(names_(k), ChromeValue(false));
            return true;
        case 'n': return word("null", 4);
        default:
            switch (number(i, u, d)) {
            case Num::integer: into.emplace_back(names_(k), ChromeValue(i)); return true;
            case Num::unsigned_integer: into.emplace_back(names_(k), ChromeValue(u)); return true;
            case Num::floating: into.emplace_back(names_(k), ChromeValue(d)); return true;
            case Num::none: return false;
            }
        }
        return false;
    }

    const char* p_;
    const char* const end_;
    Names names_;
    std::vector<ChromeArg> args_;  // an event's, before they are moved into a vector of their size
};

}  // namespace

namespace detail {

bool read_chrome_parsed(const std::string& text, ChromeTrace& out, std::string* error) {
    SaxReader r;
    const bool parsed = json::sax_parse(text, &r);
    if (parsed && !r.events_seen) r.error = "traceEvents: missing";
    if (!parsed || !r.events_seen) {
        if (error) *error = r.error.empty() ? "not a trace" : r.error;
        out = ChromeTrace{};
        return false;
    }
    r.names.into(r.trace);
    out = std::move(r.trace);
    return true;
}

}  // namespace detail

bool read_chrome(const std::string& text, ChromeTrace& out, std::string* error) {
    ChromeTrace t;
    if (TextReader(text).read(t)) {
        out = std::move(t);
        return true;
    }
    return detail::read_chrome_parsed(text, out, error);
}

}  // namespace gpuvp
