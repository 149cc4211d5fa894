#include "sc_main/run/run.h"
#include <gpuvp/platform/system.h>
#include "sc_main/run/builders.h"
#include "sc_main/run/recorder.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace gpuvp {

using build::ns_of;
using sc_core::sc_time;

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

// How a simulation stopped.
struct Stopped {
    bool timed_out = false;  // at RunOptions::timeout_seconds
    double host_seconds = 0;
};

// Runs the simulation until nothing is left to happen, to max_sim_ns or to the watchdog's stop
// (`hang` set); with progress or a host-time limit in slices of simulated time, reporting
// between them or stopping at the limit.
Stopped simulate(System& sys, const Scenario& s, const RunOptions& options, const std::optional<Gpu::HangReport>& hang) {
    Stopped stopped;
    const auto t0 = std::chrono::steady_clock::now();
    const sc_time limit(s.max_sim_ns, sc_core::SC_NS);
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
                stopped.timed_out = true;
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
    stopped.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stopped;
}

// Why what did not complete did not ("{what}": kernel, draw or copy).
LaunchStatus unfinished_status(const Stopped& stopped, const RunOptions& options, const std::optional<Gpu::HangReport>& hang) {
    LaunchStatus unfinished(LaunchStatus::State::unfinished, " by max_sim_ns");
    if (stopped.timed_out) {
        unfinished.detail = ": the run was stopped at its host-time limit (--timeout " + format_number(options.timeout_seconds) + " s)";
    } else if (hang) {
        unfinished.detail = ": the watchdog stopped the run (no forward progress from " + build::fmt_ns(ns_of(hang->since)) +
                            " to " + build::fmt_ns(ns_of(hang->at)) + " ns)";
    } else if (!sc_core::sc_pending_activity()) {
        unfinished.detail = ": the simulated machine went idle with the {what} unfinished";
    }
    return unfinished;
}

}  // namespace

RunOutput run_scenario(const Scenario& s, const RunOptions& options) {
    RunOutput out;
    const std::vector<double> alone = s.measure_alone ? alone_turnarounds(s) : std::vector<double>{};
    Recorder rec(options.trace, options.trace_limit, options.trace_detail);
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

    const Stopped stopped = simulate(sys, s, options, hang);
    const build::Ran ran{s, sys, rec, sys.gpu.reached()};
    // Warps still resident at the stop (a run cut short): in the trace and the occupancy up to it.
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i)
        for (const WarpRecord& w : sys.gpu.sm(i).resident_warps(ran.end)) rec.warp_in_flight(w);
    const std::vector<LaunchStatus> statuses = build::launch_statuses(ran, unfinished_status(stopped, options, hang));
    // Starved with work unfinished: what is left waits for something that never comes, a hang too.
    const char* hang_cause = "watchdog";
    if (!hang && !sc_core::sc_pending_activity() &&
        std::any_of(statuses.begin(), statuses.end(), [](const LaunchStatus& st) { return st.unfinished(); })) {
        hang = Gpu::HangReport{ran.end, ran.end, sys.gpu.cp().in_flight(), sys.gpu.state_dump()};
        hang_cause = "idle";
    }
    if (hang) build::name_signals(hang->state, sys.host.launches());

    if (options.step) options.step("the results");
    auto record = std::make_shared<RunRecord>();
    RunRecord& r = *record;
    build::scenario_header(r, s);
    r.sim_end_ns = ns_of(ran.end);
    r.host_seconds = stopped.host_seconds;
    build::kernels(r, ran, statuses, alone);
    const uint64_t instructions = build::sms(r, ran);
    build::queues(r, ran);
    build::locks(r, ran);
    build::scalar(r, ran);
    build::usa(r, ran, statuses);
    const bool failed = std::any_of(r.kernels.begin(), r.kernels.end(), [](const KernelRecord& k) { return !k.status.ok(); }) ||
                        std::any_of(r.usa.draws.begin(), r.usa.draws.end(), [](const DrawRecord& d) { return !d.status.ok(); });
    out.ok = !stopped.timed_out && !failed && r.errors.empty() && protocol.clean();
    r.status = stopped.timed_out ? "partial" : out.ok ? "ok" : "error";
    if (hang) r.hang = HangRecord{hang_cause, ns_of(hang->at), ns_of(hang->since), hang->in_flight, hang->state};
    build::memory(r, ran);
    r.trace = {rec.trace_events(), rec.trace_dropped(), options.trace_limit};
    if (options.check_protocol) r.protocol = build::protocol(protocol);
    r.totals = {instructions, rec.warps_finished(), sys.gpu.glc().blocks_dispatched(), sys.gpu.cp().packets_processed(),
                sys.host.interrupts()};
    r.host = {s.workload.quantum_ns, sys.host.syncs(), policy_name(s.workload.code), policy_name(s.workload.serial_args)};
    build::replay(r, s);
    r.expectations = build::expectations(r, s);  // on everything above

    out.results = results_text(r);
    out.record = record;
    out.timed_out = stopped.timed_out;
    out.host_seconds = stopped.host_seconds;
    out.sim_end_ns = r.sim_end_ns;
    out.warp_instructions = instructions;
    out.kernels = r.kernels.size();
    out.lock_acquisitions = r.locks.counts.acquisitions;
    out.shading_tasks = r.usa.tasks.vertex + r.usa.tasks.pixel;
    out.expectations_passed = std::all_of(r.expectations.begin(), r.expectations.end(),
                                          [](const ExpectationRecord& e) { return e.passed; });
    // A failed kernel fails the run, unless the scenario states how many kernels should fail
    // (an expectation on kernels_failed): then the expectations alone decide.
    bool failures_expected = false;
    for (const Expectation& e : s.expect)
        failures_expected |= e.kernel.empty() && (e.metric == "kernels_failed" || e.metric == "draws_failed");
    out.exit_code = stopped.timed_out ? 3 : out.expectations_passed && (out.ok || failures_expected) && protocol.clean() ? 0 : 1;

    if (options.vcd) out.vcd = rec.vcd_text();
    if (options.trace) {
        if (options.step) options.step("the trace");
        std::vector<std::string> qn;
        for (uint32_t q = 0; q < std::max<size_t>(s.workload.queues.size(), 1); ++q) qn.push_back(ran.queue_name(q));
        const auto& launches = sys.host.launches();
        std::vector<TraceLaunch> names;
        for (size_t i = 0; i < launches.size(); ++i) names.push_back({launches[i].name, ran.instanced(i)});
        auto trace = std::make_shared<const TraceRecord>(rec.take_trace(
            std::move(names), std::move(qn), sys.gpu.sm_count(), s.platform.largest_sm().warp_slots, s.platform.usa.cores));
        out.trace = trace_text(*trace);
        out.trace_record = std::move(trace);
    }
    out.table = console_table(r);
    return out;
}

}  // namespace gpuvp
