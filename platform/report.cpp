// report.html: one self-contained page (inline CSS and SVG, no script, no external
// reference) built from results.json and trace.json. docs/report.md describes what it shows.
#include "platform/report.h"
#include "platform/run.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace gpuvp {

using json = nlohmann::json;

namespace {

constexpr double kWidth = 1240;            // every wide chart, in px
constexpr double kLeft = 92, kRight = 16;  // plot margins of the wide charts (row labels left)
constexpr size_t kWarpRectLimit = 20000;   // warp bars on the whole page, every timeline together
constexpr size_t kTaskRectLimit = 10000;   // shading-array task bars
constexpr size_t kMaxBarRows = 200;        // kernels drawn in a per-kernel chart (the tables list all)
constexpr size_t kCounterBins = 400;       // columns of a counter chart

// --- text ------------------------------------------------------------------------------------

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

// Characters of UTF-8 text (to estimate its width).
size_t chars(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

// At most `n` characters, with an ellipsis when cut (never inside a UTF-8 sequence).
std::string cut(const std::string& s, size_t n) {
    if (chars(s) <= n) return s;
    size_t seen = 0, i = 0;
    for (; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n - 1) break;
    return s.substr(0, i) + "…";
}

double text_px(const std::string& s, double font = 11) { return double(chars(s)) * font * 0.6; }

// A fixed number of decimals; "–" for a missing value; never "-0.0".
std::string fmt(double v, int decimals) {
    if (!std::isfinite(v)) return "–";
    const double m = std::pow(10.0, decimals);
    v = std::round(v * m) / m;
    if (v == 0) v = 0;  // -0
    // (to_chars with a precision writes what printf's "%.*f" would, without printf's cost: the
    // page holds tens of thousands of numbers)
    char b[400];  // the longest double, fixed, with the decimals asked for
    const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals);
    return r.ec == std::errc() ? std::string(b, r.ptr) : "–";
}

// An SVG coordinate: one decimal, no ".0".
std::string px(double v) {
    std::string s = fmt(v, 1);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s;
}

std::string ns(double v) { return fmt(v, 1); }

// --- JSON access -----------------------------------------------------------------------------

const json* at(const json* j, const char* key) {
    if (!j || !j->is_object()) return nullptr;
    auto it = j->find(key);
    return it == j->end() ? nullptr : &*it;
}
const json* at(const json& j, const char* key) { return at(&j, key); }

const json* path(const json& j, std::initializer_list<const char*> keys) {
    const json* p = &j;
    for (const char* k : keys) p = at(p, k);
    return p;
}

double num(const json* v) { return v && v->is_number() ? v->get<double>() : NAN; }

std::string str(const json* j, const char* key, const std::string& otherwise = "") {
    const json* v = at(j, key);
    return v && v->is_string() ? v->get<std::string>() : otherwise;
}
std::string str(const json& j, const char* key, const std::string& otherwise = "") { return str(&j, key, otherwise); }

// A value as written: integers as they are, numbers with at most 3 decimals, text escaped.
std::string value_text(const json* v) {
    if (!v || v->is_null()) return "–";
    if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
    if (v->is_number_integer() || v->is_number_unsigned()) return v->dump();
    if (v->is_number()) {
        std::string s = fmt(v->get<double>(), 3);
        if (s.find('.') != std::string::npos) {
            while (s.back() == '0') s.pop_back();
            if (s.back() == '.') s.pop_back();
        }
        return s;
    }
    if (v->is_string()) return esc(v->get<std::string>());
    if (v->is_array()) {
        std::string o;
        for (const json& e : *v) o += (o.empty() ? "" : " vs ") + value_text(&e);
        return o;
    }
    return esc(v->dump());
}

const json& array_or_empty(const json* v) {
    static const json empty = json::array();
    return v && v->is_array() ? *v : empty;
}

// A variant's own results.json (an empty object if it has none).
const json& variant_results(const json& v) {
    static const json empty = json::object();
    const json* r = at(v, "results");
    return r && r->is_object() ? *r : empty;
}

// --- colours -----------------------------------------------------------------------------------

const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c564b",
                                "#1f77b4", "#d62728", "#9467bd", "#2ca02c"};
constexpr size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];
const char* const kMixed = "#8a8a8a";  // merged bars of several kernels

const char* const kStageOrder[] = {"host",        "doorbell_to_fetch", "decode",           "queue_wait",
                                   "descriptor_fetch", "wlm_setup",    "register",         "block_dispatch",
                                   "warp_launch", "instruction_fetch", "kernarg_prefetch", "first_issue",
                                   "kernarg_load"};
const char* const kStageColours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d",
                                     "#f1ce63", "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#b07aa1", "#d4a6c8",
                                     "#9c755f", "#79706e"};

const char* const kVertex = "#f28e2b", *const kPixel = "#4e79a7";
const char* const kScalarLevels[] = {"kernel", "workgroup", "warp", "slice"};
const char* const kScalarColours[] = {"#4e79a7", "#59a14f", "#f28e2b", "#e15759"};
// Darker than the kernel palette, so that a variant is not taken for a kernel.
const char* const kVariantColours[] = {"#3b3b98", "#c0392b", "#138d75", "#b9770e", "#7d3c98", "#2e86c1", "#5d6d7e", "#a04000"};

// Names to colour indexes, in order of first appearance (results first, then the traces).
struct Registry {
    std::vector<std::string> names;
    std::map<std::string, int> index;
    int id(const std::string& n) {
        auto it = index.find(n);
        if (it != index.end()) return it->second;
        index.emplace(n, int(names.size()));
        names.push_back(n);
        return int(names.size() - 1);
    }
    int find(const std::string& n) const {
        auto it = index.find(n);
        return it == index.end() ? -1 : it->second;
    }
    const char* colour(int i) const { return i < 0 ? kMixed : kPalette[size_t(i) % kPaletteSize]; }
    std::string name(int i) const { return i < 0 ? "several kernels" : names[size_t(i)]; }
};

// --- scales and axes ---------------------------------------------------------------------------

struct Scale {
    double lo = 0, hi = 1, a = 0, b = 1;  // data [lo, hi] -> px [a, b]
    double operator()(double v) const { return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : a; }
};

struct Unit {
    std::string name;
    double div;
};
Unit time_unit(double span_ns) { return span_ns >= 20000 ? Unit{"µs", 1000} : Unit{"ns", 1}; }

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
    return fmt(v, std::min(d, 6));
}

// A horizontal axis at `y` (ticks, labels, title below), grid lines from `top` down to it.
std::string x_axis(const Scale& s, const Unit& u, double top, double y, const std::string& title) {
    std::ostringstream o;
    double step = 1;
    const auto t = ticks(s.lo / u.div, s.hi / u.div, std::max(2, int((s.b - s.a) / 110)), &step);
    o << "<g class=\"axis x-axis\">";
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

struct Swatch {
    std::string label, colour;
    double opacity = 1;
    bool line = false;  // a dashed line rather than a square
};

// The swatches left to right from (x, y), wrapped at `right`; returns the height used.
double svg_legend(std::ostringstream& o, const std::vector<Swatch>& items, double x, double y, double right,
                  const std::string& heading = "") {
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

// --- Gantt rows (warps on slots, tasks on cores) and their bound -------------------------------

struct Bar {
    double s, e;  // ns
    int key;      // colour index; -1: several
    uint32_t count = 1;
    int64_t a = 0, b = 0, c = 0;  // per kind: block, warp, instructions / task, draw, switched
};
struct Row {
    std::string label;
    std::vector<Bar> bars;
};
struct Gantt {
    std::vector<Row> rows;
    size_t bars() const {
        size_t n = 0;
        for (const Row& r : rows) n += r.bars.size();
        return n;
    }
};

// How a set of charts was bounded: `gap_ns` < 0 when nothing was merged.
struct Bound {
    size_t total = 0, drawn = 0;
    double gap_ns = -1;
    bool across_keys = false;
};

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

struct GanttStyle {
    std::string svg_class, svg_attrs, bar_class, data_attr, aria;
    double row_h = 6;
    std::function<const char*(int)> colour;
    std::function<std::string(int)> key_name;
    std::function<std::string(const Bar&, const std::string& row)> title;  // of an unmerged bar
    std::string merged_noun;                                                   // "warps"
    std::vector<Swatch> legend;
    std::string axis_title = "simulated time";
};

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
    for (size_t r = 0; r < g.rows.size(); r += every) {
        const double ry = top + rh * double(r);
        body << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + std::min(rh, 12.0) / 2 + 3.5) << "\" text-anchor=\"end\">"
             << esc(cut(g.rows[r].label, 14)) << "</text>";
        if (r > 0 && every > 1)
            body << "<line class=\"row-sep\" x1=\"" << px(xs.a) << "\" y1=\"" << px(ry) << "\" x2=\"" << px(xs.b)
                 << "\" y2=\"" << px(ry) << "\"/>";
    }
    body << "</g><g class=\"bars\">";
    const double inset = rh > 5 ? 0.5 : 0, bh = rh > 5 ? rh - 1 : rh;
    for (size_t r = 0; r < g.rows.size(); ++r) {
        const std::string ry = px(top + rh * double(r) + inset), h = px(bh);
        bool odd = false;
        for (const Bar& b : g.rows[r].bars) {
            odd = !odd;
            const double x0 = xs(b.s), w = std::max(0.6, xs(b.e) - x0);
            const std::string name = st.key_name(b.key);
            body << "<rect class=\"" << st.bar_class << (b.count > 1 ? " merged" : "") << "\" " << st.data_attr << "=\""
                 << esc(name) << "\"";
            if (b.count > 1) body << " data-count=\"" << b.count << "\"";
            body << " x=\"" << px(x0) << "\" y=\"" << ry << "\" width=\"" << px(w) << "\" height=\"" << h
                 << "\" fill=\"" << st.colour(b.key) << (odd ? "" : "\" fill-opacity=\"0.7") << "\"><title>";
            if (b.count > 1)
                body << esc(name) << ": " << b.count << " " << st.merged_noun << " merged, " << ns(b.s) << "–" << ns(b.e)
                     << " ns, " << esc(g.rows[r].label);
            else
                body << esc(st.title(b, g.rows[r].label));
            body << "</title></rect>";
        }
    }
    body << "</g>";
    body << x_axis(xs, u, top, top + plot_h, st.axis_title);
    const double h = top + plot_h + 40;
    return svg_open(st.svg_class, st.svg_attrs, kWidth, h, st.aria) + body.str() + "</svg>";
}

// --- counters (step functions), binned ---------------------------------------------------------

struct Counter {
    std::vector<double> t;                // ns, in order
    std::vector<std::vector<double>> v;   // one value per series at each t
};

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

// --- the trace, read once ------------------------------------------------------------------------

struct TraceView {
    bool present = false;
    std::string note;                    // otherData.note (the trace was full)
    std::map<uint32_t, Gantt> sms;       // SM -> rows = warp slots
    std::map<uint32_t, Counter> scalar;  // SM -> kernel, workgroup, warp, slice
    Counter cores;                       // vertex, pixel
    Gantt usa;                           // rows = shading cores
    double end_ns = 0;
    size_t warps = 0;
};

uint32_t u32(const json* v) { return v && v->is_number() ? uint32_t(std::max(0.0, v->get<double>())) : 0; }
int64_t i64(const json* v) { return v && v->is_number() ? int64_t(v->get<double>()) : -1; }

TraceView read_trace(const json* trace, Registry& kernels) {
    TraceView tv;
    const json* events = at(trace, "traceEvents");
    if (!events || !events->is_array()) return tv;
    tv.present = true;
    tv.note = str(at(trace, "otherData"), "note");
    std::map<uint32_t, uint32_t> slots;           // SM -> slot count (from the thread names)
    std::map<uint32_t, std::string> core_names;   // shading core -> name
    std::map<uint32_t, std::vector<Bar>> task_rows;
    std::map<uint32_t, std::map<uint32_t, std::vector<Bar>>> warp_rows;  // SM -> slot -> warps
    std::set<uint32_t> sms;
    for (const json& e : *events) {
        if (!e.is_object()) continue;
        const std::string ph = str(e, "ph"), name = str(e, "name"), cat = str(e, "cat");
        const uint32_t pid = u32(at(e, "pid")), tid = u32(at(e, "tid"));
        const json* args = at(e, "args");
        const double ts = num(at(e, "ts")) * 1000, dur = ph == "X" ? num(at(e, "dur")) * 1000 : 0;
        if (ph == "M") {
            const std::string arg = str(args, "name");
            if (name == "process_name" && pid >= 100 && arg.rfind("sm[", 0) == 0) sms.insert(pid - 100);
            if (name == "thread_name" && pid >= 100 && arg.rfind("warp slot ", 0) == 0)
                slots[pid - 100] = std::max(slots[pid - 100], tid + 1);
            if (name == "thread_name" && pid == 6 && tid < 1000) core_names[tid] = arg;
            continue;
        }
        if (!std::isfinite(ts)) continue;
        tv.end_ns = std::max(tv.end_ns, ts + (std::isfinite(dur) ? dur : 0));
        if (cat == "warp" && ph == "X" && pid >= 100) {
            std::string k = str(args, "kernel");
            if (k.empty()) k = name.substr(0, name.find(" b"));
            Bar b{ts, ts + dur, kernels.id(k)};
            b.a = i64(at(args, "block"));
            b.b = i64(at(args, "warp"));
            b.c = i64(at(args, "instructions"));
            warp_rows[pid - 100][tid].push_back(b);
            sms.insert(pid - 100);
            ++tv.warps;
        } else if (cat == "shading" && ph == "X" && pid == 6 && tid < 1000) {
            Bar b{ts, ts + dur, name == "vertex" ? 0 : 1};
            b.a = i64(at(args, "task"));
            b.c = at(args, "switched") ? 1 : 0;
            task_rows[tid].push_back(b);
        } else if (ph == "C" && name == "scalar pool" && pid >= 100) {
            Counter& c = tv.scalar[pid - 100];
            c.t.push_back(ts);
            std::vector<double> v;
            for (const char* l : kScalarLevels) v.push_back(std::max(0.0, num(at(args, l))));
            for (double& x : v)
                if (!std::isfinite(x)) x = 0;
            c.v.push_back(v);
        } else if (ph == "C" && name == "cores by type" && pid == 6) {
            tv.cores.t.push_back(ts);
            double v = num(at(args, "vertex")), p = num(at(args, "pixel"));
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

// --- the page's pieces -------------------------------------------------------------------------

struct Page {
    const json& results;
    Registry kernels;
    std::vector<TraceView> traces;  // one per variant (one without variants)
    std::vector<std::string> variant_names;
    bool variants = false;
};

std::string warp_title(const Registry& k, const Bar& b, const std::string& row) {
    std::ostringstream o;
    o << k.name(b.key) << " block " << b.a << " warp " << b.b << ": " << ns(b.s) << "–" << ns(b.e) << " ns ("
      << ns(b.e - b.s) << " ns), " << row;
    if (b.c >= 0) o << ", " << b.c << " instructions";
    return o.str();
}

// The per-SM warp charts of one trace; `compact` for the variant comparison.
std::string sm_timelines(TraceView& tv, const Registry& kernels, const Scale& xs, const Unit& u, bool compact,
                         const std::string& variant, const char* variant_colour = nullptr) {
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

std::string badge(bool ok, const std::string& text) {
    return std::string("<span class=\"badge ") + (ok ? "ok" : "bad") + "\">" + esc(text) + "</span>";
}

std::string policy_text(const json* policy) {
    std::string o;
    if (policy && policy->is_object())
        for (auto it = policy->begin(); it != policy->end(); ++it)
            o += (o.empty() ? "" : " · ") + esc(it.key()) + " <b>" + value_text(&it.value()) + "</b>";
    return o.empty() ? "–" : o;
}

std::string bounds_text(const json& e) {
    const json *mn = at(e, "min"), *mx = at(e, "max");
    const bool has_min = mn && mn->is_number(), has_max = mx && mx->is_number();
    if (has_min && has_max && num(mn) == num(mx)) return "= " + value_text(mn);
    std::string o;
    if (has_min) o += "≥ " + value_text(mn);
    if (has_max) o += (o.empty() ? "" : " and ") + std::string("≤ ") + value_text(mx);
    return o.empty() ? "–" : o;
}

std::string header(const Page& p) {
    const json& r = p.results;
    std::ostringstream o;
    const std::string status = str(r, "status", "?");
    o << "<header id=\"summary\">\n<h1>gpuvp report: <span id=\"scenario-name\">" << esc(str(r, "scenario", "?"))
      << "</span></h1>\n<table class=\"facts\" id=\"facts\">\n";
    o << "<tr><th>status</th><td id=\"status\">" << badge(status == "ok", status) << "</td></tr>\n";
    {
        const json& ex = array_or_empty(at(r, "expectations"));
        size_t passed = 0;
        for (const json& e : ex) passed += at(e, "passed") && at(e, "passed")->is_boolean() && at(e, "passed")->get<bool>();
        o << "<tr><th>expectations</th><td id=\"expectations-summary\">"
          << (ex.empty() ? std::string("none") : badge(passed == ex.size(), std::to_string(passed) + " of " + std::to_string(ex.size()) + " passed"))
          << "</td></tr>\n";
    }
    o << "<tr><th>policies</th><td id=\"policies\">" << policy_text(at(r, "policy"));
    if (p.variants) o << " <span class=\"muted\">(variant " << esc(p.variant_names[0]) << ")</span>";
    o << "</td></tr>\n";
    const double end = num(at(r, "sim_end_ns"));
    o << "<tr><th>simulated end</th><td id=\"sim-end\">" << ns(end) << " ns";
    if (end >= 1000) o << " (" << fmt(end / 1000, 3) << " µs)";
    o << "</td></tr>\n";
    const json& ks = array_or_empty(at(r, "kernels"));
    size_t ok = 0;
    for (const json& k : ks) ok += str(k, "status") == "ok";
    o << "<tr><th>kernels</th><td>" << ks.size() << " (" << ok << " ok)";
    const json* totals = at(r, "totals");
    if (at(totals, "warps")) o << " · " << value_text(at(totals, "warps")) << " warps";
    if (at(totals, "warp_instructions")) o << " · " << value_text(at(totals, "warp_instructions")) << " warp-instructions";
    o << "</td></tr>\n";
    const json& draws = array_or_empty(path(r, {"usa", "draws"}));
    if (!draws.empty()) {
        size_t dok = 0;
        for (const json& d : draws) dok += str(d, "status") == "ok";
        o << "<tr><th>draws</th><td>" << draws.size() << " (" << dok << " ok)</td></tr>\n";
    }
    o << "<tr><th>trace</th><td>";
    if (!p.traces.empty() && p.traces[0].present) {
        o << value_text(path(r, {"trace", "events"})) << " events";
        if (!p.traces[0].note.empty()) o << " · <span class=\"warn\">" << esc(p.traces[0].note) << "</span>";
    } else
        o << "run without a trace";
    o << "</td></tr>\n";
    if (p.variants) {
        o << "<tr><th>variants</th><td>";
        for (size_t i = 0; i < p.variant_names.size(); ++i)
            o << (i ? ", " : "") << "<a href=\"#variants\">" << esc(p.variant_names[i]) << "</a>";
        o << "</td></tr>\n";
    }
    o << "</table>\n";
    // Kernels and draws that did not end ok, and the errors.
    std::ostringstream bad;
    for (const json& k : ks)
        if (str(k, "status") != "ok")
            bad << "<li>kernel <b>" << esc(str(k, "name")) << "</b>: " << esc(str(k, "status")) << "</li>";
    for (const json& d : draws)
        if (str(d, "status") != "ok")
            bad << "<li>draw <b>" << esc(str(d, "name")) << "</b>: " << esc(str(d, "status")) << "</li>";
    const json& errors = array_or_empty(at(r, "errors"));
    size_t shown = 0;
    for (const json& e : errors) {
        if (++shown > 20) {
            bad << "<li>… and " << errors.size() - 20 << " more errors (results.json, errors)</li>";
            break;
        }
        bad << "<li>error at " << ns(num(at(e, "time_ns"))) << " ns: " << esc(str(e, "error")) << " (" << esc(str(e, "field"))
            << "): " << esc(str(e, "detail")) << "</li>";
    }
    if (!bad.str().empty()) o << "<ul class=\"problems\" id=\"problems\">" << bad.str() << "</ul>\n";
    // A hang: the GPU's state when the watchdog stopped the run or the machine went idle.
    if (const json* h = at(r, "hang"); h && h->is_object()) {
        o << "<h2 id=\"hang-heading\">Hang</h2>\n<p>"
          << (str(*h, "cause") == "watchdog"
                  ? "The watchdog saw no forward progress from " + ns(num(at(*h, "no_progress_since_ns"))) + " to " +
                        ns(num(at(*h, "detected_ns"))) + " ns"
                  : "The simulated machine went idle at " + ns(num(at(*h, "detected_ns"))) + " ns")
          << " with " << value_text(at(*h, "in_flight")) << " kernel(s) or draw(s) in flight. The GPU's state then:</p>\n"
          << "<pre id=\"hang\">";
        for (const json& line : array_or_empty(at(*h, "state"))) o << esc(line.is_string() ? line.get<std::string>() : "") << "\n";
        o << "</pre>\n";
    }

    const json& ex = array_or_empty(at(r, "expectations"));
    o << "<h2 id=\"expectations-heading\">Expectations</h2>\n";
    if (ex.empty())
        o << "<p class=\"empty\" id=\"expectations\">the scenario has no expectations</p>\n";
    else {
        bool variant_col = false;
        size_t passed = 0;
        for (const json& e : ex) {
            variant_col = variant_col || at(e, "variant");
            passed += at(e, "passed") && at(e, "passed")->is_boolean() && at(e, "passed")->get<bool>();
        }
        o << "<p>" << passed << " of " << ex.size() << " passed.</p>\n<table class=\"data\" id=\"expectations\"><thead><tr><th>line</th>"
          << (variant_col ? "<th>variant</th>" : "") << "<th>subject</th><th>check</th><th>value</th><th>bounds</th><th>result</th></tr></thead><tbody>\n";
        for (const json& e : ex) {
            const bool pass = at(e, "passed") && at(e, "passed")->is_boolean() && at(e, "passed")->get<bool>();
            o << "<tr class=\"expectation " << (pass ? "pass" : "fail") << "\" data-passed=\"" << (pass ? "true" : "false")
              << "\"><td>" << value_text(at(e, "line")) << "</td>";
            if (variant_col) {
                std::string v = "all";
                if (at(e, "variant")) v = value_text(at(e, "variant"));
                if (const json* vs = at(e, "variants"); vs && vs->is_array()) {
                    v.clear();
                    for (const json& x : *vs) v += (v.empty() ? "" : " vs ") + value_text(&x);
                }
                o << "<td>" << v << "</td>";
            }
            std::string subject;
            if (at(e, "kernel")) subject = "kernel " + value_text(at(e, "kernel"));
            if (at(e, "draw")) subject = "draw " + value_text(at(e, "draw"));
            if (at(e, "priority")) subject += (subject.empty() ? "" : ", ") + std::string("priority ") + value_text(at(e, "priority"));
            if (at(e, "compare")) {
                o << "<td>comparison</td><td><code>" << value_text(at(e, "compare"))
                  << "</code></td><td>" << value_text(at(e, "value")) << "</td><td>as written</td>";
            } else {
                o << "<td>" << (subject.empty() ? "run" : subject) << "</td><td><code>" << value_text(at(e, "metric"))
                  << "</code></td><td>" << value_text(at(e, "value")) << "</td><td>" << bounds_text(e) << "</td>";
            }
            o << "<td>" << badge(pass, pass ? "pass" : "FAIL") << "</td></tr>\n";
        }
        o << "</tbody></table>\n";
    }
    o << "</header>\n";
    return o.str();
}

std::string variant_note(const Page& p) {
    if (!p.variants) return "";
    return "<p class=\"variant-note\">Variant <b>" + esc(p.variant_names[0]) + "</b>, the first of " +
           std::to_string(p.variant_names.size()) + "; the comparison is under <a href=\"#variants\">Variants</a>.</p>\n";
}

double sim_end(const json& r, const TraceView* tv) {
    double e = num(at(r, "sim_end_ns"));
    if (!std::isfinite(e)) e = 0;
    if (tv) e = std::max(e, tv->end_ns);
    return e > 0 ? e : 1;
}

// Kernels as spans: submit -> first warp (waiting), -> last block (running), -> completion.
std::string kernel_spans(const json& r, const Registry& kernels, const Scale& xs, const Unit& u,
                         const std::string& variant = "", const char* variant_colour = nullptr) {
    const json& ks = array_or_empty(at(r, "kernels"));
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
        const json& k = ks[i];
        const std::string name = str(k, "name");
        const char* colour = kernels.colour(kernels.find(name));
        const double ry = top + rh * double(i);
        const double submit = num(at(k, "submit_ns")), first = num(at(k, "first_warp_start_ns")),
                     end = num(at(k, "end_ns")), complete = num(at(k, "complete_ns"));
        // A kernel with `instances` is one span, from instance 0's submit to the last completion.
        const double count = num(at(at(k, "instances"), "count"));
        const std::string instances = std::isfinite(count) ? "; " + fmt(count, 0) + " instances" : "";
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
              << " ns); status " << esc(str(k, "status")) << esc(instances) << "</title></rect>";
        };
        if (std::isfinite(first)) {
            seg(submit, first, 0.3, "waiting");
            seg(first, std::isfinite(end) ? end : complete, 1, "running");
            if (std::isfinite(end)) seg(end, complete, 0.6, "completing");
        } else
            seg(submit, complete, 0.3, "never ran a warp");
        if (!drawn && rh >= 12)
            o << "<text class=\"muted\" x=\"" << px(xs.a + 4) << "\" y=\"" << px(ry + rh / 2 + 4) << "\">"
              << esc(cut(str(k, "status"), 150)) << "</text>";
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
        const json& vs = *at(p.results, "variants");
        double end = 1;
        for (size_t i = 0; i < vs.size(); ++i)
            end = std::max(end, sim_end(variant_results(vs[i]), p.traces[i].present ? &p.traces[i] : nullptr));
        const Scale xs{0, end, kLeft, kWidth - kRight};
        o << "<p>Each variant's kernels, on one time scale. The warps of every SM, variant by variant, are under "
             "<a href=\"#variant-timelines\">Variants</a>.</p>\n";
        bool any = false;
        for (size_t i = 0; i < vs.size(); ++i) any = any || !array_or_empty(at(variant_results(vs[i]), "kernels")).empty();
        if (!any) o << "<p class=\"empty\">no kernels in this run</p>\n";
        for (size_t i = 0; i < vs.size() && any; ++i)
            o << kernel_spans(variant_results(vs[i]), p.kernels, xs, time_unit(end), p.variant_names[i], kVariantColours[i % 8]);
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

std::string wbr(const std::string& s) {
    std::string o;
    for (char c : s) {
        o += c;
        if (c == '_') o += "<wbr>";
    }
    return o;
}

std::string stage_colour(const std::string& stage, const std::vector<std::string>& order) {
    const size_t i = size_t(std::find(order.begin(), order.end(), stage) - order.begin());
    return kStageColours[i % (sizeof kStageColours / sizeof kStageColours[0])];
}

std::string section_stages(const Page& p) {
    const json& ks = array_or_empty(at(p.results, "kernels"));
    std::ostringstream o;
    o << "<section id=\"launch-stages\">\n<h2>Launch stages</h2>\n" << variant_note(p);
    if (ks.empty()) {
        o << "<p class=\"empty\">no kernels in this run</p>\n</section>\n";
        return o.str();
    }
    o << "<p>Each kernel's launch, from submit to its first instruction with its arguments in hand "
         "(<code>launch_latency_ns</code>), as its stages laid end to end (<code>kernels[].stages[].ns</code>).</p>\n";
    std::vector<std::string> order(std::begin(kStageOrder), std::end(kStageOrder));
    std::set<std::string> present;
    double longest = 0;
    for (const json& k : ks) {
        double total = 0;
        for (const json& s : array_or_empty(at(k, "stages"))) {
            const std::string name = str(s, "stage");
            if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
            present.insert(name);
            const double v = num(at(s, "ns"));
            if (std::isfinite(v)) total += std::max(0.0, v);
        }
        longest = std::max(longest, total);
    }
    std::vector<std::string> shown;
    for (const std::string& s : order)
        if (present.count(s)) shown.push_back(s);
    // The chart.
    const size_t n = std::min(ks.size(), kMaxBarRows);
    const double left = 150, right = kWidth - 90;
    const Unit u = time_unit(longest);
    const Scale xs{0, longest > 0 ? longest : 1, left, right};
    std::ostringstream c;
    std::vector<Swatch> legend;
    for (const std::string& s : shown) legend.push_back({s, stage_colour(s, order)});
    double y = 6 + svg_legend(c, legend, left, 6, kWidth - kRight, "stages:") + 8;
    const double rh = n > 40 ? 10 : 22, top = y;
    for (size_t i = 0; i < n; ++i) {
        const json& k = ks[i];
        const std::string name = str(k, "name");
        const double ry = top + rh * double(i);
        c << "<g class=\"stage-bar\" data-kernel=\"" << esc(name) << "\"><text x=\"" << px(left - 6) << "\" y=\""
          << px(ry + rh / 2 + 4) << "\" text-anchor=\"end\">" << esc(cut(name, 22)) << "<title>" << esc(name)
          << "</title></text>";
        double x = 0;
        const json& stages = array_or_empty(at(k, "stages"));
        for (const json& s : stages) {
            const std::string stage = str(s, "stage");
            const double v = std::max(0.0, std::isfinite(num(at(s, "ns"))) ? num(at(s, "ns")) : 0);
            c << "<rect class=\"stage\" data-stage=\"" << esc(stage) << "\" x=\"" << px(xs(x)) << "\" y=\"" << px(ry + 2)
              << "\" width=\"" << px(std::max(0.0, xs(x + v) - xs(x))) << "\" height=\"" << px(rh - 4) << "\" fill=\""
              << stage_colour(stage, order) << "\"><title>" << esc(name) << ": " << esc(stage) << " " << ns(v) << " ns ("
              << ns(num(at(s, "start_ns"))) << "–" << ns(num(at(s, "end_ns"))) << " ns)</title></rect>";
            x += v;
        }
        if (stages.empty())
            c << "<text class=\"muted\" x=\"" << px(left + 4) << "\" y=\"" << px(ry + rh / 2 + 4) << "\">no launch stages ("
              << esc(cut(str(k, "status"), 80)) << ")</text>";
        else if (rh >= 14)
            c << "<text x=\"" << px(xs(x) + 5) << "\" y=\"" << px(ry + rh / 2 + 4) << "\">" << ns(x) << " ns</text>";
        c << "</g>";
    }
    c << x_axis(xs, u, top, top + rh * double(n), "time from submit");
    const double h = top + rh * double(n) + 40;
    o << "<figure class=\"chart\"><figcaption>Launch stages per kernel"
      << (ks.size() > n ? " (the first " + std::to_string(n) + " of " + std::to_string(ks.size()) + "; the table lists all)" : "")
      << "</figcaption>" << svg_open("stage-chart", " id=\"stage-chart\"", kWidth, h, "launch stages per kernel") << c.str()
      << "</svg></figure>\n";
    // The table: a column per kernel (a row per kernel when there are many).
    std::vector<std::string> heads{"priority"};
    for (const std::string& s : shown) heads.push_back(wbr(s));
    for (const char* f : {"launch latency", "dispatch latency", "response", "turnaround"}) heads.push_back(f);
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> cells;
    for (const json& k : ks) {
        names.push_back(esc(str(k, "name")) + (str(k, "status") == "ok" ? "" : " " + badge(false, cut(str(k, "status"), 60))));
        std::vector<std::string> row{value_text(at(k, "priority"))};
        std::map<std::string, double> v;
        for (const json& s : array_or_empty(at(k, "stages"))) v[str(s, "stage")] = num(at(s, "ns"));
        for (const std::string& s : shown) row.push_back(v.count(s) ? ns(v[s]) : "–");
        for (const char* f : {"launch_latency_ns", "dispatch_latency_ns", "response_ns", "turnaround_ns"})
            row.push_back(ns(num(at(k, f))));
        cells.push_back(row);
    }
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"stage-table\"><thead><tr>";
    if (ks.size() <= 10) {
        o << "<th>ns</th>";
        for (size_t i = 0; i < ks.size(); ++i) o << "<th data-kernel=\"" << esc(str(ks[i], "name")) << "\">" << names[i] << "</th>";
        o << "</tr></thead><tbody>\n";
        for (size_t r = 0; r < heads.size(); ++r) {
            o << "<tr" << (r == shown.size() + 1 ? " class=\"total\"" : "") << "><th>" << heads[r] << "</th>";
            for (size_t i = 0; i < ks.size(); ++i) o << "<td>" << cells[i][r] << "</td>";
            o << "</tr>\n";
        }
    } else {
        o << "<th>kernel</th>";
        for (const std::string& h : heads) o << "<th>" << h << "</th>";
        o << "</tr></thead><tbody>\n";
        for (size_t i = 0; i < ks.size(); ++i) {
            o << "<tr data-kernel=\"" << esc(str(ks[i], "name")) << "\"><th>" << names[i] << "</th>";
            for (const std::string& c : cells[i]) o << "<td>" << c << "</td>";
            o << "</tr>\n";
        }
    }
    o << "</tbody></table></div>\n<p class=\"muted\">Simulated ns. <code>launch latency</code>: submit → first instruction with "
         "its arguments; <code>dispatch latency</code>: doorbell → the same; <code>response</code>: submit → first warp "
         "running; <code>turnaround</code>: submit → completion signal.</p>\n</section>\n";
    return o.str();
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

std::string section_locks(const Page& p) {
    std::ostringstream o;
    o << "<section id=\"locks\">\n<h2>Locks (M2)</h2>\n" << variant_note(p);
    const json* locks = at(p.results, "locks");
    o << "<p>policy <b>" << value_text(at(locks, "policy")) << "</b>";
    if (at(locks, "hold_limit")) o << " · hold limit " << value_text(at(locks, "hold_limit"));
    for (const char* f : {"acquisitions", "sync_failures", "forced_releases", "hold_limit_releases", "redone_instructions", "deadlocks"})
        if (at(locks, f)) o << " · " << f << " " << value_text(at(locks, f));
    o << "</p>\n";
    const json* bp = at(locks, "by_priority");
    std::vector<std::pair<double, std::string>> keys;
    if (bp && bp->is_object())
        for (auto it = bp->begin(); it != bp->end(); ++it) {
            char* e = nullptr;
            const double k = std::strtod(it.key().c_str(), &e);
            keys.push_back({e && *e == 0 ? k : 1e300, it.key()});
        }
    std::sort(keys.begin(), keys.end());
    if (keys.empty()) {
        o << "<p class=\"empty\" id=\"locks-empty\">no locks in this run: no warp executed a <code>lock</code> instruction</p>\n</section>\n";
        return o.str();
    }
    std::vector<std::string> names, groups;
    std::vector<std::pair<double, double>> wait, end;
    for (auto& [k, name] : keys) {
        const json& e = (*bp)[name];
        names.push_back(name);
        groups.push_back("CPR " + name);
        wait.push_back({num(path(e, {"wait_ns", "mean"})), num(path(e, {"wait_ns", "max"}))});
        end.push_back({num(path(e, {"task_end_ns", "mean"})), num(path(e, {"task_end_ns", "max"}))});
    }
    o << "<p>By warp priority (CPR, 0 highest): the wait for each lock acquisition (first try → holding it) and when "
         "the warps of that priority ended (absolute simulated time).</p>\n<div class=\"row\">"
      << pair_bars("lock-wait-chart", "Lock wait per acquisition", names, groups, wait, "wait", 610, "data-priority")
      << pair_bars("lock-end-chart", "Task end (when the warps ended)", names, groups, end, "simulated time", 610, "data-priority")
      << "</div>\n";
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"locks-table\"><thead><tr><th>CPR</th><th>warps</th><th>acquisitions</th>"
         "<th>wait mean ns</th><th>wait max ns</th><th>task end mean ns</th><th>task end max ns</th><th>sync failures</th>"
         "<th>forced releases</th><th>hold-limit releases</th><th>retakes</th><th>redone instructions</th></tr></thead><tbody>\n";
    for (auto& [k, name] : keys) {
        const json& e = (*bp)[name];
        o << "<tr data-priority=\"" << esc(name) << "\"><th>" << esc(name) << "</th><td>" << value_text(at(e, "warps"))
          << "</td><td>" << value_text(at(e, "acquisitions")) << "</td><td>" << ns(num(path(e, {"wait_ns", "mean"})))
          << "</td><td>" << ns(num(path(e, {"wait_ns", "max"}))) << "</td><td>" << ns(num(path(e, {"task_end_ns", "mean"})))
          << "</td><td>" << ns(num(path(e, {"task_end_ns", "max"}))) << "</td>";
        for (const char* f : {"sync_failures", "forced_releases", "hold_limit_releases", "retakes", "redone_instructions"})
            o << "<td>" << value_text(at(e, f)) << "</td>";
        o << "</tr>\n";
    }
    o << "</tbody></table></div>\n</section>\n";
    return o.str();
}

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
    o << stacked_steps(bins, xs, ys, names, colours, "data-series");
    if (line_at > 0)
        o << "<line class=\"limit\" x1=\"" << px(xs.a) << "\" y1=\"" << px(ys(line_at)) << "\" x2=\"" << px(xs.b) << "\" y2=\""
          << px(ys(line_at)) << "\"><title>" << esc(line_label) << "</title></line>";
    o << x_axis(xs, u, bottom, bottom, "simulated time");
    return svg_open(cls, attrs, kWidth, bottom + 40, aria) + o.str() + "</svg>";
}

std::string section_scalar(const Page& p) {
    std::ostringstream o;
    o << "<section id=\"scalar\">\n<h2>Scalar register pools (M3)</h2>\n" << variant_note(p);
    const json* s = at(p.results, "scalar");
    o << "<table class=\"facts\" id=\"scalar-table\"><tr><th>policy</th><td>" << value_text(at(s, "policy"))
      << (at(s, "split") && !at(s, "split")->is_null() ? ", split " + value_text(at(s, "split")) : "") << "</td></tr>"
      << "<tr><th>pool per SM</th><td>" << value_text(at(s, "pool")) << " registers (slice threshold "
      << value_text(at(s, "slice_threshold")) << ")</td></tr><tr><th>peak in use (one SM)</th><td id=\"scalar-peak\">";
    const json* peak = at(s, "pool_peak");
    for (const char* l : kScalarLevels) o << l << " " << value_text(at(peak, l)) << " · ";
    o << "<b>total " << value_text(at(peak, "total")) << "</b></td></tr>";
    for (const char* f : {"allocation_stalls", "blocks_waited_for_pool", "updates", "quota_moves"})
        if (at(s, f)) o << "<tr><th>" << wbr(f) << "</th><td>" << value_text(at(s, f)) << "</td></tr>";
    if (const json* r = at(s, "resident_warps_max"); r && r->is_array()) {
        o << "<tr><th>resident warps max per SM</th><td>";
        for (size_t i = 0; i < r->size(); ++i) o << (i ? ", " : "") << value_text(&(*r)[i]);
        o << "</td></tr>";
    }
    o << "</table>\n";
    const TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    if (!tv || !tv->present) {
        o << "<p class=\"empty\" id=\"scalar-empty\">run without a trace: no pool occupancy over time</p>\n</section>\n";
        return o.str();
    }
    if (tv->scalar.empty()) {
        o << "<p class=\"empty\" id=\"scalar-empty\">no scalar pool in this run"
          << (str(s, "policy") == "per-warp" ? " (policy.scalar per-warp: each warp holds its own scalar registers)"
                                             : " (no scalar pool counter in the trace)")
          << "</p>\n</section>\n";
        return o.str();
    }
    const double end = sim_end(p.results, tv);
    const double pool = num(at(s, "pool"));
    o << "<p>Registers of each SM's pool in use over time, stacked by level. Each of the " << kCounterBins
      << " columns shows the highest occupancy held during it (" << ns(end / double(kCounterBins))
      << " ns each); the dashed line is the pool's size.</p>\n";
    std::vector<std::string> names(std::begin(kScalarLevels), std::end(kScalarLevels)),
        colours(std::begin(kScalarColours), std::end(kScalarColours));
    for (const auto& [sm, c] : tv->scalar) {
        double top = 0;
        for (const auto& v : c.v) top = std::max(top, v[0] + v[1] + v[2] + v[3]);
        o << "<figure class=\"chart\"><figcaption>sm[" << sm << "]: at most " << fmt(top, 0) << " registers in use</figcaption>"
          << counter_chart("scalar-chart", " data-sm=\"" + std::to_string(sm) + "\"", "sm[" + std::to_string(sm) + "] scalar pool",
                           c, end, names, colours, 0, true, "registers", std::isfinite(pool) ? pool : 0,
                           "pool size", 130)
          << "</figure>\n";
    }
    o << "</section>\n";
    return o.str();
}

std::string task_title(const Bar& b, const std::string& row) {
    std::ostringstream o;
    o << (b.key == 0 ? "vertex" : "pixel") << " task " << b.a << ": " << ns(b.s) << "–" << ns(b.e) << " ns (" << ns(b.e - b.s)
      << " ns), " << row << (b.c ? ", loaded the other type's shader state" : "");
    return o.str();
}

// The trace's `cores by type` counter, from time 0: before its first change the array has its
// initial split.
Counter cores_counter(const json& results, const TraceView& tv) {
    Counter cores = tv.cores;
    const double v0 = num(path(results, {"usa", "initial", "vertex"})), p0 = num(path(results, {"usa", "initial", "pixel"}));
    if (!cores.t.empty() && cores.t.front() > 0 && std::isfinite(v0) && std::isfinite(p0)) {
        cores.t.insert(cores.t.begin(), 0.0);
        cores.v.insert(cores.v.begin(), {v0, p0});
    }
    return cores;
}

std::string draw_phases(const json& draws, double end, const std::string& attrs = " id=\"draw-chart\"",
                        const std::string& caption = "Draws: their phases over time") {
    const Unit u = time_unit(end);
    const Scale xs{0, end, kLeft, kWidth - kRight};
    const size_t n = std::min(draws.size(), kMaxBarRows);
    std::ostringstream o;
    double y = 6 + svg_legend(o,
                              {{"before the array (submit → arrived)", "#bbbbbb"},
                               {"vertex tasks (arrived → last vertex task)", kVertex},
                               {"pixel tail (→ last task)", kPixel},
                               {"completion signal (→ complete)", "#555555"}},
                              xs.a, 6, xs.b) + 8;
    const double rh = n > 40 ? 8 : 16, top = y;
    o << "<rect class=\"plot-bg\" x=\"" << px(xs.a) << "\" y=\"" << px(top) << "\" width=\"" << px(xs.b - xs.a)
      << "\" height=\"" << px(rh * double(n)) << "\"/>";
    for (size_t i = 0; i < n; ++i) {
        const json& d = draws[i];
        const std::string name = str(d, "name");
        const double ry = top + rh * double(i);
        o << "<g class=\"draw-span\" data-draw=\"" << esc(name) << "\">";
        if (rh >= 12 || i % 2 == 0)
            o << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + rh / 2 + 4) << "\" text-anchor=\"end\">" << esc(cut(name, 14))
              << "</text>";
        const double t[5] = {num(at(d, "submit_ns")), num(at(d, "arrived_ns")), num(at(d, "vertex_done_ns")),
                             num(at(d, "end_ns")), num(at(d, "complete_ns"))};
        const char* colours[4] = {"#bbbbbb", kVertex, kPixel, "#555555"};
        const char* what[4] = {"before the array", "vertex tasks", "pixel tail", "completion signal"};
        for (int k = 0; k < 4; ++k)
            if (std::isfinite(t[k]) && std::isfinite(t[k + 1]) && t[k + 1] >= t[k])
                o << "<rect x=\"" << px(xs(t[k])) << "\" y=\"" << px(ry + 1) << "\" width=\"" << px(std::max(0.8, xs(t[k + 1]) - xs(t[k])))
                  << "\" height=\"" << px(rh - 2) << "\" fill=\"" << colours[k] << "\"><title>" << esc(name) << ": " << what[k]
                  << " " << ns(t[k]) << "–" << ns(t[k + 1]) << " ns (" << ns(t[k + 1] - t[k]) << " ns)</title></rect>";
        o << "</g>";
    }
    o << x_axis(xs, u, top, top + rh * double(n), "simulated time");
    return "<figure class=\"chart\"><figcaption>" + caption + "</figcaption>" +
           svg_open("draw-chart", attrs, kWidth, top + rh * double(n) + 40, "draws over time") + o.str() + "</svg></figure>\n";
}

std::string section_shading(Page& p, Bound& bound) {
    std::ostringstream o;
    o << "<section id=\"shading\">\n<h2>Unified shading array (M4)</h2>\n" << variant_note(p);
    const json* usa = at(p.results, "usa");
    const json& draws = array_or_empty(at(usa, "draws"));
    o << "<p>policy <b>" << value_text(at(usa, "policy")) << "</b> · " << value_text(path(p.results, {"usa", "cores", "total"}))
      << " cores, initial split " << value_text(path(p.results, {"usa", "initial", "vertex"})) << " vertex / "
      << value_text(path(p.results, {"usa", "initial", "pixel"})) << " pixel</p>\n";
    if (draws.empty()) {
        o << "<p class=\"empty\" id=\"shading-empty\">no draws in this run</p>\n</section>\n";
        return o.str();
    }
    const double util = num(at(usa, "utilization"));
    o << "<table class=\"facts\" id=\"usa-table\"><tr><th>final split</th><td>" << value_text(path(p.results, {"usa", "cores", "vertex"}))
      << " vertex / " << value_text(path(p.results, {"usa", "cores", "pixel"})) << " pixel <code>"
      << value_text(path(p.results, {"usa", "cores", "types"})) << "</code></td></tr><tr><th>reassignments</th><td>"
      << value_text(at(usa, "reassignments")) << " (" << value_text(at(usa, "to_vertex")) << " to vertex, "
      << value_text(at(usa, "to_pixel")) << " to pixel)</td></tr><tr><th>utilization</th><td id=\"usa-utilization\">"
      << fmt(util * 100, 1) << " % of " << ns(num(at(usa, "active_ns"))) << " active ns</td></tr><tr><th>tasks</th><td>"
      << value_text(path(p.results, {"usa", "tasks", "vertex"})) << " vertex, " << value_text(path(p.results, {"usa", "tasks", "pixel"}))
      << " pixel; " << value_text(at(usa, "shader_switches")) << " shader switches; pixel queue peak "
      << value_text(at(usa, "pixel_queue_peak")) << "</td></tr></table>\n";
    const TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    const double end = sim_end(p.results, tv && tv->present ? tv : nullptr);
    if (!tv || !tv->present)
        o << "<p class=\"empty\">run without a trace: no core types over time</p>\n";
    else if (tv->cores.t.empty())
        o << "<p class=\"empty\">no <code>cores by type</code> counter in the trace</p>\n";
    else {
        const double total = num(path(p.results, {"usa", "cores", "total"}));
        const Counter cores = cores_counter(p.results, *tv);
        o << "<figure class=\"chart\"><figcaption>Cores by type over time (each of the " << kCounterBins
          << " columns is the mean over its " << ns(end / double(kCounterBins)) << " ns)</figcaption>"
          << counter_chart("shading-chart", " id=\"shading-chart\"", "cores by type", cores, end, {"vertex", "pixel"},
                           {kVertex, kPixel}, std::isfinite(total) ? total : 0, false, "cores", 0, "", 150)
          << "</figure>\n";
    }
    o << draw_phases(draws, end);
    if (tv && tv->present && !tv->usa.rows.empty()) {
        Gantt& g = p.traces[0].usa;
        const Scale xs{0, end, kLeft, kWidth - kRight};
        bound = bound_bars({&g}, kTaskRectLimit, end / (xs.b - xs.a), end);
        GanttStyle st;
        st.svg_class = "usa-cores";
        st.svg_attrs = " id=\"usa-cores\"";
        st.bar_class = "task";
        st.data_attr = "data-type";
        st.aria = "shading cores over time";
        st.row_h = std::max(3.0, std::min(10.0, std::floor(200 / double(g.rows.size()))));
        st.colour = [](int k) { return k == 0 ? kVertex : k == 1 ? kPixel : kMixed; };
        st.key_name = [](int k) { return std::string(k == 0 ? "vertex" : k == 1 ? "pixel" : "vertex and pixel"); };
        st.title = task_title;
        st.merged_noun = "tasks";
        st.legend = {{"vertex task", kVertex}, {"pixel task", kPixel}};
        o << bound_note(bound, "tasks", "usa-note") << "<figure class=\"chart\"><figcaption>Tasks per shading core ("
          << g.rows.size() << " rows)</figcaption>" << render_gantt(g, xs, time_unit(end), st) << "</figure>\n";
    }
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"draws-table\"><thead><tr><th>draw</th><th>queue</th><th>vertex tasks</th><th>pixel tasks</th>"
         "<th>submit</th><th>arrived</th><th>first task</th><th>vertex done</th><th>end</th><th>complete</th><th>turnaround</th>"
         "<th>status</th></tr></thead><tbody>\n";
    for (const json& d : draws) {
        o << "<tr data-draw=\"" << esc(str(d, "name")) << "\"><th>" << esc(str(d, "name")) << "</th><td>" << esc(str(d, "queue"))
          << "</td><td>" << value_text(at(d, "vertex_tasks")) << "</td><td>" << value_text(at(d, "pixel_tasks")) << "</td>";
        for (const char* f : {"submit_ns", "arrived_ns", "first_task_ns", "vertex_done_ns", "end_ns", "complete_ns", "turnaround_ns"})
            o << "<td>" << ns(num(at(d, f))) << "</td>";
        o << "<td>" << badge(str(d, "status") == "ok", cut(str(d, "status"), 60)) << "</td></tr>\n";
    }
    o << "</tbody></table></div>\n<p class=\"muted\">Simulated ns.</p>\n</section>\n";
    return o.str();
}

// --- variants ---------------------------------------------------------------------------------

const json* kernel_of(const json& r, const std::string& name) {
    for (const json& k : array_or_empty(at(r, "kernels")))
        if (str(k, "name") == name) return &k;
    return nullptr;
}

std::string ratio_text(double v, double base) {
    if (!std::isfinite(v) || !std::isfinite(base) || base == 0) return "";
    return "<span class=\"ratio\">×" + fmt(v / base, 2) + "</span>";
}

// Vertical bars, one group per item (a kernel, a priority, a draw), a bar per variant.
struct Groups {
    std::string data_attr, axis;                   // "data-kernel", "kernel"
    std::vector<std::string> keys;                 // the attribute values (and labels)
    std::vector<std::string> labels;               // shown under each group
    std::function<double(size_t v, size_t g)> value;  // ns; NaN: none
};

std::string grouped_bars(const std::string& metric, const std::string& caption, const Groups& gs,
                         const std::vector<std::string>& names) {
    const size_t ng = std::min(gs.keys.size(), size_t(40)), nv = names.size();
    double hi = 0;
    for (size_t g = 0; g < ng; ++g)
        for (size_t v = 0; v < nv; ++v)
            if (std::isfinite(gs.value(v, g))) hi = std::max(hi, gs.value(v, g));
    const double left = 90, w = kWidth, right = w - kRight;
    std::ostringstream c;
    std::vector<Swatch> legend;
    for (size_t i = 0; i < nv; ++i) legend.push_back({names[i], kVariantColours[i % 8]});
    double y = 6 + svg_legend(c, legend, left, 6, right, "variants:") + 12;
    const double top = y, height = 170, bottom = top + height;
    const Unit u = time_unit(hi);
    const Scale ys{0, hi > 0 ? hi * 1.08 / u.div : 1, bottom, top};
    c << y_axis(ys, left, right, metric + " (" + u.name + ")");
    const double gw = (right - left) / double(std::max<size_t>(1, ng));
    const double bw = std::min(40.0, (gw - 16) / double(std::max<size_t>(1, nv)));
    for (size_t g = 0; g < ng; ++g) {
        const double gx = left + gw * double(g) + (gw - bw * double(nv)) / 2;
        c << "<g class=\"variant-group\" " << gs.data_attr << "=\"" << esc(gs.keys[g]) << "\">";
        for (size_t v = 0; v < nv; ++v) {
            const double val = gs.value(v, g);
            if (!std::isfinite(val)) continue;
            const double yv = ys(val / u.div);
            c << "<rect data-variant=\"" << esc(names[v]) << "\" x=\"" << px(gx + bw * double(v)) << "\" y=\"" << px(yv)
              << "\" width=\"" << px(std::max(1.0, bw - 1)) << "\" height=\"" << px(bottom - yv) << "\" fill=\""
              << kVariantColours[v % 8] << "\"><title>" << esc(gs.labels[g]) << ", " << esc(names[v]) << ": " << esc(metric)
              << " " << ns(val) << " ns</title></rect>";
            if (bw >= 24)
                c << "<text class=\"value\" x=\"" << px(gx + bw * (double(v) + 0.5)) << "\" y=\"" << px(yv - 3)
                  << "\" text-anchor=\"middle\">" << fmt(val / u.div, u.div > 1 ? 1 : 0) << "</text>";
        }
        c << "<text x=\"" << px(left + gw * (double(g) + 0.5)) << "\" y=\"" << px(bottom + 15) << "\" text-anchor=\"middle\">"
          << esc(cut(gs.labels[g], size_t(std::max(3.0, gw / 7)))) << "</text></g>";
    }
    c << "<line class=\"axis-line\" x1=\"" << px(left) << "\" y1=\"" << px(bottom) << "\" x2=\"" << px(right) << "\" y2=\""
      << px(bottom) << "\"/><text class=\"axis-title\" x=\"" << px((left + right) / 2) << "\" y=\"" << px(bottom + 32)
      << "\" text-anchor=\"middle\">" << esc(gs.axis) << "</text>";
    return "<figure class=\"chart\"><figcaption>" + esc(caption) +
           (gs.keys.size() > ng ? " (the first " + std::to_string(ng) + ")" : "") + "</figcaption>" +
           svg_open("variant-chart", " data-metric=\"" + esc(metric) + "\"", w, bottom + 42, caption) + c.str() + "</svg></figure>\n";
}

std::string section_variants(Page& p, const std::vector<size_t>& limits, std::vector<Bound>& bounds) {
    const json& vs = *at(p.results, "variants");
    const size_t nv = vs.size();
    std::vector<const json*> rs;
    for (const json& v : vs) rs.push_back(&variant_results(v));
    std::ostringstream o;
    o << "<section id=\"variants\">\n<h2>Variants</h2>\n<p>The scenario run " << nv
      << " times, each with its overrides; ratios (×) are to the first variant, <b>" << esc(p.variant_names[0])
      << "</b>.</p>\n";
    // The table.
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"variants-table\"><thead><tr><th>metric</th>";
    for (size_t i = 0; i < nv; ++i) {
        o << "<th class=\"variant-col\" data-variant=\"" << esc(p.variant_names[i]) << "\"><span class=\"swatch\" style=\"background:"
          << kVariantColours[i % 8] << "\"></span>" << esc(p.variant_names[i]);
        const json* set = at(vs[i], "set");
        if (set && set->is_object())
            for (auto it = set->begin(); it != set->end(); ++it)
                o << "<br><code class=\"set\">" << esc(it.key()) << "=" << value_text(&it.value()) << "</code>";
        o << "</th>";
    }
    o << "</tr></thead><tbody>\n";
    auto row = [&](const std::string& label, const std::function<const json*(const json&)>& get, bool ratio, int decimals) {
        bool any = false;
        for (const json* r : rs) any = any || (get(*r) && !get(*r)->is_null());
        if (!any) return;
        o << "<tr><th>" << label << "</th>";
        const json* base = get(*rs[0]);
        for (size_t i = 0; i < nv; ++i) {
            const json* v = get(*rs[i]);
            o << "<td>";
            if (v && v->is_number() && decimals >= 0)
                o << fmt(v->get<double>(), decimals);
            else
                o << value_text(v);
            if (ratio && i > 0) o << " " << ratio_text(num(v), num(base));
            o << "</td>";
        }
        o << "</tr>\n";
    };
    auto group = [&](const std::string& title) { o << "<tr class=\"group\"><th colspan=\"" << nv + 1 << "\">" << esc(title) << "</th></tr>\n"; };
    group("run");
    o << "<tr><th>exit code</th>";
    for (size_t i = 0; i < nv; ++i) o << "<td>" << value_text(at(vs[i], "exit_code")) << "</td>";
    o << "</tr>\n";
    row("status", [](const json& r) { return at(r, "status"); }, false, -1);
    std::set<std::string> policy_keys;
    for (const json* r : rs)
        if (const json* pol = at(*r, "policy"); pol && pol->is_object())
            for (auto it = pol->begin(); it != pol->end(); ++it) policy_keys.insert(it.key());
    for (const std::string& k : policy_keys) {
        std::set<std::string> seen;
        for (const json* r : rs) seen.insert(value_text(path(*r, {"policy", k.c_str()})));
        if (seen.size() > 1)
            row("policy." + esc(k), [k](const json& r) { return path(r, {"policy", k.c_str()}); }, false, -1);
    }
    row("sim_end_ns", [](const json& r) { return at(r, "sim_end_ns"); }, true, 1);
    // Kernels: in the first variant's order, then any only in later ones.
    std::vector<std::string> kernels;
    for (const json* r : rs)
        for (const json& k : array_or_empty(at(*r, "kernels")))
            if (std::find(kernels.begin(), kernels.end(), str(k, "name")) == kernels.end()) kernels.push_back(str(k, "name"));
    for (const std::string& k : kernels) {
        group("kernel " + k);
        for (const char* f : {"response_ns", "turnaround_ns", "launch_latency_ns"})
            row(f, [k, f](const json& r) { return at(kernel_of(r, k), f); }, true, 1);
        row("status", [k](const json& r) { return at(kernel_of(r, k), "status"); }, false, -1);
    }
    std::set<std::pair<double, std::string>> prio_order;  // numeric order
    for (const json* r : rs)
        if (const json* bp = path(*r, {"locks", "by_priority"}); bp && bp->is_object())
            for (auto it = bp->begin(); it != bp->end(); ++it) {
                char* e = nullptr;
                const double k = std::strtod(it.key().c_str(), &e);
                prio_order.insert({e && *e == 0 ? k : 1e300, it.key()});
            }
    std::vector<std::string> prios;
    for (const auto& [k, name] : prio_order) prios.push_back(name);
    if (!prios.empty()) {
        group("locks");
        for (const std::string& pr : prios) {
            row("wait mean ns, CPR " + esc(pr), [pr](const json& r) { return path(r, {"locks", "by_priority", pr.c_str(), "wait_ns", "mean"}); }, true, 1);
            row("task end max ns, CPR " + esc(pr), [pr](const json& r) { return path(r, {"locks", "by_priority", pr.c_str(), "task_end_ns", "max"}); }, true, 1);
        }
    }
    bool any_draws = false;
    for (const json* r : rs) any_draws = any_draws || !array_or_empty(path(*r, {"usa", "draws"})).empty();
    std::vector<json> last_draw(nv);
    if (any_draws) {
        group("shading array");
        row("utilization", [](const json& r) { return path(r, {"usa", "utilization"}); }, true, 3);
        row("reassignments", [](const json& r) { return path(r, {"usa", "reassignments"}); }, true, -1);
        for (size_t i = 0; i < nv; ++i) {
            double m = NAN;
            for (const json& d : array_or_empty(path(*rs[i], {"usa", "draws"})))
                if (str(d, "status") == "ok" && std::isfinite(num(at(d, "complete_ns"))))
                    m = std::isfinite(m) ? std::max(m, num(at(d, "complete_ns"))) : num(at(d, "complete_ns"));
            last_draw[i] = std::isfinite(m) ? json(m) : json(nullptr);
        }
        o << "<tr><th>last draw complete ns</th>";
        for (size_t i = 0; i < nv; ++i)
            o << "<td>" << ns(num(&last_draw[i]))
              << (i ? " " + ratio_text(num(&last_draw[i]), num(&last_draw[0])) : "") << "</td>";
        o << "</tr>\n";
    }
    bool scalar = false;
    for (const json* r : rs)
        scalar = scalar || str(at(*r, "scalar"), "policy") == "multilevel" || num(path(*r, {"scalar", "allocation_stalls"})) > 0;
    if (scalar) {
        group("scalar registers");
        row("allocation_stalls", [](const json& r) { return path(r, {"scalar", "allocation_stalls"}); }, true, -1);
        row("pool peak total", [](const json& r) { return path(r, {"scalar", "pool_peak", "total"}); }, true, -1);
    }
    o << "</tbody></table></div>\n";
    // Per-variant expectations are in the header's table.
    if (!kernels.empty()) {
        o << "<h3>Per kernel</h3>\n";
        for (const char* metric : {"response_ns", "turnaround_ns"}) {
            Groups gs{"data-kernel", "kernel", kernels, kernels, [&](size_t v, size_t g) {
                          return num(at(kernel_of(*rs[v], kernels[g]), metric));
                      }};
            o << grouped_bars(metric, std::string(metric) + " per kernel and variant", gs, p.variant_names);
        }
    }
    if (!prios.empty()) {
        std::vector<std::string> keys(prios.begin(), prios.end()), labels;
        for (const std::string& k : keys) labels.push_back("CPR " + k);
        Groups gs{"data-priority", "warp priority (CPR)", keys, labels, [&](size_t v, size_t g) {
                      return num(path(*rs[v], {"locks", "by_priority", keys[g].c_str(), "wait_ns", "mean"}));
                  }};
        o << "<h3>Lock waits</h3>\n" << grouped_bars("lock wait mean", "Lock wait mean per priority and variant", gs, p.variant_names);
    }
    if (any_draws) {
        std::vector<std::string> draws;
        for (const json* r : rs)
            for (const json& d : array_or_empty(path(*r, {"usa", "draws"})))
                if (std::find(draws.begin(), draws.end(), str(d, "name")) == draws.end()) draws.push_back(str(d, "name"));
        auto draw_of = [](const json& r, const std::string& name) -> const json* {
            for (const json& d : array_or_empty(path(r, {"usa", "draws"})))
                if (str(d, "name") == name) return &d;
            return nullptr;
        };
        Groups gs{"data-draw", "draw", draws, draws, [&](size_t v, size_t g) {
                      return num(at(draw_of(*rs[v], draws[g]), "turnaround_ns"));
                  }};
        o << "<h3>Draws</h3>\n" << grouped_bars("turnaround_ns", "Draw turnaround_ns per draw and variant", gs, p.variant_names);
    }
    // Per-SM timelines on one scale.
    double end = 1;
    for (size_t i = 0; i < nv; ++i)
        end = std::max(end, sim_end(*rs[i], i < p.traces.size() && p.traces[i].present ? &p.traces[i] : nullptr));
    const Unit u = time_unit(end);
    const Scale xs{0, end, kLeft, kWidth - kRight};
    o << "<h3>Warps per SM and variant</h3>\n<p>For each SM, one chart per variant, all on the same time scale (0 to "
      << ns(end) << " ns).</p>\n<div id=\"variant-timelines\">\n";
    bounds.assign(nv, Bound{});
    std::set<uint32_t> sms;  // those where some variant ran warps
    bool any_trace = false;
    for (size_t i = 0; i < nv && i < p.traces.size(); ++i) {
        if (!p.traces[i].present) continue;
        any_trace = true;
        std::vector<Gantt*> charts;
        for (auto& [sm, g] : p.traces[i].sms) {
            charts.push_back(&g);
            if (g.bars() > 0) sms.insert(sm);
        }
        bounds[i] = bound_bars(charts, limits[i], end / (xs.b - xs.a), end);
        o << bound_note(bounds[i], "warps", "variant-note-" + std::to_string(i));
    }
    for (size_t i = 0; i < nv; ++i)
        if (i >= p.traces.size() || !p.traces[i].present)
            o << "<p class=\"empty\">variant " << esc(p.variant_names[i]) << ": run without a trace</p>\n";
    if (any_trace && sms.empty()) o << "<p class=\"empty\">no warps ran in any variant</p>\n";
    for (uint32_t sm : sms) {
        o << "<div class=\"variant-sm\" data-sm=\"" << sm << "\"><h4>sm[" << sm << "]</h4>\n";
        std::string idle;
        for (size_t i = 0; i < nv && i < p.traces.size(); ++i) {
            if (!p.traces[i].present) continue;
            auto it = p.traces[i].sms.find(sm);
            if (it == p.traces[i].sms.end() || it->second.bars() == 0) {
                idle += (idle.empty() ? "" : ", ") + esc(p.variant_names[i]);
                continue;
            }
            TraceView one;  // this SM only
            one.present = true;
            one.sms.emplace(sm, std::move(it->second));
            o << sm_timelines(one, p.kernels, xs, u, true, p.variant_names[i], kVariantColours[i % 8]);
            it->second = std::move(one.sms[sm]);
        }
        if (!idle.empty()) o << "<p class=\"empty\">" << idle << ": no warps on sm[" << sm << "]</p>\n";
        o << "</div>\n";
    }
    o << "</div>\n";
    // The shading array of each variant, on the same time scale.
    if (any_draws) {
        o << "<h3>Shading array per variant</h3>\n<p>Cores by type and the draws' phases of each variant, on the same time "
             "scale as above.</p>\n<div id=\"variant-shading\">\n";
        for (size_t i = 0; i < nv; ++i) {
            const std::string name = esc(p.variant_names[i]);
            const std::string sw = std::string("<span class=\"swatch\" style=\"background:") + kVariantColours[i % 8] + "\"></span>";
            const TraceView* tv = i < p.traces.size() && p.traces[i].present ? &p.traces[i] : nullptr;
            if (tv && !tv->cores.t.empty())
                o << "<figure class=\"chart\"><figcaption>" << sw << name << ": cores by type</figcaption>"
                  << counter_chart("variant-shading-chart", " data-variant=\"" + name + "\"", p.variant_names[i] + " cores by type",
                                   cores_counter(*rs[i], *tv), end, {"vertex", "pixel"}, {kVertex, kPixel},
                                   num(path(*rs[i], {"usa", "cores", "total"})), false, "cores", 0, "", 110)
                  << "</figure>\n";
            const json& draws = array_or_empty(path(*rs[i], {"usa", "draws"}));
            if (draws.empty())
                o << "<p class=\"empty\">" << name << ": no draws</p>\n";
            else
                o << draw_phases(draws, end, " data-variant=\"" + name + "\"", sw + name + ": draws, their phases");
        }
        o << "</div>\n";
    }
    o << "</section>\n";
    return o.str();
}

const char* kStyle = R"(
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d1d1f;background:#fff;margin:0}
main{max-width:1280px;margin:0 auto;padding:8px 20px 40px}
h1{font-size:24px;margin:16px 0 10px}
h2{font-size:19px;margin:0 0 8px;padding-top:14px}
h3{font-size:15px;margin:16px 0 6px}
h4{font-size:13px;margin:10px 0 2px}
section{border-top:2px solid #e3e3e8;margin-top:22px}
nav{position:sticky;top:0;background:#f6f6f8;border-bottom:1px solid #ddd;padding:6px 20px;z-index:1;font-size:13px}
nav a{margin-right:14px;color:#2456a4;text-decoration:none}
a{color:#2456a4}
table{border-collapse:collapse;margin:6px 0 10px}
table.facts th{text-align:left;padding:2px 14px 2px 0;color:#555;font-weight:600;vertical-align:top}
table.facts td{padding:2px 0}
table.data{font-size:12.5px}
#stage-table{font-size:12px}
#stage-table th,#stage-table td{padding:3px 6px}
tr.total td,tr.total th{border-top:2px solid #999}
table.data th,table.data td{border:1px solid #d9d9de;padding:3px 7px;vertical-align:top}
table.data thead th{background:#f1f1f4;font-weight:600}
table.numbers td{text-align:right;font-variant-numeric:tabular-nums}
table.data tbody th{text-align:left;font-weight:600}
tr.group th{background:#f7f7fa;text-align:left;color:#444}
tr.fail td{background:#fff1f0}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-weight:600;font-size:12px}
.badge.ok{background:#e3f5e1;color:#1e6b1a}
.badge.bad{background:#fde2e0;color:#a4201a}
.muted{color:#666}
.warn{color:#a45a00}
.empty{color:#666;font-style:italic;background:#f7f7f9;padding:8px 12px;border-radius:4px}
.note{background:#fff8e6;border-left:3px solid #e0a100;padding:6px 10px}
.variant-note{background:#eef3fb;border-left:3px solid #4e79a7;padding:6px 10px}
.ratio{color:#666;font-size:11px}
.swatch{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:baseline}
code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
code.set{font-weight:normal;color:#444}
figure{margin:8px 0 14px}
figcaption{font-weight:600;font-size:13px;margin-bottom:2px}
.row{display:flex;flex-wrap:wrap;gap:16px}
svg{max-width:100%;height:auto;display:block;font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg text{fill:#333}
svg .axis line{stroke:#777;stroke-width:1}
svg .axis line.grid{stroke:#e6e6ea}
svg .axis-title,svg .legend-heading{font-weight:600}
svg .axis-line{stroke:#777}
svg .plot-bg{fill:#fafafc;stroke:#e0e0e6}
svg .row-sep{stroke:#ececf0}
svg .limit{stroke:#333;stroke-width:1.5;stroke-dasharray:5 3}
svg text.value{font-size:10px;fill:#555}
svg text.muted{fill:#888}
.table-wrap{max-width:100%;overflow-x:auto}
ul.problems{color:#a4201a}
footer{color:#777;font-size:12px;margin-top:30px}
)";

}  // namespace

std::string render_report(const json& results, const std::vector<const json*>& traces) {
    Page p{results, {}, {}, {}, false};
    const json* variants = at(results, "variants");
    p.variants = variants && variants->is_array() && !variants->empty();
    // Kernel colours: results order (every variant's), then whatever the traces add.
    for (const json& k : array_or_empty(at(results, "kernels"))) p.kernels.id(str(k, "name"));
    if (p.variants)
        for (const json& v : *variants) {
            p.variant_names.push_back(str(v, "name", "variant " + std::to_string(p.variant_names.size())));
            for (const json& k : array_or_empty(at(variant_results(v), "kernels"))) p.kernels.id(str(k, "name"));
        }
    const size_t n = p.variants ? p.variant_names.size() : 1;
    for (size_t i = 0; i < n; ++i) p.traces.push_back(read_trace(i < traces.size() ? traces[i] : nullptr, p.kernels));

    // The warp bars' budget: the one trace's, or shared by the variants in proportion to their warps.
    std::vector<size_t> counts;
    for (const TraceView& t : p.traces) counts.push_back(t.warps);
    size_t total = 0;
    for (size_t c : counts) total += c;
    std::vector<size_t> limits;
    for (size_t c : counts)
        limits.push_back(total <= kWarpRectLimit ? c : std::max<size_t>(1, size_t(double(kWarpRectLimit) * double(c) / double(total))));

    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>gpuvp report: "
      << esc(str(results, "scenario", "?")) << "</title><style>" << kStyle << "</style></head><body>\n";
    h << "<nav><a href=\"#summary\">Summary</a><a href=\"#expectations-heading\">Expectations</a>";
    if (p.variants) h << "<a href=\"#variants\">Variants</a>";
    h << "<a href=\"#timeline\">Timeline</a><a href=\"#launch-stages\">Launch stages</a><a href=\"#locks\">Locks</a>"
         "<a href=\"#scalar\">Scalar registers</a><a href=\"#shading\">Shading array</a></nav>\n<main>\n";
    h << header(p);
    std::vector<Bound> vbounds;
    Bound tbound, sbound;
    if (p.variants) h << section_variants(p, limits, vbounds);
    h << section_timeline(p, limits[0], tbound);
    h << section_stages(p);
    h << section_locks(p);
    h << section_scalar(p);
    h << section_shading(p, sbound);
    h << "<footer>Made by gpuvp from results.json and trace.json. Times are simulated; hover a bar or an area for its "
         "numbers. This page loads nothing: no script, no font, no link outside itself.</footer>\n</main></body></html>\n";
    return h.str();
}

namespace {
// The whole file (parsing from memory is several times faster than from a stream), read in
// one piece into a string of its size. False if it cannot be read whole (a directory, a read
// error).
bool read_file(const std::string& path, std::string& text) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return false;
    const std::streamoff size = f.tellg();
    if (size < 0 || !f.seekg(0)) return false;
    text.resize(size_t(size));
    return size == 0 || (f.read(text.data(), size) && f.gcount() == size);
}

}  // namespace

// Each value as the parser reads it back: an integer that is not negative as unsigned, a number
// that is not finite as null, an object's members by name.
json as_read_back(const nlohmann::ordered_json& v) {
    using t = nlohmann::ordered_json::value_t;
    switch (v.type()) {
    case t::object: {
        json o = json::object();
        auto& members = o.get_ref<json::object_t&>();
        for (auto it = v.begin(); it != v.end(); ++it) members.emplace(it.key(), as_read_back(it.value()));
        return o;
    }
    case t::array: {
        json a = json::array();
        auto& items = a.get_ref<json::array_t&>();
        items.reserve(v.size());
        for (const auto& e : v) items.push_back(as_read_back(e));
        return a;
    }
    case t::string: return v.get_ref<const std::string&>();
    case t::boolean: return v.get<bool>();
    case t::number_integer: {
        const int64_t i = v.get<int64_t>();
        return i >= 0 ? json(uint64_t(i)) : json(i);
    }
    case t::number_unsigned: return v.get<uint64_t>();
    case t::number_float: {
        const double d = v.get<double>();
        return std::isfinite(d) ? json(d) : json(nullptr);
    }
    case t::binary: return json::binary(v.get_binary());
    case t::null:
    case t::discarded: break;
    }
    return nullptr;
}

namespace {
bool read_json(const std::string& path, json& out) {
    std::string text;
    if (!read_file(path, text)) return false;
    try {
        out = json::parse(text);
    } catch (...) {
        return false;
    }
    return true;
}

// The trace events the page reads: metadata, warps and shading tasks, and the two counters.
bool event_wanted(std::string_view ph, std::string_view cat, std::string_view name) {
    return ph == "M" || (ph == "X" && (cat == "warp" || cat == "shading")) ||
           (ph == "C" && (name == "scalar pool" || name == "cores by type"));
}

// Builds trace.json's document keeping only the events the page reads: a lock-heavy trace is
// mostly lock instants, which would take hundreds of MB parsed. (nlohmann's callback parser
// would do, but it scans the whole array at every element: quadratic on a full trace.)
//
// An event (an object in an array of the root object) is gathered member by member in a flat
// list and becomes an object only if the page reads it (or it has no "ph"), so the many it does
// not read cost no object. Once its "name", "cat" and "ph" are known (gpuvp writes them first)
// and say it is not read, its nested values ("args") are skipped unbuilt. As in a parsed
// document, the last of a repeated member counts; an event that a repeated member makes read
// after its values were skipped sets `skipped_wanted()`, and the file is read again without
// skipping.
class TraceReader : public nlohmann::json_sax<json> {
public:
    TraceReader(json& root, bool skip) : root_(root), skip_allowed_(skip) {}
    bool skipped_wanted() const { return skipped_wanted_; }
    bool null() override { return add(nullptr); }
    bool boolean(bool v) override { return add(v); }
    bool number_integer(number_integer_t v) override { return add(v); }
    bool number_unsigned(number_unsigned_t v) override { return add(v); }
    bool number_float(number_float_t v, const string_t&) override { return add(v); }
    bool string(string_t& v) override { return add(std::move(v)); }
    bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
    bool start_object(std::size_t) override {
        if (skip_ > 0) return ++skip_, true;
        if (!in_event_ && stack_.size() == 2 && stack_[0]->is_object() && stack_[1]->is_array()) {
            in_event_ = true;
            members_.clear();
            ph_ = cat_ = name_ = Seen{};
            skipped_ = false;
            return true;
        }
        return open(json::object());
    }
    bool key(string_t& k) override {
        if (skip_ > 0) return true;
        key_ = std::move(k);
        return true;
    }
    bool end_object() override {
        if (skip_ > 0) return --skip_, true;
        if (in_event_ && stack_.size() == 2) return end_event();
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        if (skip_ > 0) return ++skip_, true;
        return open(json::array());
    }
    bool end_array() override {
        if (skip_ > 0) return --skip_, true;
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    struct Seen {  // an event's "ph", "cat" or "name": its text ("" if not a string)
        bool seen = false;
        std::string text;
    };
    bool at_event_member() const { return in_event_ && stack_.size() == 2; }
    // A member of the event being gathered (not inside one of its nested values).
    void note_member(const json& v) {
        Seen* s = key_ == "ph" ? &ph_ : key_ == "cat" ? &cat_ : key_ == "name" ? &name_ : nullptr;
        if (!s) return;
        s->seen = true;
        s->text = v.is_string() ? v.get<std::string>() : std::string();
    }
    bool known_unwanted() const { return ph_.seen && cat_.seen && name_.seen && !event_wanted(ph_.text, cat_.text, name_.text); }
    bool end_event() {
        in_event_ = false;
        if (ph_.seen && !event_wanted(ph_.text, cat_.text, name_.text)) return true;
        if (skipped_) skipped_wanted_ = true;
        json e = json::object();
        for (auto& [k, v] : members_) e[k] = std::move(v);
        stack_[1]->get_ref<json::array_t&>().push_back(std::move(e));
        return true;
    }
    json* place(json&& v) {
        if (at_event_member()) {
            note_member(v);
            members_.emplace_back(key_, std::move(v));
            return &members_.back().second;  // stays put while its nested values are built
        }
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        json& parent = *stack_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            return &parent.back();
        }
        json& slot = parent[key_];
        slot = std::move(v);
        return &slot;
    }
    bool add(json&& v) {
        if (skip_ == 0) place(std::move(v));
        return true;
    }
    bool open(json&& v) {
        if (skip_allowed_ && at_event_member() && known_unwanted()) {
            skip_ = 1;
            skipped_ = true;
            return true;
        }
        stack_.push_back(place(std::move(v)));
        return true;
    }
    json& root_;
    std::vector<json*> stack_;  // the open objects and arrays (an element is last in its array while open)
    std::string key_;
    bool in_event_ = false;     // gathering an event (stack_: the root, its array)
    std::vector<std::pair<std::string, json>> members_;  // the event's, in order
    Seen ph_, cat_, name_;
    int skip_ = 0;              // > 0: inside a nested value being skipped, at that depth
    const bool skip_allowed_;
    bool skipped_ = false;         // the event being gathered lost a nested value
    bool skipped_wanted_ = false;  // an event that lost one is read
};

}  // namespace

namespace {
// A JSON number's text as nlohmann's parser takes it: an unsigned or a signed integer if it has
// no fraction or exponent and fits, else a double. False for text that is not a number by the
// JSON grammar, or a double out of range (the caller then lets the parser decide).
bool number_value(const char* p, const char* end, json& out) {
    const char* q = p;
    if (q < end && *q == '-') ++q;
    if (q == end || *q < '0' || *q > '9') return false;
    if (*q == '0') ++q;
    else
        while (q < end && *q >= '0' && *q <= '9') ++q;
    bool integer = true;
    if (q < end && *q == '.') {
        integer = false;
        if (++q == end || *q < '0' || *q > '9') return false;
        while (q < end && *q >= '0' && *q <= '9') ++q;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        integer = false;
        if (++q < end && (*q == '+' || *q == '-')) ++q;
        if (q == end || *q < '0' || *q > '9') return false;
        while (q < end && *q >= '0' && *q <= '9') ++q;
    }
    if (q != end) return false;
    if (integer) {
        if (*p == '-') {
            int64_t v;
            if (std::from_chars(p, end, v).ec == std::errc()) return out = v, true;
        } else {
            uint64_t v;
            if (std::from_chars(p, end, v).ec == std::errc()) return out = v, true;
        }
    }
    double d;  // (a whole number too big for its integer type is a double, as in the parser)
    const auto r = std::from_chars(p, end, d);
    if (r.ec != std::errc() || r.ptr != end) return false;
    out = d;
    return true;
}

// The end (its closing quote) of a string whose text starts at p, if that text is plain ASCII
// with nothing escaped (what the parser reads as it stands); nullptr otherwise.
const char* plain_string_end(const char* p, const char* end) {
    while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20 &&
           static_cast<unsigned char>(*p) < 0x80)
        ++p;
    return p < end && *p == '"' ? p : nullptr;
}

// An object of gpuvp's trace layout, [p, end), built without the general parser: members whose
// values are strings without escapes, numbers, true, false, null or one level of such objects
// (an event's "args"). False, `out` unspecified, for anything else (the caller parses it then).
bool build_flat_object(const char* p, const char* end, json& out, int depth = 0) {
    if (p >= end || *p != '{') return false;
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    ++p;
    if (p < end && *p == '}') return p + 1 == end;
    for (;;) {
        if (p >= end || *p != '"') return false;
        const char* const key = ++p;
        if (!(p = plain_string_end(p, end))) return false;
        std::string name(key, p);
        if (++p >= end || *p++ != ':' || p >= end) return false;
        json v;
        if (*p == '"') {
            const char* const text = ++p;
            if (!(p = plain_string_end(p, end))) return false;
            v = std::string(text, p);
            ++p;
        } else if (*p == '{') {
            if (depth > 0) return false;
            const char* const close = std::find(p, end, '}');
            if (close == end || !build_flat_object(p, close + 1, v, depth + 1)) return false;
            p = close + 1;
        } else {
            const char* const value = p;
            while (p < end && *p != ',' && *p != '}') ++p;
            const std::string_view word(value, size_t(p - value));
            if (word == "true") v = true;
            else if (word == "false") v = false;
            else if (word == "null") v = nullptr;
            else if (!number_value(value, p, v)) return false;
        }
        members[std::move(name)] = std::move(v);  // (the last of a repeated member, as parsed)
        if (p >= end) return false;
        if (*p == '}') return p + 1 == end;
        if (*p++ != ',') return false;
    }
}
}  // namespace

// gpuvp's own trace text (Recorder::trace_text: `{"traceEvents":[` events `]`, then the other
// members), read without lexing what the page does not read. Each event's top-level members
// are walked only far enough to find its "name", "cat" and "ph" (the last of each, as a
// parse keeps): an event the page reads is parsed on its own; the others are stepped over,
// counting brackets outside strings. The nested values of an unread event are not checked,
// so this is for text gpuvp wrote, never a file from elsewhere (text that is not JSON inside an
// event it steps over goes unnoticed). Anything it does not expect (another layout, a space
// after a colon, an escape in those three, text after the document) makes it decline: false,
// with `out` untouched.
bool scan_trace_text(const std::string& text, json& out) {
    static constexpr std::string_view kHead = "{\"traceEvents\":[";
    if (text.compare(0, kHead.size(), kHead.data(), kHead.size()) != 0) return false;
    const char* p = text.data() + kHead.size();
    const char* const end = text.data() + text.size();
    // Past a string at q (its opening quote); nullptr if it does not end. `escaped`: it holds a \.
    auto past_string = [end](const char* q, bool& escaped) -> const char* {
        escaped = false;
        for (++q; q < end; ++q) {
            if (*q == '"') return q + 1;
            if (*q == '\\') {
                escaped = true;
                ++q;
            } else if (static_cast<unsigned char>(*q) < 0x20) {
                return nullptr;
            }
        }
        return nullptr;
    };
    // Past an object or array at q.
    auto past_nested = [&](const char* q) -> const char* {
        int depth = 0;
        while (q < end) {
            if (*q == '"') {
                bool escaped;
                if (!(q = past_string(q, escaped))) return nullptr;
                continue;
            }
            if (*q == '{' || *q == '[') ++depth;
            else if ((*q == '}' || *q == ']') && --depth == 0) return q + 1;
            ++q;
        }
        return nullptr;
    };
    try {
        json events = json::array();
        auto& list = events.get_ref<json::array_t&>();
        if (p < end && *p == ']') {
            ++p;
        } else {
            for (;;) {  // an event
                if (p >= end || *p != '{') return false;
                const char* const start = p++;
                bool ph_seen = false;
                std::string_view ph, cat, name;
                if (p < end && *p == '}') {
                    ++p;
                } else {
                    for (;;) {  // a member
                        bool escaped;
                        if (p >= end || *p != '"') return false;
                        const char* const key_end = past_string(p, escaped);
                        if (!key_end || escaped) return false;
                        const std::string_view key(p + 1, size_t(key_end - p - 2));
                        p = key_end;
                        if (p >= end || *p != ':') return false;
                        const char* const value = ++p;
                        if (p >= end) return false;
                        bool is_string = false;
                        if (*p == '"') {
                            if (!(p = past_string(p, escaped))) return false;
                            is_string = true;
                        } else if (*p == '{' || *p == '[') {
                            if (!(p = past_nested(p))) return false;
                        } else {  // a number or a literal (anything else, a space too: declined)
                            if (!(*p == '-' || (*p >= '0' && *p <= '9') || *p == 't' || *p == 'f' || *p == 'n'))
                                return false;
                            while (p < end && *p != ',' && *p != '}') ++p;
                        }
                        std::string_view* field = key == "ph" ? &ph : key == "cat" ? &cat : key == "name" ? &name : nullptr;
                        if (field) {
                            if (is_string && escaped) return false;
                            *field = is_string ? std::string_view(value + 1, size_t(p - value - 2)) : std::string_view();
                            ph_seen |= field == &ph;
                        }
                        if (p >= end) return false;
                        if (*p == '}') {
                            ++p;
                            break;
                        }
                        if (*p++ != ',') return false;
                    }
                }
                if (!ph_seen || event_wanted(ph, cat, name)) {  // (an event without "ph" is kept, as the reader keeps it)
                    json e;
                    if (!build_flat_object(start, p, e)) e = json::parse(start, p);
                    if (!e.is_object()) return false;
                    list.push_back(std::move(e));
                }
                if (p < end && *p == ',') {
                    ++p;
                    continue;
                }
                if (p < end && *p == ']') {
                    ++p;
                    break;
                }
                return false;
            }
        }
        json root = json::object();
        if (p < end && *p == ',') {  // the other members: parsed as an object of their own
            // (An array there could hold objects the reader would filter as events: declined.)
            if (std::find(p, end, '[') != end || p + 1 == end || p[1] != '"') return false;
            root = json::parse(std::string("{") + std::string(p + 1, end));
            if (!root.is_object() || root.contains("traceEvents")) return false;
        } else {
            if (p >= end || *p != '}') return false;
            for (++p; p < end; ++p)
                if (*p != '\n' && *p != ' ' && *p != '\t' && *p != '\r') return false;
        }
        root["traceEvents"] = std::move(events);
        out = std::move(root);
        return true;
    } catch (...) {
        return false;
    }
}

bool read_trace_text(const std::string& text, json& out, bool written_by_gpuvp) {
    if (written_by_gpuvp && scan_trace_text(text, out)) return true;
    try {
        for (const bool skip : {true, false}) {
            TraceReader reader(out, skip);
            if (!json::sax_parse(text, &reader)) break;
            if (!reader.skipped_wanted()) return true;
            out = json();
        }
    } catch (...) {
    }
    out = json();
    return false;
}

namespace {
bool read_trace_file(const std::string& path, json& out) {
    std::string text;
    return read_file(path, text) && read_trace_text(text, out);
}

// The trace text `run` holds for the variant named `name` ("" without variants); null if none.
const std::string* trace_text_of(const RunOutput& run, const std::string& name) {
    if (name.empty()) return run.trace.empty() ? nullptr : &run.trace;
    for (const VariantOutput& v : run.variants)
        if (v.name == name) return v.trace.empty() ? nullptr : &v.trace;
    return nullptr;
}
}  // namespace

bool write_report(const std::string& dir, std::string* error, const RunOutput* run) {
    if (run && !run->record) run = nullptr;  // (a hand-made output: the files then)
    json results;
    if (run) {
        results = as_read_back(fields::to_json(*run->record));
    } else if (!read_json(dir + "/results.json", results)) {
        if (error) *error = "cannot read " + dir + "/results.json";
        return false;
    }
    std::vector<json> loaded;
    std::vector<const json*> traces;
    const bool variants = results.contains("variants") && results["variants"].is_array() && !results["variants"].empty();
    const size_t n = variants ? results["variants"].size() : 1;
    loaded.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string v = variants ? str(results["variants"][i], "name") : "";
        // A variant whose name is not a plain folder name has no trace folder.
        if (variants && (v.empty() || v == "." || v == ".." || v.find('/') != std::string::npos)) {
            traces.push_back(nullptr);
            continue;
        }
        bool read = false;
        if (run) {  // the text the file was written from
            const std::string* text = trace_text_of(*run, v);
            read = text && read_trace_text(*text, loaded[i], true);
        } else {
            read = read_trace_file(variants ? dir + "/variants/" + v + "/trace.json" : dir + "/trace.json", loaded[i]);
        }
        traces.push_back(read ? &loaded[i] : nullptr);
    }
    std::ofstream out(dir + "/report.html", std::ios::binary);
    out << render_report(results, traces);
    if (!out.flush()) {
        if (error) *error = "cannot write " + dir + "/report.html";
        return false;
    }
    return true;
}

}  // namespace gpuvp
