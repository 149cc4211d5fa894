// report.html's timelines: each trace's view (warps per SM and slot, shading tasks, the scalar
// pool and cores-by-type counters) built from its events once, the kernels' spans and the
// Timeline section.
#include "sc_main/report/page.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

namespace gpuvp::report {

namespace {
// A number argument as an integer; -1 if absent or not a number.
int64_t i64(const TraceEvent& e, std::string_view key) {
    const double v = e.number(key);
    return std::isfinite(v) ? int64_t(v) : -1;
}
}  // namespace

TraceView view_trace(const TraceRecord* trace, Registry& kernels) {
    TraceView tv;
    if (!trace) return tv;
    tv.present = true;
    tv.note = trace->note;
    std::map<uint32_t, uint32_t> slots;           // SM -> slot count (from the thread names)
    std::map<uint32_t, std::string> core_names;   // shading core -> name
    std::map<uint32_t, std::vector<Bar>> task_rows;
    std::map<uint32_t, std::map<uint32_t, std::vector<Bar>>> warp_rows;  // SM -> slot -> warps
    std::set<uint32_t> sms;
    constexpr uint32_t sm0 = TracePid::sm0, usa = TracePid::usa, cores_end = TracePid::usa_draw_tid0;
    for (const TraceEvent& e : trace->events) {
        const uint32_t pid = e.pid, tid = e.tid.value_or(0);
        const double ts = e.ts_us * 1000, dur = e.ph == 'X' ? e.dur_us * 1000 : 0;
        if (e.ph == 'M') {
            const std::string arg = e.text("name");
            if (e.name == "process_name" && pid >= sm0 && arg.rfind("sm[", 0) == 0) sms.insert(pid - sm0);
            if (e.name == "thread_name" && pid >= sm0 && arg.rfind("warp slot ", 0) == 0)
                slots[pid - sm0] = std::max(slots[pid - sm0], tid + 1);
            if (e.name == "thread_name" && pid == usa && tid < cores_end) core_names[tid] = arg;
            continue;
        }
        if (!std::isfinite(ts)) continue;
        tv.end_ns = std::max(tv.end_ns, ts + (std::isfinite(dur) ? dur : 0));
        if (e.cat == "warp" && e.ph == 'X' && pid >= sm0) {
            std::string k = e.text("kernel");
            if (k.empty()) k = e.name.substr(0, e.name.find(" b"));
            Bar b{ts, ts + dur, kernels.id(k)};
            b.a = i64(e, "block");
            b.b = i64(e, "warp");
            b.c = i64(e, "instructions");
            warp_rows[pid - sm0][tid].push_back(b);
            sms.insert(pid - sm0);
            ++tv.warps;
        } else if (e.cat == "shading" && e.ph == 'X' && pid == usa && tid < cores_end) {
            Bar b{ts, ts + dur, e.name == "vertex" ? 0 : 1};
            b.a = i64(e, "task");
            b.c = e.arg("switched") ? 1 : 0;
            task_rows[tid].push_back(b);
        } else if (e.ph == 'C' && e.name == "scalar pool" && pid >= sm0) {
            Counter& c = tv.scalar[pid - sm0];
            c.t.push_back(ts);
            std::vector<double> v;
            for (const char* l : kScalarLevels) v.push_back(std::max(0.0, e.number(l)));
            for (double& x : v)
                if (!std::isfinite(x)) x = 0;
            c.v.push_back(v);
        } else if (e.ph == 'C' && e.name == "cores by type" && pid == usa) {
            tv.cores.t.push_back(ts);
            const double v = e.number("vertex"), p = e.number("pixel");
            tv.cores.v.push_back({std::isfinite(v) ? v : 0, std::isfinite(p) ? p : 0});
        }
    }
    for (uint32_t sm : sms) {
        Gantt& g = tv.sms[sm];
        uint32_t n = slots.count(sm) ? slots[sm] : 0;
        if (warp_rows.count(sm) && !warp_rows[sm].empty()) n = std::max(n, warp_rows[sm].rbegin()->first + 1);
        n = std::min<uint32_t>(n, 4096);
        g.rows.resize(n);
        for (uint32_t w = 0; w < n; ++w) g.rows[w].label = "slot " + std::to_string(w);
        for (auto& [slot, bars] : warp_rows[sm])
            if (slot < n) g.rows[slot].bars = std::move(bars);
    }
    uint32_t cores = task_rows.empty() ? 0 : task_rows.rbegin()->first + 1;
    if (!core_names.empty()) cores = std::max(cores, core_names.rbegin()->first + 1);
    cores = std::min<uint32_t>(cores, 4096);
    tv.usa.rows.resize(cores);
    for (uint32_t c = 0; c < cores; ++c) {
        tv.usa.rows[c].label = core_names.count(c) ? core_names[c] : "core " + std::to_string(c);
        if (task_rows.count(c)) tv.usa.rows[c].bars = std::move(task_rows[c]);
    }
    // Counters stay in time order (the trace is; a stable sort keeps same-time order).
    auto order = [](Counter& c) {
        std::vector<size_t> idx(c.t.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return c.t[x] < c.t[y]; });
        Counter o;
        for (size_t i : idx) {
            o.t.push_back(c.t[i]);
            o.v.push_back(c.v[i]);
        }
        c = std::move(o);
    };
    for (auto& [sm, c] : tv.scalar) order(c);
    order(tv.cores);
    return tv;
}

std::string warp_title(const Registry& k, const Bar& b, const std::string& row) {
    std::ostringstream o;
    o << k.name(b.key) << " block " << b.a << " warp " << b.b << ": " << ns(b.s) << "–" << ns(b.e) << " ns ("
      << ns(b.e - b.s) << " ns), " << row;
    if (b.c >= 0) o << ", " << b.c << " instructions";
    return o.str();
}

// The per-SM warp charts of one trace; `compact` for the variant comparison.
std::string sm_timelines(TraceView& tv, const Registry& kernels, const Scale& xs, const Unit& u, bool compact,
                         const std::string& variant, const char* variant_colour) {
    std::ostringstream o;
    std::vector<uint32_t> idle;  // SMs without warps: one line for all
    for (auto& [sm, g] : tv.sms) {
        size_t warps = 0;
        std::set<int> keys;
        for (const Row& r : g.rows) {
            for (const Bar& b : r.bars) keys.insert(b.key);
            warps += r.bars.size();
        }
        const std::string label = "sm[" + std::to_string(sm) + "]" + (variant.empty() ? "" : " — " + variant);
        if (g.rows.empty() || keys.empty()) {
            idle.push_back(sm);
            continue;
        }
        size_t bars = 0;
        for (const Row& r : g.rows) bars += r.bars.size();
        GanttStyle st;
        st.svg_class = compact ? "variant-timeline" : "sm-timeline";
        st.svg_attrs = " data-sm=\"" + std::to_string(sm) + "\"" + (variant.empty() ? "" : " data-variant=\"" + esc(variant) + "\"");
        st.bar_class = "warp";
        st.data_attr = "data-kernel";
        st.aria = label + " warp slots over time";
        const double rows = double(g.rows.size());
        st.row_h = compact ? std::max(2.0, std::min(8.0, std::floor(150 / rows)))
                           : std::max(3.0, std::min(12.0, std::floor(260 / rows)));
        st.colour = [&](int k) { return kernels.colour(k); };
        st.key_name = [&](int k) { return kernels.name(k); };
        st.title = [&](const Bar& b, const std::string& row) { return warp_title(kernels, b, row); };
        st.merged_noun = "warps";
        for (int k : keys) st.legend.push_back({kernels.name(k), kernels.colour(k)});
        o << "<figure class=\"chart\"><figcaption>";
        if (variant_colour) o << "<span class=\"swatch\" style=\"background:" << variant_colour << "\"></span>";
        o << esc(variant.empty() ? label : variant) << ": " << warps << " warp"
          << (warps == 1 ? "" : "s") << " on " << g.rows.size() << " warp slots (rows)</figcaption>"
          << render_gantt(g, xs, u, st) << "</figure>\n";
    }
    if (!idle.empty()) {
        o << "<p class=\"empty sm-empty\">";
        for (size_t i = 0; i < idle.size(); ++i) o << (i ? ", " : "") << "sm[" << idle[i] << "]";
        o << (variant.empty() ? "" : " — " + esc(variant)) << ": no warps ran</p>\n";
    }
    return o.str();
}

std::string variant_note(const Page& p) {
    if (!p.variants) return "";
    return "<p class=\"variant-note\">Variant <b>" + esc(p.variant_names[0]) + "</b>, the first of " +
           std::to_string(p.variant_names.size()) + "; the comparison is under <a href=\"#variants\">Variants</a>.</p>\n";
}

double sim_end(const RunRecord& r, const TraceView* tv) {
    double e = r.sim_end_ns;
    if (!std::isfinite(e)) e = 0;
    if (tv) e = std::max(e, tv->end_ns);
    return e > 0 ? e : 1;
}

// Kernels as spans: submit -> first warp (waiting), -> last block (running), -> completion.
std::string kernel_spans(const RunRecord& r, const Registry& kernels, const Scale& xs, const Unit& u,
                         const std::string& variant, const char* variant_colour) {
    const std::vector<KernelRecord>& ks = r.kernels;
    if (ks.empty())
        return "<p class=\"empty\">" + (variant.empty() ? "" : esc(variant) + ": ") + "no kernels in this run</p>\n";
    const size_t n = std::min(ks.size(), kMaxBarRows);
    std::ostringstream o;
    double y = 6;
    svg_legend(o,
               {{"waiting: submit → first warp", "#555", 0.3},
                {"running: first warp → last block done", "#555", 1},
                {"completing: → completion signal", "#555", 0.6}},
               xs.a, y, xs.b, "each kernel, in its colour:");
    y += 22;
    const double rh = n > 40 ? 8 : 16, top = y;
    o << "<rect class=\"plot-bg\" x=\"" << px(xs.a) << "\" y=\"" << px(top) << "\" width=\"" << px(xs.b - xs.a)
      << "\" height=\"" << px(rh * double(n)) << "\"/>";
    for (size_t i = 0; i < n; ++i) {
        const KernelRecord& k = ks[i];
        const std::string& name = k.name;
        const char* colour = kernels.colour(kernels.find(name));
        const double ry = top + rh * double(i);
        const double submit = k.submit_ns, first = num(k.first_warp_start_ns), end = num(k.end_ns),
                     complete = num(k.complete_ns);
        // A kernel with `instances` is one span, from instance 0's submit to the last completion.
        const std::string instances = k.instances ? "; " + fmt(double(k.instances->count), 0) + " instances" : "";
        o << "<g class=\"kernel-span\" data-kernel=\"" << esc(name) << "\">";
        if (rh >= 12 || i % 2 == 0)
            o << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + rh / 2 + 4) << "\" text-anchor=\"end\">"
              << esc(cut(name, 14)) << "</text>";
        bool drawn = false;
        auto seg = [&](double a, double b, double opacity, const std::string& what) {
            if (!std::isfinite(a) || !std::isfinite(b) || b < a) return;
            drawn = true;
            o << "<rect x=\"" << px(xs(a)) << "\" y=\"" << px(ry + 1) << "\" width=\"" << px(std::max(0.8, xs(b) - xs(a)))
              << "\" height=\"" << px(rh - 2) << "\" fill=\"" << colour << "\" fill-opacity=\"" << fmt(opacity, 2)
              << "\"><title>" << esc(name) << ": " << what << " " << ns(a) << "–" << ns(b) << " ns (" << ns(b - a)
              << " ns); status " << esc(k.status) << esc(instances) << "</title></rect>";
        };
        if (std::isfinite(first)) {
            seg(submit, first, 0.3, "waiting");
            seg(first, std::isfinite(end) ? end : complete, 1, "running");
            if (std::isfinite(end)) seg(end, complete, 0.6, "completing");
        } else
            seg(submit, complete, 0.3, "never ran a warp");
        if (!drawn && rh >= 12)
            o << "<text class=\"muted\" x=\"" << px(xs.a + 4) << "\" y=\"" << px(ry + rh / 2 + 4) << "\">"
              << esc(cut(k.status, 150)) << "</text>";
        o << "</g>";
    }
    o << x_axis(xs, u, top, top + rh * double(n), "simulated time");
    const double h = top + rh * double(n) + 40;
    std::ostringstream out;
    out << "<figure class=\"chart\"><figcaption>";
    if (variant_colour) out << "<span class=\"swatch\" style=\"background:" << variant_colour << "\"></span>";
    out << (variant.empty() ? "Kernels" : esc(variant) + ": kernels")
        << (ks.size() > n ? " (the first " + std::to_string(n) + " of " + std::to_string(ks.size()) + ")" : "")
        << " from submit to completion</figcaption>"
        << svg_open("kernel-spans", variant.empty() ? " id=\"kernel-spans\"" : " data-variant=\"" + esc(variant) + "\"", kWidth, h,
                    "kernels over time")
        << o.str() << "</svg></figure>\n";
    return out.str();
}

std::string section_timeline(Page& p, size_t warp_limit, Bound& bound) {
    std::ostringstream o;
    o << "<section id=\"timeline\">\n<h2>Timeline</h2>\n";
    if (p.variants) {
        const std::vector<VariantEntry>& vs = *p.results.variants;
        double end = 1;
        for (size_t i = 0; i < vs.size(); ++i)
            end = std::max(end, sim_end(vs[i].results, p.traces[i].present ? &p.traces[i] : nullptr));
        const Scale xs{0, end, kLeft, kWidth - kRight};
        o << "<p>Each variant's kernels, on one time scale. The warps of every SM, variant by variant, are under "
             "<a href=\"#variant-timelines\">Variants</a>.</p>\n";
        bool any = false;
        for (size_t i = 0; i < vs.size(); ++i) any = any || !vs[i].results.kernels.empty();
        if (!any) o << "<p class=\"empty\">no kernels in this run</p>\n";
        for (size_t i = 0; i < vs.size() && any; ++i)
            o << kernel_spans(vs[i].results, p.kernels, xs, time_unit(end), p.variant_names[i], kVariantColours[i % 8]);
        o << "</section>\n";
        return o.str();
    }
    TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    const double end = sim_end(p.results, tv && tv->present ? tv : nullptr);
    const Unit u = time_unit(end);
    const Scale xs{0, end, kLeft, kWidth - kRight};
    o << "<p>Simulated time runs left to right on one scale for every chart of this section. Hover a bar for its numbers.</p>\n";
    o << kernel_spans(p.results, p.kernels, xs, u);
    if (!tv || !tv->present) {
        o << "<p class=\"empty\" id=\"timeline-empty\">run without a trace: no warp timeline (run with <code>--out</code> and without <code>--no-trace</code>)</p>\n</section>\n";
        return o.str();
    }
    if (!tv->note.empty()) o << "<p class=\"warn\">" << esc(tv->note) << ": the charts show the events kept.</p>\n";
    std::vector<Gantt*> charts;
    for (auto& [sm, g] : tv->sms) charts.push_back(&g);
    bound = bound_bars(charts, warp_limit, end / (xs.b - xs.a), end);
    o << "<h3>Warps per SM</h3>\n<p>One chart per SM; a row per hardware warp slot, a bar per warp from its start to its end, coloured by kernel.</p>\n";
    o << bound_note(bound, "warps", "timeline-note");
    if (tv->sms.empty()) o << "<p class=\"empty\">no SM in the trace</p>\n";
    o << sm_timelines(*tv, p.kernels, xs, u, false, "");
    o << "</section>\n";
    return o.str();
}

}  // namespace gpuvp::report
