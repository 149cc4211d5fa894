// report.html's Replay section: a replayed trace's kernels as the hardware measured them and as
// the model simulated them, a measured row above a simulated row per stream on one time axis, and
// the distributions that compare the two (results.json `replay`; docs/replay.md).
#include "sc_main/report/page.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace gpuvp::report {

namespace {

const char* const kSideColours[] = {"#4e79a7", "#f28e2b"};  // measured, simulated
const char* const kSideNames[] = {"measured", "simulated"};
constexpr size_t kHistogramBins = 40;
constexpr size_t kFarthest = 10;  // kernels listed by how far their simulated duration is off
constexpr size_t kZoomKernels = 100;  // a merged timeline's close-up: until these have ended

std::string ratio_text(const std::optional<double>& v) { return v ? fmt(*v, 3) : "–"; }
std::string percent_text(const std::optional<double>& v) { return v ? fmt(*v * 100, 1) + " %" : "–"; }

// The figures, measured against simulated.
std::string figures_table(const ReplayRecord& x) {
    std::ostringstream o;
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"replay-table\"><thead><tr><th rowspan=\"2\"></th>"
         "<th colspan=\"4\">measured</th><th colspan=\"4\">simulated</th></tr><tr>";
    for (int side = 0; side < 2; ++side) o << "<th>median</th><th>p90</th><th>max</th><th>count</th>";
    o << "</tr></thead><tbody>\n";
    auto row = [&](const char* id, const char* name, const SidesDistribution& d) {
        o << "<tr data-figure=\"" << id << "\"><th>" << name << "</th>";
        for (const Distribution* s : {&d.measured, &d.simulated})
            o << "<td>" << duration(num(s->median)) << "</td><td>" << duration(num(s->p90)) << "</td><td>" << duration(num(s->max))
              << "</td><td>" << s->count << "</td>";
        o << "</tr>\n";
    };
    row("same_stream_gap_ns", "same-stream gap", x.same_stream_gap_ns);
    row("idle_launch_latency_ns", "idle launch latency", x.idle_launch_latency_ns);
    o << "</tbody></table></div>\n";
    const Distribution& d = x.kernel_duration_ratio;
    auto part = [&](const Omit<Distribution>& p) {
        if (!p || p->count == 0) return std::string("no kernel");
        return "median " + ratio_text(p->median) + " · p90 " + ratio_text(p->p90) + " (" + std::to_string(p->count) +
               " kernels)";
    };
    o << "<table class=\"facts\" id=\"replay-facts\"><tr><th>kernels replayed</th><td>" << x.kernels << "</td></tr>";
    if (x.dispatch_bound_kernels)
        o << "<tr><th>dispatch-bound: measured shorter than the model can run them</th><td id=\"replay-dispatch-bound\">"
          << *x.dispatch_bound_kernels << (*x.dispatch_bound_kernels == 1 ? " kernel" : " kernels") << "</td></tr>";
    if (x.inferred_waits.value_or(0) || x.unmatched_waits.value_or(0))
        o << "<tr><th>wait calls without a target in the trace: inferred · unmatched</th><td id=\"replay-waits\">"
          << x.inferred_waits.value_or(0) << " inferred · " << x.unmatched_waits.value_or(0) << " unmatched</td></tr>";
    o << "<tr><th>kernel duration, simulated / measured</th><td id=\"replay-duration-ratio\">median <b>"
      << ratio_text(d.median) << "</b> · p90 " << ratio_text(d.p90) << " · max " << ratio_text(d.max) << " (" << d.count
      << " kernels)</td></tr><tr><th>the same, alone on the hardware · beside another kernel</th>"
         "<td id=\"replay-duration-ratio-split\">"
      << part(x.kernel_duration_ratio_alone) << " · " << part(x.kernel_duration_ratio_overlapped)
      << "</td></tr><tr><th>cross-stream overlap</th><td>measured " << percent_text(x.cross_stream_overlap.measured)
      << " · simulated " << percent_text(x.cross_stream_overlap.simulated)
      << " of kernel time</td></tr><tr><th>makespan</th><td id=\"replay-makespan\">measured " << duration(num(x.makespan_ns.measured))
      << " · simulated " << duration(num(x.makespan_ns.simulated)) << " · ratio <b>" << ratio_text(x.makespan_ratio)
      << "</b></td></tr></table>\n";
    return o.str();
}

// Each stream's kernels, a measured row (labelled with the stream) above a simulated one, those
// that start before `until`, cut there; Bar::a is the kernel's index. `end`: the latest time.
Gantt stream_rows(const ReplaySides& sides, double until, double& end) {
    std::vector<std::string> streams;
    std::map<std::string, size_t> row_of;
    for (const KernelTimes& k : sides.measured)
        if (row_of.emplace(k.stream, 2 * streams.size()).second) streams.push_back(k.stream);
    Gantt g;
    g.rows.resize(2 * streams.size());
    for (size_t s = 0; s < streams.size(); ++s) {
        g.rows[2 * s].label = streams[s];
        g.rows[2 * s + 1].label = kSideNames[1];
    }
    for (int side = 0; side < 2; ++side) {
        const std::vector<KernelTimes>& ks = side ? sides.simulated : sides.measured;
        for (size_t i = 0; i < ks.size(); ++i) {
            const KernelTimes& k = ks[i];
            end = std::max({end, k.launch_end_ns, k.end_ns.value_or(0)});
            if (!k.start_ns || !k.end_ns || !(*k.start_ns < until)) continue;
            Bar b{*k.start_ns, std::min(*k.end_ns, until), side};
            b.a = int64_t(i);
            g.rows[row_of[k.stream] + size_t(side)].bars.push_back(b);
        }
    }
    return g;
}

// Where a long timeline opens: of the stretches in which the measured kernels' median duration
// is kMedianKernelPx wide, the one holding the most measured kernel starts (the earliest of
// those), cut to what those kernels take.
struct Window {
    double lo, hi;
    size_t starts;
};
constexpr double kMedianKernelPx = 8;  // the median kernel's width in the opening stretch
constexpr double kLongPx = 2;          // a timeline is long when the median kernel is narrower over all of it
constexpr double kMaxZoom = 5000;      // the opening stretch at least this part of the whole (bars to 1e-4 px: 0.5 px)

std::optional<Window> opening_window(const ReplaySides& sides, double end) {
    std::vector<double> starts, durations;
    for (const KernelTimes& k : sides.measured)
        if (k.start_ns && k.end_ns) {
            starts.push_back(*k.start_ns);
            durations.push_back(std::max(0.0, *k.end_ns - *k.start_ns));
        }
    if (starts.size() < 2) return std::nullopt;
    std::sort(durations.begin(), durations.end());
    const double plot = kWidth - kRight - kLeft, median = nearest_rank(durations, 50);
    if (!(median > 0) || median / end * plot >= kLongPx) return std::nullopt;
    const double width = std::max(median / kMedianKernelPx * plot, end / kMaxZoom);
    std::sort(starts.begin(), starts.end());
    Window best{0, 0, 0};
    for (size_t i = 0, j = 0; i < starts.size(); ++i) {  // the stretch from starts[i]
        j = std::max(j, i);
        while (j < starts.size() && starts[j] < starts[i] + width) ++j;
        if (j - i > best.starts) best = {starts[i], starts[i] + width, j - i};
    }
    // The stretch those kernels take (to the last end among them, at most `width` on), a little
    // more either side.
    double last_end = best.lo;
    for (const KernelTimes& k : sides.measured)
        if (k.start_ns && k.end_ns && *k.start_ns >= best.lo && *k.start_ns < best.hi) last_end = std::max(last_end, *k.end_ns);
    const double from = best.lo, to = std::max(std::min(best.hi, last_end), from + median),
                 margin = (to - from) / 50;
    best.lo = std::max(0.0, from - margin);
    best.hi = std::min(end, to + margin);
    if (const double least = end / kMaxZoom; best.hi - best.lo < least) {  // (no deeper than kMaxZoom)
        const double mid = (best.lo + best.hi) / 2;
        best.lo = std::max(0.0, std::min(mid - least / 2, end - least));
        best.hi = best.lo + least;
    }
    return best;
}

// What a timeline of the two sides' kernels draws: a bar per kernel, coloured by its side.
GanttStyle sides_style() {
    GanttStyle st;
    st.bar_class = "replay-kernel";
    st.data_attr = "data-side";
    st.colour = [](int k) { return k == 0 || k == 1 ? kSideColours[k] : kMixed; };
    st.key_name = [](int k) { return std::string(k == 0 || k == 1 ? kSideNames[k] : "several"); };
    st.merged_noun = "kernels";
    return st;
}

// The whole of a long timeline, small: the window the chart `of` shows is marked on it by the
// page's script, and a drag or a click on it moves that window.
std::string stream_overview(const Gantt& g, double end, const std::string& of) {
    GanttStyle st = sides_style();
    st.svg_class = "replay-overview";
    st.svg_attrs = " id=\"" + of + "-overview\" data-for=\"" + of + "\"";
    st.aria = "the whole replay, small";
    st.row_h = std::max(2.0, std::min(6.0, std::floor(48 / double(std::max<size_t>(g.rows.size(), 1)))));
    st.title = [](const Bar&, const std::string& row) { return row; };
    st.axis_title = "the whole replay: time from the first launch call";
    st.zoomable = false;
    st.row_labels = false;
    const Scale xs{0, end, kLeft, kWidth - kRight};
    return "<figure class=\"chart overview\">" + render_gantt(g, xs, time_unit(end), st) + "</figure>\n";
}

// The timeline of `g` over [0, until]; it opens on `window` where there is one (the page's script).
std::string stream_chart(const Gantt& g, const ReplaySides& sides, double until, const std::string& id,
                         const std::string& caption, const std::optional<Window>& window = std::nullopt) {
    GanttStyle st = sides_style();
    st.svg_class = "replay-timeline";
    st.svg_attrs = " id=\"" + id + "\"" + (window ? " data-window=\"" + value_ns(window->lo) + "-" + value_ns(window->hi) + "\"" : "");
    st.aria = "kernels per stream, measured and simulated";
    st.row_h = std::max(4.0, std::min(16.0, std::floor(320 / double(std::max<size_t>(g.rows.size(), 1)))));
    st.precise = window.has_value();
    st.title = [&](const Bar& b, const std::string&) {
        const KernelTimes& k = (b.key ? sides.simulated : sides.measured)[size_t(b.a)];
        return k.name + (k.label.empty() ? "" : " [" + k.label + "]") + ", " + kSideNames[b.key] + " on " + k.stream + ": " + ns(*k.start_ns) + "–" + ns(*k.end_ns) + " ns (" +
               ns(*k.end_ns - *k.start_ns) + " ns), launch call " + ns(k.launch_ns) + "–" + ns(k.launch_end_ns) + " ns";
    };
    st.legend = {{"measured (the hardware)", kSideColours[0]}, {"simulated (the model)", kSideColours[1]}};
    st.axis_title = "time from the first launch call";
    const Scale xs{0, until, kLeft, kWidth - kRight};
    return "<figure class=\"chart\"><figcaption>" + caption + "</figcaption>" + render_gantt(g, xs, time_unit(until), st) +
           "</figure>\n";
}

// One panel of a histogram: a side's samples.
struct Panel {
    std::string name;
    const char* colour;
    std::vector<double> samples;
};

// Histograms of one figure, a panel per side on one axis: each column's share of the panel's
// samples, the median (solid line) and p90 (dashed) marked. The axis ends at the largest p99;
// samples beyond it fall in one column set apart at the right; it reaches `mark_at`, a dashed line
// across the panels, if there is one. `unit`: the axis's (none: ns or µs).
std::string histogram(const std::string& figure, const std::string& caption, const std::string& axis_title,
                      std::vector<Panel> panels, const std::optional<Unit>& unit, double mark_at = NAN) {
    double lo = 0, hi = 0;
    for (Panel& pa : panels) {
        std::sort(pa.samples.begin(), pa.samples.end());
        if (pa.samples.empty()) continue;
        lo = std::min(lo, pa.samples.front());
        hi = std::max(hi, nearest_rank(pa.samples, 99));
    }
    if (std::isfinite(mark_at)) hi = std::max(hi, mark_at);
    hi = hi > lo ? lo + (hi - lo) * 1.05 : lo + 1;  // (room right of the largest)
    const Unit u = unit ? *unit : time_unit(hi - lo);
    // A value written for people: a time as a duration, else in the axis's unit.
    auto value = [&](double v) { return unit ? value_text(v / u.div) : duration(v); };
    const double left = kLeft + 40, over_w = 28, right = kWidth - kRight - over_w - 10, panel_h = 64, gap = 14;
    const double bin_ns = (hi - lo) / double(kHistogramBins), bw = (right - left) / double(kHistogramBins);
    const Scale xs{lo, hi, left, right};
    std::vector<std::vector<double>> share;  // per panel, per column (the last: beyond hi)
    double top_share = 0;
    for (const Panel& pa : panels) {
        std::vector<double>& sh = share.emplace_back(kHistogramBins + 1, 0);
        for (double v : pa.samples)
            sh[v > hi ? kHistogramBins : std::min(kHistogramBins - 1, size_t((v - lo) / bin_ns))] += 1;
        for (double& x : sh) {
            x /= double(std::max<size_t>(pa.samples.size(), 1));
            top_share = std::max(top_share, x);
        }
    }
    std::ostringstream o;
    std::vector<Swatch> legend;
    for (const Panel& pa : panels) legend.push_back({pa.name, pa.colour});
    const double top = 6 + svg_legend(o, legend, left, 6, kWidth - kRight, "solid line: median, dashed: p90;") + 6;
    for (size_t i = 0; i < panels.size(); ++i) {
        const Panel& pa = panels[i];
        const std::vector<double>& s = pa.samples;
        const double py = top + (panel_h + gap) * double(i), base = py + panel_h;
        const Scale ys{0, top_share > 0 ? top_share : 1, base, py + 4};
        o << "<g class=\"histogram-panel\" data-side=\"" << esc(pa.name) << "\" data-count=\"" << s.size() << "\">"
          << "<rect class=\"plot-bg\" x=\"" << px(left) << "\" y=\"" << px(py) << "\" width=\""
          << px(right + over_w + 6 - left) << "\" height=\"" << px(panel_h) << "\"/><text x=\"" << px(left - 8) << "\" y=\""
          << px(py + panel_h / 2) << "\" text-anchor=\"end\">" << esc(pa.name) << "</text><text class=\"muted\" x=\""
          << px(left - 8) << "\" y=\"" << px(py + panel_h / 2 + 13) << "\" text-anchor=\"end\">" << s.size()
          << (s.size() == 1 ? " sample" : " samples") << "</text>";
        if (s.empty()) {
            o << "<text class=\"muted\" x=\"" << px(left + 8) << "\" y=\"" << px(py + panel_h / 2 + 4)
              << "\">no samples</text></g>";
            continue;
        }
        for (size_t b = 0; b <= kHistogramBins; ++b) {
            const double v = share[i][b];
            if (v == 0) continue;
            const bool beyond = b == kHistogramBins;
            const double x0 = beyond ? right + 6 : left + bw * double(b), w = beyond ? over_w : std::max(0.8, bw - 1);
            const double from = lo + bin_ns * double(b);
            o << "<rect class=\"bin\" x=\"" << px(x0) << "\" y=\"" << px(ys(v)) << "\" width=\"" << px(w) << "\" height=\""
              << px(base - ys(v)) << "\" fill=\"" << pa.colour << "\"><title>" << esc(pa.name) << ": " << fmt(v * 100, 1)
              << " % of " << s.size() << " samples "
              << (beyond ? "above " + value_text(hi / u.div) : value_text(from / u.div) + " to " + value_text((from + bin_ns) / u.div))
              << " " << esc(u.name) << "</title></rect>";
        }
        const double median = nearest_rank(s, 50), p90 = nearest_rank(s, 90);
        for (const auto& [at, what] : {std::pair<double, const char*>{median, "median"}, {p90, "p90"}}) {
            const double x = at > hi ? right + 6 + over_w / 2 : xs(at);
            o << "<line class=\"mark\" x1=\"" << px(x) << "\" y1=\"" << px(py) << "\" x2=\"" << px(x) << "\" y2=\""
              << px(base) << "\" stroke=\"#222\" stroke-width=\"1.5\"" << (what[0] == 'p' ? " stroke-dasharray=\"4 3\"" : "")
              << "><title>" << esc(pa.name) << " " << what << " " << value_text(at / u.div) << " " << esc(u.name)
              << "</title></line>";
        }
        o << "<text class=\"value\" x=\"" << px(right - 4) << "\" y=\"" << px(py + 12)
          << "\" text-anchor=\"end\" stroke=\"#fafafc\" stroke-width=\"3\" paint-order=\"stroke\">median "
          << value(median) << " · p90 " << value(p90) << " · max " << value(s.back()) << (unit ? " " + esc(u.name) : "")
          << "</text></g>";
    }
    const double bottom = top + (panel_h + gap) * double(panels.size()) - gap;
    if (std::isfinite(mark_at) && mark_at >= lo && mark_at <= hi)
        o << "<line class=\"limit\" x1=\"" << px(xs(mark_at)) << "\" y1=\"" << px(top) << "\" x2=\"" << px(xs(mark_at))
          << "\" y2=\"" << px(bottom) << "\"/>";
    o << x_axis(xs, u, bottom, bottom, axis_title);
    o << "<text class=\"muted\" x=\"" << px(right + 6 + over_w / 2) << "\" y=\"" << px(bottom + 15)
      << "\" text-anchor=\"middle\">more</text>";
    return "<figure class=\"chart\"><figcaption>" + caption + "</figcaption>" +
           svg_open("replay-histogram", " data-figure=\"" + figure + "\"", kWidth, bottom + 40, caption) + o.str() +
           "</svg></figure>\n";
}

// The kernels whose simulated duration is farthest from the measured one, either way.
std::string farthest_table(const ReplaySides& sides) {
    struct Off {
        size_t i;
        double measured, simulated, ratio;
    };
    std::vector<Off> offs;
    for (size_t i = 0; i < std::min(sides.measured.size(), sides.simulated.size()); ++i) {
        const KernelTimes &m = sides.measured[i], &s = sides.simulated[i];
        if (!m.start_ns || !m.end_ns || !s.start_ns || !s.end_ns || !(*m.end_ns > *m.start_ns)) continue;
        const double md = *m.end_ns - *m.start_ns, sd = *s.end_ns - *s.start_ns;
        offs.push_back({i, md, sd, sd / md});
    }
    if (offs.empty()) return "";
    auto off = [](const Off& x) { return x.ratio > 0 ? std::abs(std::log(x.ratio)) : INFINITY; };
    std::stable_sort(offs.begin(), offs.end(), [&](const Off& a, const Off& b) { return off(a) > off(b); });
    offs.resize(std::min(offs.size(), kFarthest));
    std::ostringstream o;
    o << "<h3>Kernels the model is farthest off</h3>\n<p>By how far the simulated duration (first warp → last block) is "
         "from the measured one, either way; the first "
      << offs.size() << ".</p>\n<div class=\"table-wrap\"><table class=\"data numbers\" id=\"replay-farthest\"><thead><tr>"
         "<th>kernel</th><th>stream</th><th>measured</th><th>simulated</th><th>simulated / measured</th></tr></thead><tbody>\n";
    for (const Off& x : offs) {
        const KernelTimes& m = sides.measured[x.i];
        o << "<tr data-kernel=\"" << esc(m.name) << "\"><th>" << esc(cut(m.name, 60))
          << (m.label.empty() ? "" : " <span class=\"muted\">" + esc(cut(m.label, 40)) + "</span>") << "</th><td>" << esc(m.stream)
          << "</td><td>" << duration(x.measured) << "</td><td>" << duration(x.simulated) << "</td><td>" << fmt(x.ratio, 3) << "</td></tr>\n";
    }
    o << "</tbody></table></div>\n";
    return o.str();
}

// The kernels measured shorter than their floor in the model (dispatch-bound), the farthest under
// it first.
std::string dispatch_bound_table(const ReplaySides& sides) {
    std::vector<size_t> bound = dispatch_bound_kernels(sides.measured);
    if (bound.empty()) return "";
    auto under = [&](size_t i) {
        const KernelTimes& k = sides.measured[i];
        return (*k.end_ns - *k.start_ns) / *k.floor_ns;
    };
    std::stable_sort(bound.begin(), bound.end(), [&](size_t a, size_t b) { return under(a) < under(b); });
    const size_t total = bound.size();
    bound.resize(std::min(bound.size(), kFarthest));
    std::ostringstream o;
    const bool one = total == 1;
    o << "<h3>Dispatch-bound kernels</h3>\n<p>" << total << (one ? " kernel" : " kernels")
      << " ran shorter on the hardware than the model runs " << (one ? "it" : "them")
      << " alone with a body of one cycle (its floor: the dispatch of its blocks, its argument load and its waves at "
         "their shortest); the model runs "
      << (one ? "it at its" : "them at their") << " floor."
      << (one ? std::string() : " The first " + std::to_string(bound.size()) + ", farthest under the floor first.")
      << "</p>\n<div class=\"table-wrap\"><table class=\"data numbers\" "
         "id=\"replay-dispatch-bound-kernels\"><thead><tr><th>kernel</th><th>stream</th><th>measured</th><th>floor"
         "</th><th>measured / floor</th></tr></thead><tbody>\n";
    for (size_t i : bound) {
        const KernelTimes& m = sides.measured[i];
        o << "<tr data-kernel=\"" << esc(m.name) << "\"><th>" << esc(cut(m.name, 60)) << "</th><td>" << esc(m.stream)
          << "</td><td>" << duration(*m.end_ns - *m.start_ns) << "</td><td>" << duration(*m.floor_ns) << "</td><td>" << fmt(under(i), 3)
          << "</td></tr>\n";
    }
    o << "</tbody></table></div>\n";
    return o.str();
}

// The kernels whose waits the import inferred from the timeline, or could not match; those
// before copies (which results.json does not list) counted.
std::string waits_table(const std::vector<KernelRecord>& kernels, uint64_t inferred_waits, uint64_t unmatched_waits) {
    std::ostringstream rows;
    size_t listed = 0, total = 0;
    uint64_t kernel_inferred = 0, kernel_unmatched = 0;
    for (const KernelRecord& k : kernels) {
        if (!k.measured || (k.measured->inferred_after.empty() && !k.measured->unmatched_waits)) continue;
        ++total;
        kernel_inferred += k.measured->inferred_after.size();
        kernel_unmatched += k.measured->unmatched_waits;
        if (listed++ >= 4 * kFarthest) continue;
        std::string inferred;
        for (const std::string& a : k.measured->inferred_after) inferred += (inferred.empty() ? "" : ", ") + a;
        rows << "<tr data-kernel=\"" << esc(k.name) << "\"><th>" << esc(cut(k.name, 60)) << "</th><td>" << esc(k.queue)
             << "</td><td>" << (inferred.empty() ? "–" : esc(inferred)) << "</td><td>" << k.measured->unmatched_waits
             << "</td></tr>\n";
    }
    const uint64_t copy_inferred = inferred_waits > kernel_inferred ? inferred_waits - kernel_inferred : 0;
    const uint64_t copy_unmatched = unmatched_waits > kernel_unmatched ? unmatched_waits - kernel_unmatched : 0;
    if (!total && !copy_inferred && !copy_unmatched) return "";
    std::ostringstream o;
    o << "<h3>Waits the trace gives no target for</h3>\n<p>Wait calls (cudaStreamWaitEvent) before launches whose "
         "record the trace lacks or the import could not resolve: a wait inferred from the timeline (the work started "
         "just after another stream's work ended, though its launch had returned before) is a dependency on that work; "
         "an unmatched one is replayed without a wait (docs/replay.md, \"Inferred waits\"). ";
    if (total) o << std::min(total, 4 * kFarthest) << " of " << total << (total == 1 ? " kernel" : " kernels") << ".";
    if (copy_inferred || copy_unmatched)
        o << " Before copies and fills, which the results do not list: <span id=\"replay-waits-copies\">" << copy_inferred
          << " inferred · " << copy_unmatched << " unmatched</span>.";
    if (!total) return o.str() + "</p>\n";
    o << "</p>\n<div class=\"table-wrap\"><table class=\"data\" id=\"replay-waits-kernels\"><thead><tr><th>kernel</th>"
         "<th>stream</th><th>inferred: waits for</th><th>unmatched waits</th></tr></thead><tbody>\n"
      << rows.str() << "</tbody></table></div>\n";
    return o.str();
}

}  // namespace

std::string section_replay(const Page& p, Bound& bound) {
    const RunRecord& r = p.results;
    if (!r.replay) return "";
    std::ostringstream o;
    o << "<section id=\"replay\"><details open><summary><h2>Replay: the model against the hardware</h2></summary>\n" << variant_note(p);
    o << "<p>The replayed trace's kernels as the hardware measured them and as the model simulated them. Same-stream gap: "
         "a kernel's start − the previous kernel's end on its stream, where its launch call had returned before that "
         "end. Idle launch latency: launch call start → kernel start, where no kernel was running or queued at the call, "
         "each kernel name's first launch left out. Percentiles are nearest rank (docs/replay.md).</p>\n";
    o << figures_table(*r.replay);
    const ReplaySides sides = replay_sides(r.kernels);

    // The timelines: 0 is each side's first launch call.
    double end = 0;
    Gantt g = stream_rows(sides, INFINITY, end);
    end = end > 0 ? end : 1;
    bound = bound_bars({&g}, kReplayRectLimit, end / (kWidth - kRight - kLeft), end);
    const size_t streams = g.rows.size() / 2;
    o << "<h3>Kernels per stream</h3>\n<p>For each stream, the kernels as measured (the upper row, named after the "
         "stream) and as simulated (the lower row), from start to end, on one time axis whose 0 is each side's first "
         "launch call. Hover a bar for its kernel and times.</p>\n";
    if (bound.gap_ns >= 0)
        o << "<p class=\"note merged-note\" id=\"replay-note\">" << bound.total << " kernels are drawn as " << bound.drawn
          << " merged bars (the page keeps at most " << kReplayRectLimit << " of them): on each row, consecutive kernels "
          << (bound.gap_ns > 0 ? "less than " + ns(bound.gap_ns) + " ns apart" : "that overlap or touch")
          << " are one bar; hover a bar for how many it holds. The second chart shows the first " << kZoomKernels
          << " kernels' time unmerged.</p>\n";
    // A long timeline (its median kernel under kLongPx wide over all of it): the whole of it small,
    // and the chart opens on its busiest stretch.
    const std::optional<Window> window = bound.gap_ns < 0 ? opening_window(sides, end) : std::nullopt;
    if (window) {
        o << "<p id=\"replay-window\">The replay is long beside its kernels (over all of its " << duration(end)
          << " the median kernel would be less than " << fmt(kLongPx, 0) << " px wide), so the chart opens on the "
          << duration(window->hi - window->lo) << " from " << duration(window->lo) << " that hold the most kernel starts ("
          << window->starts << " of " << sides.measured.size() << "). The strip above it is the whole replay: drag across "
          << "it or click it to move the chart there; <b>all</b> shows everything.</p>\n";
        o << stream_overview(g, end, "replay-timeline");
    }
    o << stream_chart(g, sides, end, "replay-timeline",
                      "Kernels per stream, measured above simulated (" + std::to_string(streams) +
                          (streams == 1 ? " stream)" : " streams)"),
                      window);
    if (bound.gap_ns >= 0) {  // the start, close up: until the first kernels have ended on both sides
        double until = 0;
        for (size_t i = 0; i < std::min(sides.measured.size(), kZoomKernels); ++i)
            for (const KernelTimes* k : {&sides.measured[i], &sides.simulated[i]}) until = std::max(until, k->end_ns.value_or(0));
        double unused = 0;
        Gantt zoom = stream_rows(sides, until > 0 ? until : end, unused);
        bound_bars({&zoom}, kReplayRectLimit, until / (kWidth - kRight - kLeft), until);
        o << stream_chart(zoom, sides, until > 0 ? until : end, "replay-timeline-start",
                          "The start, close up: until the first " + std::to_string(kZoomKernels) +
                              " kernels have ended on both sides (0 – " + ns(until) + " ns)");
    }

    // The distributions.
    o << "<h3>Distributions</h3>\n";
    auto sides_of = [](std::vector<double> measured, std::vector<double> simulated) {
        return std::vector<Panel>{{kSideNames[0], kSideColours[0], std::move(measured)},
                                  {kSideNames[1], kSideColours[1], std::move(simulated)}};
    };
    o << histogram("same_stream_gap_ns", "Same-stream gaps", "gap",
                   sides_of(same_stream_gaps(sides.measured), same_stream_gaps(sides.simulated)), std::nullopt);
    o << histogram("idle_launch_latency_ns", "Idle launch latencies", "launch call start → kernel start",
                   sides_of(idle_launch_latencies(sides.measured), idle_launch_latencies(sides.simulated)), std::nullopt);
    o << histogram("kernel_duration_ratio", "Kernel duration, simulated over measured (the dashed line across is 1)",
                   "kernel duration ratio", {{"per kernel", kSideColours[1], kernel_duration_ratios(sides)}},
                   Unit{"simulated / measured", 1}, 1);
    o << farthest_table(sides);
    o << dispatch_bound_table(sides);
    o << waits_table(r.kernels, r.replay->inferred_waits.value_or(0), r.replay->unmatched_waits.value_or(0));
    o << "</details></section>\n";
    return o.str();
}

}  // namespace gpuvp::report
