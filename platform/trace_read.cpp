// trace.json's text back into a TraceRecord (`gpuvp report DIR`, a variant's trace from its child
// process): one parse, then each event's members checked and typed.
#include "platform/trace_record.h"

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

struct Bad {
    std::string what;
};

// An event's member `key`: absent (nullptr) or of the type wanted; otherwise Bad naming it.
const json* member(const json& e, const char* key, json::value_t want, const std::string& where) {
    const auto it = e.find(key);
    if (it == e.end()) return nullptr;
    const bool ok = want == json::value_t::number_float ? it->is_number()
                    : want == json::value_t::number_unsigned ? it->is_number_unsigned()
                    : it->type() == want;
    if (!ok) {
        const char* expected = want == json::value_t::string            ? "a string"
                               : want == json::value_t::number_float    ? "a number"
                               : want == json::value_t::number_unsigned ? "a non-negative integer"
                                                                        : "an object";
        throw Bad{where + "." + key + ": " + expected + " expected, found " + it->type_name()};
    }
    return &*it;
}

uint32_t id(const json& v, const std::string& where) {
    const uint64_t u = v.get<uint64_t>();
    if (u > std::numeric_limits<uint32_t>::max()) throw Bad{where + ": out of range"};
    return uint32_t(u);
}

TraceEvent read_event(const json& e, const std::string& where) {
    if (!e.is_object()) throw Bad{where + ": an object expected, found " + std::string(e.type_name())};
    TraceEvent ev;
    const json* ph = member(e, "ph", json::value_t::string, where);
    if (!ph) throw Bad{where + ".ph: missing"};
    const std::string& p = ph->get_ref<const std::string&>();
    if (p.size() != 1) throw Bad{where + ".ph: one character expected, found \"" + p + "\""};
    ev.ph = p[0];
    if (const json* v = member(e, "name", json::value_t::string, where)) ev.name = v->get<std::string>();
    if (const json* v = member(e, "cat", json::value_t::string, where)) ev.cat = v->get<std::string>();
    if (const json* v = member(e, "ts", json::value_t::number_float, where)) ev.ts_us = v->get<double>();
    if (const json* v = member(e, "dur", json::value_t::number_float, where)) ev.dur_us = v->get<double>();
    const json* pid = member(e, "pid", json::value_t::number_unsigned, where);
    if (!pid) throw Bad{where + ".pid: missing"};
    ev.pid = id(*pid, where + ".pid");
    if (const json* v = member(e, "tid", json::value_t::number_unsigned, where)) ev.tid = id(*v, where + ".tid");
    if (const json* args = member(e, "args", json::value_t::object, where)) {
        ev.args.reserve(args->size());
        for (auto it = args->begin(); it != args->end(); ++it) {
            const json& v = it.value();
            switch (v.type()) {
            case json::value_t::boolean: ev.args.push_back({it.key(), v.get<bool>()}); break;
            case json::value_t::number_integer: ev.args.push_back({it.key(), v.get<int64_t>()}); break;
            case json::value_t::number_unsigned: ev.args.push_back({it.key(), v.get<uint64_t>()}); break;
            case json::value_t::number_float: ev.args.push_back({it.key(), v.get<double>()}); break;
            case json::value_t::string: ev.args.push_back({it.key(), v.get<std::string>()}); break;
            default: break;  // (null, arrays and objects: not an argument the record holds)
            }
        }
    }
    return ev;
}

}  // namespace

bool read_trace(const std::string& text, TraceRecord& out, std::string* error) {
    auto fail = [&](const std::string& what) {
        if (error) *error = what;
        out = TraceRecord{};
        return false;
    };
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        return fail("not JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    }
    if (!doc.is_object()) return fail(std::string("an object expected, found ") + doc.type_name());
    const auto events = doc.find("traceEvents");
    if (events == doc.end()) return fail("traceEvents: missing");
    if (!events->is_array()) return fail(std::string("traceEvents: an array expected, found ") + events->type_name());
    TraceRecord t;
    try {
        t.events.reserve(events->size());
        for (size_t i = 0; i < events->size(); ++i)
            t.events.push_back(read_event((*events)[i], "traceEvents[" + std::to_string(i) + "]"));
        const auto other = doc.find("otherData");
        if (other != doc.end() && other->is_object()) {
            const auto note = other->find("note");
            if (note != other->end()) {
                if (!note->is_string())
                    throw Bad{std::string("otherData.note: a string expected, found ") + note->type_name()};
                t.note = note->get<std::string>();
            }
        }
    } catch (const Bad& b) {
        return fail(b.what);
    }
    out = std::move(t);
    return true;
}

}  // namespace gpuvp
