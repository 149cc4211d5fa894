// report.html's timelines: each trace's view (warps per SM and slot, shading tasks, the scalar
// pool and cores-by-type counters) built from its events once, the kernels' spans and the
// Timeline section.
#include "sc_main/report/page.h"
#include "sc_main/record/short_names.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

namespace gpuvp::report {

TraceView view_trace(const TraceRecord* trace, Registry& kernels) {
    TraceView tv;
    if (!trace) return tv;
    tv.present = true;
    tv.note = trace_note(*trace);
    tv.end_ns = trace->end_ns;
    std::map<uint32_t, std::vector<Bar>> task_rows;
    std::map<uint32_t, std::map<uint32_t, std::vector<Bar>>> warp_rows, block_rows;  // SM -> slot (lane) -> warps (blocks)
    std::vector<int> ids(trace->launches.size() + 1, -1);  // launch id -> colour key (the last: no launch)
    auto kernel = [&](const trace::Owner& o) {
        const TraceLaunch* l = trace->launch(o);
        int& id = ids[l ? o.launch : trace->launches.size()];
        if (id < 0) id = kernels.id(l ? l->name : "(no kernel)");
        return id;
    };
    for (const trace::Event& event : trace->events) {
        if (const auto* w = std::get_if<trace::Warp>(&event)) {
            Bar b{w->ts * 1000, w->ts * 1000 + w->dur * 1000, kernel(w->owner)};
            b.a = int64_t(w->block);
            b.b = int64_t(w->warp);
            b.c = int64_t(w->instructions);
            b.in_flight = w->in_flight;
            warp_rows[w->sm][w->slot].push_back(b);
            ++tv.warps;
        } else if (const auto* k = std::get_if<trace::Block>(&event)) {
            Bar b{k->ts * 1000, k->ts * 1000 + k->dur * 1000, kernel(k->owner)};
            b.a = int64_t(k->block);
            b.b = b.c = -1;
            block_rows[k->sm][k->lane].push_back(b);
        } else if (const auto* k = std::get_if<trace::Task>(&event)) {
            Bar b{k->ts * 1000, k->ts * 1000 + k->dur * 1000, k->type == CoreType::vertex ? 0 : 1};
            b.a = int64_t(k->task);
            b.c = k->switched ? 1 : 0;
            task_rows[k->core].push_back(b);
        } else if (const auto* s = std::get_if<trace::Scalar>(&event)) {
            Counter& c = tv.scalar[s->sm];
            c.t.push_back(s->ts * 1000);
            c.v.push_back({double(s->used[0]), double(s->used[1]), double(s->used[2]), double(s->used[3])});
        } else if (const auto* u = std::get_if<trace::Shading>(&event); u && u->which == trace::Shading::cores_by_type) {
            tv.cores.t.push_back(u->ts * 1000);
            tv.cores.v.push_back({double(u->vertex), double(u->pixel)});
        }
    }
    // An SM's chart: a row per warp slot the trace names, and any its warps ran on (at most 4096);
    // an SM the trace kept blocks of and no warps (--trace-detail blocks, or the limit): a row per
    // block row.
    std::set<uint32_t> sms;
    for (uint32_t sm = 0; sm < trace->sm_slots.size(); ++sm) sms.insert(sm);
    for (const auto& [sm, rows] : warp_rows) sms.insert(sm);
    for (const auto& [sm, rows] : block_rows) sms.insert(sm);
    for (uint32_t sm : sms) {
        Gantt& g = tv.sms[sm];
        if (auto b = block_rows.find(sm); b != block_rows.end() && !warp_rows.count(sm)) {
            tv.block_sms.insert(sm);
            g.rows.resize(std::min<uint32_t>(b->second.rbegin()->first + 1, 4096));
            for (uint32_t r = 0; r < g.rows.size(); ++r) g.rows[r].label = "blocks " + std::to_string(r);
            for (auto& [lane, bars] : b->second)
                if (lane < g.rows.size()) {
                    tv.warps += bars.size();
                    g.rows[lane].bars = std::move(bars);
                }
            continue;
        }
        uint32_t n = sm < trace->sm_slots.size() ? trace->sm_slots[sm] : 0;
        auto w = warp_rows.find(sm);
        if (w != warp_rows.end() && !w->second.empty()) n = std::max(n, w->second.rbegin()->first + 1);
        n = std::min<uint32_t>(n, 4096);
        g.rows.resize(n);
        for (uint32_t r = 0; r < n; ++r) g.rows[r].label = "slot " + std::to_string(r);
        if (w != warp_rows.end())
            for (auto& [slot, bars] : w->second)
                if (slot < n) g.rows[slot].bars = std::move(bars);
    }
    uint32_t cores = task_rows.empty() ? 0 : task_rows.rbegin()->first + 1;
    cores = std::min<uint32_t>(std::max(cores, trace->usa_cores), 4096);
    tv.usa.rows.resize(cores);
    for (uint32_t c = 0; c < cores; ++c) {
        tv.usa.rows[c].label = c < trace->usa_cores ? shading_core_name(c) : "core " + std::to_string(c);
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
    o << k.name(b.key) << " block " << b.a << (b.b >= 0 ? " warp " + std::to_string(b.b) : "") << ": " << ns(b.s) << "–" << ns(b.e) << " ns ("
      << ns(b.e - b.s) << " ns), " << row;
    if (b.c >= 0) o << ", " << b.c << " instructions";
    if (b.in_flight) o << ", still running when the run stopped";
    return o.str();
}

// The per-SM warp charts of one trace; `compact` for the variant comparison.
std::string sm_timelines(TraceView& tv, const Registry& kernels, const Scale& xs, const Unit& u, bool compact,
                         const std::string& variant, const char* variant_colour) {
    std::ostringstream o;
    std::vector<uint32_t> idle;  // SMs without warps: one line for all
    size_t busy = 0;
    for (auto& [sm, g] : tv.sms) busy += g.bars() > 0;
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
        const bool blocks = tv.block_sms.count(sm) > 0;  // (drawn from its blocks)
        GanttStyle st;
        st.svg_class = compact ? "variant-timeline" : "sm-timeline";
        st.svg_attrs = " data-sm=\"" + std::to_string(sm) + "\"" + (variant.empty() ? "" : " data-variant=\"" + esc(variant) + "\"");
        st.bar_class = "warp";
        st.data_attr = "data-kernel";
        st.aria = label + (blocks ? " blocks over time" : " warp slots over time");
        const double rows = double(g.rows.size());
        st.row_h = compact ? std::max(2.0, std::min(8.0, std::floor(150 / rows)))
                           : std::max(3.0, std::min(12.0, std::floor(260 / rows)));
        st.colour = [&](int k) { return kernels.colour(k); };
        st.key_name = [&](int k) { return kernels.name(k); };
        st.title = [&](const Bar& b, const std::string& row) { return warp_title(kernels, b, row); };
        st.merged_noun = blocks ? "blocks" : "warps";
        for (int k : keys) st.legend.push_back({kernels.name(k), kernels.colour(k)});
        std::ostringstream caption;
        if (variant_colour) caption << "<span class=\"swatch\" style=\"background:" << variant_colour << "\"></span>";
        caption << esc(variant.empty() ? label : variant) << ": " << warps << (blocks ? " block" : " warp")
                << (warps == 1 ? "" : "s") << " on " << g.rows.size()
                << (blocks ? " rows of blocks (the trace kept none of its warps)" : " warp slots (rows)");
        if (compact)
            o << "<figure class=\"chart\"><figcaption>" << caption.str() << "</figcaption>" << render_gantt(g, xs, u, st)
              << "</figure>\n";
        else  // (a drill-down: open while there are few SMs)
            o << "<details class=\"sm-detail\" id=\"sm-" << sm << "\"" << (busy <= kOpenSms ? " open" : "") << "><summary>"
              << caption.str() << "</summary><figure class=\"chart\">" << render_gantt(g, xs, u, st) << "</figure></details>\n";
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
    std::ostringstream labels;  // (outside the zoomed area)
    std::vector<std::string> names;  // the labels: short names (the console's), no two alike
    for (size_t i = 0; i < n; ++i) names.push_back(ks[i].name);
    const std::vector<std::string> shorts = short_names(names, 13);
    o << zoom_open(xs, top, top + rh * double(n));
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
            labels << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + rh / 2 + 4) << "\" text-anchor=\"end\">"
                   << esc(shorts[i]) << "<title>" << esc(name) << "</title></text>";
        bool drawn = false;
        auto seg = [&](double a, double b, double opacity, const std::string& what) {
            if (!std::isfinite(a) || !std::isfinite(b) || b < a) return;
            drawn = true;
            o << "<rect x=\"" << px(xs(a)) << "\" y=\"" << px(ry + 1) << "\" width=\"" << px(std::max(0.8, xs(b) - xs(a)))
              << "\" height=\"" << px(rh - 2) << "\" fill=\"" << colour << "\" fill-opacity=\"" << fmt(opacity, 2)
              << "\"><title>" << esc(name) << ": " << what << " " << ns(a) << "–" << ns(b) << " ns (" << ns(b - a)
              << " ns); status " << esc(k.status.text()) << esc(instances) << "</title></rect>";
        };
        if (std::isfinite(first)) {
            seg(submit, first, 0.3, "waiting");
            seg(first, std::isfinite(end) ? end : complete, 1, "running");
            if (std::isfinite(end)) seg(end, complete, 0.6, "completing");
        } else
            seg(submit, complete, 0.3, "never ran a warp");
        if (!drawn && rh >= 12)
            labels << "<text class=\"muted\" x=\"" << px(xs.a + 4) << "\" y=\"" << px(ry + rh / 2 + 4) << "\">"
                   << esc(cut(k.status.text(), 150)) << "</text>";
        o << "</g>";
    }
    o << kZoomClose << "<g class=\"row-labels\">" << labels.str() << "</g>";
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

namespace {
// Occupancy's colours, lightest (at most 1/8 of the slots) to darkest (all of them).
const char* const kOccupancy[] = {"#dbe6f4", "#c0d3ea", "#a2bddd", "#82a5cf", "#638dc0", "#4a74ab", "#355c91", "#22426f"};
}  // namespace

std::string sm_overview(const RunRecord& r, const Scale& xs, const Unit& u, const std::string& variant,
                        const char* variant_colour) {
    std::vector<const SmRecord*> sms;
    bool any = false;
    for (const SmRecord& sm : r.sms)
        if (sm.occupancy) {
            sms.push_back(&sm);
            any = any || !sm.occupancy->warps.empty();
        }
    if (!any) return "";
    const double rh = std::max(4.0, std::min(14.0, std::floor(560 / double(sms.size()))));
    std::ostringstream o;
    std::vector<Swatch> legend;
    for (size_t i = 0; i < 8; ++i)
        legend.push_back({"≤ " + std::to_string((i + 1) * 100 / 8) + " %", kOccupancy[i]});
    const double top = 6 + svg_legend(o, legend, xs.a, 6, xs.b, "mean share of the warp slots in use:") + 6;
    const double bottom = top + rh * double(sms.size());
    o << "<rect class=\"plot-bg\" x=\"" << px(xs.a) << "\" y=\"" << px(top) << "\" width=\"" << px(xs.b - xs.a)
      << "\" height=\"" << px(bottom - top) << "\"/>";
    std::ostringstream labels;
    const size_t every = size_t(std::max(1.0, std::ceil(12.0 / rh)));
    o << zoom_open(xs, top, bottom);
    for (size_t i = 0; i < sms.size(); ++i) {
        const SmRecord& sm = *sms[i];
        const double ry = top + rh * double(i), slots = std::max(1u, sm.warp_slots), w = sm.occupancy->bin_ns;
        const std::string name = "sm[" + std::to_string(sm.id) + "]";
        if (i % every == 0)
            labels << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + std::min(rh, 12.0) / 2 + 3.5)
                   << "\" text-anchor=\"end\">" << name << "</text>";
        o << "<a href=\"#" << (variant.empty() ? "sm-" : "variant-sm-") << sm.id << "\"><g class=\"sm-row\" data-sm=\""
          << sm.id << "\">";
        const std::vector<double>& ws = sm.occupancy->warps;
        for (size_t b = 0; b < ws.size(); ++b) {
            if (!(ws[b] > 0)) continue;
            const double share = std::min(1.0, ws[b] / slots);
            const size_t shade = std::min<size_t>(7, size_t(std::ceil(share * 8)) - (share > 0 ? 1 : 0));
            const double t0 = w * double(b), t1 = std::min(xs.hi, w * double(b + 1));
            o << "<rect x=\"" << px(xs(t0)) << "\" y=\"" << px(ry) << "\" width=\"" << px(std::max(0.6, xs(t1) - xs(t0)))
              << "\" height=\"" << px(rh - (rh > 5 ? 1 : 0)) << "\" fill=\"" << kOccupancy[shade] << "\"><title>" << name << ": "
              << fmt(ws[b], 1) << " of " << sm.warp_slots << " warp slots in use on average, " << ns(t0) << "–" << ns(t1)
              << " ns</title></rect>";
        }
        o << "</g></a>";
    }
    o << kZoomClose << "<g class=\"row-labels\">" << labels.str() << "</g>";
    o << x_axis(xs, u, top, bottom, "simulated time");
    std::ostringstream out;
    out << "<figure class=\"chart\"><figcaption>";
    if (variant_colour) out << "<span class=\"swatch\" style=\"background:" << variant_colour << "\"></span>" << esc(variant) << ": ";
    out << "SM occupancy: a row per SM, the whole run (" << fmt(sms.front()->occupancy->bin_ns, 0)
        << " ns per column); click a row for its warps</figcaption>"
        << svg_open("sm-overview", variant.empty() ? " id=\"sm-overview\"" : " data-variant=\"" + esc(variant) + "\"", kWidth,
                    bottom + 40, "SM occupancy over time")
        << o.str() << "</svg></figure>\n";
    return out.str();
}

std::string section_timeline(Page& p, size_t warp_limit, Bound& bound) {
    std::ostringstream o;
    o << "<section id=\"timeline\"><details open><summary><h2>Timeline</h2></summary>\n";
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
        o << "</details></section>\n";
        return o.str();
    }
    TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    const double end = sim_end(p.results, tv && tv->present ? tv : nullptr);
    const Unit u = time_unit(end);
    const Scale xs{0, end, kLeft, kWidth - kRight};
    o << "<p>Simulated time runs left to right on one scale for every chart of this section. Hover a bar for its numbers.</p>\n";
    o << kernel_spans(p.results, p.kernels, xs, u);
    if (!p.results.unfinished) o << sm_overview(p.results, xs, u);
    if (!tv || !tv->present) {
        o << "<p class=\"empty\" id=\"timeline-empty\">run without a trace: no warp timeline (run with <code>--out</code> and without <code>--no-trace</code>)</p>\n</details></section>\n";
        return o.str();
    }
    if (!tv->note.empty())
        o << "<p class=\"warn\">" << esc(tv->note) << ": the warp charts below show the events kept; the SM occupancy "
             "above covers the whole run (from results.json, not the trace).</p>\n";
    std::vector<Gantt*> charts;
    for (auto& [sm, g] : tv->sms) charts.push_back(&g);
    bound = bound_bars(charts, warp_limit, end / (xs.b - xs.a), end);
    o << "<h3>Warps per SM</h3>\n<p>One chart per SM; a row per hardware warp slot, a bar per warp from its start to its end, coloured by kernel."
      << (tv->block_sms.empty() ? "" : " An SM the trace kept blocks of and no warps is drawn from its blocks, a bar per block.") << "</p>\n";
    o << bound_note(bound, "warps", "timeline-note");
    if (tv->sms.empty()) o << "<p class=\"empty\">no SM in the trace</p>\n";
    o << sm_timelines(*tv, p.kernels, xs, u, false, "");
    o << "</details></section>\n";
    return o.str();
}

}  // namespace gpuvp::report
