// A sweep's report.html (`gpuvp sweep --out DIR`): one self-contained page (inline CSS and SVG,
// no script, no external reference) built from the points' records. The header (the axes,
// how many points passed, why each failing one failed), for the run, each kernel, each warp
// priority's locks and each draw a line chart of each metric against each axis (a line per
// combination of the other axes' values, failing points as red rings), and the table of every
// point and kernel (sweep.csv's rows; then locks.csv's and draws.csv's, when there are any).
// docs/report.md, "Sweep report", describes it.
#include "sc_main/record/problems.h"
#include "sc_main/report/page.h"
#include "sc_main/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace gpuvp {

namespace report {

namespace {

constexpr size_t kSweepSubjectLimit = 40;  // kernels (and draws) with charts; the table lists all
constexpr size_t kFailureListLimit = 100;  // failing points listed in the header
constexpr double kChartW = 596, kChartLeft = 70, kChartRight = 14, kPlotH = 180;
constexpr const char* kFailColour = "#d62728";

// The sweep page's own CSS, after the report's (two charts side by side in main's 1240 px).
const char* const kSweepStyle = R"(
.sweep-grid{display:flex;flex-wrap:wrap;align-items:flex-end;gap:4px 14px}
.sweep-grid figure{margin:4px 0 6px;width:596px;max-width:100%}
details.sweep-group{border:1px solid #e3e3e8;border-radius:4px;padding:4px 10px;margin:8px 0}
details.sweep-group>summary{cursor:pointer;font-weight:600;font-size:13.5px;padding:2px 0}
table.numbers td.text{text-align:left}
#sweep-axes{margin:0}
#sweep-axes td{padding:0 12px 2px 0;vertical-align:baseline}
svg .sweep-line{fill:none;stroke-width:1.8}
svg .x-axis text.category{font-size:10.5px}
)";

// What a chart plots: a subject (a kernel, a warp priority's locks, a draw, the run) and one
// metric of it, read from a point's record (NaN where it has none).
struct Series {
    std::string subject;  // "run", "kernel", "priority", "draw"
    std::string key;      // the kernel's, priority's or draw's name; "" for the run
    std::string metric;   // as results.json names it: "response_ns"
    std::string label;    // the axis title's words: "response"
    std::function<double(const RunRecord&)> value;
};

// The record of a point that ran; null for one that did not.
const RunRecord* ran(const SweepPoint& p) { return p.results && !p.results->unfinished ? p.results : nullptr; }

// "key=value key=value" of the point's values on the axes in `which`.
std::string where_text(const std::vector<SweepAxis>& axes, const SweepPoint& p,
                       const std::vector<size_t>& which) {
    std::string o;
    for (size_t a : which) o += (o.empty() ? "" : " ") + axes[a].key + "=" + p.values[a];
    return o;
}

std::vector<size_t> all_axes(size_t n) {
    std::vector<size_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = i;
    return v;
}

// An axis's values as numbers, when every one of them is a finite number; else empty.
std::vector<double> numeric_values(const SweepAxis& axis) {
    std::vector<double> out;
    for (const std::string& v : axis.values) {
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        while (end && (*end == ' ' || *end == '\t')) ++end;
        if (v.empty() || !end || *end != 0 || !std::isfinite(d)) return {};
        out.push_back(d);
    }
    return out;
}

// The position of `value` among the axis's values (the first if repeated).
size_t value_index(const SweepAxis& axis, const std::string& value) {
    return size_t(std::find(axis.values.begin(), axis.values.end(), value) - axis.values.begin());
}

// The first reason a failing point failed, and how many more there are.
std::string first_problem(const SweepPoint& p) {
    if (p.problems.empty()) return "exit " + std::to_string(p.exit_code);
    return p.problems.front() + (p.problems.size() > 1 ? " (and " + std::to_string(p.problems.size() - 1) + " more)" : "");
}

// A point's tooltip: which point, the value, and why it failed.
std::string point_title(const std::vector<SweepAxis>& axes, size_t i, const SweepPoint& p,
                        const std::string& what) {
    std::string t = "point " + std::to_string(i) + ": " + where_text(axes, p, all_axes(axes.size())) + "\n" + what;
    if (p.exit_code != 0) t += "\nFAILING: " + first_problem(p);
    return esc(t);
}

// The horizontal axis of a sweep chart: a tick at each of the axis's values (a label where it
// does not overlap the one before), and the axis's key below.
std::string sweep_x_axis(const SweepAxis& axis, const std::vector<double>& xs, bool numeric, double top,
                         double bottom, double left, double right) {
    std::ostringstream o;
    o << "<g class=\"axis x-axis\" data-scale=\"" << (numeric ? "numeric" : "categories") << "\">";
    const double band = (right - left) / double(std::max<size_t>(1, xs.size()));
    std::vector<size_t> order = all_axes(xs.size());
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
    double last_right = -1e9;
    for (size_t i : order) {
        const std::string x = px(xs[i]);
        o << "<line class=\"grid\" x1=\"" << x << "\" y1=\"" << px(top) << "\" x2=\"" << x << "\" y2=\"" << px(bottom)
          << "\"/><line x1=\"" << x << "\" y1=\"" << px(bottom) << "\" x2=\"" << x << "\" y2=\"" << px(bottom + 4) << "\"/>";
        const std::string label = numeric ? cut(axis.values[i], 12) : cut(axis.values[i], size_t(std::max(3.0, band / 6.4)));
        const double w = text_px(label, numeric ? 11 : 10.5);
        if (xs[i] - w / 2 < last_right + 4) continue;  // (its tick says where it is; the tooltips name it)
        last_right = xs[i] + w / 2;
        o << "<text" << (numeric ? "" : " class=\"category\"") << " x=\"" << x << "\" y=\"" << px(bottom + 15)
          << "\" text-anchor=\"middle\">" << esc(label);
        if (label != axis.values[i]) o << "<title>" << esc(axis.values[i]) << "</title>";
        o << "</text>";
    }
    o << "<line x1=\"" << px(left) << "\" y1=\"" << px(bottom) << "\" x2=\"" << px(right) << "\" y2=\"" << px(bottom)
      << "\"/><text class=\"axis-title\" x=\"" << px((left + right) / 2) << "\" y=\"" << px(bottom + 31)
      << "\" text-anchor=\"middle\">" << esc(axis.key) << "</text></g>";
    return o.str();
}

// The value range of a chart: from 0 when the values are near it, else a little around them.
Scale value_scale(const std::vector<double>& values, double div, double bottom, double top) {
    double lo = INFINITY, hi = -INFINITY;
    for (double v : values)
        if (std::isfinite(v)) {
            lo = std::min(lo, v / div);
            hi = std::max(hi, v / div);
        }
    if (!std::isfinite(lo)) return {0, 1, bottom, top};
    if (hi == lo) return lo > 0 ? Scale{0, lo * 1.15, bottom, top} : lo < 0 ? Scale{lo * 1.15, 0, bottom, top} : Scale{0, 1, bottom, top};
    const double pad = (hi - lo) * 0.08;
    double a = lo - pad, b = hi + pad;
    if (lo >= 0 && (lo <= hi * 0.25 || a < 0)) a = 0;
    return {a, b, bottom, top};
}

// One chart: `series`' values (`values[i]`: point i's) against axis `axis`, a line per
// combination of the other axes' values.
namespace {

// x of each of the axis's values: by value where they are numbers, else evenly spaced in the
// order given.
std::vector<double> x_positions(const SweepAxis& ax, double left, double right, bool& numeric) {
    const std::vector<double> numbers = numeric_values(ax);
    numeric = !numbers.empty();
    std::vector<double> xs(ax.values.size());
    if (numeric) {
        const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
        const Scale s{*lo, *hi, left + 18, right - 18};
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = *hi > *lo ? s(numbers[i]) : (left + right) / 2;
    } else {
        const double band = (right - left) / double(std::max<size_t>(1, xs.size()));
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = left + band * (double(i) + 0.5);
    }
    return xs;
}

// The lines of a chart against `axis`: the points by their other axes' values (`others`), in
// order of first appearance.
std::vector<std::vector<size_t>> lines_of(const std::vector<SweepPoint>& points, const std::vector<size_t>& others) {
    std::vector<std::vector<size_t>> lines;
    std::map<std::vector<std::string>, size_t> line_of;
    for (size_t i = 0; i < points.size(); ++i) {
        std::vector<std::string> key;
        for (size_t a : others) key.push_back(points[i].values[a]);
        auto [it, fresh] = line_of.emplace(key, lines.size());
        if (fresh) lines.emplace_back();
        lines[it->second].push_back(i);
    }
    return lines;
}

const char* line_colour(size_t line) { return kPalette[line % kPaletteSize]; }

// Point i's mark at x (y: its value's, NaN when it has none): a dot in its line's colour, a
// failed point's circle with a cross, a cross on the axis for a point that did not run.
std::string point_mark(const std::vector<SweepAxis>& axes, size_t i, const SweepPoint& p, double x, double y,
                       double bottom, const std::string& what, size_t line) {
    std::ostringstream marks;
    if (!std::isfinite(y)) {
        if (!ran(p))  // a point that did not run: a red cross on the axis
            marks << "<path class=\"sweep-missing\" data-point=\"" << i << "\" d=\"M" << px(x - 4) << " "
                  << px(bottom - 10) << "l8 8m0 -8l-8 8\" stroke=\"" << kFailColour << "\" stroke-width=\"2\"><title>"
                  << point_title(axes, i, p, "did not run") << "</title></path>";
        return marks.str();
    }
    const std::string cx = px(x), cy = px(y);
    const std::string title = point_title(axes, i, p, what);
    if (p.exit_code != 0)
        marks << "<g class=\"sweep-fail\"><circle class=\"sweep-point\" data-point=\"" << i
              << "\" data-failed=\"true\" cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"5.5\" fill=\"#fff\" stroke=\""
              << kFailColour << "\" stroke-width=\"2\"><title>" << title << "</title></circle><path d=\"M"
              << px(x - 3) << " " << px(y - 3) << "l6 6m0 -6l-6 6\" stroke=\"" << kFailColour
              << "\" stroke-width=\"1.5\" pointer-events=\"none\"/></g>";
    else
        marks << "<circle class=\"sweep-point\" data-point=\"" << i << "\" data-failed=\"false\" cx=\"" << cx
              << "\" cy=\"" << cy << "\" r=\"3.5\" fill=\"" << line_colour(line) << "\"><title>" << title
              << "</title></circle>";
    return marks.str();
}

}  // namespace

std::string sweep_chart(const Series& series, const std::vector<double>& values, size_t axis,
                        const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points) {
    const SweepAxis& ax = axes[axis];
    const double left = kChartLeft, right = kChartW - kChartRight;
    bool numeric = false;
    const std::vector<double> xs = x_positions(ax, left, right, numeric);
    std::vector<size_t> others;
    for (size_t a = 0; a < axes.size(); ++a)
        if (a != axis) others.push_back(a);
    const std::vector<std::vector<size_t>> lines = lines_of(points, others);
    auto colour = line_colour;

    std::ostringstream o;
    double top = 10;
    if (lines.size() > 1) {
        std::vector<Swatch> legend;
        for (const auto& l : lines) legend.push_back({where_text(axes, points[l.front()], others), colour(legend.size())});
        top = 6 + svg_legend(o, legend, left, 6, right) + 8;
    }
    const double bottom = top + kPlotH;
    double span = 0;
    for (double v : values)
        if (std::isfinite(v)) span = std::max(span, std::abs(v));
    const Unit u = time_unit(span);
    const Scale ys = value_scale(values, u.div, bottom, top);
    o << "<rect class=\"plot-bg\" x=\"" << px(left) << "\" y=\"" << px(top) << "\" width=\"" << px(right - left)
      << "\" height=\"" << px(kPlotH) << "\"/>";
    o << y_axis(ys, left, right, series.label + " (" + u.name + ")");
    o << sweep_x_axis(ax, xs, numeric, top, bottom, left, right);
    bool any = false;
    for (double v : values) any = any || std::isfinite(v);
    if (!any)
        o << "<text class=\"muted\" x=\"" << px((left + right) / 2) << "\" y=\"" << px(top + kPlotH / 2)
          << "\" text-anchor=\"middle\">no point has a value</text>";
    // Each line through its points in x order, broken where a point has no value.
    std::ostringstream marks;
    for (size_t l = 0; l < lines.size(); ++l) {
        std::vector<size_t> pts = lines[l];
        std::stable_sort(pts.begin(), pts.end(), [&](size_t a, size_t b) {
            return xs[value_index(ax, points[a].values[axis])] < xs[value_index(ax, points[b].values[axis])];
        });
        std::string d;
        bool pen = false;
        for (size_t i : pts) {
            const double v = values[i];
            if (!std::isfinite(v)) {
                pen = false;
                continue;
            }
            d += (pen ? "L" : "M") + px(xs[value_index(ax, points[i].values[axis])]) + " " + px(ys(v / u.div));
            pen = true;
        }
        const std::string name = where_text(axes, points[lines[l].front()], others);
        if (d.find('L') != std::string::npos)
            o << "<path class=\"sweep-line\" data-line=\"" << esc(name) << "\" stroke=\"" << colour(l) << "\""
              << (l >= kPaletteSize ? " stroke-dasharray=\"5 3\"" : "") << " d=\"" << d << "\"/>";
        for (size_t i : pts) {
            const double v = values[i];
            marks << point_mark(axes, i, points[i], xs[value_index(ax, points[i].values[axis])],
                                std::isfinite(v) ? ys(v / u.div) : NAN, bottom,
                                series.label + " = " + (std::isfinite(v) ? value_text(v) : std::string()) + " ns", l);
        }
    }
    o << marks.str();
    std::string attrs = " data-subject=\"" + series.subject + "\" data-metric=\"" + esc(series.metric) + "\"";
    if (series.subject != "run") attrs += " data-" + series.subject + "=\"" + esc(series.key) + "\"";
    attrs += " data-axis=\"" + esc(ax.key) + "\" data-lines=\"" + std::to_string(lines.size()) + "\"";
    const std::string aria = (series.key.empty() ? "" : series.subject + " " + series.key + ": ") + series.label +
                             " against " + ax.key;
    return "<figure class=\"sweep-figure\"><figcaption>" + esc(series.label) + " against <code>" + esc(ax.key) +
           "</code></figcaption>" + svg_open("sweep-chart", attrs, kChartW, bottom + 40, aria) + o.str() +
           "</svg></figure>";
}

// A group of charts: one series against every axis, in a <details> that can be collapsed.
std::string chart_group(const Series& s, const std::string& summary, const std::vector<SweepAxis>& axes,
                        const std::vector<SweepPoint>& points) {
    std::vector<double> values;
    for (const SweepPoint& p : points) values.push_back(ran(p) ? s.value(*ran(p)) : NAN);
    std::ostringstream o;
    o << "<details open class=\"sweep-group\" data-subject=\"" << s.subject << "\" data-metric=\"" << esc(s.metric) << "\"";
    if (s.subject != "run") o << " data-" << s.subject << "=\"" << esc(s.key) << "\"";
    o << "><summary>" << summary << "</summary>\n<div class=\"sweep-grid\">";
    for (size_t a = 0; a < axes.size(); ++a) o << sweep_chart(s, values, a, axes, points);
    o << "</div></details>\n";
    return o.str();
}

double opt(const std::optional<double>& v) { return v ? *v : NAN; }

// The names of what the points' records hold, in order of first appearance.
template <class Get>
std::vector<std::string> names_of(const std::vector<SweepPoint>& points, Get get) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const SweepPoint& p : points)
        if (const RunRecord* r = ran(p))
            for (const std::string& n : get(*r))
                if (seen.insert(n).second) out.push_back(n);
    return out;
}

// The header: the scenario, the axes, how many points passed, and each failing one's reasons.
std::string sweep_header(const std::string& name, const std::string& file, const std::vector<SweepAxis>& axes,
                         const std::vector<SweepPoint>& points) {
    size_t failed = 0;
    int worst = 0;
    for (const SweepPoint& p : points) {
        failed += p.exit_code != 0;
        worst = worse_exit(worst, p.exit_code);
    }
    std::ostringstream o;
    o << "<header id=\"summary\">\n<h1>gpuvp sweep: <span id=\"scenario-name\">" << esc(name)
      << "</span></h1>\n<table class=\"facts\" id=\"facts\">\n<tr><th>scenario</th><td><code>" << esc(file)
      << "</code></td></tr>\n<tr><th>axes</th><td><table id=\"sweep-axes\">";
    for (const SweepAxis& a : axes) {
        o << "<tr class=\"sweep-axis\" data-axis=\"" << esc(a.key) << "\"><td><code>" << esc(a.key) << "</code></td><td>";
        for (size_t i = 0; i < a.values.size(); ++i) o << (i ? ", " : "") << esc(a.values[i]);
        o << " <span class=\"muted\">(" << a.values.size() << (numeric_values(a).empty() ? " values, as categories" : " numbers")
          << ")</span></td></tr>";
    }
    o << "</table></td></tr>\n<tr><th>points</th><td id=\"sweep-points\" data-points=\"" << points.size()
      << "\" data-passed=\"" << points.size() - failed << "\" data-failed=\"" << failed << "\">" << points.size();
    if (axes.size() > 1) {
        o << " (";
        for (size_t a = 0; a < axes.size(); ++a) o << (a ? " × " : "") << axes[a].values.size();
        o << ")";
    }
    o << " · " << badge(true, std::to_string(points.size() - failed) + " passed") << " "
      << badge(failed == 0, std::to_string(failed) + " failed") << "</td></tr>\n";
    o << "<tr><th>exit code</th><td>" << worst << " <span class=\"muted\">(the worst point's)</span></td></tr>\n</table>\n";
    if (failed) {
        o << "<h2 id=\"failures-heading\">Failing points</h2>\n<ul class=\"problems\" id=\"sweep-failures\">";
        size_t shown = 0;
        for (size_t i = 0; i < points.size(); ++i) {
            const SweepPoint& p = points[i];
            if (p.exit_code == 0) continue;
            if (++shown > kFailureListLimit) {
                o << "<li>… and " << failed - kFailureListLimit << " more failing points (the table lists them)</li>";
                break;
            }
            o << "<li data-point=\"" << i << "\">point " << i << " <b>" << esc(where_text(axes, p, all_axes(axes.size())))
              << "</b>" << (ran(p) ? "" : " (did not run, exit " + std::to_string(p.exit_code) + ")") << ": ";
            for (size_t k = 0; k < p.problems.size() && k < 3; ++k) o << (k ? "; " : "") << esc(p.problems[k]);
            if (p.problems.empty()) o << "exit " << p.exit_code;
            if (p.problems.size() > 3) o << "; and " << p.problems.size() - 3 << " more";
            o << "</li>";
        }
        o << "</ul>\n";
    }
    o << "</header>\n";
    return o.str();
}

// The charts: the run's end, then each kernel's four latencies, each warp priority's lock wait
// and each draw's turnaround, each against every axis.
std::string sweep_charts(const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points) {
    std::ostringstream o;
    o << "<section id=\"charts\">\n<h2>Charts</h2>\n<p>Each metric against each axis of the sweep"
      << (axes.size() > 1 ? ", a line per combination of the other axes' values (the legend names them)" : "")
      << ". A point that failed is a <b style=\"color:" << kFailColour << "\">red ring with a cross</b> (a red cross on "
         "the axis where it did not run); hover a point for its values and why it failed. Times are simulated.</p>\n";
    bool any_run = false;
    for (const SweepPoint& p : points) any_run = any_run || ran(p);
    if (!any_run) {
        o << "<p class=\"empty\" id=\"charts-empty\">no point ran: nothing to chart</p>\n</section>\n";
        return o.str();
    }
    // Every chart, then written in order of how much its metric varies across the points.
    std::vector<std::pair<Series, std::string>> charts;
    charts.push_back({{"run", "", "sim_end_ns", "simulated end", [](const RunRecord& r) { return r.sim_end_ns; }},
                      "the run: simulated end"});
    const std::vector<std::string> kernels = names_of(points, [](const RunRecord& r) {
        std::vector<std::string> n;
        for (const KernelRecord& k : r.kernels) n.push_back(k.name);
        return n;
    });
    auto kernel = [](const RunRecord& r, const std::string& name) -> const KernelRecord* {
        for (const KernelRecord& k : r.kernels)
            if (k.name == name) return &k;
        return nullptr;
    };
    if (kernels.size() > kSweepSubjectLimit)
        o << "<p class=\"note\" id=\"sweep-kernel-note\">" << kernels.size() << " kernels: the charts show the first "
          << kSweepSubjectLimit << " (in order of appearance); the table lists every kernel.</p>\n";
    using Member = std::optional<double> KernelRecord::*;
    const std::pair<const char*, Member> metrics[] = {{"dispatch_latency_ns", &KernelRecord::dispatch_latency_ns},
                                                      {"launch_latency_ns", &KernelRecord::launch_latency_ns},
                                                      {"response_ns", &KernelRecord::response_ns},
                                                      {"turnaround_ns", &KernelRecord::turnaround_ns}};
    const char* labels[] = {"dispatch latency", "launch latency", "response", "turnaround"};
    for (size_t k = 0; k < kernels.size() && k < kSweepSubjectLimit; ++k)
        for (size_t m = 0; m < 4; ++m) {
            const std::string name = kernels[k];
            const Member member = metrics[m].second;
            charts.push_back({{"kernel", name, metrics[m].first, labels[m],
                               [=](const RunRecord& r) {
                                   const KernelRecord* kr = kernel(r, name);
                                   return kr ? opt(kr->*member) : NAN;
                               }},
                              "kernel <b>" + esc(name) + "</b>: " + labels[m]});
        }
    // Lock waits, per warp priority in numeric order.
    std::vector<std::string> prios = names_of(points, [](const RunRecord& r) {
        std::vector<std::string> n;
        for (const auto& [name, e] : r.locks.by_priority) n.push_back(name);
        return n;
    });
    std::stable_sort(prios.begin(), prios.end(),
                     [](const std::string& a, const std::string& b) { return priority_key(a) < priority_key(b); });
    for (const std::string& pr : prios)
        charts.push_back({{"priority", pr, "lock_wait_mean_ns", "lock wait mean",
                           [pr](const RunRecord& r) {
                               for (const auto& [name, e] : r.locks.by_priority)
                                   if (name == pr) return e.wait_ns.mean;
                               return double(NAN);
                           }},
                          "warp priority (CPR) <b>" + esc(pr) + "</b>: lock wait mean"});
    const std::vector<std::string> draws = names_of(points, [](const RunRecord& r) {
        std::vector<std::string> n;
        for (const DrawRecord& d : r.usa.draws) n.push_back(d.name);
        return n;
    });
    if (draws.size() > kSweepSubjectLimit)
        o << "<p class=\"note\" id=\"sweep-draw-note\">" << draws.size() << " draws: the charts show the first "
          << kSweepSubjectLimit << ".</p>\n";
    for (size_t d = 0; d < draws.size() && d < kSweepSubjectLimit; ++d) {
        const std::string name = draws[d];
        charts.push_back({{"draw", name, "turnaround_ns", "draw turnaround",
                           [name](const RunRecord& r) {
                               for (const DrawRecord& dr : r.usa.draws)
                                   if (dr.name == name) return opt(dr.turnaround_ns);
                               return double(NAN);
                           }},
                          "draw <b>" + esc(name) + "</b>: turnaround"});
    }
    // Most varying first (the spread over the points that ran, relative to the largest value);
    // the metrics the same at every point folded at the end.
    std::vector<double> spread;
    for (const auto& [series, title] : charts) {
        double lo = INFINITY, hi = -INFINITY;
        for (const SweepPoint& p : points)
            if (const RunRecord* r = ran(p)) {
                const double v = series.value(*r);
                if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
            }
        const double scale = std::max(std::fabs(lo), std::fabs(hi));
        spread.push_back(hi > lo && scale > 0 ? (hi - lo) / scale : 0);
    }
    std::vector<size_t> order(charts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return spread[x] > spread[y]; });
    const size_t varying = size_t(std::count_if(spread.begin(), spread.end(), [](double v) { return v > 0; }));
    if (varying) o << "<h3>What changes across the points, the most first</h3>\n";
    for (size_t i = 0; i < varying; ++i) o << chart_group(charts[order[i]].first, charts[order[i]].second, axes, points);
    if (varying < charts.size()) {
        o << "<details class=\"sweep-constant\" id=\"sweep-constant\"><summary><h3>The same at every point: "
          << charts.size() - varying << " metric" << (charts.size() - varying == 1 ? "" : "s") << "</h3></summary>\n";
        for (size_t i = varying; i < charts.size(); ++i) o << chart_group(charts[order[i]].first, charts[order[i]].second, axes, points);
        o << "</details>\n";
    }
    o << "</section>\n";
    return o.str();
}

// A table row's opening and its first cells: the point's number and axis values.
std::string row_start(size_t i, const SweepPoint& p, const std::string& cls) {
    const bool failed = p.exit_code != 0;
    std::string o = "<tr class=\"" + cls + (failed ? " fail" : "") + "\" data-point=\"" + std::to_string(i) +
                    "\" data-failed=\"" + (failed ? "true" : "false") + "\"><td>" + std::to_string(i) + "</td>";
    for (const std::string& v : p.values) o += "<td class=\"text\">" + esc(v) + "</td>";
    return o;
}

// A table's opening: `id`, the point's and axes' columns, then `heads`.
std::string table_start(const std::string& id, const std::vector<SweepAxis>& axes,
                        const std::vector<std::string>& heads) {
    std::string o = "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"" + id + "\"><thead><tr><th>point</th>";
    for (const SweepAxis& a : axes) o += "<th data-axis=\"" + esc(a.key) + "\">" + esc(a.key) + "</th>";
    for (const std::string& h : heads) o += "<th>" + h + "</th>";
    return o + "</tr></thead><tbody>\n";
}

std::string number_cell(const std::optional<double>& v) { return "<td>" + (v ? fmt(*v, 3) : std::string("–")) + "</td>"; }

// The tables: a row per point and kernel, sweep.csv's columns (a point that did not run: one
// row), the status with why a failing point failed; then, when there are any, a row per point
// and warp priority of locks.csv's lock figures, and per point and draw of draws.csv's times.
std::string sweep_table(const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points) {
    std::ostringstream o, locks, draws;
    o << "<section id=\"table\">\n<h2>Every point and kernel</h2>\n<p>The rows of <code>sweep.csv</code>, in point "
         "order; a failing point's rows are red and say why.</p>\n"
      << table_start("sweep-table", axes, {"kernel", "dispatch_latency_ns", "launch_latency_ns", "response_ns",
                                           "turnaround_ns", "exit code", "status"});
    size_t rows = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        const SweepPoint& p = points[i];
        const RunRecord* r = ran(p);
        if (!r) {
            ++rows;
            o << row_start(i, p, "sweep-row") << "<td class=\"text\">–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>"
              << p.exit_code << "</td><td class=\"text\">did not run (exit " << p.exit_code << ")"
              << (p.problems.empty() ? "" : ": " + esc(first_problem(p))) << "</td></tr>\n";
            continue;
        }
        for (const KernelRecord& k : r->kernels) {
            ++rows;
            const std::string status =
                p.exit_code == 0 ? k.status.text() : "FAIL: " + (!k.status.ok() ? k.status.text() : first_problem(p));
            std::string row = row_start(i, p, "sweep-row");
            row.insert(row.find('>'), " data-kernel=\"" + esc(k.name) + "\"");
            o << row << "<td class=\"text\">" << esc(k.name) << "</td>" << number_cell(k.dispatch_latency_ns)
              << number_cell(k.launch_latency_ns) << number_cell(k.response_ns) << number_cell(k.turnaround_ns) << "<td>"
              << p.exit_code << "</td><td class=\"text\">" << esc(status) << "</td></tr>\n";
        }
        for (const auto& [prio, e] : r->locks.by_priority)
            locks << row_start(i, p, "lock-row") << "<td>" << esc(prio) << "</td><td>" << e.warps << "</td><td>"
                  << e.acquisitions << "</td>" << number_cell(e.wait_ns.mean) << number_cell(e.wait_ns.max)
                  << number_cell(e.task_end_ns.mean) << number_cell(e.task_end_ns.max) << "</tr>\n";
        for (const DrawRecord& d : r->usa.draws)
            draws << row_start(i, p, "draw-row") << "<td class=\"text\">" << esc(d.name) << "</td><td class=\"text\">"
                  << esc(d.status.text()) << "</td>" << number_cell(d.end_ns) << number_cell(d.complete_ns)
                  << number_cell(d.turnaround_ns) << "</tr>\n";
    }
    o << "</tbody></table></div>\n";
    if (rows == 0) o << "<p class=\"empty\" id=\"sweep-table-empty\">no kernels at any point: sweep.csv has its header only</p>\n";
    if (!locks.str().empty())
        o << "<h3>Locks, per point and warp priority</h3>\n<p>As <code>locks.csv</code> (its first columns).</p>\n"
          << table_start("sweep-locks-table", axes, {"warp priority", "warps", "acquisitions", "wait_mean_ns", "wait_max_ns",
                                                     "task_end_mean_ns", "task_end_max_ns"})
          << locks.str() << "</tbody></table></div>\n";
    if (!draws.str().empty())
        o << "<h3>Draws, per point</h3>\n<p>As <code>draws.csv</code> (its times).</p>\n"
          << table_start("sweep-draws-table", axes, {"draw", "status", "end_ns", "complete_ns", "turnaround_ns"})
          << draws.str() << "</tbody></table></div>\n";
    o << "</section>\n";
    return o.str();
}

}  // namespace

}  // namespace report

std::string render_sweep_report(const std::string& name, const std::string& file,
                                const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points) {
    using namespace report;
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>gpuvp sweep: "
      << esc(name) << "</title><style>" << kStyle << kSweepStyle << "</style></head><body>\n";
    h << "<nav><a href=\"#summary\">Summary</a><a href=\"#charts\">Charts</a><a href=\"#table\">Table</a></nav>\n<main>\n";
    h << sweep_header(name, file, axes, points);
    h << sweep_charts(axes, points);
    h << sweep_table(axes, points);
    h << "<footer>Made by gpuvp from the points' results.json (point-N/results.json beside this page; sweep.csv holds "
         "the table's numbers). Times are simulated; hover a point for its values. This page loads nothing: no script, "
         "no font, no link outside itself.</footer>\n</main></body></html>\n";
    return h.str();
}

}  // namespace gpuvp
