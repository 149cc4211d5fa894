#include "sc_main/run/run.h"
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/platform/system.h>
#include "sc_main/record/metrics.h"
#include "sc_main/run/recorder.h"

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

double ns_of(const sc_time& t) { return to_ns(t); }
// A difference of two times in ns, to whole picoseconds (no 3235.2000000000007).
double ns_diff(double a, double b) { return std::round((a - b) * 1000) / 1000; }
std::optional<double> opt_ns(const std::optional<sc_time>& t) { return t ? std::optional<double>(ns_of(*t)) : std::nullopt; }

std::string fmt_ns(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// "  kernel k: 1000 instances, 1000 ok; per instance, min / mean / max (p50 / p90 / p99) ns:
// launch 1.0 / 2.0 / 3.0 (2.0 / 2.5 / 3.0), ..."
std::string instances_line(const std::string& what, const InstancesSummary& in) {
    std::string line = "  " + what + ": " + std::to_string(in.count) + " instances, " + std::to_string(in.ok) + " ok";
    std::string figures;
    auto figure = [&](const char* name, const Spread3* sp) {
        if (!sp || !sp->mean) return;
        figures += (figures.empty() ? "" : ", ") + std::string(name) + " " + fmt_ns(*sp->min) + " / " + fmt_ns(*sp->mean) +
                   " / " + fmt_ns(*sp->max);
        if (sp->p50) figures += " (" + fmt_ns(*sp->p50) + " / " + fmt_ns(*sp->p90) + " / " + fmt_ns(*sp->p99) + ")";
    };
    figure("launch", in.launch_latency_ns ? &*in.launch_latency_ns : nullptr);
    figure("response", &in.response_ns);
    figure("turnaround", &in.turnaround_ns);
    if (!figures.empty()) line += "; per instance, min / mean / max (p50 / p90 / p99) ns: " + figures;
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
        if (at != std::string::npos) status.replace(at, 6, l.draw ? "draw" : l.copy ? "copy" : "kernel");
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
InstancesSummary instances_summary(const LaunchRecord& l, double interval_ns, const InstanceStats* st, bool kernel) {
    auto spread = [](const Spread* sp) {
        Spread3 s;
        if (sp && sp->n) {
            s.min = sp->min;
            s.mean = std::round(sp->sum / double(sp->n) * 1000) / 1000;
            s.max = sp->max;
            s.p50 = sp->percentile(0.5);
            s.p90 = sp->percentile(0.9);
            s.p99 = sp->percentile(0.99);
            HistogramRecord h;
            h.from_ns = sp->min;
            h.bin_ns = std::round((sp->max - sp->min) / 20 * 1000) / 1000;
            h.counts = sp->histogram(h.from_ns, h.bin_ns, 20);
            s.histogram = std::move(h);
        }
        return s;
    };
    InstancesSummary in;
    in.count = l.instances;
    in.interval_ns = interval_ns;
    in.submitted = l.posted;
    in.ok = l.ended - l.failed;
    in.failed = l.instances - in.ok;
    if (kernel) {
        in.launch_latency_ns = spread(st ? &st->launch_latency : nullptr);
        in.dispatch_latency_ns = spread(st ? &st->dispatch_latency : nullptr);
    }
    in.response_ns = spread(st ? &st->response : nullptr);
    in.turnaround_ns = spread(st ? &st->turnaround : nullptr);
    return in;
}

// A metric of a kernel's or a draw's entry: its member, or (`instances_ok`, `instances_failed`,
// `instance_turnaround_max_ns`, ...) one of its `instances` summary. null if it has none.
template <class Entry>
json entry_metric(const Entry& entry, const std::string& metric) {
    if (auto v = fields::lookup(entry, {metric}, 0)) return *v;
    if (!entry.instances) return json(nullptr);
    const InstancesSummary& in = *entry.instances;
    if (metric == "instances_ok") return in.ok;
    if (metric == "instances_failed") return in.failed;
    const std::string head = "instance_", tail = "_ns";
    if (metric.size() > head.size() + tail.size() && metric.compare(0, head.size(), head) == 0 &&
        metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0) {
        const std::string mid = metric.substr(head.size(), metric.size() - head.size() - tail.size());  // turnaround_max
        const size_t cut = mid.rfind('_');
        if (cut != std::string::npos)
            if (auto v = fields::lookup(in, {mid.substr(0, cut) + "_ns", mid.substr(cut + 1)}, 0)) return *v;
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
                const auto& t = o.record->kernels.at(0).turnaround_ns;  // (a throw: NaN)
                if (t) v = *t;
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

json results_value(const RunRecord& r, const ExpectOperand& o) {
    if (o.path.empty()) {  // NAME.METRIC of a kernel or a draw
        if (!o.kernel.empty())
            for (const KernelRecord& k : r.kernels)
                if (k.name == o.kernel) return entry_metric(k, o.metric);
        if (!o.draw.empty())
            for (const DrawRecord& d : r.usa.draws)
                if (d.name == o.draw) return entry_metric(d, o.metric);
        return json(nullptr);
    }
    return fields::lookup(r, fields::split_path(o.path), 0).value_or(json(nullptr));
}

// The value an expectation (not a comparison) bounds.
json expectation_value(const RunRecord& r, const Expectation& e) {
    if (e.metric.find('.') != std::string::npos) {
        ExpectOperand path;
        path.path = e.metric;
        return results_value(r, path);
    }
    json value = nullptr;
    if (e.priority) {
        const std::string p = std::to_string(*e.priority);
        for (const auto& [cpr, locks] : r.locks.by_priority)
            if (cpr == p)
                for (const PriorityMetric& m : kPriorityMetrics)
                    if (e.metric == m.name) value = m.value(locks);
    } else if (!e.draw.empty()) {
        for (const DrawRecord& d : r.usa.draws)
            if (d.name == e.draw) value = entry_metric(d, e.metric);
    } else if (e.kernel.empty()) {
        for (const RunMetric& m : kRunMetrics)
            if (e.metric == m.name) value = m.value(r);
    } else {
        for (const KernelRecord& k : r.kernels)
            if (k.name == e.kernel) value = entry_metric(k, e.metric);
    }
    return value;
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
    bool timed_out = false;
    if (!options.progress && options.timeout_seconds <= 0) {
        sys.gpu.run_ahead_until(limit);
        sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
    } else {
        // Slices of simulated time sized so that each takes a few tens of ms of host time.
        using clock = std::chrono::steady_clock;
        auto report = [&] {
            Progress p;
            p.sim_ns = ns_of(sc_core::sc_time_stamp());
            for (const LaunchRecord& l : sys.host.launches()) {  // each instance counts
                if (l.copy) continue;
                (l.draw ? p.draws : p.kernels) += l.instances;
                (l.draw ? p.draws_done : p.kernels_done) += l.ended;
            }
            if (options.progress) options.progress(p);
        };
        sc_time slice(1, sc_core::SC_US);
        auto reported = clock::now();
        // Until nothing is pending, or nothing is pending up to the limit (as one sc_start(limit)
        // would stop: at the last event before it). Time 0 first: it elaborates and starts.
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        while (!hang && sc_core::sc_pending_activity() &&
               sc_core::sc_time_to_pending_activity() <= limit - sc_core::sc_time_stamp()) {
            // Work is left: past the host-time limit the run stops here (a run that ends within
            // its last slice is complete, however long it took).
            if (options.timeout_seconds > 0 &&
                std::chrono::duration<double>(clock::now() - t0).count() >= options.timeout_seconds) {
                timed_out = true;
                break;
            }
            const auto start = clock::now();
            // (at least up to the next activity: a slice with none would return at once, time
            // not moved, and SystemC warns of an sc_start without activity)
            const sc_time step = std::min(std::max(slice, sc_core::sc_time_to_pending_activity()), limit - sc_core::sc_time_stamp());
            sys.gpu.run_ahead_until(sc_core::sc_time_stamp() + step);
            sc_core::sc_start(step, sc_core::SC_EXIT_ON_STARVATION);
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
    const sc_time end = sys.gpu.reached();
    out.sim_end_ns = ns_of(end);
    // Warps still resident at the stop (a run cut short): in the trace and the occupancy up to it.
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i)
        for (const WarpRecord& w : sys.gpu.sm(i).resident_warps(end)) rec.warp_in_flight(w);
    const auto& launches = sys.host.launches();
    // Why what did not complete did not ("{what}": kernel or draw). Starved: nothing was left
    // to happen, so whatever is unfinished waits for something that never comes: a hang too.
    std::string unfinished = "did not complete by max_sim_ns";
    const char* hang_cause = "watchdog";
    if (timed_out) {
        unfinished = "did not complete: the run was stopped at its host-time limit (--timeout " +
                     format_number(options.timeout_seconds) + " s)";
    } else if (hang) {
        unfinished = "did not complete: the watchdog stopped the run (no forward progress from " +
                     fmt_ns(ns_of(hang->since)) + " to " + fmt_ns(ns_of(hang->at)) + " ns)";
    } else if (!sc_core::sc_pending_activity()) {
        unfinished = "did not complete: the simulated machine went idle with the {what} unfinished";
    }
    // Whether launch i (the kernels, then the draws, then the copies) wrote `instances`.
    auto instanced_of = [&](size_t i) {
        const size_t kernels = s.workload.kernels.size(), draws = s.workload.draws.size();
        return i < kernels ? s.workload.kernels[i].instances_key
                           : i < kernels + draws && s.workload.draws[i - kernels].instances_key;
    };
    std::vector<std::string> statuses;  // each launch's (kernels, then draws, then copies)
    for (size_t i = 0; i < launches.size(); ++i) {
        const bool instanced = instanced_of(i);
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
    auto queue_type = [&](uint32_t q) { return q < queues.size() ? queues[q].type : QueueSpec::Type::multi; };

    auto record = std::make_shared<RunRecord>();
    RunRecord& r = *record;
    r.scenario = s.name;
    if (!s.variant.empty()) {  // one variant of a scenario with `variants:`
        VariantTag tag;
        tag.name = s.variant;
        tag.set.assign(s.variant_set.begin(), s.variant_set.end());
        r.variant = std::move(tag);
    }
    r.policy = {policy_name(s.policy.dispatch), policy_name(s.policy.launch), policy_name(s.policy.lock),
                policy_name(s.policy.scalar), policy_name(s.policy.shading), policy_name(s.policy.issue)};
    if (!s.preset.empty()) {
        PlatformTag platform;
        platform.preset = s.preset;
        r.platform = std::move(platform);
    }
    r.sim_end_ns = out.sim_end_ns;
    r.host_seconds = out.host_seconds;

    const size_t kernel_count = s.workload.kernels.size();  // launches: the kernels, then the draws
    r.kernels.reserve(kernel_count);
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

        const double submit = ns_of(l.submit);
        std::optional<sc_time> first_instruction = stage(Stage::kernarg_load_done);
        if (!first_instruction) first_instruction = stage(Stage::first_instruction_issued);
        std::optional<sc_time> complete = k ? k->completed : std::nullopt;
        std::optional<sc_time> end = stage(Stage::last_block_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            complete = inst && inst->completed == l.instances ? inst->last_complete : std::nullopt;
            end = inst && inst->ended == l.instances ? inst->last_end : std::nullopt;
        }

        KernelRecord& j = r.kernels.emplace_back();
        j.name = l.name;
        j.queue = queue_name(l.queue);
        j.priority = queue_priority(l.queue);
        j.status = std::move(status);
        if (l.rung) j.packet = l.packet;
        j.blocks = block_count(spec);
        j.warps = warp_count(spec, s.platform.sm.warp_size);
        j.submit_ns = submit;
        if (l.rung) j.doorbell_ns = ns_of(l.doorbell);
        j.first_block_dispatch_ns = opt_ns(stage(Stage::first_block_dispatched));
        j.first_warp_start_ns = opt_ns(stage(Stage::first_warp_started));
        j.first_instruction_ns = opt_ns(first_instruction);
        j.end_ns = opt_ns(end);
        j.complete_ns = opt_ns(complete);
        auto since_submit = [&](const std::optional<sc_time>& t) {
            return t ? std::optional<double>(ns_diff(ns_of(*t), submit)) : std::nullopt;
        };
        j.launch_latency_ns = since_submit(first_instruction);
        j.response_ns = since_submit(stage(Stage::first_warp_started));
        j.turnaround_ns = since_submit(complete);
        if (s.measure_alone) {
            const double a = alone[i];
            j.alone_turnaround_ns = std::isnan(a) ? std::nullopt : std::optional<double>(a);
            j.slowdown = std::isnan(a) || !complete || a <= 0
                             ? std::nullopt
                             : std::optional<double>(std::round(ns_diff(ns_of(*complete), submit) / a * 10000) / 10000);
        }
        if (first_instruction && l.rung)  // doorbell -> first instruction with its arguments: the GPU's share
            j.dispatch_latency_ns = ns_diff(ns_of(*first_instruction), ns_of(l.doorbell));

        // Each stage runs from the previous milestone reached to its own.
        std::vector<std::pair<std::string, std::pair<double, double>>> trace_stages;
        double prev = submit;
        for (const LaunchStage& ls : kLaunchStages) {
            const std::optional<sc_time> mark =
                ls.ends_at ? stage(*ls.ends_at) : l.rung ? std::optional<sc_time>(l.doorbell) : std::nullopt;
            if (!mark) continue;
            const double at = ns_of(*mark);
            j.stages.push_back({ls.name, prev, std::max(prev, at), std::max(0.0, ns_diff(at, prev))});
            trace_stages.push_back({ls.name, {prev, std::max(prev, at)}});
            prev = std::max(prev, at);
        }
        j.milestones.submit_ns = submit;
        for (size_t st = 0; st < size_t(Stage::count); ++st) j.milestones.stage_ns[st] = opt_ns(stage(Stage(st)));
        j.milestones.complete_ns = opt_ns(k ? k->completed : std::nullopt);
        if (l.first_done && l.rung) j.milestones.host_saw_completion_ns = ns_of(l.seen_complete);
        if (instanced) j.instances = instances_summary(l, spec.interval_ns, inst, true);
        if (spec.measured) j.measured = *spec.measured;
        if (!spec.label.empty()) j.label = spec.label;
        if (l.call_start) j.call_start_ns = ns_of(*l.call_start);
        if (l.call_end) j.call_end_ns = ns_of(*l.call_end);
        rec.add_launch_stages(l.name, trace_stages, uint32_t(i));
    }

    // Per SM.
    uint64_t instructions = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        const auto& st = sm.stats();
        instructions += st.instructions;
        const SmConfig own = s.platform.sm_of(i);
        SmRecord& x = r.sms.emplace_back();
        x.id = i;
        x.busy_fraction = end.value() ? sm.busy_time().to_seconds() / end.to_seconds() : 0.0;
        x.warp_slots = own.warp_slots;
        x.registers = own.registers;
        x.shared_memory = own.shared_memory;
        x.issue_width = own.issue_width;
        x.counters = st;
        x.l1i = sys.gpu.l1i(i).stats();
        x.l1d = sys.gpu.l1d(i).stats();
        OccupancyRecord occupancy;
        occupancy.bin_ns = double(rec.occupancy().bin_ps()) / 1000;
        occupancy.warps = rec.occupancy().mean_warps(i, uint64_t(std::llround(end.to_seconds() * 1e12)));
        x.occupancy = std::move(occupancy);
    }
    out.warp_instructions = instructions;
    out.kernels = kernel_count;

    // Queues and rejected packets.
    for (uint32_t q = 0; q < std::max<size_t>(queues.size(), 1); ++q) {
        const auto& cq = sys.gpu.cp().queue(q);
        r.queues.push_back({queue_name(q), queue_priority(q), policy_name(queue_type(q)),
                            queue_status_name(cq.status), cq.read_index,
                            sys.gpu.cp().waiting_for(q)});
    }
    for (const auto& x : rec.rejections())
        r.errors.push_back({queue_name(x.queue), x.packet, queue_error_name(x.why.error), x.why.field, x.why.detail,
                            ns_of(x.at)});
    for (const auto& st : rec.lock_stalls())
        r.errors.push_back({queue_name(st.kernel.first), st.kernel.second, "lock_deadlock", "locks", st.state,
                            ns_of(st.at)});
    std::stable_sort(r.errors.begin(), r.errors.end(),
                     [](const ErrorRecord& a, const ErrorRecord& b) { return a.time_ns < b.time_ns; });

    // M2: warp mutexes, over every SM; per warp priority over the warps that took locks.
    StreamingMultiprocessor::LockStats locks;
    uint64_t fifo_max = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        locks += sys.gpu.sm(i).stats().locks;
        fifo_max = std::max(fifo_max, sys.gpu.arbiter(i).stats().fifo_max);
    }
    out.lock_acquisitions = locks.acquisitions;
    auto mean_ns = [](const sc_time& sum, uint64_t n) { return n ? std::round(to_ns(sum) / double(n) * 1000) / 1000 : 0.0; };
    LocksRecord& lr = r.locks;
    for (const auto& [cpr, p] : locks.by_priority) {
        PriorityLocks x;
        x.warps = p.warps;
        x.acquisitions = p.acquisitions;
        x.wait_ns = {mean_ns(p.wait_sum, p.acquisitions), ns_of(p.wait_max)};
        x.retakes = p.retakes;
        x.task_end_ns = {mean_ns(p.end_sum, p.warps), ns_of(p.end_max)};
        x.sync_failures = p.sync_failures;
        x.forced_releases = p.forced_releases;
        x.hold_limit_releases = p.hold_limit_releases;
        x.redone_instructions = p.redone_instructions;
        lr.by_priority.emplace_back(std::to_string(cpr), x);
    }
    lr.policy = policy_name(s.policy.lock);
    if (s.policy.lock == LockPolicy::priority) lr.hold_limit = s.platform.sm.lock_hold_limit;
    lr.acquisitions = locks.acquisitions;
    lr.releases = locks.releases;
    lr.sync_failures = locks.sync_failures;
    lr.forced_releases = locks.forced_releases;
    lr.hold_limit_releases = locks.hold_limit_releases;
    lr.retakes = locks.retakes;
    lr.redone_instructions = locks.redone_instructions;
    lr.arbiter_requests = locks.arbiter_requests;
    lr.arbiter_fifo_max = fifo_max;
    lr.stale_decisions = locks.stale_decisions;
    lr.deadlocks = locks.deadlocks;

    // M3: the scalar pools, over every SM: peaks per level are the largest any SM reached.
    const bool multilevel = s.policy.scalar == ScalarPolicy::multilevel;
    ScalarRecord& sr = r.scalar;
    for (const KernelSpec& k : s.workload.kernels)  // (names are unique: the loader refuses a second)
        sr.vregs_per_thread.emplace_back(k.name, vector_registers(k, multilevel));
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        uint32_t* peak[] = {&sr.pool_peak.kernel, &sr.pool_peak.workgroup, &sr.pool_peak.warp, &sr.pool_peak.slice};
        for (size_t l = 0; l < 4; ++l) *peak[l] = std::max(*peak[l], sm.scalar_pool().peak(ScalarLevel(l)));
        sr.pool_peak.total = std::max(sr.pool_peak.total, sm.scalar_pool().peak_total());
        sr.allocation_stalls += sm.stats().scalar_stalls;
        sr.blocks_waited_for_pool += sm.stats().pool_waits;
        sr.updates += sm.stats().scalar_updates;
        sr.quota_moves += sm.scalar_pool().moves();
        sr.resident_warps_max.push_back(sm.stats().resident_warps_max);
    }
    const SmConfig& smc = s.platform.sm;
    sr.policy = policy_name(s.policy.scalar);
    if (multilevel) sr.split = policy_name(smc.scalar_split);
    sr.pool = smc.scalar_pool;
    sr.slice_threshold = smc.slice_threshold;

    // M4: the unified shading array and its draws.
    UsaRecord& ur = r.usa;
    for (size_t i = kernel_count; i < kernel_count + s.workload.draws.size(); ++i) {
        const LaunchRecord& l = launches[i];
        const DrawSpec& spec = s.workload.draws[i - kernel_count];
        const Recorder::Draw* d = l.rung ? rec.draw(l.queue, l.packet) : nullptr;
        const bool instanced = spec.instances_key;
        const InstanceStats* inst = rec.instance_stats(uint32_t(i));
        auto stage = [&](DrawStage st) { return d ? opt_ns(d->stages[size_t(st)]) : std::nullopt; };
        const double submit = ns_of(l.submit);
        auto since_submit = [&](const std::optional<double>& t) {
            return t ? std::optional<double>(ns_diff(*t, submit)) : std::nullopt;
        };
        DrawRecord& j = ur.draws.emplace_back();
        j.complete_ns = d ? opt_ns(d->completed) : std::nullopt;
        j.end_ns = stage(DrawStage::tasks_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            j.complete_ns = inst && inst->completed == l.instances ? opt_ns(inst->last_complete) : std::nullopt;
            j.end_ns = inst && inst->ended == l.instances ? opt_ns(inst->last_end) : std::nullopt;
        }
        j.name = l.name;
        j.queue = queue_name(l.queue);
        j.status = statuses[i];
        if (l.rung) j.packet = l.packet;
        j.vertex_tasks = spec.vertex_tasks;
        j.pixel_tasks = uint64_t(spec.vertex_tasks) * spec.pixel_tasks_per_vertex_task;
        j.submit_ns = submit;
        if (l.rung) j.doorbell_ns = ns_of(l.doorbell);
        j.arrived_ns = stage(DrawStage::arrived);
        j.first_task_ns = stage(DrawStage::first_task);
        j.vertex_done_ns = stage(DrawStage::vertex_done);
        j.response_ns = since_submit(j.first_task_ns);
        j.turnaround_ns = since_submit(j.complete_ns);
        if (instanced) j.instances = instances_summary(l, spec.interval_ns, inst, false);
    }
    const UnifiedShadingArray& usa = sys.gpu.usa();
    const auto& us = usa.stats();
    out.shading_tasks = us.tasks[0] + us.tasks[1];
    const double busy_ns = ns_of(us.busy[0] + us.busy[1]);
    const double active_ns = ns_of(us.active);
    auto round6 = [](double v) { return std::round(v * 1e6) / 1e6; };
    const uint32_t cluster_count = clusters_for(uint32_t(usa.cores().size()));
    for (uint32_t c = 0; c < cluster_count; ++c) {
        UsaCluster& x = ur.clusters.emplace_back();
        sc_time busy;
        for (uint32_t i = c * kCoresPerCluster; i < std::min<size_t>((c + 1) * kCoresPerCluster, usa.cores().size()); ++i) {
            const auto& core = usa.cores()[i];
            (core.type == CoreType::vertex ? x.vertex : x.pixel)++;
            busy += core.busy_time;
            ur.cores.types += core.type == CoreType::vertex ? 'V' : 'P';
        }
        x.utilization = active_ns > 0 ? round6(ns_of(busy) / (active_ns * (x.vertex + x.pixel))) : 0.0;
        if (c + 1 < cluster_count) ur.cores.types += ' ';
    }
    for (uint8_t v = 0; v < 3; ++v)
        for (uint8_t p = 0; p < 3; ++p)
            ur.flags_time_ns.emplace_back(std::string(flag_bits(v)) + "/" + flag_bits(p), ns_of(us.flags_time[v][p]));
    const ShadingState& final_state = usa.state();
    ur.policy = policy_name(s.policy.shading);
    ur.cores.vertex = final_state.vertex_cores;
    ur.cores.pixel = final_state.pixel_cores;
    ur.cores.total = usa.cores().size();
    ur.cores.clusters = cluster_count;
    ur.initial = {s.platform.usa.vertex_cores, s.platform.usa.cores - s.platform.usa.vertex_cores};
    ur.reassignments = us.reassignments;
    ur.to_vertex = us.to_type[0];
    ur.to_pixel = us.to_type[1];
    ur.utilization = active_ns > 0 ? round6(busy_ns / (active_ns * usa.cores().size())) : 0.0;
    ur.active_ns = active_ns;
    ur.busy_ns = {ns_of(us.busy[0]), ns_of(us.busy[1])};
    ur.tasks = {us.tasks[0], us.tasks[1]};
    ur.shader_switches = us.switches;
    ur.draws_refused = us.invalid_draws;
    ur.pixel_queue_peak = us.pixel_queue_peak;

    const bool kernels_failed = std::any_of(r.kernels.begin(), r.kernels.end(), [](const KernelRecord& k) { return k.status != "ok"; });
    const bool draws_failed = std::any_of(ur.draws.begin(), ur.draws.end(), [](const DrawRecord& d) { return d.status != "ok"; });
    out.ok = !timed_out && !kernels_failed && !draws_failed && r.errors.empty() && protocol.clean();
    out.timed_out = timed_out;
    r.status = timed_out ? "partial" : out.ok ? "ok" : "error";
    if (hang)
        r.hang = HangRecord{hang_cause, ns_of(hang->at), ns_of(hang->since), hang->in_flight, hang->state};
    const auto& mc = s.platform.memory;
    r.memory.l2 = sys.gpu.l2().stats();
    r.memory.host_memory = {sys.host_memory.reads(), sys.host_memory.writes()};
    r.memory.device_memory = {sys.gpu.device_memory().reads(), sys.gpu.device_memory().writes()};
    r.memory.latency_ns = {mc.host_latency_ns, mc.link_latency_ns, mc.device_latency_ns, mc.l2_latency_ns, mc.l1_latency_ns};
    r.glc.blocks_placed = sys.gpu.glc().stats();
    r.trace = {rec.trace_events(), rec.trace_dropped(), options.trace_limit};
    if (options.check_protocol) {
        ProtocolRecord pr;
        pr.checkers = protocol.checkers();
        pr.transactions = protocol.transactions();
        pr.debug_transactions = protocol.debug_transactions();
        pr.dmi_requests = protocol.dmi_requests();
        pr.dmi_grants = protocol.dmi_grants();
        pr.invalidations = protocol.invalidations();
        pr.violation_count = protocol.violation_count();
        for (const ProtocolViolation& v : protocol.violations())
            pr.violations.push_back({v.checker, v.rule, v.detail, v.at.to_seconds() * 1e9});
        r.protocol = std::move(pr);
    }
    r.totals = {instructions, rec.warps_finished(), sys.gpu.glc().blocks_dispatched(), sys.gpu.cp().packets_processed(),
                sys.host.interrupts()};
    r.host = {s.workload.quantum_ns, sys.host.syncs(), policy_name(s.workload.code), policy_name(s.workload.serial_args)};
    if (std::any_of(r.kernels.begin(), r.kernels.end(), [](const KernelRecord& k) { return bool(k.measured); })) {
        r.replay = replay_summary(replay_sides(r.kernels));
        uint64_t inferred = 0, unmatched = 0;  // the import's wait calls without a resolved record
        auto count = [&](const std::optional<MeasuredTimes>& m) {
            if (!m) return;
            inferred += m->inferred_after.size();
            unmatched += m->unmatched_waits;
        };
        for (const KernelSpec& k : s.workload.kernels) count(k.measured);
        for (const CopySpec& c : s.workload.copies) count(c.measured);
        r.replay->inferred_waits = inferred;
        r.replay->unmatched_waits = unmatched;
    }

    // Expectations, on everything above.
    std::vector<ExpectationRecord> expectations;
    for (const Expectation& e : s.expect) {
        ExpectationRecord x;
        if (!e.compare.empty()) {  // A OP F * B
            const json a = results_value(r, e.lhs), b = results_value(r, e.rhs);
            x.compare = e.compare;
            x.value = json::array({a, b});
            x.passed = compare_holds(e, a, b);
        } else {
            if (!e.kernel.empty()) x.kernel = e.kernel;
            if (!e.draw.empty()) x.draw = e.draw;
            if (e.priority) x.priority = *e.priority;
            x.metric = e.metric;
            x.min = e.min;
            x.max = e.max;
            x.value = expectation_value(r, e);
            x.passed = x.value.is_number() && (!e.min || x.value.get<double>() >= *e.min) &&
                       (!e.max || x.value.get<double>() <= *e.max);
        }
        x.line = e.line;
        out.expectations_passed &= x.passed;
        expectations.push_back(std::move(x));
    }
    r.expectations = std::move(expectations);
    out.results = results_text(r);
    out.record = record;
    // A failed kernel fails the run, unless the scenario states how many kernels should fail
    // (an expectation on kernels_failed): then the expectations alone decide.
    bool failures_expected = false;
    for (const Expectation& e : s.expect)
        failures_expected |= e.kernel.empty() && (e.metric == "kernels_failed" || e.metric == "draws_failed");
    out.exit_code = timed_out ? 3 : out.expectations_passed && (out.ok || failures_expected) && protocol.clean() ? 0 : 1;

    if (options.vcd) out.vcd = rec.vcd_text();
    if (options.trace) {
        std::vector<std::string> qn;
        for (uint32_t q = 0; q < std::max<size_t>(queues.size(), 1); ++q) qn.push_back(queue_name(q));
        std::vector<TraceLaunch> names;
        for (size_t i = 0; i < launches.size(); ++i) names.push_back({launches[i].name, instanced_of(i)});
        auto trace = std::make_shared<const TraceRecord>(
            rec.take_trace(names, qn, sys.gpu.sm_count(), s.platform.largest_sm().warp_slots, s.platform.usa.cores));
        out.trace = trace_text(*trace);
        out.trace_record = std::move(trace);
    }
    out.table = console_table(r);
    return out;
}

namespace {

// A replay's figures, measured against simulated: a row per distribution, then the ratios.
std::string replay_table(const ReplayRecord& x) {
    std::ostringstream t;
    auto cell = [](const std::optional<double>& v, size_t w) {
        const std::string s = v ? fmt_ns(*v) : "-";
        return std::string(w - std::min(w, s.size()), ' ') + s;
    };
    auto side = [&](const Distribution& d) {
        const std::string n = std::to_string(d.count);
        return cell(d.median, 11) + cell(d.p90, 11) + cell(d.max, 11) + std::string(8 - std::min<size_t>(8, n.size()), ' ') + n;
    };
    auto ratio = [](const std::optional<double>& v) {
        if (!v) return std::string("-");
        char b[32];
        std::snprintf(b, sizeof b, "%.3f", *v);
        return std::string(b);
    };
    auto percent = [](const std::optional<double>& v) { return v ? fmt_ns(*v * 100) + " %" : std::string("-"); };
    t << "Replay: the model against the hardware, " << x.kernels << " kernels (ns)\n";
    auto banner = [](const std::string& side) {  // over a side's 41 columns
        const size_t dashes = 41 - 3 - side.size();
        return "   " + std::string(dashes / 2, '-') + side + std::string(dashes - dashes / 2, '-');
    };
    t << std::string(24, ' ') << banner(" measured ") << banner(" simulated ") << "\n";
    t << std::string(24, ' ') << "     median        p90        max   count     median        p90        max   count\n";
    t << "  same-stream gap       " << side(x.same_stream_gap_ns.measured) << side(x.same_stream_gap_ns.simulated) << "\n";
    t << "  idle launch latency   " << side(x.idle_launch_latency_ns.measured) << side(x.idle_launch_latency_ns.simulated)
      << "\n";
    const Distribution& d = x.kernel_duration_ratio;
    t << "  kernel duration       simulated / measured: median " << ratio(d.median) << ", p90 " << ratio(d.p90) << ", max "
      << ratio(d.max) << " (" << d.count << " kernels)\n";
    auto part = [&](const Omit<Distribution>& p) {
        if (!p || p->count == 0) return std::string("- (no kernel)");
        return "median " + ratio(p->median) + ", p90 " + ratio(p->p90) + " (" + std::to_string(p->count) + " kernels)";
    };
    t << "                        alone on the hardware: " << part(x.kernel_duration_ratio_alone)
      << "; beside another kernel: " << part(x.kernel_duration_ratio_overlapped) << "\n";
    t << "  cross-stream overlap  measured " << percent(x.cross_stream_overlap.measured) << ", simulated "
      << percent(x.cross_stream_overlap.simulated) << " of kernel time\n";
    // Launch by launch (replay_metrics.h, PairedError): the median and p90 of |simulated - measured|.
    auto paired = [&](const Omit<PairedError>& e) {
        if (!e || e->count == 0) return std::string("- (no launch)");
        return "median " + cell(e->median_abs, 0) + ", p90 " + cell(e->p90_abs, 0) + " (" + std::to_string(e->count) +
               (e->count == 1 ? " launch)" : " launches)");
    };
    t << "  paired |error|        gap " << paired(x.same_stream_gap_ns.error) << "; idle launch "
      << paired(x.idle_launch_latency_ns.error) << "\n";
    t << "  makespan              measured " << cell(x.makespan_ns.measured, 0) << " ns, simulated "
      << cell(x.makespan_ns.simulated, 0) << " ns, ratio " << ratio(x.makespan_ratio) << "\n";
    t << "  same-stream gap = start - the previous kernel's end on its stream, where its launch had returned before "
         "that end;\n  idle launch latency = launch call start -> start, no kernel running or queued, first launch of "
         "each name left out;\n  paired |error| = |simulated - measured| per launch that gives the figure on the hardware\n";
    return t.str();
}

}  // namespace

// The breakdown table for people: stages as rows, kernels as columns (the first eight), then
// a replay's figures, the draws, the protocol checkers' summary, a hang and the run's totals.
std::string console_table(const RunRecord& r) {
    std::ostringstream t;
    const size_t kernel_count = r.kernels.size();
    const size_t cols = std::min<size_t>(kernel_count, 8);
    if (kernel_count > 0) {
        t << "Launch latency breakdown (simulated ns), scenario '" << r.scenario << "'\n";
        t << "  " << std::string(20, ' ');
        for (size_t c = 0; c < cols; ++c) {
            std::string n = r.kernels[c].name.substr(0, 14);
            t << std::string(16 - n.size(), ' ') << n;
        }
        t << "\n";
        auto row = [&](const std::string& n, auto value) {
            t << "  " << n << std::string(20 - n.size(), ' ');
            for (size_t c = 0; c < cols; ++c) {
                const std::optional<double> v = value(r.kernels[c]);
                const std::string x = v ? fmt_ns(*v) : "-";
                t << std::string(16 - std::min<size_t>(16, x.size()), ' ') << x;
            }
            t << "\n";
        };
        for (const LaunchStage& ls : kLaunchStages)
            row(ls.name, [&](const KernelRecord& k) {
                std::optional<double> v;
                for (const StageRecord& st : k.stages)
                    if (st.stage == ls.name) v = st.ns;
                return v;
            });
        t << "  " << std::string(20 + 16 * cols, '-') << "\n";
        row("dispatch", [](const KernelRecord& k) { return k.dispatch_latency_ns; });
        row("launch", [](const KernelRecord& k) { return k.launch_latency_ns; });
        row("response", [](const KernelRecord& k) { return k.response_ns; });
        row("turnaround", [](const KernelRecord& k) { return k.turnaround_ns; });
        if (kernel_count > cols) t << "  (" << kernel_count - cols << " more kernels in results.json)\n";
        for (const KernelRecord& k : r.kernels) {
            if (k.status != "ok") t << "  kernel " << k.name << ": " << k.status << "\n";
            if (k.instances) t << instances_line("kernel " + k.name, *k.instances);
        }
        t << "  dispatch = doorbell -> first instruction with its arguments (the GPU's share);"
             " launch = the same from submit;\n  response = submit -> first warp running;"
             " turnaround = submit -> completion signal written\n";
    }
    if (r.replay) t << replay_table(*r.replay);
    const UsaRecord& u = r.usa;
    if (!u.draws.empty()) {  // M4
        t << "Draws (simulated ns), shading array '" << u.policy << "'\n";
        t << "  name                 arrived  first task vertex done         end    complete  turnaround  status\n";
        auto cell = [](const std::optional<double>& v) {
            std::string x = v ? fmt_ns(*v) : "-";
            return std::string(12 - std::min<size_t>(12, x.size()), ' ') + x;
        };
        for (const DrawRecord& d : u.draws) {
            std::string n = d.name.substr(0, 16);
            t << "  " << n << std::string(16 - n.size(), ' ') << cell(d.arrived_ns) << cell(d.first_task_ns)
              << cell(d.vertex_done_ns) << cell(d.end_ns) << cell(d.complete_ns) << cell(d.turnaround_ns) << "  "
              << d.status << "\n";
        }
        for (const DrawRecord& d : u.draws)
            if (d.instances) t << instances_line("draw " + d.name, *d.instances);
        t << "  " << u.cores.total << " cores (" << u.cores.types << "), final split " << u.cores.vertex << " vertex / "
          << u.cores.pixel << " pixel, " << u.reassignments << " reassignments, utilization "
          << fmt_ns(u.utilization * 100) << " %\n";
    }
    if (r.protocol) {
        const ProtocolRecord& p = *r.protocol;
        t << "  TLM-2.0 base protocol: " << p.checkers << " connections checked, " << p.transactions
          << " transactions, " << p.debug_transactions << " debug, " << p.violation_count << " violations\n";
        for (size_t i = 0; i < std::min<size_t>(p.violations.size(), 10); ++i) {
            const ViolationRecord& v = p.violations[i];
            t << "    " << v.checker << ": " << v.rule << ": " << v.detail << "\n";
        }
    }
    if (r.hang) {
        const HangRecord& h = *r.hang;
        t << (h.cause == "watchdog" ? "  HANG: the watchdog saw no forward progress from " + fmt_ns(h.no_progress_since_ns) +
                                          " to " + fmt_ns(h.detected_ns) + " ns"
                                    : "  HANG: the simulated machine went idle at " + fmt_ns(h.detected_ns) + " ns")
          << " with " << h.in_flight << " kernel(s) or draw(s) in flight. The GPU's state:\n";
        const size_t shown = std::min<size_t>(h.state.size(), 40);
        for (size_t i = 0; i < shown; ++i) t << "    " << h.state[i] << "\n";
        if (h.state.size() > shown) t << "    (" << h.state.size() - shown << " more lines in results.json, hang.state)\n";
    }
    t << "  simulated " << fmt_ns(r.sim_end_ns) << " ns, " << r.totals.warp_instructions << " warp-instructions, status "
      << r.status << "\n";
    return t.str();
}

}  // namespace gpuvp
