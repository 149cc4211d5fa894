// report.html's Variants section: the table of each variant's figures with their ratios to the
// first, the grouped bar charts, and each variant's warps per SM and shading array on one scale.
#include "sc_main/report/page.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace gpuvp::report {

namespace {

using Cell = fields::json;  // a value of the table; null: none

double num(const Cell& v) { return v.is_number() ? v.get<double>() : NAN; }
template <class T>
Cell cell(const std::optional<T>& v) {
    return v ? Cell(*v) : Cell();
}

const KernelRecord* kernel_of(const RunRecord& r, const std::string& name) {
    for (const KernelRecord& k : r.kernels)
        if (k.name == name) return &k;
    return nullptr;
}

const PriorityLocks* priority_of(const RunRecord& r, const std::string& name) {
    for (const auto& [k, e] : r.locks.by_priority)
        if (k == name) return &e;
    return nullptr;
}

const DrawRecord* draw_of(const RunRecord& r, const std::string& name) {
    for (const DrawRecord& d : r.usa.draws)
        if (d.name == name) return &d;
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
    c << y_axis(ys, left, right, axis_name(metric) + " (" + u.name + ")");
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

}  // namespace

namespace {

// What the parts of the section share: the variants' records, and the kernels, lock priorities
// and draws any of them has (in the first variant's order, then any only in later ones).
struct Variants {
    const Page& p;
    std::vector<const RunRecord*> rs;
    std::vector<std::string> kernels, prios, draws;
    size_t n() const { return rs.size(); }
};

Variants variants_of(const Page& p) {
    Variants v{p, {}, {}, {}, {}};
    for (const VariantEntry& e : *p.results.variants) v.rs.push_back(&e.results);
    auto add = [](std::vector<std::string>& to, const std::string& name) {
        if (std::find(to.begin(), to.end(), name) == to.end()) to.push_back(name);
    };
    std::set<std::pair<double, std::string>> prio_order;  // numeric order
    for (const RunRecord* r : v.rs) {
        for (const KernelRecord& k : r->kernels) add(v.kernels, k.name);
        for (const auto& [name, e] : r->locks.by_priority) prio_order.insert({priority_key(name), name});
        for (const DrawRecord& d : r->usa.draws) add(v.draws, d.name);
    }
    for (const auto& [k, name] : prio_order) v.prios.push_back(name);
    return v;
}

// The variants table, a row at a time: a row of a value of each variant's results (`get`
// sees only finished ones) where any has it, with its ratio to the first.
class VariantsTable {
public:
    explicit VariantsTable(const Variants& v) : v_(v) {}
    std::ostringstream o;

    void row(const std::string& label, const std::function<Cell(const RunRecord&)>& get, bool ratio, int decimals) {
        std::vector<Cell> values;
        for (const RunRecord* r : v_.rs) values.push_back(r->unfinished ? Cell() : get(*r));
        bool any = false;
        for (const Cell& c : values) any = any || !c.is_null();
        if (!any) return;
        o << "<tr><th>" << label << "</th>";
        const Cell& base = values[0];
        for (size_t i = 0; i < v_.n(); ++i) {
            const Cell& c = values[i];
            o << "<td>";
            if (c.is_number() && decimals >= 0)
                o << fmt(c.get<double>(), decimals);
            else
                o << value_text(c);
            if (ratio && i > 0) o << " " << ratio_text(num(c), num(base));
            o << "</td>";
        }
        o << "</tr>\n";
    }
    void group(const std::string& title) {
        o << "<tr class=\"group\"><th colspan=\"" << v_.n() + 1 << "\">" << esc(title) << "</th></tr>\n";
    }

private:
    const Variants& v_;
};

// The head: a column per variant with its overrides.
void table_head(VariantsTable& t, const Variants& v) {
    const std::vector<VariantEntry>& vs = *v.p.results.variants;
    t.o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"variants-table\"><thead><tr><th>metric</th>";
    for (size_t i = 0; i < v.n(); ++i) {
        t.o << "<th class=\"variant-col\" data-variant=\"" << esc(v.p.variant_names[i]) << "\"><span class=\"swatch\" style=\"background:"
            << kVariantColours[i % 8] << "\"></span>" << esc(v.p.variant_names[i]);
        std::map<std::string, std::string> set;  // (by name, the last of a repeated one)
        for (const auto& [k, x] : vs[i].set) set[k] = x;
        for (const auto& [k, x] : set) t.o << "<br><code class=\"set\">" << esc(k) << "=" << esc(x) << "</code>";
        t.o << "</th>";
    }
    t.o << "</tr></thead><tbody>\n";
}

// The run: exit code, status, the policies that differ, the simulated end.
void run_rows(VariantsTable& t, const Variants& v) {
    const std::vector<VariantEntry>& vs = *v.p.results.variants;
    t.group("run");
    t.o << "<tr><th>exit code</th>";
    for (size_t i = 0; i < v.n(); ++i) t.o << "<td>" << vs[i].exit_code << "</td>";
    t.o << "</tr>\n";
    t.o << "<tr><th>status</th>";
    for (size_t i = 0; i < v.n(); ++i) t.o << "<td>" << esc(v.rs[i]->status) << "</td>";
    t.o << "</tr>\n";
    std::set<std::string> policy_keys;
    auto policy_of = [](const RunRecord& r, const std::string& key) {
        for (const auto& [k, x] : policy_items(r.policy))
            if (k == key) return Cell(x);
        return Cell();
    };
    for (const RunRecord* r : v.rs)
        if (!r->unfinished)
            for (const auto& [k, x] : policy_items(r->policy)) policy_keys.insert(k);
    for (const std::string& k : policy_keys) {
        std::set<std::string> seen;
        for (const RunRecord* r : v.rs) seen.insert(r->unfinished ? "–" : value_text(policy_of(*r, k)));
        if (seen.size() > 1) t.row("policy." + esc(k), [&, k](const RunRecord& r) { return policy_of(r, k); }, false, -1);
    }
    t.row("sim_end_ns", [](const RunRecord& r) { return Cell(r.sim_end_ns); }, true, 1);
}

// Each kernel's latencies and status; each lock priority's wait and task end.
void kernel_and_lock_rows(VariantsTable& t, const Variants& v) {
    for (const std::string& k : v.kernels) {
        t.group("kernel " + k);
        using Member = std::optional<double> KernelRecord::*;
        for (const auto& [f, m] : {std::pair<const char*, Member>{"response_ns", &KernelRecord::response_ns},
                                   {"turnaround_ns", &KernelRecord::turnaround_ns},
                                   {"launch_latency_ns", &KernelRecord::launch_latency_ns}})
            t.row(f, [k, m = m](const RunRecord& r) {
                const KernelRecord* kr = kernel_of(r, k);
                return kr ? cell(kr->*m) : Cell();
            }, true, 1);
        t.row("status", [k](const RunRecord& r) {
            const KernelRecord* kr = kernel_of(r, k);
            return kr ? Cell(kr->status.text()) : Cell();
        }, false, -1);
    }
    if (v.prios.empty()) return;
    t.group("locks");
    for (const std::string& pr : v.prios) {
        t.row("wait mean ns, CPR " + esc(pr), [pr](const RunRecord& r) {
            const PriorityLocks* e = priority_of(r, pr);
            return e ? Cell(e->wait_ns.mean) : Cell();
        }, true, 1);
        t.row("task end max ns, CPR " + esc(pr), [pr](const RunRecord& r) {
            const PriorityLocks* e = priority_of(r, pr);
            return e ? Cell(e->task_end_ns.max) : Cell();
        }, true, 1);
    }
}

// The shading array (with draws) and the scalar registers (where any variant used them).
void shading_and_scalar_rows(VariantsTable& t, const Variants& v) {
    if (!v.draws.empty()) {
        t.group("shading array");
        t.row("utilization", [](const RunRecord& r) { return Cell(r.usa.utilization); }, true, 3);
        t.row("reassignments", [](const RunRecord& r) { return Cell(r.usa.counts.reassignments); }, true, -1);
        std::vector<double> last_draw(v.n(), NAN);
        for (size_t i = 0; i < v.n(); ++i) {
            double m = NAN;
            for (const DrawRecord& d : v.rs[i]->usa.draws)
                if (d.status.ok() && std::isfinite(report::num(d.complete_ns)))
                    m = std::isfinite(m) ? std::max(m, *d.complete_ns) : *d.complete_ns;
            last_draw[i] = m;
        }
        t.o << "<tr><th>last draw complete ns</th>";
        for (size_t i = 0; i < v.n(); ++i)
            t.o << "<td>" << ns(last_draw[i]) << (i ? " " + ratio_text(last_draw[i], last_draw[0]) : "") << "</td>";
        t.o << "</tr>\n";
    }
    bool scalar = false;
    for (const RunRecord* r : v.rs) scalar = scalar || r->scalar.policy == "multilevel" || r->scalar.allocation_stalls > 0;
    if (scalar) {
        t.group("scalar registers");
        t.row("allocation_stalls", [](const RunRecord& r) { return Cell(r.scalar.allocation_stalls); }, true, -1);
        t.row("pool peak total", [](const RunRecord& r) { return Cell(r.scalar.pool_peak.total); }, true, -1);
    }
}

std::string variants_table(const Variants& v) {
    VariantsTable t(v);
    table_head(t, v);
    run_rows(t, v);
    kernel_and_lock_rows(t, v);
    shading_and_scalar_rows(t, v);
    t.o << "</tbody></table></div>\n";
    return t.o.str();
}

// Grouped bars: per kernel (response and turnaround), per lock priority, per draw.
std::string variant_bars(const Variants& v) {
    std::ostringstream o;
    const std::vector<std::string>& names = v.p.variant_names;
    if (!v.kernels.empty()) {
        o << "<h3>Per kernel</h3>\n";
        for (const char* metric : {"response_ns", "turnaround_ns"}) {
            Groups gs{"data-kernel", "kernel", v.kernels, v.kernels, [&](size_t i, size_t g) {
                          const KernelRecord* k = kernel_of(*v.rs[i], v.kernels[g]);
                          return k ? report::num(std::string(metric) == "response_ns" ? k->response_ns : k->turnaround_ns) : NAN;
                      }};
            o << grouped_bars(metric, std::string(metric) + " per kernel and variant", gs, names);
        }
    }
    if (!v.prios.empty()) {
        std::vector<std::string> labels;
        for (const std::string& k : v.prios) labels.push_back("CPR " + k);
        Groups gs{"data-priority", "warp priority (CPR)", v.prios, labels, [&](size_t i, size_t g) {
                      const PriorityLocks* e = priority_of(*v.rs[i], v.prios[g]);
                      return e ? e->wait_ns.mean : NAN;
                  }};
        o << "<h3>Lock waits</h3>\n" << grouped_bars("lock wait mean", "Lock wait mean per priority and variant", gs, names);
    }
    if (!v.draws.empty()) {
        Groups gs{"data-draw", "draw", v.draws, v.draws, [&](size_t i, size_t g) {
                      const DrawRecord* d = draw_of(*v.rs[i], v.draws[g]);
                      return d ? report::num(d->turnaround_ns) : NAN;
                  }};
        o << "<h3>Draws</h3>\n" << grouped_bars("turnaround_ns", "Draw turnaround_ns per draw and variant", gs, names);
    }
    return o.str();
}

// Each variant's SM occupancy, then for each SM a chart per variant, on one time scale.
std::string variant_timelines(Page& p, const Variants& v, const Scale& xs, const std::vector<size_t>& limits,
                              std::vector<Bound>& bounds) {
    std::ostringstream o;
    const size_t nv = v.n();
    const double end = xs.hi;
    const Unit u = time_unit(end);
    o << "<h3>SM occupancy per variant</h3>\n";
    for (size_t i = 0; i < nv; ++i)
        if (!v.rs[i]->unfinished) o << sm_overview(*v.rs[i], xs, u, p.variant_names[i], kVariantColours[i % 8]);
    std::set<uint32_t> sms;  // those where some variant ran warps
    for (size_t i = 0; i < nv && i < p.traces.size(); ++i)
        for (auto& [sm, g] : p.traces[i].sms)
            if (g.bars() > 0) sms.insert(sm);
    o << "<h3>Warps per SM and variant</h3>\n<p>For each SM, one chart per variant, all on the same time scale (0 to "
      << ns(end) << " ns)" << (sms.size() > kOpenSms ? "; open an SM to see its warps" : "") << ".</p>\n<div id=\"variant-timelines\">\n";
    bounds.assign(nv, Bound{});
    bool any_trace = false;
    for (size_t i = 0; i < nv && i < p.traces.size(); ++i) {
        if (!p.traces[i].present) continue;
        any_trace = true;
        std::vector<Gantt*> charts;
        for (auto& [sm, g] : p.traces[i].sms) charts.push_back(&g);
        bounds[i] = bound_bars(charts, limits[i], end / (xs.b - xs.a), end);
        o << bound_note(bounds[i], "warps", "variant-note-" + std::to_string(i));
    }
    for (size_t i = 0; i < nv; ++i)
        if (i >= p.traces.size() || !p.traces[i].present)
            o << "<p class=\"empty\">variant " << esc(p.variant_names[i]) << ": run without a trace</p>\n";
    if (any_trace && sms.empty()) o << "<p class=\"empty\">no warps ran in any variant</p>\n";
    for (uint32_t sm : sms) {
        o << "<details class=\"variant-sm\" id=\"variant-sm-" << sm << "\" data-sm=\"" << sm << "\""
          << (sms.size() <= kOpenSms ? " open" : "") << "><summary><h4>sm[" << sm << "]</h4></summary>\n";
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
        o << "</details>\n";
    }
    o << "</div>\n";
    return o.str();
}

// The shading array of each variant, on the same time scale.
std::string variant_shading(const Page& p, const Variants& v, double end) {
    if (v.draws.empty()) return "";
    std::ostringstream o;
    o << "<h3>Shading array per variant</h3>\n<p>Cores by type and the draws' phases of each variant, on the same time "
         "scale as above.</p>\n<div id=\"variant-shading\">\n";
    for (size_t i = 0; i < v.n(); ++i) {
        const RunRecord& r = *v.rs[i];
        const std::string name = esc(p.variant_names[i]);
        const std::string sw = std::string("<span class=\"swatch\" style=\"background:") + kVariantColours[i % 8] + "\"></span>";
        const TraceView* tv = i < p.traces.size() && p.traces[i].present ? &p.traces[i] : nullptr;
        if (tv && !tv->cores.t.empty())
            o << "<figure class=\"chart\"><figcaption>" << sw << name << ": cores by type</figcaption>"
              << counter_chart("variant-shading-chart", " data-variant=\"" + name + "\"", p.variant_names[i] + " cores by type",
                               cores_counter(r, *tv), end, {"vertex", "pixel"}, {kVertex, kPixel},
                               r.unfinished ? NAN : double(r.usa.cores.total), false, "cores", 0, "", 110)
              << "</figure>\n";
        if (r.usa.draws.empty())
            o << "<p class=\"empty\">" << name << ": no draws</p>\n";
        else
            o << draw_phases(r.usa.draws, end, " data-variant=\"" + name + "\"", sw + name + ": draws, their phases");
    }
    o << "</div>\n";
    return o.str();
}

}  // namespace

std::string section_variants(Page& p, const std::vector<size_t>& limits, std::vector<Bound>& bounds) {
    const Variants v = variants_of(p);
    std::ostringstream o;
    o << "<section id=\"variants\"><details open><summary><h2>Variants</h2></summary>\n<p>The scenario run " << v.n()
      << " times, each with its overrides; ratios (×) are to the first variant, <b>" << esc(p.variant_names[0])
      << "</b>.</p>\n";
    o << variant_bars(v);  // (the comparison first; per-variant expectations are in the header's table)
    o << variants_table(v);
    double end = 1;
    for (size_t i = 0; i < v.n(); ++i)
        end = std::max(end, sim_end(*v.rs[i], i < p.traces.size() && p.traces[i].present ? &p.traces[i] : nullptr));
    o << variant_timelines(p, v, Scale{0, end, kLeft, kWidth - kRight}, limits, bounds);
    o << variant_shading(p, v, end);
    o << "</details></section>\n";
    return o.str();
}

}  // namespace gpuvp::report
