// report.html's page (inside the report only, not installed): what the sections share — the
// run's record, each trace's view (the SM timelines, shading tasks and counters, read once),
// the colours, and how values are written. report.cpp assembles the sections.
#pragma once
#include "sc_main/record/run_record.h"
#include "sc_main/record/trace_record.h"
#include "sc_main/report/svg.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpuvp::report {

// --- colours

// Lines of a chart (the sweep report: a line per combination of the other axes), in order.
inline const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                       "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c564b",
                                       "#1f77b4", "#d62728", "#9467bd", "#2ca02c"};
constexpr size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];
inline const char* const kMixed = "#8a8a8a";  // merged bars of several kernels
inline const char* const kVertex = "#f28e2b";
inline const char* const kPixel = "#4e79a7";
inline const char* const kScalarLevels[] = {"kernel", "workgroup", "warp", "slice"};
inline const char* const kScalarColours[] = {"#4e79a7", "#59a14f", "#f28e2b", "#e15759"};
// Darker than the kernel palette, so that a variant is not taken for a kernel.
inline const char* const kVariantColours[] = {"#3b3b98", "#c0392b", "#138d75", "#b9770e",
                                              "#7d3c98", "#2e86c1", "#5d6d7e", "#a04000"};

// Kernel names to indexes, in order of first appearance (results first, then the traces).
struct Registry {
    std::vector<std::string> names, colours;
    std::map<std::string, int> index;
    int id(const std::string& n) {
        auto it = index.find(n);
        if (it != index.end()) return it->second;
        index.emplace(n, int(names.size()));
        names.push_back(n);
        colours.push_back(name_colour(n));
        return int(names.size() - 1);
    }
    int find(const std::string& n) const {
        auto it = index.find(n);
        return it == index.end() ? -1 : it->second;
    }
    const char* colour(int i) const { return i < 0 ? kMixed : colours[size_t(i)].c_str(); }
    std::string name(int i) const { return i < 0 ? "several kernels" : names[size_t(i)]; }
    // A kernel's colour follows from its name alone, so that it is the same on every page (a
    // run's, each variant's, another run's): FNV-1a of the name picks one of 12 hues 30° apart
    // and one of three lightnesses.
    static std::string name_colour(const std::string& n) {
        uint32_t h = 2166136261u;
        for (unsigned char c : n) h = (h ^ c) * 16777619u;
        static const char* const kLight[] = {"45%", "33%", "60%"};
        return "hsl(" + std::to_string(h % 12 * 30) + ",65%," + kLight[h / 12 % 3] + ")";
    }
};

// --- values as the page writes them: integers as they are, numbers with at most 3 decimals,
// text escaped, "–" for none.

std::string value_text(double v);
inline std::string value_text(uint64_t v) { return std::to_string(v); }
inline std::string value_text(uint32_t v) { return std::to_string(v); }
inline std::string value_text(int v) { return std::to_string(v); }
inline std::string value_text(const std::string& v) { return esc(v); }
template <class T>
std::string value_text(const std::optional<T>& v) {
    return v ? value_text(*v) : "–";
}
// A JSON value (an expectation's, a variant's `set` value, a cell of the variants table); null: "–".
std::string value_text(const fields::json& v);

inline double num(const std::optional<double>& v) { return v ? *v : NAN; }

std::string badge(bool ok, const std::string& text);
// A warp priority's numeric order (a name that is not a number: last).
double priority_key(const std::string& name);
// The policies by name, in name order.
std::vector<std::pair<std::string, std::string>> policy_items(const PolicyNames& policy);
// A metric's name for an axis title, its unit left for the title to add: "response_ns" ->
// "response", "lock_wait_mean" -> "lock wait mean".
std::string axis_name(const std::string& metric);
// Breaks after each '_' (long stage and field names in table heads).
std::string wbr(const std::string& s);

// --- the trace, read once

struct TraceView {
    bool present = false;
    std::string note;                    // trace_note: what the trace left out and why ("" none)
    std::map<uint32_t, Gantt> sms;       // SM -> rows = warp slots (or block rows: block_sms)
    std::set<uint32_t> block_sms;        // SMs whose chart is their blocks: the trace kept no warp of theirs
    std::map<uint32_t, Counter> scalar;  // SM -> kernel, workgroup, warp, slice
    Counter cores;                       // vertex, pixel
    Gantt usa;                           // rows = shading cores
    double end_ns = 0;
    size_t warps = 0;
};

// The view of `trace` (not present when null); the kernels of its warps join `kernels`.
TraceView view_trace(const TraceRecord* trace, Registry& kernels);

// --- the page

struct Page {
    const RunRecord& results;
    Registry kernels;
    std::vector<TraceView> traces;  // one per variant (one without variants)
    std::vector<std::string> variant_names;
    bool variants = false;
};

// The end of a chart's time scale: the run's end or its trace's last event (at least 1 ns).
double sim_end(const RunRecord& r, const TraceView* tv);
// "Variant X, the first of N" over the sections that show the first variant ("" without variants).
std::string variant_note(const Page& p);

// The per-SM warp charts of one trace; `compact` for the variant comparison.
std::string sm_timelines(TraceView& tv, const Registry& kernels, const Scale& xs, const Unit& u, bool compact,
                         const std::string& variant, const char* variant_colour = nullptr);
// SMs with warps beyond which their warp charts start closed (the overview above them leads to each).
constexpr size_t kOpenSms = 16;
// Each SM's occupancy over the whole run, a row per SM (from results.json's sms[].occupancy, not
// the trace); a row links to its SM's warp chart. "" when no warp ran.
std::string sm_overview(const RunRecord& r, const Scale& xs, const Unit& u, const std::string& variant = "",
                        const char* variant_colour = nullptr);
// Kernels as spans: submit -> first warp (waiting), -> last block (running), -> completion.
std::string kernel_spans(const RunRecord& r, const Registry& kernels, const Scale& xs, const Unit& u,
                         const std::string& variant = "", const char* variant_colour = nullptr);
// The trace's `cores by type` counter, from time 0 (before its first change: the initial split).
Counter cores_counter(const RunRecord& results, const TraceView& tv);
// Each draw's phases over [0, end].
std::string draw_phases(const std::vector<DrawRecord>& draws, double end, const std::string& attrs = " id=\"draw-chart\"",
                        const std::string& caption = "Draws: their phases over time");

// The sections, top to bottom.
std::string section_header(const Page& p);
std::string section_variants(Page& p, const std::vector<size_t>& limits, std::vector<Bound>& bounds);
std::string section_timeline(Page& p, size_t warp_limit, Bound& bound);
std::string section_stages(const Page& p);
std::string section_locks(const Page& p);
std::string section_scalar(const Page& p);
std::string section_shading(Page& p, Bound& bound);
std::string section_replay(const Page& p, Bound& bound);  // "" unless the run replayed a trace

extern const char* const kStyle;   // the page's CSS (style.cpp)
extern const char* const kScript;  // the page's script: zoom, collapse, drill-down (script.cpp)

}  // namespace gpuvp::report
