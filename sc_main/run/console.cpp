// The table `gpuvp run` prints, from the run's record.
#include "sc_main/run/builders.h"
#include "sc_main/run/run.h"
#include "sc_main/record/short_names.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace gpuvp {

using build::fmt_ns;

namespace {

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

std::string console_table(const RunRecord& r) {
    std::ostringstream t;
    const size_t kernel_count = r.kernels.size();
    const size_t cols = std::min<size_t>(kernel_count, 8);
    if (kernel_count > 0) {
        t << "Launch latency breakdown (simulated ns), scenario '" << r.scenario << "'\n";
        t << "  " << std::string(20, ' ');
        std::vector<std::string> names;
        for (size_t c = 0; c < cols; ++c) names.push_back(r.kernels[c].name);
        for (const std::string& n : short_names(names, 14)) t << std::string(16 - text_chars(n), ' ') << n;
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
            if (!k.status.ok()) t << "  kernel " << k.name << ": " << k.status.text() << "\n";
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
              << d.status.text() << "\n";
        }
        for (const DrawRecord& d : u.draws)
            if (d.instances) t << instances_line("draw " + d.name, *d.instances);
        t << "  " << u.cores.total << " cores (" << u.cores.types << "), final split " << u.cores.vertex << " vertex / "
          << u.cores.pixel << " pixel, " << u.counts.reassignments << " reassignments, utilization "
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
