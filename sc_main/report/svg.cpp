// report.html's drawing kit: svg.h.
#include "sc_main/report/svg.h"
#include "sc_main/record/json_text.h"
#include "sc_main/record/short_names.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <system_error>

namespace gpuvp::report {

std::string esc(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&#39;"; break;
        default: o += c;
        }
    return o;
}

namespace {

// `number`'s digits before its point in groups of three, when it has `digits` or more of them.
std::string group_thousands_from(std::string number, size_t digits) {
    const size_t point = number.find('.'), sign = !number.empty() && number[0] == '-' ? 1 : 0;
    const size_t end = point == std::string::npos ? number.size() : point;
    if (end < sign + digits) return number;
    for (size_t at = end; at > sign + 3; at -= 3) number.insert(at - 3, "\u202f");
    return number;
}

}  // namespace

// At most `n` characters, with an ellipsis when cut (never inside a UTF-8 sequence).
std::string cut(const std::string& s, size_t n) {
    return text_chars(s) <= n ? s : text_head(s, n - 1) + "…";
}

double text_px(const std::string& s, double font) { return double(text_chars(s)) * font * 0.6; }

// A fixed number of decimals; "–" for a missing value; never "-0.0".
std::string duration(double ns) {
    if (!std::isfinite(ns)) return "–";
    if (ns == 0) return "0 ns";  // (no digits to give)
    static constexpr const char* kUnits[] = {" ns", " µs", " ms", " s"};
    size_t u = 0;
    double v = ns;
    while (u + 1 < std::size(kUnits) && std::abs(v) >= 999.95) {
        v /= 1000;
        ++u;
    }
    const double a = std::abs(v);
    std::string text = fmt(v, a < 9.9995 ? 3 : a < 99.995 ? 2 : 1);
    if (a >= 999.95) text = group_thousands_from(text, 4);  // (only seconds reach them)
    return text + kUnits[u];
}

std::string group_thousands(std::string number) { return group_thousands_from(std::move(number), 5); }

std::string fmt(double v, int decimals) {
    if (!std::isfinite(v)) return "–";
    static constexpr double kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    const double m = decimals >= 0 && decimals <= 6 ? kScale[decimals] : std::pow(10.0, decimals);
    const double k = std::round(v * m);
    if (decimals >= 0 && decimals <= 6 && std::abs(k) < 4503599627370496.0) {  // (below 2^52: within half a unit of the last decimal)
        // k / m printed with `decimals` decimals is k's digits with the point put in (the double
        // nearest k / m reads back as k at that many decimals): written here, without to_chars.
        std::string s;
        append_decimal(s, uint64_t(std::abs(k)), decimals, k < 0);
        return s;
    }
    v = k / m;
    if (v == 0) v = 0;  // -0
    // (to_chars with a precision writes what printf's "%.*f" would, without printf's cost: the
    // page holds tens of thousands of numbers)
    char b[400];  // the longest double, fixed, with the decimals asked for
    const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals);
    return r.ec == std::errc() ? std::string(b, r.ptr) : "–";
}

namespace {

// `v` with `decimals` decimals, no trailing zeros.
std::string trimmed(double v, int decimals) {
    std::string s = fmt(v, decimals);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

// An SVG coordinate to 1e-4 px, no trailing zeros.
std::string fine_px(double v) { return trimmed(v, 4); }

}  // namespace

// A time for the page's script: 3 decimals, no trailing zeros.
std::string value_ns(double v) { return trimmed(v, 3); }

std::string zoom_open(const Scale& xs, double top, double bottom) {
    const std::string w = px(xs.b - xs.a), h = px(bottom - top);
    return "<svg class=\"zoom-area\" x=\"" + px(xs.a) + "\" y=\"" + px(top) + "\" width=\"" + w + "\" height=\"" + h +
           "\" viewBox=\"" + px(xs.a) + " " + px(top) + " " + w + " " + h + "\" preserveAspectRatio=\"none\">";
}

// An SVG coordinate: one decimal, no ".0".
std::string px(double v) {
    std::string s = fmt(v, 1);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s;
}


namespace {

double nice_step(double range, int target) {
    if (!(range > 0)) return 1;
    const double raw = range / target, e = std::pow(10.0, std::floor(std::log10(raw))), f = raw / e;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

std::vector<double> ticks(double lo, double hi, int target, double* step_out = nullptr) {
    const double step = nice_step(hi - lo, target);
    if (step_out) *step_out = step;
    std::vector<double> t;
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && t.size() < 100; v += step)
        t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return t;
}

std::string tick_label(double v, double step) {
    const int d = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    return group_thousands(fmt(v, std::min(d, 6)));
}

}  // namespace

// A horizontal axis at `y` (ticks, labels, title below), grid lines from `top` down to it.
std::string x_axis(const Scale& s, const Unit& u, double top, double y, const std::string& title) {
    std::ostringstream o;
    double step = 1;
    const auto t = ticks(s.lo / u.div, s.hi / u.div, std::max(2, int((s.b - s.a) / 110)), &step);
    // (what the page's script needs to draw the axis again for a zoomed range)
    o << "<g class=\"axis x-axis\" data-lo=\"" << value_ns(s.lo) << "\" data-hi=\"" << value_ns(s.hi) << "\" data-a=\"" << px(s.a)
      << "\" data-b=\"" << px(s.b) << "\" data-top=\"" << px(top) << "\" data-y=\"" << px(y) << "\" data-title=\"" << esc(title)
      << "\">";
    for (double v : t) {
        const std::string x = px(s(v * u.div));
        o << "<line class=\"grid\" x1=\"" << x << "\" y1=\"" << px(top) << "\" x2=\"" << x << "\" y2=\"" << px(y)
          << "\"/><line x1=\"" << x << "\" y1=\"" << px(y) << "\" x2=\"" << x << "\" y2=\"" << px(y + 4)
          << "\"/><text x=\"" << x << "\" y=\"" << px(y + 15) << "\" text-anchor=\"middle\">" << tick_label(v, step)
          << "</text>";
    }
    o << "<line x1=\"" << px(s.a) << "\" y1=\"" << px(y) << "\" x2=\"" << px(s.b) << "\" y2=\"" << px(y) << "\"/>";
    o << "<text class=\"axis-title\" x=\"" << px((s.a + s.b) / 2) << "\" y=\"" << px(y + 30)
      << "\" text-anchor=\"middle\">" << esc(title) << " (" << u.name << ")</text></g>";
    return o.str();
}

LogScale log_scale(double lo, double hi, double a, double b) {
    double l = std::pow(10.0, std::floor(std::log10(lo > 0 ? lo : 1) + 1e-9));
    if (l >= lo) l /= 10;  // (below the smallest value, so that its bar has a length)
    double h = std::pow(10.0, std::ceil(std::log10(hi > l ? hi : l) - 1e-9));
    if (h <= l) h = l * 10;
    return {l, h, a, b};
}

namespace {

// A power of ten of nanoseconds as people write it: "1 ns", "10 µs", "100 ms", "1 s", "1000 s".
std::string decade_text(double ns) {
    static constexpr const char* kUnits[] = {" ns", " µs", " ms", " s"};
    if (ns < 1) return value_ns(ns) + kUnits[0];  // 0.1 ns, 0.01 ns
    size_t u = 0;
    double v = std::round(ns);
    while (u + 1 < std::size(kUnits) && v >= 1000) {
        v /= 1000;
        ++u;
    }
    return fmt(v, 0) + kUnits[u];
}

}  // namespace

std::string log_axis(const LogScale& s, double top, double y, const std::string& title) {
    std::ostringstream o;
    const int decades = int(std::lround(std::log10(s.hi / s.lo)));
    const double per = (s.b - s.a) / std::max(1, decades);
    const int every = per >= 42 ? 1 : per >= 21 ? 2 : 3;  // labels that fit
    o << "<g class=\"axis log-axis\">";
    for (int d = 0; d <= decades; ++d) {
        const double v = s.lo * std::pow(10.0, d);
        const std::string x = px(s(v));
        o << "<line class=\"grid\" x1=\"" << x << "\" y1=\"" << px(top) << "\" x2=\"" << x << "\" y2=\"" << px(y)
          << "\"/><line x1=\"" << x << "\" y1=\"" << px(y) << "\" x2=\"" << x << "\" y2=\"" << px(y + 4) << "\"/>";
        if (d % every == 0)
            o << "<text x=\"" << x << "\" y=\"" << px(y + 15) << "\" text-anchor=\"middle\">" << decade_text(v) << "</text>";
    }
    o << "<line x1=\"" << px(s.a) << "\" y1=\"" << px(y) << "\" x2=\"" << px(s.b) << "\" y2=\"" << px(y) << "\"/>";
    o << "<text class=\"axis-title\" x=\"" << px((s.a + s.b) / 2) << "\" y=\"" << px(y + 30) << "\" text-anchor=\"middle\">"
      << esc(title) << "</text></g>";
    return o.str();
}

// A vertical value axis at `x` for [s.lo, s.hi] drawn from px s.a (bottom) up to s.b (top).
std::string y_axis(const Scale& s, double x, double right, const std::string& title) {
    std::ostringstream o;
    double step = 1;
    const auto t = ticks(s.lo, s.hi, std::max(2, int((s.a - s.b) / 28)), &step);
    o << "<g class=\"axis y-axis\">";
    for (double v : t) {
        const std::string y = px(s(v));
        o << "<line class=\"grid\" x1=\"" << px(x) << "\" y1=\"" << y << "\" x2=\"" << px(right) << "\" y2=\"" << y
          << "\"/><text x=\"" << px(x - 5) << "\" y=\"" << px(s(v) + 4) << "\" text-anchor=\"end\">"
          << tick_label(v, step) << "</text>";
    }
    o << "<line x1=\"" << px(x) << "\" y1=\"" << px(s.a) << "\" x2=\"" << px(x) << "\" y2=\"" << px(s.b) << "\"/>";
    const double cy = (s.a + s.b) / 2;
    o << "<text class=\"axis-title\" x=\"" << px(x - 44) << "\" y=\"" << px(cy) << "\" text-anchor=\"middle\" transform=\"rotate(-90 "
      << px(x - 44) << " " << px(cy) << ")\">" << esc(title) << "</text></g>";
    return o.str();
}

// The swatches left to right from (x, y), wrapped at `right`; returns the height used.
double svg_legend(std::ostringstream& o, const std::vector<Swatch>& items, double x, double y, double right,
                  const std::string& heading) {
    double cx = x, cy = y;
    o << "<g class=\"legend\">";
    if (!heading.empty()) {
        o << "<text class=\"legend-heading\" x=\"" << px(cx) << "\" y=\"" << px(cy + 10) << "\">" << esc(heading) << "</text>";
        cx += text_px(heading) + 10;
    }
    for (const Swatch& s : items) {
        const std::string label = cut(s.label, 64);
        const double w = 16 + text_px(label) + 14;
        if (cx + w > right && cx > x) {
            cx = x;
            cy += 16;
        }
        o << "<g class=\"legend-item\" data-label=\"" << esc(s.label) << "\">";
        if (s.line)
            o << "<line x1=\"" << px(cx) << "\" y1=\"" << px(cy + 6) << "\" x2=\"" << px(cx + 11) << "\" y2=\""
              << px(cy + 6) << "\" stroke=\"" << s.colour << "\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>";
        else
            o << "<rect x=\"" << px(cx) << "\" y=\"" << px(cy + 1) << "\" width=\"11\" height=\"11\" fill=\"" << s.colour
              << "\"" << (s.opacity < 1 ? " fill-opacity=\"" + fmt(s.opacity, 2) + "\"" : "") << "/>";
        o << "<text x=\"" << px(cx + 16) << "\" y=\"" << px(cy + 10) << "\">" << esc(label);
        if (label != s.label) o << "<title>" << esc(s.label) << "</title>";
        o << "</text></g>";
        cx += w;
    }
    o << "</g>";
    return cy + 16 - y;
}

std::string svg_open(const std::string& cls, const std::string& attrs, double w, double h, const std::string& label) {
    return "<svg class=\"" + cls + "\"" + attrs + " viewBox=\"0 0 " + px(w) + " " + px(h) + "\" width=\"" + px(w) +
           "\" height=\"" + px(h) + "\" role=\"img\" aria-label=\"" + esc(label) + "\">";
}


namespace {

size_t merged_size(const std::vector<Bar>& bars, double gap, bool any_key) {
    size_t n = 0;
    int key = 0;
    double end = 0;
    for (const Bar& b : bars) {
        if (n == 0 || (!any_key && b.key != key) || b.s > end + gap) {
            ++n;
            key = b.key;
            end = b.e;
        } else
            end = std::max(end, b.e);
    }
    return n;
}

void merge_row(std::vector<Bar>& bars, double gap, bool any_key) {
    std::vector<Bar> out;
    for (const Bar& b : bars) {
        if (out.empty() || (!any_key && b.key != out.back().key) || b.s > out.back().e + gap) {
            out.push_back(b);
            continue;
        }
        Bar& m = out.back();
        if (m.key != b.key) m.key = -1;
        m.e = std::max(m.e, b.e);
        m.count += b.count;
    }
    bars.swap(out);
}

}  // namespace

// At most `limit` bars over `charts`: bars of one key on one row that overlap or touch are
// merged, then those less than a pixel apart, two, four…; as a last resort bars of different
// keys too (drawn grey). `ns_per_px` is the charts' scale, `span_ns` their time range.
Bound bound_bars(const std::vector<Gantt*>& charts, size_t limit, double ns_per_px, double span_ns) {
    Bound b;
    for (Gantt* g : charts)
        for (Row& r : g->rows) {
            std::stable_sort(r.bars.begin(), r.bars.end(), [](const Bar& x, const Bar& y) { return x.s < y.s; });
            b.total += r.bars.size();
        }
    b.drawn = b.total;
    if (b.total <= limit) return b;
    auto count = [&](double gap, bool any) {
        size_t n = 0;
        for (Gantt* g : charts)
            for (const Row& r : g->rows) n += merged_size(r.bars, gap, any);
        return n;
    };
    double gap = 0;
    bool any = false;
    for (;;) {
        if (count(gap, any) <= limit) break;
        gap = gap == 0 ? std::max(ns_per_px, 1e-3) : gap * 2;
        if (gap > 2 * span_ns + 1) {
            if (any) break;  // one bar per row: nothing more to merge
            any = true;
            gap = 0;
        }
    }
    for (Gantt* g : charts)
        for (Row& r : g->rows) merge_row(r.bars, gap, any);
    b.gap_ns = gap;
    b.across_keys = any;
    b.drawn = 0;
    for (Gantt* g : charts) b.drawn += g->bars();
    return b;
}

std::string bound_note(const Bound& b, const std::string& what, const std::string& id) {
    if (b.gap_ns < 0) return "";
    std::ostringstream o;
    o << "<p class=\"note merged-note\" id=\"" << id << "\">" << b.total << " " << what << " are drawn as " << b.drawn
      << " merged bars (the page keeps at most " << (what == "warps" ? kWarpRectLimit : kTaskRectLimit)
      << " of them): on each row, consecutive " << what << " of the same "
      << (what == "warps" ? "kernel" : "type") << (b.gap_ns > 0 ? " less than " + ns(b.gap_ns) + " ns apart" : " that overlap or touch")
      << (b.across_keys ? ", and then of any kind (grey bars)," : "")
      << " are one bar; hover a bar for how many it holds.</p>";
    return o.str();
}


std::string render_gantt(const Gantt& g, const Scale& xs_in, const Unit& u, const GanttStyle& st) {
    std::ostringstream body;
    Scale xs = xs_in;
    const double rh = st.row_h;
    double y = 6;
    if (!st.legend.empty()) y += svg_legend(body, st.legend, xs.a, y, xs.b) + 6;
    const double top = y, plot_h = rh * double(g.rows.size());
    body << "<rect class=\"plot-bg\" x=\"" << px(xs.a) << "\" y=\"" << px(top) << "\" width=\"" << px(xs.b - xs.a)
         << "\" height=\"" << px(plot_h) << "\"/>";
    // Row labels, as many as fit.
    const size_t every = size_t(std::max(1.0, std::ceil(12.0 / rh)));
    body << "<g class=\"row-labels\">";
    for (size_t r = 0; st.row_labels && r < g.rows.size(); r += every) {
        const double ry = top + rh * double(r);
        body << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + std::min(rh, 12.0) / 2 + 3.5) << "\" text-anchor=\"end\">"
             << esc(cut(g.rows[r].label, 14)) << "</text>";
        if (r > 0 && every > 1)
            body << "<line class=\"row-sep\" x1=\"" << px(xs.a) << "\" y1=\"" << px(ry) << "\" x2=\"" << px(xs.b)
                 << "\" y2=\"" << px(ry) << "\"/>";
    }
    body << "</g>" << (st.zoomable ? zoom_open(xs, top, top + plot_h) : "") << "<g class=\"bars\">";
    const double inset = rh > 5 ? 0.5 : 0, bh = rh > 5 ? rh - 1 : rh;
    for (size_t r = 0; r < g.rows.size(); ++r) {
        const std::string ry = px(top + rh * double(r) + inset), h = px(bh);
        bool odd = false;
        for (const Bar& b : g.rows[r].bars) {
            odd = !odd;
            const double x0 = xs(b.s), w = xs(b.e) - x0;
            const std::string name = st.key_name(b.key);
            body << "<rect class=\"" << st.bar_class << (b.count > 1 ? " merged" : "") << "\" " << st.data_attr << "=\""
                 << esc(name) << "\"";
            if (b.count > 1) body << " data-count=\"" << b.count << "\"";
            if (st.precise)  // (to 1e-4 px: about what a browser's single-precision SVG coordinates hold)
                body << " x=\"" << fine_px(x0) << "\" y=\"" << ry << "\" width=\"" << fine_px(std::max(0.0001, w)) << "\"";
            else
                body << " x=\"" << px(x0) << "\" y=\"" << ry << "\" width=\"" << px(std::max(0.6, w)) << "\"";
            body << " height=\"" << h << "\" fill=\"" << st.colour(b.key) << (odd ? "" : "\" fill-opacity=\"0.7") << "\"";
            if (st.precise && w < 0.6)
                body << " stroke=\"" << st.colour(b.key) << "\" stroke-width=\"0.6\" vector-effect=\"non-scaling-stroke\"";
            body << "><title>";
            if (b.count > 1)
                body << esc(name) << ": " << b.count << " " << st.merged_noun << " merged, " << ns(b.s) << "–" << ns(b.e)
                     << " ns, " << esc(g.rows[r].label);
            else
                body << esc(st.title(b, g.rows[r].label));
            body << "</title></rect>";
        }
    }
    body << "</g>" << (st.zoomable ? kZoomClose : "");
    body << x_axis(xs, u, top, top + plot_h, st.axis_title);
    const double h = top + plot_h + 40;
    return svg_open(st.svg_class, st.svg_attrs, kWidth, h, st.aria) + body.str() + "</svg>";
}

namespace {

// The counter over `bins` equal columns of [t0, t1]: `peak`: the sample with the largest sum
// among those that held for some time in the column (and the one holding at its start);
// otherwise each series' time-weighted mean.
std::vector<std::vector<double>> bin_counter(const Counter& c, size_t series, double t0, double t1, size_t bins, bool peak) {
    std::vector<std::vector<double>> out(bins, std::vector<double>(series, 0));
    if (!(t1 > t0)) return out;
    const double w = (t1 - t0) / double(bins);
    std::vector<double> cur(series, 0);
    auto sum = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return s;
    };
    size_t i = 0;
    const size_t n = c.t.size();
    for (size_t b = 0; b < bins; ++b) {
        const double bs = t0 + w * double(b), be = bs + w;
        while (i < n && c.t[i] <= bs) cur = c.v[i++];
        if (peak) {
            std::vector<double> best = cur;
            double best_sum = sum(cur);
            while (i < n && c.t[i] < be) {
                cur = c.v[i++];
                const bool holds = i >= n || c.t[i] > c.t[i - 1];
                if (holds && sum(cur) > best_sum) {
                    best = cur;
                    best_sum = sum(cur);
                }
            }
            out[b] = best;
        } else {
            std::vector<double> acc(series, 0);
            double pos = bs;
            while (i < n && c.t[i] < be) {
                for (size_t s = 0; s < series; ++s) acc[s] += cur[s] * (c.t[i] - pos);
                pos = c.t[i];
                cur = c.v[i++];
            }
            for (size_t s = 0; s < series; ++s) out[b][s] = (acc[s] + cur[s] * (be - pos)) / w;
        }
    }
    return out;
}

// Stacked step areas, one <path> per series (bottom first).
std::string stacked_steps(const std::vector<std::vector<double>>& bins, const Scale& xs, const Scale& ys,
                          const std::vector<std::string>& names, const std::vector<std::string>& colours,
                          const std::string& data_attr) {
    const size_t nb = bins.size(), series = names.size();
    std::vector<double> edge(nb + 1);
    for (size_t b = 0; b <= nb; ++b) edge[b] = xs.a + (xs.b - xs.a) * double(b) / double(nb);
    std::vector<double> bottom(nb, 0), top(nb, 0);
    std::ostringstream o;
    for (size_t s = 0; s < series; ++s) {
        bool any = false;
        for (size_t b = 0; b < nb; ++b) {
            top[b] = bottom[b] + bins[b][s];
            any = any || bins[b][s] > 0;
        }
        if (any) {
            o << "<path class=\"area\" " << data_attr << "=\"" << esc(names[s]) << "\" fill=\"" << colours[s]
              << "\" d=\"M" << px(edge[0]) << " " << px(ys(top[0]));
            for (size_t b = 1; b < nb; ++b)
                if (px(ys(top[b])) != px(ys(top[b - 1]))) o << "H" << px(edge[b]) << "V" << px(ys(top[b]));
            o << "H" << px(edge[nb]) << "V" << px(ys(bottom[nb - 1]));
            for (size_t b = nb - 1; b-- > 0;)
                if (px(ys(bottom[b])) != px(ys(bottom[b + 1]))) o << "H" << px(edge[b + 1]) << "V" << px(ys(bottom[b]));
            o << "H" << px(edge[0]) << "Z\"><title>" << esc(names[s]) << "</title></path>";
        }
        bottom = top;
    }
    return o.str();
}


}  // namespace

// A stacked step chart of a counter: `names` bottom first.
std::string counter_chart(const std::string& cls, const std::string& attrs, const std::string& aria, const Counter& c,
                          double end, const std::vector<std::string>& names, const std::vector<std::string>& colours,
                          double ymax, bool peak, const std::string& y_title, double line_at, const std::string& line_label,
                          double height) {
    const Unit u = time_unit(end);
    const Scale xs{0, end, kLeft, kWidth - kRight};
    const auto bins = bin_counter(c, names.size(), 0, end, kCounterBins, peak);
    double hi = std::max(std::isfinite(ymax) ? ymax : 0.0, line_at);
    for (const auto& b : bins) {
        double s = 0;
        for (double v : b) s += v;
        hi = std::max(hi, s);
    }
    std::ostringstream o;
    std::vector<Swatch> legend;
    for (size_t i = 0; i < names.size(); ++i) legend.push_back({names[i], colours[i]});
    if (line_at > 0) legend.push_back({line_label, "#333", 1, true});
    double y = 6 + svg_legend(o, legend, xs.a, 6, xs.b) + 8;
    const double top = y, bottom = top + height;
    const Scale ys{0, hi > 0 ? hi : 1, bottom, top};
    o << "<rect class=\"plot-bg\" x=\"" << px(xs.a) << "\" y=\"" << px(top) << "\" width=\"" << px(xs.b - xs.a)
      << "\" height=\"" << px(height) << "\"/>";
    o << y_axis(ys, xs.a, xs.b, y_title);
    o << zoom_open(xs, top, bottom) << stacked_steps(bins, xs, ys, names, colours, "data-series");
    if (line_at > 0)
        o << "<line class=\"limit\" x1=\"" << px(xs.a) << "\" y1=\"" << px(ys(line_at)) << "\" x2=\"" << px(xs.b) << "\" y2=\""
          << px(ys(line_at)) << "\" vector-effect=\"non-scaling-stroke\"><title>" << esc(line_label) << "</title></line>";
    o << kZoomClose;
    o << x_axis(xs, u, bottom, bottom, "simulated time");
    return svg_open(cls, attrs, kWidth, bottom + 40, aria) + o.str() + "</svg>";
}


// Horizontal bars, two per group (mean and max), one chart.
std::string pair_bars(const std::string& id, const std::string& caption, const std::vector<std::string>& keys,
                      const std::vector<std::string>& groups,
                      const std::vector<std::pair<double, double>>& values, const std::string& axis, double width,
                      const std::string& group_attr) {
    double hi = 0;
    for (auto& [a, b] : values) hi = std::max({hi, std::isfinite(a) ? a : 0, std::isfinite(b) ? b : 0});
    const Unit u = time_unit(hi);
    const double left = 70, right = width - 70;
    const Scale xs{0, hi > 0 ? hi * 1.02 : 1, left, right};
    std::ostringstream c;
    double y = 6 + svg_legend(c, {{"mean", "#4e79a7"}, {"max", "#a0cbe8"}}, left, 6, width - 10) + 6;
    const double gh = 40, top = y;
    for (size_t i = 0; i < groups.size(); ++i) {
        const double gy = top + gh * double(i);
        c << "<g class=\"pair-bar\" " << group_attr << "=\"" << esc(keys[i]) << "\"><text x=\"" << px(left - 6) << "\" y=\""
          << px(gy + gh / 2 + 4) << "\" text-anchor=\"end\">" << esc(cut(groups[i], 10)) << "</text>";
        const double vals[2] = {values[i].first, values[i].second};
        const char* names[2] = {"mean", "max"};
        const char* colours[2] = {"#4e79a7", "#a0cbe8"};
        for (int k = 0; k < 2; ++k) {
            const double v = std::isfinite(vals[k]) ? vals[k] : 0, by = gy + 4 + 16 * k;
            c << "<rect data-series=\"" << names[k] << "\" x=\"" << px(left) << "\" y=\"" << px(by) << "\" width=\""
              << px(std::max(0.0, xs(v) - left)) << "\" height=\"14\" fill=\"" << colours[k] << "\"><title>"
              << esc(groups[i]) << ": " << names[k] << " " << ns(v) << " ns</title></rect><text class=\"value\" x=\""
              << px(xs(v) + 4) << "\" y=\"" << px(by + 11) << "\">" << ns(v) << "</text>";
        }
        c << "</g>";
    }
    c << x_axis(xs, u, top, top + gh * double(groups.size()), axis);
    const double h = top + gh * double(groups.size()) + 40;
    return "<figure class=\"chart half\"><figcaption>" + esc(caption) + "</figcaption>" +
           svg_open("bar-chart", " id=\"" + id + "\"", width, h, caption) + c.str() + "</svg></figure>";
}


}  // namespace gpuvp::report
