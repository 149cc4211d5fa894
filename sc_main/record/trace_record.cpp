// The trace record in Chrome's trace-event format and back: the one place that knows how
// trace.json spells gpuvp's events (docs/results.md, "trace.json").
#include "sc_main/record/trace_record.h"
#include "sc_main/record/chrome_trace.h"
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/usa/load_flags.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuvp {

namespace {

// Process ids (pid) and rows (tid).
namespace pid {
constexpr uint32_t host = 1, cp = 2, glc = 3, launch = 4, kernels = 5, usa = 6, sm0 = 100;
}
namespace tid {
constexpr uint32_t queue0 = 100;         // the command processor's queue rows
constexpr uint32_t block0 = 1000;        // an SM's block rows
constexpr uint32_t arbiter = 998, table = 999;  // an SM's lock arbiters and block status table
constexpr uint32_t draw0 = 1000;         // the shading array's draw rows (below them: its cores)
}  // namespace tid

constexpr const char* kScalarLevels[] = {"kernel", "workgroup", "warp", "slice"};
constexpr const char* kShadingNames[] = {"load flags", "cores by type", "busy cores", "ready tasks"};

// --- writing --------------------------------------------------------------------------------

// One event at a time, its kernel's or draw's name and instance added from the launches.
class Writer {
public:
    Writer(const TraceRecord& t, ChromeWriter& out) : t_(t), out_(out) {}

    void operator()(const trace::Kernel& k) {
        ChromeEvent& e = start(launch_name(k.owner), k.draw ? "draw" : "kernel", 'X', k.ts, k.dur);
        e.pid = k.draw ? pid::usa : pid::kernels;
        e.tid = k.draw ? tid::draw0 + k.lane : k.lane;
        e.args.emplace_back("queue", k.queue);
        e.args.emplace_back("packet", k.packet);
        e.args.emplace_back("status", k.status == KernelError::none ? "ok" : kernel_error_text(k.status));
        end(k.owner, k.draw);
    }
    void operator()(const trace::Packet& p) {
        const char* what = p.copy ? "copy" : "barrier";
        ChromeEvent& e = start(std::string(what) + " packet " + std::to_string(p.packet), what, 'X', p.ts, p.dur);
        on_queue(e, p.queue);
        end({});
    }
    void operator()(const trace::Rejected& r) {
        ChromeEvent& e = start(std::string("rejected: ") + queue_error_name(r.why.error), "error", 'i', r.ts, 0);
        on_queue(e, r.queue);
        e.args.emplace_back("packet", r.packet);
        e.args.emplace_back("field", r.why.field);
        e.args.emplace_back("detail", r.why.detail);
        end({});
    }
    void operator()(const trace::Block& b) {
        std::string name = "block " + std::to_string(b.block);
        if (t_.launch(b.owner)) name = launch_name(b.owner) + " " + name;
        ChromeEvent& e = start(std::move(name), "block", 'X', b.ts, b.dur);
        e.pid = pid::sm0 + b.sm;
        e.tid = tid::block0 + b.lane;
        e.args.emplace_back("block", b.block);
        e.args.emplace_back("sm", b.sm);
        end(b.owner);
    }
    void operator()(const trace::Warp& w) {
        std::string name = "warp " + std::to_string(w.warp);
        if (t_.launch(w.owner)) name = launch_name(w.owner) + " b" + std::to_string(w.block) + " " + name;
        ChromeEvent& e = start(std::move(name), "warp", 'X', w.ts, w.dur);
        e.pid = pid::sm0 + w.sm;
        e.tid = w.slot;
        if (w.in_flight) e.args.emplace_back("in_flight", true);
        e.args.emplace_back("block", w.block);
        e.args.emplace_back("warp", w.warp);
        e.args.emplace_back("sm", w.sm);
        e.args.emplace_back("slot", w.slot);
        e.args.emplace_back("instructions", w.instructions);
        end(w.owner);
    }
    void operator()(const trace::Task& k) {
        ChromeEvent& e = start(core_type_name(k.type), "shading", 'X', k.ts, k.dur);
        e.pid = pid::usa;
        e.tid = k.core;
        e.args.emplace_back("task", k.task);
        e.args.emplace_back("start_ns", k.start_ns);
        if (k.switched) e.args.emplace_back("switched", true);
        end(k.owner, true);
    }
    void operator()(const trace::Stage& s) {
        ChromeEvent& e = start(s.name, "launch", 'X', s.ts, s.dur);
        e.pid = pid::launch;
        e.tid = s.lane;
        auto row = t_.stage_rows.find(s.lane);
        e.args.emplace_back("kernel", row == t_.stage_rows.end() ? std::string() : row->second);
        end({});
    }
    void operator()(const trace::Lock& l) {
        const LockEvent& x = l.event;
        const bool from_arbiter = x.slot == ~0u;
        ChromeEvent& e = start(lock_name(x), "lock", 'i', l.ts, 0);
        e.pid = pid::sm0 + x.sm;
        e.tid = from_arbiter ? tid::arbiter : x.slot;
        e.args.emplace_back(from_arbiter ? "row" : "block", x.block);
        e.args.emplace_back("warp", x.warp);
        if (x.lock != ~0u) e.args.emplace_back("lock", x.lock);
        if (x.other != ~0u) e.args.emplace_back("other", x.other);
        if (x.cpr != ~0u) e.args.emplace_back("cpr", x.cpr);
        if (x.other_cpr != ~0u) e.args.emplace_back("other_cpr", x.other_cpr);
        if (x.kind == LockEventKind::acquired) {
            e.args.emplace_back("word", hex(x.word));
            e.args.emplace_back("wait_ns", to_ns(x.wait));
        }
        if (x.redone) e.args.emplace_back("redone_instructions", x.redone);
        end(l.owner);
    }
    void operator()(const trace::TableWrite& w) {
        ChromeEvent& e = start(std::string(w.table) + "[" + std::to_string(w.row) + "]", "table", 'i', w.ts, 0);
        e.pid = w.sm == trace::kNone ? pid::glc : pid::sm0 + w.sm;
        e.tid = tid::table;
        e.args.emplace_back("values", w.values);
        end({});
    }
    void operator()(const trace::Scalar& s) {
        ChromeEvent& e = start("scalar pool", "scalar", 'C', s.ts, 0);
        e.pid = pid::sm0 + s.sm;
        e.tid = 0;
        for (size_t i = 0; i < 4; ++i) e.args.emplace_back(kScalarLevels[i], s.used[i]);
        end({});
    }
    void operator()(const trace::Shading& s) {
        ChromeEvent& e = start(kShadingNames[s.which], "usa", 'C', s.ts, 0);
        e.pid = pid::usa;
        e.tid = 0;
        const bool flags = s.which == trace::Shading::load_flags;
        e.args.emplace_back(flags ? "idle_vertex" : "vertex", s.vertex);
        e.args.emplace_back(flags ? "idle_pixel" : "pixel", s.pixel);
        end({});
    }
    void operator()(const trace::Reassigned& r) {
        const char *v = flag_bits(r.decided_on.idle_vertex), *p = flag_bits(r.decided_on.idle_pixel);
        ChromeEvent& e = start(std::string("to ") + core_type_name(r.to) + " (V=" + v + " P=" + p + ")", "usa", 'i', r.ts, 0);
        e.pid = pid::usa;
        e.tid = r.core;
        e.args.emplace_back("core", r.core);
        e.args.emplace_back("idle_vertex", v);
        e.args.emplace_back("idle_pixel", p);
        end({});
    }
    void operator()(const trace::Irq& i) {
        ChromeEvent& e = start("irq", "irq", 'C', i.ts, 0);
        e.pid = pid::host;
        e.tid = 0;
        e.args.emplace_back("level", i.level ? 1 : 0);
        end({});
    }

private:
    ChromeEvent& start(std::string name, const char* category, char ph, double ts, double dur) {
        e_.name = std::move(name);
        e_.cat = category;
        e_.ph = ph;
        e_.ts_us = ts;
        e_.dur_us = ph == 'X' ? dur : 0;
        e_.args.clear();
        return e_;
    }
    // Its kernel or draw (and instance) as its last arguments; written.
    void end(const trace::Owner& o, bool draw = false) {
        if (const TraceLaunch* l = t_.launch(o)) {
            e_.args.emplace_back(draw ? "draw" : "kernel", l->name);
            if (l->instanced) e_.args.emplace_back("instance", o.instance);
        }
        out_.add(e_);
    }
    void on_queue(ChromeEvent& e, uint32_t queue) {
        e.pid = pid::cp;
        e.tid = tid::queue0 + queue;
    }
    std::string launch_name(const trace::Owner& o) const {
        const TraceLaunch* l = t_.launch(o);
        if (!l) return "";
        return l->instanced ? l->name + "[" + std::to_string(o.instance) + "]" : l->name;
    }
    static std::string lock_name(const LockEvent& e) {
        const std::string lock = "lock " + std::to_string(e.lock);
        const std::string other = e.other == ~0u ? "" : "warp " + std::to_string(e.other);
        switch (e.kind) {
        case LockEventKind::acquired: return lock + " acquired";
        case LockEventKind::released: return lock + " released";
        case LockEventKind::requested: return lock + " held by " + other + ": request";
        case LockEventKind::arbiter_push:
            return "fifo <- (" + std::to_string(e.warp) + ", " + std::to_string(e.other) + ") " + lock;
        case LockEventKind::arbiter_decision:
            return "warp " + std::to_string(e.warp) + (e.verdict == LockVerdict::preempt ? " pre-empts " : " waits for ") +
                   other + " (" + lock + ")";
        case LockEventKind::forced_release: return lock + " forced release for " + other;
        case LockEventKind::hold_limit_release: return lock + " released: hold limit";
        case LockEventKind::sync_failure: return "sync failure on " + lock + " (held by " + other + ")";
        case LockEventKind::failure_release: return lock + " released: sync failure";
        case LockEventKind::parked: return "waits for " + lock;
        case LockEventKind::woken: return lock + " free: retry";
        case LockEventKind::exit_release: return lock + " released at exit";
        case LockEventKind::rewound:
            return "critical section abandoned: " + std::to_string(e.redone) + " instructions to redo";
        case LockEventKind::count: break;
        }
        return "";
    }

    const TraceRecord& t_;
    ChromeWriter& out_;
    ChromeEvent e_;  // (its buffers reused event after event)
};

// The metadata events that name the processes and rows.
void write_rows(const TraceRecord& t, ChromeWriter& out) {
    ChromeEvent e;
    e.ph = 'M';
    auto meta = [&](const char* what, uint32_t p, std::optional<uint32_t> row, ChromeArg arg) {
        e.name = what;
        e.pid = p;
        e.tid = row;
        e.args.assign(1, std::move(arg));
        out.add(e);
    };
    auto name_of = [&](uint32_t p, uint32_t row, const char* what, std::string name) {
        meta(what, p, row, {"name", std::move(name)});
    };
    name_of(pid::host, 0, "process_name", "host");
    name_of(pid::cp, 0, "process_name", "command processor");
    for (uint32_t q = 0; q < t.queues.size(); ++q) name_of(pid::cp, tid::queue0 + q, "thread_name", "queue " + t.queues[q]);
    name_of(pid::glc, 0, "process_name", "global logic controller");
    name_of(pid::launch, 0, "process_name", "launch stages");
    name_of(pid::kernels, 0, "process_name", "kernels");
    for (uint32_t s = 0; s < t.sm_slots.size(); ++s) {
        name_of(pid::sm0 + s, 0, "process_name", "sm[" + std::to_string(s) + "]");
        meta("process_sort_index", pid::sm0 + s, std::nullopt, {"sort_index", 10 + s});
        for (uint32_t w = 0; w < t.sm_slots[s]; ++w) name_of(pid::sm0 + s, w, "thread_name", "warp slot " + std::to_string(w));
        name_of(pid::sm0 + s, tid::arbiter, "thread_name", "lock arbiters");
        name_of(pid::sm0 + s, tid::table, "thread_name", "block status table");
    }
    if (t.usa) {
        name_of(pid::usa, 0, "process_name", "unified shading array");
        for (uint32_t c = 0; c < t.usa_cores; ++c) name_of(pid::usa, c, "thread_name", shading_core_name(c));
        for (uint32_t l = 0; l < t.draw_rows; ++l) name_of(pid::usa, tid::draw0 + l, "thread_name", "draws");
    }
    for (const auto& [row, kernel] : t.stage_rows) name_of(pid::launch, row, "thread_name", kernel);
}

}  // namespace

std::string shading_core_name(uint32_t core) {
    return "SSC" + std::to_string(core / kCoresPerCluster + 1) + " core" + std::to_string(core % kCoresPerCluster + 1);
}

namespace trace {

namespace {
constexpr const char* kDetailNames[] = {"launches", "blocks", "warps", "all"};
constexpr const char* kDetailEvents[] = {"launches", "blocks", "warps", "tables"};
// otherData's counts of what was left out, by level ("left_out_" and the level's events).
constexpr const char* kLeftOut[] = {"left_out_launches", "left_out_blocks", "left_out_warps", "left_out_tables"};
}  // namespace

const char* detail_name(Detail d) { return kDetailNames[size_t(d)]; }

bool detail_from(std::string_view word, Detail& out) {
    for (size_t i = 0; i < kDetails; ++i)
        if (word == kDetailNames[i]) {
            out = Detail(i);
            return true;
        }
    return false;
}

const char* detail_events(Detail d) { return kDetailEvents[size_t(d)]; }

}  // namespace trace

std::string trace_note(const TraceRecord& t) {
    static constexpr const char* kLevel[] = {"launch-level", "block-level", "warp-level", "register-table"};
    // "3 block-level, 4 warp-level and 5 register-table events" for the levels from `first` to `last`.
    auto counts = [&](size_t first, size_t last) {
        std::vector<std::string> parts;
        for (size_t i = first; i <= last; ++i)
            if (t.left_out[i]) parts.push_back(std::to_string(t.left_out[i]) + " " + kLevel[i]);
        std::string out;
        for (size_t i = 0; i < parts.size(); ++i)
            out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
        return out.empty() ? out : out + " events";
    };
    const size_t detail = size_t(t.detail);
    uint64_t dropped = 0;
    for (size_t i = 0; i <= detail; ++i) dropped += t.left_out[i];
    std::string note;
    if (detail + 1 < trace::kDetails) {
        const std::string skipped = counts(detail + 1, trace::kDetails - 1);
        if (!skipped.empty()) note = std::string("--trace-detail ") + trace::detail_name(t.detail) + ": " + skipped + " not recorded";
    }
    if (dropped)
        note += (note.empty() ? "" : "; ") + std::string("trace full: ") + std::to_string(dropped) +
                " events dropped (the limit is " + std::to_string(t.limit) + "; see --trace-limit and --trace-detail): " +
                counts(0, detail);
    return note;
}

std::string trace_text(const TraceRecord& t) {
    ChromeWriter out(t.events.size());
    write_rows(t, out);
    Writer w(t, out);
    for (const trace::Event& e : t.events) std::visit(w, e);
    std::vector<ChromeArg> other{{"detail", trace::detail_name(t.detail)}, {"limit", t.limit}};
    for (size_t i = 0; i < trace::kDetails; ++i) other.emplace_back(trace::kLeftOut[i], t.left_out[i]);
    if (std::string note = trace_note(t); !note.empty()) other.emplace_back("note", std::move(note));
    return out.finish(other);
}

// --- reading --------------------------------------------------------------------------------

namespace {

// A number argument as a whole number >= 0; false if absent, negative, fractional or too large.
template <class T>
bool whole(const ChromeEvent& e, std::string_view key, T& out) {
    const double v = e.number(key);
    if (!(v >= 0) || v != std::floor(v) || v > double(std::numeric_limits<T>::max())) return false;
    out = T(v);
    return true;
}

class Reader {
public:
    explicit Reader(TraceRecord& t) : t_(t) {}

    void operator()(const ChromeEvent& e) {
        const uint32_t p = e.pid, row = e.tid.value_or(0);
        if (e.ph == 'M') return rows(e, p, row);
        const double ts = e.ts_us * 1000, dur = e.ph == 'X' ? e.dur_us * 1000 : 0;
        if (!std::isfinite(ts)) return;
        t_.end_ns = std::max(t_.end_ns, ts + (std::isfinite(dur) ? dur : 0));
        if (e.ph == 'X' && e.cat == "warp" && p >= pid::sm0 && e.tid) {
            trace::Warp w{e.ts_us, e.dur_us, owner(e, "kernel"), p - pid::sm0, row};
            w.in_flight = e.arg("in_flight") != nullptr;
            if (whole(e, "block", w.block) && whole(e, "warp", w.warp) && whole(e, "instructions", w.instructions))
                t_.events.emplace_back(w);
        } else if (e.ph == 'X' && e.cat == "block" && p >= pid::sm0 && row >= tid::block0) {
            trace::Block b{e.ts_us, e.dur_us, owner(e, "kernel"), p - pid::sm0, row - tid::block0};
            if (whole(e, "block", b.block)) t_.events.emplace_back(b);
        } else if (e.ph == 'X' && e.cat == "shading" && p == pid::usa && row < tid::draw0) {
            trace::Task k{e.ts_us, e.dur_us, owner(e, "draw"), row, e.name == "vertex" ? CoreType::vertex : CoreType::pixel};
            const double start = e.number("start_ns");
            k.start_ns = std::isfinite(start) ? start : 0;
            k.switched = e.arg("switched") != nullptr;
            if (whole(e, "task", k.task)) t_.events.emplace_back(k);
        } else if (e.ph == 'C' && e.name == "scalar pool" && p >= pid::sm0) {
            trace::Scalar s{e.ts_us, p - pid::sm0};
            for (size_t i = 0; i < 4; ++i) s.used[i] = count(e, kScalarLevels[i]);
            t_.events.emplace_back(s);
        } else if (e.ph == 'C' && e.name == kShadingNames[trace::Shading::cores_by_type] && p == pid::usa) {
            t_.events.emplace_back(trace::Shading{e.ts_us, trace::Shading::cores_by_type, count(e, "vertex"), count(e, "pixel")});
        }
    }

private:
    // The rows' names, as trace_text writes them: each SM's, its warp slots', the queues', the
    // shading cores' and draw rows' in order; a launch-stage row by its row id.
    void rows(const ChromeEvent& e, uint32_t p, uint32_t row) {
        const std::string name = e.text("name");
        const bool process = e.name == "process_name", thread = e.name == "thread_name";
        if (process && p == pid::sm0 + t_.sm_slots.size() && name == "sm[" + std::to_string(t_.sm_slots.size()) + "]")
            t_.sm_slots.push_back(0);
        else if (thread && !t_.sm_slots.empty() && p == pid::sm0 + t_.sm_slots.size() - 1 &&
                 row == t_.sm_slots.back() && name == "warp slot " + std::to_string(row))
            ++t_.sm_slots.back();
        else if (thread && p == pid::cp && row == tid::queue0 + t_.queues.size() && name.rfind("queue ", 0) == 0)
            t_.queues.push_back(name.substr(6));
        else if (process && p == pid::usa)
            t_.usa = true;
        else if (thread && p == pid::usa && t_.usa && row == t_.usa_cores && name == shading_core_name(row))
            ++t_.usa_cores;
        else if (thread && p == pid::usa && t_.usa && row == tid::draw0 + t_.draw_rows && name == "draws")
            ++t_.draw_rows;
        else if (thread && p == pid::launch && e.tid)
            t_.stage_rows[row] = name;
    }
    // Its kernel or draw (by the argument `key`) and instance: a launch of the record, new the
    // first time it is met.
    trace::Owner owner(const ChromeEvent& e, std::string_view key) {
        trace::Owner o;
        const ChromeValue* v = e.arg(key);
        const std::string* name = v ? std::get_if<std::string>(v) : nullptr;
        if (!name) return o;
        const bool instanced = whole(e, "instance", o.instance);
        auto [it, added] = ids_.try_emplace({*name, instanced}, uint32_t(t_.launches.size()));
        if (added) t_.launches.push_back({*name, instanced});
        o.launch = it->second;
        return o;
    }
    // A counter's value (0 if absent or not a whole number).
    static uint32_t count(const ChromeEvent& e, std::string_view key) {
        uint32_t v = 0;
        return whole(e, key, v) ? v : 0;
    }

    TraceRecord& t_;
    std::map<std::pair<std::string, bool>, uint32_t> ids_;  // (name, instanced) -> launch
};

}  // namespace

bool read_trace(const std::string& text, TraceRecord& out, std::string* error) {
    ChromeTrace c;
    if (!read_chrome(text, c, error)) {
        out = TraceRecord{};
        return false;
    }
    TraceRecord t;
    for (ChromeArg& a : c.other) {  // (a member of another type, or repeated: the last of the right type)
        const uint64_t* n = std::get_if<uint64_t>(&a.value);
        const std::string* text = std::get_if<std::string>(&a.value);
        if (a.key == "detail" && text) trace::detail_from(*text, t.detail);
        if (a.key == "limit" && n) t.limit = *n;
        for (size_t i = 0; i < trace::kDetails; ++i)
            if (a.key == trace::kLeftOut[i] && n) t.left_out[i] = *n;
    }
    Reader r(t);
    for (const ChromeEvent& e : c.events) r(e);
    out = std::move(t);
    return true;
}

}  // namespace gpuvp
