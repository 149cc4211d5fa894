#include "platform/run.h"
#include "firmware/assembler.h"
#include "models/common/isa.h"
#include "models/common/tlm_util.h"
#include "models/common/timing.h"
#include "platform/recorder.h"
#include "platform/system.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace gpuvp {

using json = nlohmann::ordered_json;
using sc_core::sc_time;

namespace {

// An empty object with room for `members`. An ordered_json object is a vector of (key, value)
// pairs whose key is const, so growing it copies every value already in it, deeply: the
// results object grew past its kernels' entries several times. The results and the objects
// made per kernel or draw get their room first (for those, 18 M host instructions of copied
// members in a run of 1000 kernels).
json object_with_room(size_t members) {
    json o = json::object();
    o.get_ref<json::object_t&>().reserve(members);
    return o;
}

struct StageSpan {
    const char* name;
    const char* meaning;
};

// The launch path as the results and the table show it: each stage ends at a milestone.
constexpr StageSpan kStages[] = {
    {"host", "submit -> doorbell: runtime work, kernel arguments, packet body and header"},
    {"doorbell_to_fetch", "doorbell -> packet read: link crossing, CP wake-up, packet fetch"},
    {"decode", "packet checks and the acquire fence"},
    {"queue_wait", "the barrier bit or a free kernel slot, if the packet had to wait"},
    {"descriptor_fetch", "CP -> WLM and the kernel descriptor read"},
    {"wlm_setup", "resources and every ISU's kernel context"},
    {"register", "the kernel's row in the GLC"},
    {"block_dispatch", "placement and the first block descriptor"},
    {"warp_launch", "the first warp takes a slot"},
    {"instruction_fetch", "the ISU's first fetch through the L1I"},
    {"kernarg_prefetch", "M5: the wait for the kernel-argument prefetch beyond the first fetch"},
    {"first_issue", "the first instruction issues"},
    {"kernarg_load", "the kernel arguments reach the warp"},
};

double ns_of(const sc_time& t) { return to_ns(t); }
// A difference of two times in ns, to whole picoseconds (no 3235.2000000000007).
double ns_diff(double a, double b) { return std::round((a - b) * 1000) / 1000; }
json opt_ns(const std::optional<sc_time>& t) { return t ? json(ns_of(*t)) : json(nullptr); }

std::string fmt_ns(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// "  kernel k: 1000 instances, 1000 ok; per instance, min / mean / max ns: launch 1.0 / 2.0 / 3.0, ..."
std::string instances_line(const std::string& what, const json& in) {
    std::string line = "  " + what + ": " + std::to_string(in["count"].get<uint64_t>()) + " instances, " +
                       std::to_string(in["ok"].get<uint64_t>()) + " ok";
    std::string figures;
    for (const char* f : {"launch_latency_ns", "response_ns", "turnaround_ns"}) {
        if (!in.contains(f) || !in[f]["mean"].is_number()) continue;
        const std::string name = std::string(f).substr(0, std::string(f).find("_ns"));
        figures += (figures.empty() ? "" : ", ") + (name == "launch_latency" ? std::string("launch") : name) + " " +
                   fmt_ns(in[f]["min"].get<double>()) + " / " + fmt_ns(in[f]["mean"].get<double>()) + " / " +
                   fmt_ns(in[f]["max"].get<double>());
    }
    if (!figures.empty()) line += "; per instance, min / mean / max ns: " + figures;
    return line + "\n";
}

// What became of a kernel or a draw, in words: "ok", its error, or why it did not complete.
// How the run ended for what did not complete: `unfinished` says why ("did not complete ...").
std::string launch_status(const LaunchRecord& l, const System& sys, const Recorder& rec, const std::string& unfinished) {
    std::string status = "ok";
    const auto& cq = sys.gpu.cp().queue(l.queue);
    if (!l.done && cq.status != QueueError::none && (!l.rung || l.packet >= cq.read_index)) {
        status = "not processed: queue stopped by " + std::string(queue_error_name(cq.status)) + " at packet " +
                 std::to_string(cq.error_packet);  // submitted after it stopped
    } else if (!l.done) {
        status = unfinished;
        const size_t at = status.find("{what}");
        if (at != std::string::npos) status.replace(at, 6, l.draw ? "draw" : "kernel");
        if (!l.rung) status += "; the host had not rung its doorbell";
        const std::string w = sys.gpu.cp().waiting_for(l.queue);
        if (!w.empty()) status += "; its queue: " + w;
    } else if (!l.error.empty()) {
        status = l.error;
        bool stop_named = false;
        for (const auto& r : rec.rejections()) {
            if (r.queue != l.queue) continue;
            const std::string why = std::string(queue_error_name(r.why.error)) + ": " + r.why.field + ": " + r.why.detail;
            if (r.packet == l.packet) {
                status = why;  // its own packet was rejected
                break;
            }
            if (!stop_named && status.rfind("not processed", 0) == 0) {
                status = l.error + " (" + why + ")";  // the first rejection is what stopped the queue
                stop_named = true;
            }
        }
    }
    return status;
}

// A copy of what launch_status reads, for one instance of a launch.
LaunchRecord instance_view(const LaunchRecord& l, bool rung, uint64_t packet, bool done, const std::string& error) {
    LaunchRecord v;
    v.name = l.name;
    v.draw = l.draw;
    v.queue = l.queue;
    v.rung = rung;
    v.packet = packet;
    v.done = done;
    v.error = error;
    return v;
}

// The status of a kernel or draw with `instances`: ok when every instance ended ok, else how
// many did not and what became of the lowest-numbered of them.
std::string instances_status(const LaunchRecord& l, size_t launch, const System& sys, const Recorder& rec,
                             const std::string& unfinished) {
    if (l.done && l.failed == 0) return "ok";
    const auto unended = sys.host.first_unended(launch);
    uint64_t first = 0;
    std::string text;
    if (l.first_failure && (!unended || l.first_failure->instance < unended->instance)) {
        first = l.first_failure->instance;
        text = launch_status(instance_view(l, true, l.first_failure->packet, true, l.first_failure->error), sys, rec, unfinished);
    } else if (unended) {
        first = unended->instance;
        text = launch_status(instance_view(l, unended->posted, unended->packet, false, ""), sys, rec, unfinished);
    }
    for (const auto& st : rec.lock_stalls())  // M2: the watchdog's report names the stuck warps
        if (st.ref.launch == launch && st.ref.instance == first) text += "; " + st.state;
    const uint64_t not_ok = l.instances - (l.ended - l.failed);
    return std::to_string(not_ok) + " of " + std::to_string(l.instances) + " instances did not end ok; the first, instance " +
           std::to_string(first) + ": " + text;
}

// The `instances` summary: counts, and min / mean / max of each figure over the instances that
// completed ok.
json instances_json(const LaunchRecord& l, double interval_ns, const InstanceStats* st, bool kernel) {
    auto spread = [](const Spread* sp) {
        if (!sp || !sp->n) return json{{"min", nullptr}, {"mean", nullptr}, {"max", nullptr}};
        return json{{"min", sp->min}, {"mean", std::round(sp->sum / double(sp->n) * 1000) / 1000}, {"max", sp->max}};
    };
    const uint64_t ok = l.ended - l.failed;
    json j{{"count", l.instances}, {"interval_ns", interval_ns}, {"submitted", l.posted}, {"ok", ok},
           {"failed", l.instances - ok}};
    if (kernel) {
        j["launch_latency_ns"] = spread(st ? &st->launch_latency : nullptr);
        j["dispatch_latency_ns"] = spread(st ? &st->dispatch_latency : nullptr);
    }
    j["response_ns"] = spread(st ? &st->response : nullptr);
    j["turnaround_ns"] = spread(st ? &st->turnaround : nullptr);
    return j;
}

// A metric of a kernel's or a draw's entry: its field, or (`instances_ok`, `instances_failed`,
// `instance_turnaround_max_ns`, ...) one of its `instances` summary. null if it has none.
json entry_metric(const json& entry, const std::string& metric) {
    if (entry.contains(metric)) return entry[metric];
    if (!entry.contains("instances")) return json(nullptr);
    const json& in = entry["instances"];
    if (metric == "instances_ok") return in["ok"];
    if (metric == "instances_failed") return in["failed"];
    const std::string head = "instance_", tail = "_ns";
    if (metric.size() > head.size() + tail.size() && metric.compare(0, head.size(), head) == 0 &&
        metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0) {
        const std::string mid = metric.substr(head.size(), metric.size() - head.size() - tail.size());  // turnaround_max
        const size_t cut = mid.rfind('_');
        if (cut != std::string::npos) {
            const std::string figure = mid.substr(0, cut) + "_ns", stat = mid.substr(cut + 1);
            if (in.contains(figure) && in[figure].contains(stat)) return in[figure][stat];
        }
    }
    return json(nullptr);
}

}  // namespace

namespace {

// Each kernel's turnaround when it runs alone on the same platform (same queue, same submit
// time, no dependencies), each in a child process: SystemC elaborates once per process, so
// the children must be forked before this process builds its own platform. NaN where a
// child failed.
std::vector<double> alone_turnarounds(const Scenario& s) {
    std::vector<double> result;
    for (size_t i = 0; i < s.workload.kernels.size(); ++i) {
        double t = NAN;
        int fd[2];
        if (pipe(fd) != 0) {
            result.push_back(t);
            continue;
        }
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            Scenario alone = s;
            alone.measure_alone = false;
            alone.expect.clear();
            KernelSpec k = s.workload.kernels[i];
            k.after.clear();
            k.after_any.clear();
            alone.workload.kernels = {k};
            alone.workload.draws.clear();
            double v = NAN;
            try {
                RunOptions quiet;
                quiet.trace = false;
                const RunOutput o = run_scenario(alone, quiet);
                const json& t = o.document->at("kernels").at(0).at("turnaround_ns");  // (a throw: NaN)
                if (t.is_number()) v = t.get<double>();
            } catch (...) {
            }
            ssize_t n = write(fd[1], &v, sizeof v);
            _exit(n == sizeof v ? 0 : 1);
        }
        close(fd[1]);
        if (pid > 0) {
            double v;
            if (read(fd[0], &v, sizeof v) == sizeof v) t = v;
            int status = 0;
            waitpid(pid, &status, 0);
        }
        close(fd[0]);
        result.push_back(t);
    }
    return result;
}

}  // namespace

json results_value(const json& results, const ExpectOperand& o) {
    if (o.path.empty()) {  // NAME.METRIC of a kernel or a draw
        const json* list = nullptr;
        if (!o.kernel.empty() && results.contains("kernels")) list = &results["kernels"];
        if (!o.draw.empty() && results.contains("usa") && results["usa"].contains("draws")) list = &results["usa"]["draws"];
        if (list && list->is_array())
            for (const json& x : *list)
                if (x.value("name", std::string()) == (o.kernel.empty() ? o.draw : o.kernel))
                    return entry_metric(x, o.metric);
        return json(nullptr);
    }
    // A path: dot-separated keys; a list's element by its name or index.
    const json* cur = &results;
    for (size_t from = 0; from <= o.path.size();) {
        size_t dot = o.path.find('.', from);
        if (dot == std::string::npos) dot = o.path.size();
        const std::string key = o.path.substr(from, dot - from);
        from = dot + 1;
        const json* next = nullptr;
        if (cur->is_object() && cur->contains(key)) next = &(*cur)[key];
        if (cur->is_array()) {
            for (const json& x : *cur)
                if (x.is_object() && x.contains("name") && x["name"] == key) next = &x;
            if (!next && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 9 &&
                std::stoul(key) < cur->size())
                next = &(*cur)[std::stoul(key)];
        }
        if (!next) return json(nullptr);
        cur = next;
    }
    return *cur;
}

bool compare_holds(const Expectation& e, const json& a, const json& b) {
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.get<double>(), y = e.factor * b.get<double>();
    return e.op == "<" ? x < y : e.op == "<=" ? x <= y : e.op == ">" ? x > y : x >= y;
}

RunOutput run_scenario(const Scenario& s, const RunOptions& options) {
    RunOutput out;
    const std::vector<double> alone = s.measure_alone ? alone_turnarounds(s) : std::vector<double>{};
    Recorder rec(options.trace, options.trace_limit);
    if (options.vcd) {
        std::vector<std::string> names;
        for (const QueueSpec& q : s.workload.queues) names.push_back(q.name);
        rec.enable_vcd(names, s.platform.sms);
    }
    ProtocolLog protocol;
    protocol.set_warnings(false);  // reported in the results instead
    System sys("system", s, &rec, options.check_protocol ? &protocol : nullptr, options.log);
    // The GPU's watchdog (platform.watchdog_ns) stops the run with the GPU's state.
    std::optional<Gpu::HangReport> hang;
    sys.gpu.on_hang([&hang](const Gpu::HangReport& r) {
        hang = r;
        sc_core::sc_stop();
    });
    rec.set_launch_lookup([&sys](uint32_t q, uint64_t packet, LaunchRef& ref) {
        const PostedPacket* p = sys.host.posted(q, packet);
        if (p) ref = LaunchRef{uint32_t(p->launch), p->instance, p->submit, p->doorbell};
        return p != nullptr;
    });

    const auto t0 = std::chrono::steady_clock::now();
    const sc_time limit(s.max_sim_ns, sc_core::SC_NS);
    if (!options.progress) {
        sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
    } else {
        // Slices of simulated time sized so that each takes a few tens of ms of host time.
        using clock = std::chrono::steady_clock;
        auto report = [&] {
            Progress p;
            p.sim_ns = ns_of(sc_core::sc_time_stamp());
            for (const LaunchRecord& l : sys.host.launches()) {  // each instance counts
                (l.draw ? p.draws : p.kernels) += l.instances;
                (l.draw ? p.draws_done : p.kernels_done) += l.ended;
            }
            options.progress(p);
        };
        sc_time slice(1, sc_core::SC_US);
        auto reported = clock::now();
        // Until nothing is pending, or nothing is pending up to the limit (as one sc_start(limit)
        // would stop: at the last event before it). Time 0 first: it elaborates and starts.
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        while (!hang && sc_core::sc_pending_activity() &&
               sc_core::sc_time_to_pending_activity() <= limit - sc_core::sc_time_stamp()) {
            const auto start = clock::now();
            sc_core::sc_start(std::min(slice, limit - sc_core::sc_time_stamp()), sc_core::SC_EXIT_ON_STARVATION);
            const double took = std::chrono::duration<double>(clock::now() - start).count();
            if (took < 0.02) slice = slice * 2;
            else if (took > 0.1 && slice > sc_time(1, sc_core::SC_NS)) slice = slice / 2;
            if (std::chrono::duration<double>(clock::now() - reported).count() >= options.progress_seconds) {
                report();
                reported = clock::now();
            }
        }
        report();
    }
    out.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const sc_time end = sc_core::sc_time_stamp();
    out.sim_end_ns = ns_of(end);
    const auto& launches = sys.host.launches();
    // Why what did not complete did not ("{what}": kernel or draw). Starved: nothing was left
    // to happen, so whatever is unfinished waits for something that never comes: a hang too.
    std::string unfinished = "did not complete by max_sim_ns";
    const char* hang_cause = "watchdog";
    if (hang) {
        unfinished = "did not complete: the watchdog stopped the run (no forward progress from " +
                     fmt_ns(ns_of(hang->since)) + " to " + fmt_ns(ns_of(hang->at)) + " ns)";
    } else if (!sc_core::sc_pending_activity()) {
        unfinished = "did not complete: the simulated machine went idle with the {what} unfinished";
    }
    std::vector<std::string> statuses;  // each launch's (kernels, then draws)
    for (size_t i = 0; i < launches.size(); ++i) {
        const bool instanced = i < s.workload.kernels.size() ? s.workload.kernels[i].instances_key
                                                             : s.workload.draws[i - s.workload.kernels.size()].instances_key;
        statuses.push_back(instanced ? instances_status(launches[i], i, sys, rec, unfinished)
                                     : launch_status(launches[i], sys, rec, unfinished));
    }
    if (!hang && !sc_core::sc_pending_activity() &&
        std::any_of(statuses.begin(), statuses.end(),  // a launch (or an instance) not done and not stopped by its queue
                    [](const std::string& st) { return st.find("did not complete") != std::string::npos; })) {
        hang = Gpu::HangReport{end, end, sys.gpu.cp().in_flight(), sys.gpu.state_dump()};
        hang_cause = "idle";
    }
    if (hang)  // the dump names completion signals by address: say whose they are
        for (std::string& line : hang->state)
            for (const LaunchRecord& l : launches) {
                const std::string a = hex(l.signal);
                for (size_t at = line.find(a); at != std::string::npos; at = line.find(a, at + 1)) {
                    const size_t end_of = at + a.size();
                    if (end_of < line.size() && std::isxdigit(static_cast<unsigned char>(line[end_of]))) continue;
                    const std::string whose = " (" + l.name + "'s completion signal)";
                    line.insert(end_of, whose);
                    at = end_of + whose.size() - 1;
                }
            }

    const auto& queues = s.workload.queues;
    auto queue_name = [&](uint32_t q) { return q < queues.size() ? queues[q].name : std::string("q0"); };
    auto queue_priority = [&](uint32_t q) { return q < queues.size() ? queues[q].priority : 0u; };

    json kernels = json::array();
    int kernels_ok = 0, kernels_failed = 0;
    std::vector<std::vector<std::pair<std::string, double>>> table_rows;
    const size_t kernel_count = s.workload.kernels.size();  // launches: the kernels, then the draws
    for (size_t i = 0; i < kernel_count; ++i) {
        const LaunchRecord& l = launches[i];
        const KernelSpec& spec = s.workload.kernels[i];
        const Recorder::Kernel* k = l.rung ? rec.kernel(l.queue, l.packet) : nullptr;
        auto stage = [&](Stage st) -> std::optional<sc_time> { return k ? k->stages[size_t(st)] : std::nullopt; };

        // With `instances`: the entry is the whole set, from instance 0's submit to the latest end.
        const bool instanced = spec.instances_key;
        const InstanceStats* inst = rec.instance_stats(uint32_t(i));
        std::string status = statuses[i];
        if (!instanced)
            for (const auto& st : rec.lock_stalls())  // M2: the watchdog's report names the stuck warps
                if (l.rung && st.kernel == std::make_pair(l.queue, l.packet)) status += "; " + st.state;
        (status == "ok" ? kernels_ok : kernels_failed)++;

        const double submit = ns_of(l.submit);
        std::optional<sc_time> first_instruction = stage(Stage::kernarg_load_done);
        if (!first_instruction) first_instruction = stage(Stage::first_instruction_issued);
        std::optional<sc_time> complete = k ? k->completed : std::nullopt;
        std::optional<sc_time> end = stage(Stage::last_block_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            complete = inst && inst->completed == l.instances ? inst->last_complete : std::nullopt;
            end = inst && inst->ended == l.instances ? inst->last_end : std::nullopt;
        }

        json j = object_with_room(32);
        j["name"] = l.name;
        j["queue"] = queue_name(l.queue);
        j["priority"] = queue_priority(l.queue);
        j["status"] = status;
        j["packet"] = l.rung ? json(l.packet) : json(nullptr);
        j["blocks"] = block_count(spec);
        j["warps"] = warp_count(spec, s.platform.sm.warp_size);
        j["submit_ns"] = submit;
        j["doorbell_ns"] = l.rung ? json(ns_of(l.doorbell)) : json(nullptr);
        j["first_block_dispatch_ns"] = opt_ns(stage(Stage::first_block_dispatched));
        j["first_warp_start_ns"] = opt_ns(stage(Stage::first_warp_started));
        j["first_instruction_ns"] = opt_ns(first_instruction);
        j["end_ns"] = opt_ns(end);
        j["complete_ns"] = opt_ns(complete);
        auto since_submit = [&](const std::optional<sc_time>& t) { return t ? json(ns_diff(ns_of(*t), submit)) : json(nullptr); };
        j["launch_latency_ns"] = since_submit(first_instruction);
        j["response_ns"] = since_submit(stage(Stage::first_warp_started));
        j["turnaround_ns"] = since_submit(complete);
        if (s.measure_alone) {
            const double a = alone[i];
            j["alone_turnaround_ns"] = std::isnan(a) ? json(nullptr) : json(a);
            j["slowdown"] = std::isnan(a) || !complete || a <= 0
                                ? json(nullptr)
                                : json(std::round(ns_diff(ns_of(*complete), submit) / a * 10000) / 10000);
        }
        j["dispatch_latency_ns"] =  // doorbell -> first instruction with its arguments: the GPU's share
            first_instruction && l.rung ? json(ns_diff(ns_of(*first_instruction), ns_of(l.doorbell))) : json(nullptr);

        // Milestones in launch order; each stage runs from the previous milestone to its own.
        std::vector<std::optional<sc_time>> marks = {l.rung ? std::optional<sc_time>(l.doorbell) : std::nullopt,
                                                     stage(Stage::packet_fetched),
                                                     stage(Stage::packet_decoded),
                                                     stage(Stage::launched),
                                                     stage(Stage::descriptor_fetched),
                                                     stage(Stage::isu_written),
                                                     stage(Stage::kernel_registered),
                                                     stage(Stage::first_block_dispatched),
                                                     stage(Stage::first_warp_started),
                                                     stage(Stage::first_fetch_returned),
                                                     stage(Stage::kernarg_prefetch_returned),
                                                     stage(Stage::first_instruction_issued),
                                                     stage(Stage::kernarg_load_done)};
        json stages = json::array();
        std::vector<std::pair<std::string, std::pair<double, double>>> trace_stages;
        std::vector<std::pair<std::string, double>> row;
        double prev = submit;
        for (size_t m = 0; m < marks.size(); ++m) {
            if (!marks[m]) continue;
            double at = ns_of(*marks[m]);
            double dur = std::max(0.0, ns_diff(at, prev));
            json st = object_with_room(4);  // (built member by member: an initializer list costs several times more)
            st["stage"] = kStages[m].name;
            st["start_ns"] = prev;
            st["end_ns"] = std::max(prev, at);
            st["ns"] = dur;
            stages.push_back(std::move(st));
            trace_stages.push_back({kStages[m].name, {prev, std::max(prev, at)}});
            row.push_back({kStages[m].name, dur});
            prev = std::max(prev, at);
        }
        j["stages"] = std::move(stages);
        json ms = object_with_room(32);
        ms["submit_ns"] = submit;
        for (size_t st = 0; st < size_t(Stage::count); ++st)
            ms[std::string(stage_name(Stage(st))) + "_ns"] = opt_ns(stage(Stage(st)));
        ms["complete_ns"] = opt_ns(k ? k->completed : std::nullopt);
        ms["host_saw_completion_ns"] = l.first_done && l.rung ? json(ns_of(l.seen_complete)) : json(nullptr);
        j["milestones"] = std::move(ms);
        if (instanced) j["instances"] = instances_json(l, spec.interval_ns, inst, true);
        rec.add_launch_stages(l.name, trace_stages, uint32_t(i));
        kernels.push_back(std::move(j));
        const json& entry = kernels.back();
        auto num = [&](const char* key) { return entry.at(key).is_number() ? entry.at(key).get<double>() : NAN; };
        row.push_back({"dispatch", num("dispatch_latency_ns")});
        row.push_back({"launch", num("launch_latency_ns")});
        row.push_back({"response", num("response_ns")});
        row.push_back({"turnaround", num("turnaround_ns")});
        table_rows.push_back(row);
    }

    // Per SM.
    json sms = json::array();
    json resident = json::array();
    uint64_t instructions = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        const auto& st = sm.stats();
        instructions += st.instructions;
        auto cache = [](const Cache& c) {
            const auto& cs = c.stats();
            return json{{"read_hits", cs.read_hits}, {"read_misses", cs.read_misses}, {"mshr_hits", cs.mshr_hits},
                        {"writes", cs.writes}};
        };
        const SmConfig own = s.platform.sm_of(i);
        sms.push_back(json{{"id", i},
                           {"busy_fraction", end.value() ? sm.busy_time().to_seconds() / end.to_seconds() : 0.0},
                           {"warp_slots", own.warp_slots},
                           {"registers", own.registers},
                           {"shared_memory", own.shared_memory},
                           {"issue_width", own.issue_width},
                           {"warps_run", st.warps_run},
                           {"blocks_run", st.blocks_run},
                           {"instructions", st.instructions},
                           {"fetches", st.fetches},
                           {"kernarg_prefetches", st.kernarg_prefetches},
                           {"resident_warps_max", st.resident_warps_max},
                           {"l1i", cache(sys.gpu.l1i(i))},
                           {"l1d", cache(sys.gpu.l1d(i))}});
        resident.push_back(st.resident_warps_max);
    }
    out.warp_instructions = instructions;
    out.kernels = kernel_count;

    // Queues and rejected packets.
    json qj = json::array();
    for (uint32_t q = 0; q < std::max<size_t>(queues.size(), 1); ++q) {
        const auto& cq = sys.gpu.cp().queue(q);
        qj.push_back(json{{"name", queue_name(q)},
                          {"priority", queue_priority(q)},
                          {"status", queue_status_name(cq.status)},
                          {"packets_processed", cq.read_index},
                          {"waiting_for", sys.gpu.cp().waiting_for(q)}});
    }
    json errors = json::array();
    for (const auto& r : rec.rejections())
        errors.push_back(json{{"queue", queue_name(r.queue)},
                              {"packet", r.packet},
                              {"error", queue_error_name(r.why.error)},
                              {"field", r.why.field},
                              {"detail", r.why.detail},
                              {"time_ns", ns_of(r.at)}});
    for (const auto& st : rec.lock_stalls())
        errors.push_back(json{{"queue", queue_name(st.kernel.first)},
                              {"packet", st.kernel.second},
                              {"error", "lock_deadlock"},
                              {"field", "locks"},
                              {"detail", st.state},
                              {"time_ns", ns_of(st.at)}});
    std::stable_sort(errors.begin(), errors.end(),
                     [](const json& a, const json& b) { return a["time_ns"].get<double>() < b["time_ns"].get<double>(); });

    // M2: warp mutexes, over every SM; per warp priority over the warps that took locks.
    StreamingMultiprocessor::LockStats locks;
    uint64_t fifo_max = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        locks += sys.gpu.sm(i).stats().locks;
        fifo_max = std::max(fifo_max, sys.gpu.arbiter(i).stats().fifo_max);
    }
    out.lock_acquisitions = locks.acquisitions;
    auto mean_ns = [](const sc_time& sum, uint64_t n) { return n ? std::round(to_ns(sum) / double(n) * 1000) / 1000 : 0.0; };
    json by_priority = json::object();
    for (const auto& [cpr, p] : locks.by_priority)
        by_priority[std::to_string(cpr)] =
            json{{"warps", p.warps},
                 {"acquisitions", p.acquisitions},
                 {"wait_ns", {{"mean", mean_ns(p.wait_sum, p.acquisitions)}, {"max", ns_of(p.wait_max)}}},
                 {"retakes", p.retakes},
                 {"task_end_ns", {{"mean", mean_ns(p.end_sum, p.warps)}, {"max", ns_of(p.end_max)}}},
                 {"sync_failures", p.sync_failures},
                 {"forced_releases", p.forced_releases},
                 {"hold_limit_releases", p.hold_limit_releases},
                 {"redone_instructions", p.redone_instructions}};
    const bool priority_locks = s.policy.lock == LockPolicy::priority;
    json locks_json = json{{"policy", policy_name(s.policy.lock)},
                           {"hold_limit", priority_locks ? json(s.platform.sm.lock_hold_limit) : json(nullptr)},
                           {"acquisitions", locks.acquisitions},
                           {"releases", locks.releases},
                           {"sync_failures", locks.sync_failures},
                           {"forced_releases", locks.forced_releases},
                           {"hold_limit_releases", locks.hold_limit_releases},
                           {"retakes", locks.retakes},
                           {"redone_instructions", locks.redone_instructions},
                           {"arbiter_requests", locks.arbiter_requests},
                           {"arbiter_fifo_max", fifo_max},
                           {"stale_decisions", locks.stale_decisions},
                           {"deadlocks", locks.deadlocks},
                           {"by_priority", by_priority}};

    // M3: the scalar pools, over every SM: peaks per level are the largest any SM reached.
    const bool multilevel = s.policy.scalar == ScalarPolicy::multilevel;
    json vregs = json::object();
    for (const KernelSpec& k : s.workload.kernels) vregs[k.name] = vector_registers(k, multilevel);
    std::array<uint32_t, 4> peak{};
    uint32_t peak_total = 0, resident_max = 0;
    uint64_t stalls = 0, updates = 0, moves = 0, pool_waits = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        for (size_t l = 0; l < 4; ++l) peak[l] = std::max(peak[l], sm.scalar_pool().peak(ScalarLevel(l)));
        peak_total = std::max(peak_total, sm.scalar_pool().peak_total());
        resident_max = std::max(resident_max, sm.stats().resident_warps_max);
        stalls += sm.stats().scalar_stalls;
        pool_waits += sm.stats().pool_waits;
        updates += sm.stats().scalar_updates;
        moves += sm.scalar_pool().moves();
    }
    static const char* kSplits[] = {"preset", "dynamic", "kernel"};
    const SmConfig& smc = s.platform.sm;
    json scalar_json = json{
        {"policy", policy_name(s.policy.scalar)},
        {"split", multilevel ? json(kSplits[size_t(smc.scalar_split)]) : json(nullptr)},
        {"pool", smc.scalar_pool},
        {"slice_threshold", smc.slice_threshold},
        {"vregs_per_thread", vregs},
        {"pool_peak", {{"kernel", peak[0]}, {"workgroup", peak[1]}, {"warp", peak[2]}, {"slice", peak[3]}, {"total", peak_total}}},
        {"allocation_stalls", stalls},
        {"blocks_waited_for_pool", pool_waits},
        {"updates", updates},
        {"quota_moves", moves},
        {"resident_warps_max", resident}};

    // M4: the unified shading array and its draws.
    int draws_ok = 0, draws_failed = 0;
    double draws_complete = 0;
    json draws = json::array();
    for (size_t i = kernel_count; i < launches.size(); ++i) {
        const LaunchRecord& l = launches[i];
        const DrawSpec& spec = s.workload.draws[i - kernel_count];
        const Recorder::Draw* d = l.rung ? rec.draw(l.queue, l.packet) : nullptr;
        const bool instanced = spec.instances_key;
        const InstanceStats* inst = rec.instance_stats(uint32_t(i));
        const std::string& status = statuses[i];
        (status == "ok" ? draws_ok : draws_failed)++;
        auto stage = [&](DrawStage st) { return d ? opt_ns(d->stages[size_t(st)]) : json(nullptr); };
        const double submit = ns_of(l.submit);
        auto since_submit = [&](const json& t) { return t.is_number() ? json(ns_diff(t.get<double>(), submit)) : json(nullptr); };
        json complete = d ? opt_ns(d->completed) : json(nullptr);
        json end = stage(DrawStage::tasks_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            complete = inst && inst->completed == l.instances ? opt_ns(inst->last_complete) : json(nullptr);
            end = inst && inst->ended == l.instances ? opt_ns(inst->last_end) : json(nullptr);
        }
        if (status == "ok" && complete.is_number()) draws_complete = std::max(draws_complete, complete.get<double>());
        json j = object_with_room(32);
        j["name"] = l.name;
        j["queue"] = queue_name(l.queue);
        j["status"] = status;
        j["packet"] = l.rung ? json(l.packet) : json(nullptr);
        j["vertex_tasks"] = spec.vertex_tasks;
        j["pixel_tasks"] = uint64_t(spec.vertex_tasks) * spec.pixel_tasks_per_vertex_task;
        j["submit_ns"] = submit;
        j["doorbell_ns"] = l.rung ? json(ns_of(l.doorbell)) : json(nullptr);
        j["arrived_ns"] = stage(DrawStage::arrived);
        j["first_task_ns"] = stage(DrawStage::first_task);
        j["vertex_done_ns"] = stage(DrawStage::vertex_done);
        j["end_ns"] = end;
        j["complete_ns"] = complete;
        j["response_ns"] = since_submit(j["first_task_ns"]);
        j["turnaround_ns"] = since_submit(complete);
        if (instanced) j["instances"] = instances_json(l, spec.interval_ns, inst, false);
        draws.push_back(std::move(j));
    }
    const UnifiedShadingArray& usa = sys.gpu.usa();
    const auto& us = usa.stats();
    out.shading_tasks = us.tasks[0] + us.tasks[1];
    const double busy_ns = ns_of(us.busy[0] + us.busy[1]);
    const double active_ns = ns_of(us.active);
    auto round6 = [](double v) { return std::round(v * 1e6) / 1e6; };
    const double utilization = active_ns > 0 ? round6(busy_ns / (active_ns * usa.cores().size())) : 0.0;
    json clusters = json::array();
    std::string types;
    for (uint32_t c = 0; c < clusters_for(uint32_t(usa.cores().size())); ++c) {
        uint32_t v = 0, p = 0;
        sc_time busy;
        for (uint32_t i = c * kCoresPerCluster; i < std::min<size_t>((c + 1) * kCoresPerCluster, usa.cores().size()); ++i) {
            const auto& core = usa.cores()[i];
            (core.type == CoreType::vertex ? v : p)++;
            busy += core.busy_time;
            types += core.type == CoreType::vertex ? 'V' : 'P';
        }
        clusters.push_back(json{{"vertex", v},
                                {"pixel", p},
                                {"utilization", active_ns > 0 ? round6(ns_of(busy) / (active_ns * (v + p))) : 0.0}});
        if (c + 1 < clusters_for(uint32_t(usa.cores().size()))) types += ' ';
    }
    json flags_time = json::object();
    for (uint8_t v = 0; v < 3; ++v)
        for (uint8_t p = 0; p < 3; ++p)
            flags_time[std::string(flag_bits(v)) + "/" + flag_bits(p)] = ns_of(us.flags_time[v][p]);
    const ShadingState& final_state = usa.state();
    json usa_json = json{
        {"policy", policy_name(s.policy.shading)},
        {"cores", {{"vertex", final_state.vertex_cores}, {"pixel", final_state.pixel_cores}, {"total", usa.cores().size()},
                   {"clusters", clusters_for(uint32_t(usa.cores().size()))}, {"types", types}}},
        {"initial", {{"vertex", s.platform.usa.vertex_cores}, {"pixel", s.platform.usa.cores - s.platform.usa.vertex_cores}}},
        {"reassignments", us.reassignments},
        {"to_vertex", us.to_type[0]},
        {"to_pixel", us.to_type[1]},
        {"utilization", utilization},
        {"active_ns", active_ns},
        {"busy_ns", {{"vertex", ns_of(us.busy[0])}, {"pixel", ns_of(us.busy[1])}}},
        {"tasks", {{"vertex", us.tasks[0]}, {"pixel", us.tasks[1]}}},
        {"shader_switches", us.switches},
        {"draws_refused", us.invalid_draws},
        {"pixel_queue_peak", us.pixel_queue_peak},
        {"flags_time_ns", flags_time},
        {"clusters", clusters}};
    usa_json["draws"] = std::move(draws);  // (read below from the results: not copied)

    const auto& mc = s.platform.memory;

    json r = object_with_room(32);
    r["scenario"] = s.name;
    if (!s.variant.empty()) {  // one variant of a scenario with `variants:`
        json set = json::object();
        for (const auto& [key, value] : s.variant_set) set[key] = value;
        r["variant"] = json{{"name", s.variant}, {"set", set}};
    }
    out.ok = kernels_failed == 0 && draws_failed == 0 && errors.empty() && protocol.clean();
    r["status"] = out.ok ? "ok" : "error";
    r["policy"] = json{{"dispatch", policy_name(s.policy.dispatch)},
                       {"launch", policy_name(s.policy.launch)},
                       {"lock", policy_name(s.policy.lock)},
                       {"scalar", policy_name(s.policy.scalar)},
                       {"shading", policy_name(s.policy.shading)}};
    r["sim_end_ns"] = out.sim_end_ns;
    r["host_seconds"] = out.host_seconds;
    r["kernels"] = std::move(kernels);  // (read below from the results: not copied)
    r["locks"] = locks_json;
    r["scalar"] = scalar_json;
    r["usa"] = std::move(usa_json);
    r["sms"] = sms;
    r["expectations"] = json::array();  // filled below: an expectation may name any field above or below
    r["queues"] = qj;
    r["errors"] = errors;
    r["hang"] = hang ? json{{"cause", hang_cause},
                            {"detected_ns", ns_of(hang->at)},
                            {"no_progress_since_ns", ns_of(hang->since)},
                            {"in_flight", hang->in_flight},
                            {"state", hang->state}}
                     : json(nullptr);
    const auto& l2 = sys.gpu.l2().stats();
    r["memory"] = json{{"l2", {{"read_hits", l2.read_hits}, {"read_misses", l2.read_misses}, {"mshr_hits", l2.mshr_hits}, {"writes", l2.writes}}},
                       {"host_memory", {{"reads", sys.host_memory.reads()}, {"writes", sys.host_memory.writes()}}},
                       {"device_memory", {{"reads", sys.gpu.device_memory().reads()}, {"writes", sys.gpu.device_memory().writes()}}},
                       {"latency_ns", {{"host", mc.host_latency_ns}, {"link", mc.link_latency_ns}, {"device", mc.device_latency_ns}, {"l2", mc.l2_latency_ns}, {"l1", mc.l1_latency_ns}}}};
    const auto& kinds = sys.gpu.glc().blocks_by_kind();
    r["glc"] = json{{"blocks_placed", {{"whole_blocks", kinds[0]}, {"first_sm", kinds[1]}, {"second_sm", kinds[2]}}}};
    r["trace"] = json{{"events", rec.trace_events()}, {"dropped", rec.trace_dropped()}, {"limit", options.trace_limit}};
    if (options.check_protocol) {
        json violations = json::array();
        for (const ProtocolViolation& v : protocol.violations())
            violations.push_back(json{{"checker", v.checker}, {"rule", v.rule}, {"detail", v.detail}, {"at_ns", v.at.to_seconds() * 1e9}});
        r["protocol"] = json{{"checkers", protocol.checkers()},
                             {"transactions", protocol.transactions()},
                             {"debug_transactions", protocol.debug_transactions()},
                             {"dmi_requests", protocol.dmi_requests()},
                             {"dmi_grants", protocol.dmi_grants()},
                             {"invalidations", protocol.invalidations()},
                             {"violation_count", protocol.violation_count()},
                             {"violations", violations}};
    }
    r["totals"] = json{{"warp_instructions", instructions},
                       {"warps", rec.warps_finished()},
                       {"blocks_dispatched", sys.gpu.glc().blocks_dispatched()},
                       {"packets_processed", sys.gpu.cp().packets_processed()},
                       {"interrupts", sys.host.interrupts()}};
    r["host"] = json{{"quantum_ns", s.workload.quantum_ns}, {"syncs", sys.host.syncs()}};
    // Expectations.
    json expectations = json::array();
    auto operand = [&](const ExpectOperand& o) { return results_value(r, o); };
    for (const Expectation& e : s.expect) {
        if (!e.compare.empty()) {  // A OP F * B
            const json a = operand(e.lhs), b = operand(e.rhs);
            const bool passed = compare_holds(e, a, b);
            out.expectations_passed &= passed;
            expectations.push_back(json{{"compare", e.compare}, {"value", json::array({a, b})}, {"passed", passed}, {"line", e.line}});
            continue;
        }
        json value = nullptr;
        static const std::map<std::string, std::pair<const char*, const char*>> kPriorityMetric = {
            {"lock_wait_mean_ns", {"wait_ns", "mean"}},       {"lock_wait_max_ns", {"wait_ns", "max"}},
            {"task_end_mean_ns", {"task_end_ns", "mean"}},    {"task_end_max_ns", {"task_end_ns", "max"}},
            {"lock_acquisitions", {"acquisitions", nullptr}}, {"sync_failures", {"sync_failures", nullptr}},
            {"forced_releases", {"forced_releases", nullptr}}, {"hold_limit_releases", {"hold_limit_releases", nullptr}},
            {"redone_instructions", {"redone_instructions", nullptr}}, {"warps", {"warps", nullptr}},
            {"retakes", {"retakes", nullptr}}};
        if (e.metric.find('.') != std::string::npos) {
            ExpectOperand path;
            path.path = e.metric;
            value = results_value(r, path);
        } else if (e.priority) {
            const std::string p = std::to_string(*e.priority);
            auto m = kPriorityMetric.find(e.metric);
            if (by_priority.contains(p) && m != kPriorityMetric.end())
                value = m->second.second ? by_priority[p][m->second.first][m->second.second] : by_priority[p][m->second.first];
        } else if (!e.draw.empty()) {
            for (const json& d : r["usa"]["draws"])
                if (d["name"] == e.draw) value = entry_metric(d, e.metric);
        } else if (e.kernel.empty()) {
            if (e.metric == "sim_end_ns") value = out.sim_end_ns;
            else if (e.metric == "kernels_ok") value = kernels_ok;
            else if (e.metric == "kernels_failed") value = kernels_failed;
            else if (e.metric == "lock_acquisitions") value = locks.acquisitions;
            else if (e.metric == "lock_deadlocks") value = locks.deadlocks;
            else if (e.metric == "hangs") value = hang ? 1 : 0;
            else if (e.metric == "resident_warps_max") value = resident_max;  // M3: the most on any SM
            else if (e.metric == "allocation_stalls") value = stalls;
            else if (e.metric == "scalar_updates") value = updates;
            else if (e.metric == "scalar_pool_peak") value = peak_total;
            else if (e.metric == "draws_ok") value = draws_ok;
            else if (e.metric == "draws_failed") value = draws_failed;
            else if (e.metric == "draws_complete_ns") value = draws_ok ? json(draws_complete) : json(nullptr);
            else if (e.metric == "usa_utilization") value = utilization;
            else if (e.metric == "usa_reassignments") value = us.reassignments;
            else if (e.metric == "usa_vertex_cores") value = final_state.vertex_cores;
            else if (e.metric == "usa_pixel_cores") value = final_state.pixel_cores;
            else if (locks_json.contains(e.metric)) value = locks_json[e.metric];
        } else {
            for (const json& k : r["kernels"])
                if (k["name"] == e.kernel) value = entry_metric(k, e.metric);
        }
        bool passed = value.is_number();
        if (passed && e.min) passed = value.get<double>() >= *e.min;
        if (passed && e.max) passed = value.get<double>() <= *e.max;
        json x;
        if (!e.kernel.empty()) x["kernel"] = e.kernel;
        if (!e.draw.empty()) x["draw"] = e.draw;
        if (e.priority) x["priority"] = *e.priority;
        x["metric"] = e.metric;
        x["min"] = e.min ? json(*e.min) : json(nullptr);
        x["max"] = e.max ? json(*e.max) : json(nullptr);
        x["value"] = value;
        x["passed"] = passed;
        x["line"] = e.line;
        out.expectations_passed &= passed;
        expectations.push_back(x);
    }

    r["expectations"] = expectations;
    out.results = r.dump(2) + "\n";
    out.document = std::make_shared<const json>(std::move(r));
    const json& kernel_results = out.document->at("kernels");
    const json& draw_results = out.document->at("usa").at("draws");
    // A failed kernel fails the run, unless the scenario states how many kernels should fail
    // (an expectation on kernels_failed): then the expectations alone decide.
    bool failures_expected = false;
    for (const Expectation& e : s.expect)
        failures_expected |= e.kernel.empty() && (e.metric == "kernels_failed" || e.metric == "draws_failed");
    out.exit_code = out.expectations_passed && (out.ok || failures_expected) && protocol.clean() ? 0 : 1;

    if (options.vcd) out.vcd = rec.vcd_text();
    if (options.trace) {
        std::vector<std::string> qn;
        for (uint32_t q = 0; q < std::max<size_t>(queues.size(), 1); ++q) qn.push_back(queue_name(q));
        std::vector<TraceLaunch> names;
        for (size_t i = 0; i < launches.size(); ++i)
            names.push_back({launches[i].name, i < kernel_count ? s.workload.kernels[i].instances_key
                                                                : s.workload.draws[i - kernel_count].instances_key});
        out.trace = rec.trace_text(names, qn, sys.gpu.sm_count(), s.platform.largest_sm().warp_slots, s.platform.usa.cores);
        out.trace += '\n';
    }

    // The breakdown table: stages as rows, kernels as columns (the first eight kernels).
    std::ostringstream t;
    const size_t cols = std::min<size_t>(kernel_count, 8);
    if (kernel_count > 0) {
        t << "Launch latency breakdown (simulated ns), scenario '" << s.name << "'\n";
        t << "  " << std::string(20, ' ');
        for (size_t c = 0; c < cols; ++c) {
            std::string n = launches[c].name.substr(0, 14);
            t << std::string(16 - n.size(), ' ') << n;
        }
        t << "\n";
        std::vector<std::string> names;
        for (const auto& st : kStages) names.push_back(st.name);
        names.insert(names.end(), {"dispatch", "launch", "response", "turnaround"});
        for (const std::string& n : names) {
            if (n == "dispatch") t << "  " << std::string(20 + 16 * cols, '-') << "\n";
            t << "  " << n << std::string(20 - n.size(), ' ');
            for (size_t c = 0; c < cols; ++c) {
                std::string v = "-";
                for (const auto& [name, val] : table_rows[c])
                    if (name == n && !std::isnan(val)) v = fmt_ns(val);
                t << std::string(16 - std::min<size_t>(16, v.size()), ' ') << v;
            }
            t << "\n";
        }
        if (kernel_count > cols) t << "  (" << kernel_count - cols << " more kernels in results.json)\n";
        for (size_t c = 0; c < kernel_count; ++c) {
            const std::string& st = kernel_results[c]["status"].get_ref<const std::string&>();
            if (st != "ok") t << "  kernel " << launches[c].name << ": " << st << "\n";
            if (kernel_results[c].contains("instances")) t << instances_line("kernel " + launches[c].name, kernel_results[c]["instances"]);
        }
        t << "  dispatch = doorbell -> first instruction with its arguments (the GPU's share);"
             " launch = the same from submit;\n  response = submit -> first warp running;"
             " turnaround = submit -> completion signal written\n";
    }
    if (!draw_results.empty()) {  // M4
        t << "Draws (simulated ns), shading array '" << policy_name(s.policy.shading) << "'\n";
        t << "  name                 arrived  first task vertex done         end    complete  turnaround  status\n";
        auto cell = [](const json& v) {
            std::string x = v.is_number() ? fmt_ns(v.get<double>()) : "-";
            return std::string(12 - std::min<size_t>(12, x.size()), ' ') + x;
        };
        for (const json& d : draw_results) {
            std::string n = d["name"].get<std::string>().substr(0, 16);
            t << "  " << n << std::string(16 - n.size(), ' ') << cell(d["arrived_ns"]) << cell(d["first_task_ns"])
              << cell(d["vertex_done_ns"]) << cell(d["end_ns"]) << cell(d["complete_ns"]) << cell(d["turnaround_ns"])
              << "  " << d["status"].get<std::string>() << "\n";
        }
        for (const json& d : draw_results)
            if (d.contains("instances")) t << instances_line("draw " + d["name"].get<std::string>(), d["instances"]);
        t << "  " << usa.cores().size() << " cores (" << out.document->at("usa").at("cores").at("types").get<std::string>()
          << "), final split " << final_state.vertex_cores << " vertex / " << final_state.pixel_cores << " pixel, "
          << us.reassignments << " reassignments, utilization " << fmt_ns(utilization * 100) << " %\n";
    }
    if (options.check_protocol) {
        t << "  TLM-2.0 base protocol: " << protocol.checkers() << " connections checked, " << protocol.transactions()
          << " transactions, " << protocol.debug_transactions() << " debug, " << protocol.violation_count()
          << " violations\n";
        for (size_t i = 0; i < std::min<size_t>(protocol.violations().size(), 10); ++i) {
            const ProtocolViolation& v = protocol.violations()[i];
            t << "    " << v.checker << ": " << v.rule << ": " << v.detail << "\n";
        }
    }
    if (hang) {
        t << (std::string(hang_cause) == "watchdog"
                  ? "  HANG: the watchdog saw no forward progress from " + fmt_ns(ns_of(hang->since)) + " to " +
                        fmt_ns(ns_of(hang->at)) + " ns"
                  : "  HANG: the simulated machine went idle at " + fmt_ns(ns_of(hang->at)) + " ns")
          << " with " << hang->in_flight << " kernel(s) or draw(s) in flight. The GPU's state:\n";
        const size_t shown = std::min<size_t>(hang->state.size(), 40);
        for (size_t i = 0; i < shown; ++i) t << "    " << hang->state[i] << "\n";
        if (hang->state.size() > shown) t << "    (" << hang->state.size() - shown << " more lines in results.json, hang.state)\n";
    }
    t << "  simulated " << fmt_ns(out.sim_end_ns) << " ns, " << instructions << " warp-instructions, status "
      << (out.ok ? "ok" : "error") << "\n";
    out.table = t.str();
    return out;
}

}  // namespace gpuvp
