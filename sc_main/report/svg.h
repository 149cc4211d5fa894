// report.html's drawing kit (inside the report only, not installed): text and numbers as the
// page writes them, scales and axes, legends, Gantt rows with their bound, counters as stacked
// step charts, paired bars. Nothing here knows a run: sections.cpp and the others feed it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp::report {

constexpr double kWidth = 1240;            // every wide chart, in px
constexpr double kLeft = 92, kRight = 16;  // plot margins of the wide charts (row labels left)
constexpr size_t kWarpRectLimit = 20000;   // warp bars on the whole page, every timeline together
constexpr size_t kTaskRectLimit = 10000;   // shading-array task bars
constexpr size_t kReplayRectLimit = 10000; // a replay's kernel bars, measured and simulated together
constexpr size_t kMaxBarRows = 200;        // kernels drawn in a per-kernel chart (the tables list all)
constexpr size_t kCounterBins = 400;       // columns of a counter chart

// --- text

std::string esc(const std::string& s);
// At most `n` characters, with an ellipsis when cut (never inside a UTF-8 sequence).
std::string cut(const std::string& s, size_t n);
double text_px(const std::string& s, double font = 11);
// A fixed number of decimals; "–" for a missing value; never "-0.0".
std::string fmt(double v, int decimals);
// A number with at most 3 decimals, no trailing zeros (a time in an attribute for the page's
// script; value_text's numbers).
std::string value_ns(double v);
// A number's digits before its point in groups of three ("12 000", a narrow no-break space) from
// 10 000 on; shorter ones as they are.
std::string group_thousands(std::string number);
// An SVG coordinate: one decimal, no ".0".
std::string px(double v);
inline std::string ns(double v) { return fmt(v, 1); }
// A time for people: in ns, µs, ms or s, whichever holds it under 1000 (s beyond), with four
// significant digits ("2.618 µs", "12.84 s", "187.0 µs") and thousands apart in seconds past
// 1000 ("1 234.5 s", a narrow no-break space); "0 ns" for nothing; "–" for a missing value.
std::string duration(double ns);

// --- scales and axes

struct Scale {
    double lo = 0, hi = 1, a = 0, b = 1;  // data [lo, hi] -> px [a, b]
    double operator()(double v) const { return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : a; }
};

struct Unit {
    std::string name;
    double div;
};
// The unit of a time axis over `span_ns`: the largest of ns, µs, ms and s that the span holds 20 of.
inline Unit time_unit(double span_ns) {
    return span_ns >= 2e10 ? Unit{"s", 1e9} : span_ns >= 2e7 ? Unit{"ms", 1e6} : span_ns >= 2e4 ? Unit{"µs", 1e3} : Unit{"ns", 1};
}

// A horizontal axis at `y` (ticks, labels, title below), grid lines from `top` down to it.
std::string x_axis(const Scale& s, const Unit& u, double top, double y, const std::string& title);
// The plot area [xs.a, xs.b] x [top, bottom] of a chart over time, as a nested <svg> in the
// outer one's coordinates: what is drawn inside is clipped to it, and the page's script zooms
// and pans the time axis by changing its viewBox (horizontally only). Closed by kZoomClose.
std::string zoom_open(const Scale& xs, double top, double bottom);
inline const char* const kZoomClose = "</svg>";

// A time on a log scale: data [lo, hi] (ns, both > 0) -> px [a, b]; values under lo at a.
struct LogScale {
    double lo = 1, hi = 10, a = 0, b = 1;
    double operator()(double v) const {
        if (!(v > lo)) return a;
        return a + std::log10(std::min(v, hi) / lo) / std::log10(hi / lo) * (b - a);
    }
};
// The decades around [lo, hi] (ns): lo down to the power of ten below it and hi up to one (at
// least one decade; the smallest value drawn has a length).
LogScale log_scale(double lo, double hi, double a, double b);
// A horizontal axis of a LogScale at `y`: a tick at each power of ten ("1 µs", "10 µs", "100 µs",
// "1 ms"...), grid lines from `top` down to it, `title` below.
std::string log_axis(const LogScale& s, double top, double y, const std::string& title);

// A vertical value axis at `x` for [s.lo, s.hi] drawn from px s.a (bottom) up to s.b (top).
std::string y_axis(const Scale& s, double x, double right, const std::string& title);

struct Swatch {
    std::string label, colour;
    double opacity = 1;
    bool line = false;  // a dashed line rather than a square
};

// The swatches left to right from (x, y), wrapped at `right`; returns the height used.
double svg_legend(std::ostringstream& o, const std::vector<Swatch>& items, double x, double y, double right,
                  const std::string& heading = "");

std::string svg_open(const std::string& cls, const std::string& attrs, double w, double h, const std::string& label);

// --- Gantt rows (warps on slots, tasks on cores) and their bound

struct Bar {
    double s, e;  // ns
    int key;      // colour index; -1: several
    uint32_t count = 1;
    int64_t a = 0, b = 0, c = 0;  // per kind: block, warp, instructions / task, draw, switched
    bool in_flight = false;       // a warp still resident when the run stopped (drawn up to the stop)
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

// At most `limit` bars over `charts`: bars of one key on one row that overlap or touch are
// merged, then those less than a pixel apart, two, four…; as a last resort bars of different
// keys too (drawn grey). `ns_per_px` is the charts' scale, `span_ns` their time range.
Bound bound_bars(const std::vector<Gantt*>& charts, size_t limit, double ns_per_px, double span_ns);
// The note over bounded charts ("" when nothing was merged).
std::string bound_note(const Bound& b, const std::string& what, const std::string& id);

struct GanttStyle {
    std::string svg_class, svg_attrs, bar_class, data_attr, aria;
    double row_h = 6;
    std::function<const char*(int)> colour;
    std::function<std::string(int)> key_name;
    std::function<std::string(const Bar&, const std::string& row)> title;  // of an unmerged bar
    std::string merged_noun;                                                   // "warps"
    std::vector<Swatch> legend;
    std::string axis_title = "simulated time";
    bool zoomable = true;  // its plot in a zoom area (zoom_open); false: an overview, drawn as it is
    // Bars placed to 1e-4 px at their true width, a thin one outlined so that it shows (an
    // outline zooming does not widen): for a chart that opens zoomed far in.
    bool precise = false;
    bool row_labels = true;
};

std::string render_gantt(const Gantt& g, const Scale& xs, const Unit& u, const GanttStyle& st);

// --- counters (step functions), binned

struct Counter {
    std::vector<double> t;               // ns, in order
    std::vector<std::vector<double>> v;  // one value per series at each t
};

// A stacked step chart of a counter over [0, end]: `names` bottom first. `peak`: each column
// shows the highest sample held during it, else the time-weighted mean. A dashed line at
// `line_at` when > 0.
std::string counter_chart(const std::string& cls, const std::string& attrs, const std::string& aria, const Counter& c,
                          double end, const std::vector<std::string>& names, const std::vector<std::string>& colours,
                          double ymax, bool peak, const std::string& y_title, double line_at, const std::string& line_label,
                          double height);

// Horizontal bars, two per group (mean and max), one chart.
std::string pair_bars(const std::string& id, const std::string& caption, const std::vector<std::string>& keys,
                      const std::vector<std::string>& groups, const std::vector<std::pair<double, double>>& values,
                      const std::string& axis, double width, const std::string& group_attr);

}  // namespace gpuvp::report
