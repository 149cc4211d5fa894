#include "sc_main/record/chrome_trace.h"
#include "sc_main/record/json_text.h"

namespace gpuvp {

namespace {

void append_value(std::string& out, const ChromeValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>) {
                out += x ? "true" : "false";
            } else if constexpr (std::is_same_v<T, double>) {
                append_json_number(out, x);
            } else if constexpr (std::is_same_v<T, std::string>) {
                append_json_string(out, x);
            } else {
                out += std::to_string(x);
            }
        },
        v);
}

}  // namespace

ChromeWriter::ChromeWriter(size_t events) : out_("{\"traceEvents\":[") { out_.reserve(out_.size() + events * 200); }

// Written straight into the text, member by member in the order of the event's kind (Chrome's
// trace-event format; docs/results.md), as compact JSON.
void ChromeWriter::add(const ChromeEvent& e) {
    std::string& out = out_;
    if (!first_) out += ',';
    first_ = false;
    out += "{\"name\":";
    append_json_string(out, e.name);
    if (e.ph != 'M') {
        out += ",\"cat\":";
        append_json_string(out, e.cat);
    }
    out += ",\"ph\":";
    append_json_string(out, std::string_view(&e.ph, 1));
    if (e.ph != 'M') {
        out += ",\"ts\":";
        append_json_number(out, e.ts_us);
    }
    if (e.ph == 'X') {
        out += ",\"dur\":";
        append_json_number(out, e.dur_us);
    }
    if (e.ph == 'i') out += ",\"s\":\"t\"";
    out += ",\"pid\":" + std::to_string(e.pid);
    if (e.tid) out += ",\"tid\":" + std::to_string(*e.tid);
    if (!e.args.empty()) {
        out += ",\"args\":{";
        for (size_t i = 0; i < e.args.size(); ++i) {
            if (i) out += ',';
            append_json_string(out, e.args[i].key);
            out += ':';
            append_value(out, e.args[i].value);
        }
        out += '}';
    }
    out += '}';
}

std::string ChromeWriter::finish(const std::vector<ChromeArg>& other) {
    std::string out = std::move(out_);
    out += "],\"displayTimeUnit\":\"ns\"";
    if (!other.empty()) {
        out += ",\"otherData\":{";
        for (size_t i = 0; i < other.size(); ++i) {
            if (i) out += ',';
            append_json_string(out, other[i].key);
            out += ':';
            append_value(out, other[i].value);
        }
        out += '}';
    }
    out += "}\n";
    return out;
}

std::string chrome_text(const ChromeTrace& t) {
    ChromeWriter w(t.events.size());
    for (const ChromeEvent& e : t.events) w.add(e);
    return w.finish(t.other);
}

}  // namespace gpuvp
