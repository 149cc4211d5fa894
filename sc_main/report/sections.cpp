// report.html's sections other than the timelines and the variants: the header (summary,
// hang, expectations), launch stages, locks, scalar registers and the shading array.
#include "sc_main/report/page.h"
#include "sc_main/record/short_names.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

namespace gpuvp::report {

std::string value_text(double v) { return value_ns(v); }

std::string value_text(const fields::json& v) {
    if (v.is_null()) return "–";
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number()) return value_text(v.get<double>());
    if (v.is_string()) return esc(v.get_ref<const std::string&>());
    if (v.is_array()) {
        std::string o;
        for (const fields::json& e : v) o += (o.empty() ? "" : " vs ") + value_text(e);
        return o;
    }
    return esc(nlohmann::json(v).dump());  // (an object: its members in name order)
}

std::string badge(bool ok, const std::string& text) {
    return std::string("<span class=\"badge ") + (ok ? "ok" : "bad") + "\">" + esc(text) + "</span>";
}

double priority_key(const std::string& name) {
    char* e = nullptr;
    const double k = std::strtod(name.c_str(), &e);
    return e && *e == 0 ? k : 1e300;
}

std::vector<std::pair<std::string, std::string>> policy_items(const PolicyNames& policy) {
    struct Lister {
        std::vector<std::pair<std::string, std::string>>* out;
        void operator()(std::string_view name, const std::string& value, const Doc& = {}) { out->emplace_back(name, value); }
    };
    std::vector<std::pair<std::string, std::string>> items;
    Lister l{&items};
    PolicyNames::fields(policy, l);
    std::sort(items.begin(), items.end());
    return items;
}

namespace {

std::string policy_text(const RunRecord& r) {
    if (r.unfinished) return "–";
    std::string o;
    for (const auto& [name, value] : policy_items(r.policy))
        o += (o.empty() ? "" : " · ") + esc(name) + " <b>" + esc(value) + "</b>";
    return o.empty() ? "–" : o;
}

std::string bounds_text(const ExpectationRecord& e) {
    const bool has_min = e.min && *e.min, has_max = e.max && *e.max;
    if (has_min && has_max && **e.min == **e.max) return "= " + value_text(**e.min);
    std::string o;
    if (has_min) o += "≥ " + value_text(**e.min);
    if (has_max) o += (o.empty() ? "" : " and ") + std::string("≤ ") + value_text(**e.max);
    return o.empty() ? "–" : o;
}

size_t passed_count(const std::vector<ExpectationRecord>& ex) {
    size_t n = 0;
    for (const ExpectationRecord& e : ex) n += e.passed;
    return n;
}

}  // namespace

namespace {

// The facts: status, expectations passed, policies, the end, kernels, draws, the trace, variants.
std::string header_facts(const Page& p) {
    const RunRecord& r = p.results;
    std::ostringstream o;
    o << "<table class=\"facts\" id=\"facts\">\n";
    o << "<tr><th>status</th><td id=\"status\">" << badge(r.status == "ok", r.status) << "</td></tr>\n";
    const std::vector<ExpectationRecord>& ex = r.expectations;
    {
        const size_t passed = passed_count(ex);
        o << "<tr><th>expectations</th><td id=\"expectations-summary\">"
          << (ex.empty() ? std::string("none") : badge(passed == ex.size(), std::to_string(passed) + " of " + std::to_string(ex.size()) + " passed"))
          << "</td></tr>\n";
    }
    o << "<tr><th>policies</th><td id=\"policies\">" << policy_text(r);
    if (p.variants) o << " <span class=\"muted\">(variant " << esc(p.variant_names[0]) << ")</span>";
    o << "</td></tr>\n";
    const double end = r.unfinished ? NAN : r.sim_end_ns;
    o << "<tr><th>simulated end</th><td id=\"sim-end\">" << duration(end);
    if (end >= 1000) o << " <span class=\"muted\">(" << ns(end) << " ns)</span>";
    o << "</td></tr>\n";
    const std::vector<KernelRecord>& ks = r.kernels;
    size_t ok = 0;
    for (const KernelRecord& k : ks) ok += k.status.ok();
    o << "<tr><th>kernels</th><td>" << ks.size() << " (" << ok << " ok)";
    if (!r.unfinished) {
        o << " · " << r.totals.warps << " warps";
        uint64_t started = 0;  // (warps_run counts a warp as it starts; totals.warps as it ends)
        for (const SmRecord& sm : r.sms) started += sm.counters.warps_run;
        if (started > r.totals.warps) o << " ended, " << started - r.totals.warps << " still running at the stop";
        o << " · " << r.totals.warp_instructions << " warp-instructions";
    }
    o << "</td></tr>\n";
    const std::vector<DrawRecord>& draws = r.usa.draws;
    if (!draws.empty()) {
        size_t dok = 0;
        for (const DrawRecord& d : draws) dok += d.status.ok();
        o << "<tr><th>draws</th><td>" << draws.size() << " (" << dok << " ok)</td></tr>\n";
    }
    o << "<tr><th>trace</th><td>";
    if (!p.traces.empty() && p.traces[0].present) {
        o << (r.unfinished ? "–" : value_text(r.trace.events)) << " events";
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
    return o.str();
}

// Kernels and draws that did not end ok, the errors, and a hang's state.
std::string header_problems(const RunRecord& r) {
    std::ostringstream o, bad;
    for (const KernelRecord& k : r.kernels)
        if (!k.status.ok()) bad << "<li>kernel <b>" << esc(k.name) << "</b>: " << esc(k.status.text()) << "</li>";
    for (const DrawRecord& d : r.usa.draws)
        if (!d.status.ok()) bad << "<li>draw <b>" << esc(d.name) << "</b>: " << esc(d.status.text()) << "</li>";
    size_t shown = 0;
    for (const ErrorRecord& e : r.errors) {
        if (++shown > 20) {
            bad << "<li>… and " << r.errors.size() - 20 << " more errors (results.json, errors)</li>";
            break;
        }
        bad << "<li>error at " << ns(e.time_ns) << " ns: " << esc(e.error) << " (" << esc(e.field) << "): " << esc(e.detail)
            << "</li>";
    }
    if (!bad.str().empty()) o << "<ul class=\"problems\" id=\"problems\">" << bad.str() << "</ul>\n";
    // A hang: the GPU's state when the watchdog stopped the run or the machine went idle.
    if (const std::optional<HangRecord>& h = r.hang) {
        o << "<h2 id=\"hang-heading\">Hang</h2>\n<p>"
          << (h->cause == "watchdog"
                  ? "The watchdog saw no forward progress from " + ns(h->no_progress_since_ns) + " to " + ns(h->detected_ns) + " ns"
                  : "The simulated machine went idle at " + ns(h->detected_ns) + " ns")
          << " with " << h->in_flight << " kernel(s) or draw(s) in flight. The GPU's state then:</p>\n"
          << "<pre id=\"hang\">";
        for (const std::string& line : h->state) o << esc(line) << "\n";
        o << "</pre>\n";
    }
    return o.str();
}

// The expectations, a row each.
std::string header_expectations(const std::vector<ExpectationRecord>& ex) {
    std::ostringstream o;
    o << "<h2 id=\"expectations-heading\">Expectations</h2>\n";
    if (ex.empty())
        o << "<p class=\"empty\" id=\"expectations\">the scenario has no expectations</p>\n";
    else {
        bool variant_col = false;
        for (const ExpectationRecord& e : ex) variant_col = variant_col || e.variant;
        o << "<p>" << passed_count(ex) << " of " << ex.size() << " passed.</p>\n<table class=\"data\" id=\"expectations\"><thead><tr><th>line</th>"
          << (variant_col ? "<th>variant</th>" : "") << "<th>subject</th><th>check</th><th>value</th><th>bounds</th><th>result</th></tr></thead><tbody>\n";
        for (const ExpectationRecord& e : ex) {
            const bool pass = e.passed;
            o << "<tr class=\"expectation " << (pass ? "pass" : "fail") << "\" data-passed=\"" << (pass ? "true" : "false")
              << "\"><td>" << e.line << "</td>";
            if (variant_col) {
                std::string v = "all";
                if (e.variant) v = esc(*e.variant);
                if (e.variants) {
                    v.clear();
                    for (const std::string& x : *e.variants) v += (v.empty() ? "" : " vs ") + esc(x);
                }
                o << "<td>" << v << "</td>";
            }
            std::string subject;
            if (e.kernel) subject = "kernel " + esc(*e.kernel);
            if (e.draw) subject = "draw " + esc(*e.draw);
            if (e.priority) subject += (subject.empty() ? "" : ", ") + std::string("priority ") + value_text(*e.priority);
            if (e.compare) {
                o << "<td>comparison</td><td><code>" << esc(*e.compare) << "</code></td><td>" << value_text(e.value)
                  << "</td><td>as written</td>";
            } else {
                o << "<td>" << (subject.empty() ? "run" : subject) << "</td><td><code>" << (e.metric ? esc(*e.metric) : "–")
                  << "</code></td><td>" << value_text(e.value) << "</td><td>" << bounds_text(e) << "</td>";
            }
            o << "<td>" << badge(pass, pass ? "pass" : "FAIL") << "</td></tr>\n";
        }
        o << "</tbody></table>\n";
    }
    return o.str();
}

}  // namespace

std::string section_header(const Page& p) {
    std::ostringstream o;
    o << "<header id=\"summary\">\n<h1>gpuvp report: <span id=\"scenario-name\">" << esc(p.results.scenario)
      << "</span></h1>\n";
    o << header_facts(p) << header_problems(p.results) << header_expectations(p.results.expectations);
    o << "</header>\n";
    return o.str();
}

std::string axis_name(const std::string& metric) {
    std::string o = metric;
    if (o.size() > 3 && o.compare(o.size() - 3, 3, "_ns") == 0) o.resize(o.size() - 3);
    std::replace(o.begin(), o.end(), '_', ' ');
    return o;
}

std::string wbr(const std::string& s) {
    std::string o;
    for (char c : s) {
        o += c;
        if (c == '_') o += "<wbr>";
    }
    return o;
}

namespace {

const char* const kStageColours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d",
                                     "#f1ce63", "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#b07aa1", "#d4a6c8",
                                     "#9c755f", "#79706e"};

// A stage's colour: by its index in kLaunchStages (then unknown names in order of appearance).
std::string stage_colour(const std::string& stage, const std::vector<std::string>& order) {
    const size_t i = size_t(std::find(order.begin(), order.end(), stage) - order.begin());
    return kStageColours[i % (sizeof kStageColours / sizeof kStageColours[0])];
}

}  // namespace

namespace {

// One panel of an instance histogram: a variant's (or the run's) figure.
struct InstancePanel {
    std::string name;
    std::string colour;
    const Spread3* spread;
};

// A histogram of one figure over a kernel's instances, a panel per variant on one axis: each
// bin's count, p50 (solid), p90 and p99 (dashed) marked.
std::string instance_histogram(const std::string& kernel, const std::string& figure, const std::vector<InstancePanel>& panels) {
    double lo = INFINITY, hi = -INFINITY;
    for (const InstancePanel& pa : panels)
        if (pa.spread->histogram) {
            const HistogramRecord& h = *pa.spread->histogram;
            lo = std::min(lo, h.from_ns);
            hi = std::max(hi, h.from_ns + h.bin_ns * double(h.counts.size()));
        }
    if (!std::isfinite(lo)) return "";
    if (!(hi > lo)) hi = lo + std::max(1.0, lo * 0.01);
    const Unit u = time_unit(hi);
    const double left = kLeft + 40, right = kWidth - kRight - 10, panel_h = 56, gap = 30;
    const Scale xs{lo, hi, left, right};
    std::ostringstream o;
    const double top = 6 + svg_legend(o, {{"p50", "#222"}, {"p90 and p99 (dashed)", "#222", 1, true}}, left, 6, right) + 6;
    for (size_t i = 0; i < panels.size(); ++i) {
        const InstancePanel& pa = panels[i];
        const double py = top + 16 + (panel_h + gap) * double(i), base = py + panel_h;
        o << "<g class=\"instance-panel\" data-variant=\"" << esc(pa.name) << "\"><rect class=\"plot-bg\" x=\"" << px(left)
          << "\" y=\"" << px(py) << "\" width=\"" << px(right - left) << "\" height=\"" << px(panel_h) << "\"/>";
        if (!pa.name.empty())
            o << "<text x=\"" << px(left - 8) << "\" y=\"" << px(py + panel_h / 2 + 4) << "\" text-anchor=\"end\" fill=\""
              << pa.colour << "\">" << esc(cut(pa.name, 16)) << "</text>";
        if (!pa.spread->histogram) {
            o << "<text class=\"muted\" x=\"" << px(left + 8) << "\" y=\"" << px(py + panel_h / 2 + 4)
              << "\">no instance ended ok</text></g>";
            continue;
        }
        const HistogramRecord& h = *pa.spread->histogram;
        uint64_t most = 1, total = 0;
        for (uint64_t c : h.counts) {
            most = std::max(most, c);
            total += c;
        }
        const Scale ys{0, double(most), base, py + 4};
        for (size_t b = 0; b < h.counts.size(); ++b) {
            if (h.counts[b] == 0) continue;
            const double from = h.from_ns + h.bin_ns * double(b), to = from + h.bin_ns;
            const double x0 = xs(from), w = std::max(1.5, xs(to) - x0 - 1);
            o << "<rect class=\"bin\" data-count=\"" << h.counts[b] << "\" x=\"" << px(x0) << "\" y=\"" << px(ys(double(h.counts[b])))
              << "\" width=\"" << px(w) << "\" height=\"" << px(base - ys(double(h.counts[b]))) << "\" fill=\"" << pa.colour
              << "\"><title>" << h.counts[b] << " of " << total << " instances: " << ns(from) << "–" << ns(to)
              << " ns</title></rect>";
        }
        const std::pair<const Omit<double>*, const char*> marks[] = {
            {&pa.spread->p50, "p50"}, {&pa.spread->p90, "p90"}, {&pa.spread->p99, "p99"}};
        for (const auto& [v, what] : marks)
            if (*v)
                o << "<line class=\"mark\" x1=\"" << px(xs(**v)) << "\" y1=\"" << px(py) << "\" x2=\"" << px(xs(**v))
                  << "\" y2=\"" << px(base) << "\" stroke=\"#222\" stroke-width=\"1.5\""
                  << (what[2] == '5' ? "" : " stroke-dasharray=\"4 3\"") << "><title>" << what << " " << ns(**v)
                  << " ns</title></line>";
        o << "<text class=\"value\" x=\"" << px(left) << "\" y=\"" << px(py - 4) << "\">" << total << " instances · min "
          << ns(num(pa.spread->min)) << " · p50 " << ns(num(pa.spread->p50)) << " · p90 " << ns(num(pa.spread->p90)) << " · p99 "
          << ns(num(pa.spread->p99)) << " · max " << ns(num(pa.spread->max)) << " ns</text></g>";
    }
    const double bottom = top + 16 + (panel_h + gap) * double(panels.size()) - gap;
    o << x_axis(xs, u, bottom, bottom, axis_name(figure));
    const std::string caption = kernel + ": " + axis_name(figure) + " over its instances";
    return "<figure class=\"chart\"><figcaption>" + esc(caption) + "</figcaption>" +
           svg_open("instance-histogram", " data-kernel=\"" + esc(kernel) + "\" data-figure=\"" + figure + "\"", kWidth,
                    bottom + 40, caption) +
           o.str() + "</svg></figure>\n";
}

// Kernels with `instances`: a histogram of their response and turnaround (with variants, a panel
// per variant); "" when no kernel has instances.
std::string section_instances(const Page& p) {
    std::vector<const RunRecord*> rs;
    if (p.variants)
        for (const VariantEntry& v : *p.results.variants) rs.push_back(&v.results);
    else
        rs.push_back(&p.results);
    std::vector<std::string> kernels;
    for (const RunRecord* r : rs)
        for (const KernelRecord& k : r->kernels)
            if (k.instances && std::find(kernels.begin(), kernels.end(), k.name) == kernels.end()) kernels.push_back(k.name);
    if (kernels.empty()) return "";
    std::ostringstream o;
    o << "<h3 id=\"instances\">Instances</h3>\n<p>Kernels launched many times (<code>instances</code>): how their response "
         "(submit → first warp) and turnaround (submit → completion) spread over the instances that ended ok, in 20 equal "
         "bins from the smallest to the largest (<code>kernels[].instances.*.histogram</code>).</p>\n";
    size_t drawn = 0;
    for (const std::string& name : kernels) {
        if (++drawn > 20) {
            o << "<p class=\"muted\">" << kernels.size() - 20 << " more kernels with instances: results.json has them.</p>\n";
            break;
        }
        for (const auto& [figure, member] : {std::pair<const char*, Spread3 InstancesSummary::*>{"response_ns", &InstancesSummary::response_ns},
                                            {"turnaround_ns", &InstancesSummary::turnaround_ns}}) {
            std::vector<InstancePanel> panels;
            for (size_t i = 0; i < rs.size(); ++i)
                for (const KernelRecord& k : rs[i]->kernels)
                    if (k.name == name && k.instances)
                        panels.push_back({p.variants ? p.variant_names[i] : "",
                                          p.variants ? kVariantColours[i % 8] : p.kernels.colour(p.kernels.find(name)),
                                          &((*k.instances).*member)});
            o << instance_histogram(name, figure, panels);
        }
    }
    return o.str();
}

}  // namespace

namespace {

// A bar of the launch-stage chart: a kernel's (with variants: a kernel's in one variant).
struct StageEntry {
    const KernelRecord* k;
    size_t variant;  // with variants: its index
};

// Each kernel's (with variants: each kernel's in every variant that has it, side by side, in the
// first variant's kernel order and then any only in later ones).
std::vector<StageEntry> stage_entries(const Page& p) {
    std::vector<StageEntry> entries;
    if (!p.variants) {
        for (const KernelRecord& k : p.results.kernels) entries.push_back({&k, 0});
        return entries;
    }
    const std::vector<VariantEntry>& vs = *p.results.variants;
    std::vector<std::string> names;
    for (const VariantEntry& v : vs)
        for (const KernelRecord& k : v.results.kernels)
            if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
    for (const std::string& name : names)
        for (size_t i = 0; i < vs.size(); ++i)
            for (const KernelRecord& k : vs[i].results.kernels)
                if (k.name == name) {
                    entries.push_back({&k, i});
                    break;
                }
    return entries;
}

// The stages in kLaunchStages' order (then any other), those any entry has, and the longest sum.
struct StageNames {
    std::vector<std::string> order, shown;
    double longest = 0;
};

StageNames stage_names(const std::vector<StageEntry>& entries) {
    StageNames n;
    for (const LaunchStage& s : kLaunchStages) n.order.push_back(s.name);
    std::set<std::string> present;
    for (const StageEntry& e : entries) {
        double total = 0;
        for (const StageRecord& s : e.k->stages) {
            if (std::find(n.order.begin(), n.order.end(), s.stage) == n.order.end()) n.order.push_back(s.stage);
            present.insert(s.stage);
            if (std::isfinite(s.ns)) total += std::max(0.0, s.ns);
        }
        n.longest = std::max(n.longest, total);
    }
    for (const std::string& s : n.order)
        if (present.count(s)) n.shown.push_back(s);
    return n;
}

std::string entry_variant(const Page& p, const StageEntry& e) { return p.variants ? p.variant_names[e.variant] : std::string(); }
std::string entry_label(const Page& p, const StageEntry& e) {
    return e.k->name + (p.variants ? " — " + entry_variant(p, e) : "");
}

// Each entry's stages laid end to end: its total (the host stage apart) in ns.
struct StageTotals {
    double host = 0, gpu = 0;  // submit -> doorbell; the rest
    bool has_host = false;
};

StageTotals stage_totals(const KernelRecord& k) {
    StageTotals t;
    for (const StageRecord& s : k.stages) {
        const double v = std::max(0.0, std::isfinite(s.ns) ? s.ns : 0);
        if (s.stage == "host") {
            t.host += v;
            t.has_host = true;
        } else
            t.gpu += v;
    }
    return t;
}

// Whether the launches are too far apart in length for one linear scale: the longest more than
// kWideRange times the median (most bars would have no width beside it).
constexpr double kWideRange = 20;
bool wide_range(const std::vector<StageEntry>& entries) {
    std::vector<double> totals;
    for (const StageEntry& e : entries)
        if (!e.k->stages.empty()) {
            const StageTotals t = stage_totals(*e.k);
            totals.push_back(t.host + t.gpu);
        }
    if (totals.size() < 2) return false;
    std::sort(totals.begin(), totals.end());
    const double median = totals[(totals.size() - 1) / 2];
    return totals.back() > kWideRange * median;
}

// The chart: a stacked bar per entry, on one time scale; or, when the launches' lengths span a
// wide range, the host stage apart on a log scale and the stages on the GPU as each launch's
// shares, its total written at its right.
std::string stage_chart(const Page& p, const std::vector<StageEntry>& entries, const StageNames& sn) {
    const size_t n = std::min(entries.size(), kMaxBarRows);
    // Labels: each kernel's short name (the console's), no two alike; the full name in its tooltip.
    std::vector<std::string> names;
    for (size_t i = 0; i < n; ++i)
        if (std::find(names.begin(), names.end(), entries[i].k->name) == names.end()) names.push_back(entries[i].k->name);
    const std::vector<std::string> shorts = short_names(names, p.variants ? 18 : 32);
    std::map<std::string, std::string> short_of;
    size_t widest = 0;
    for (size_t i = 0; i < names.size(); ++i) {
        short_of[names[i]] = shorts[i];
        widest = std::max(widest, text_chars(shorts[i]));
    }
    const double left = p.variants ? 260 : std::max(120.0, 14 + text_px(std::string(widest, 'x'))), right = kWidth - 90;
    const bool wide = wide_range(entries);
    bool any_host = false;
    double host_lo = INFINITY, host_hi = 0;
    for (size_t i = 0; i < n; ++i) {
        const StageTotals t = stage_totals(*entries[i].k);
        if (!t.has_host) continue;
        any_host = true;
        if (t.host > 0) host_lo = std::min(host_lo, t.host), host_hi = std::max(host_hi, t.host);
    }
    const bool host_apart = wide && any_host;
    // The panels: [left, host_b] the host stage (log), [gpu_a, right] the rest.
    const double host_b = host_apart ? left + 300 : left, gpu_a = host_apart ? host_b + 28 : left;
    const LogScale hs = log_scale(std::isfinite(host_lo) ? host_lo : 1, host_hi, left, host_b);
    const Scale xs{0, sn.longest > 0 ? sn.longest : 1, left, right};
    std::ostringstream c;
    std::vector<Swatch> legend;
    for (const std::string& s : sn.shown) legend.push_back({s, stage_colour(s, sn.order)});
    double y = 6 + svg_legend(c, legend, left, 6, kWidth - kRight, "stages:") + 8;
    const double rh = n > 40 ? 14 : 22, top = y, bottom = top + rh * double(n);
    for (size_t i = 0; i < n; ++i) {
        const KernelRecord& k = *entries[i].k;
        const std::string name = entry_label(p, entries[i]), variant = entry_variant(p, entries[i]);
        const std::string& label = short_of[k.name];
        const double ry = top + rh * double(i), ty = ry + rh / 2 + 4;
        c << "<g class=\"stage-bar\" data-kernel=\"" << esc(k.name) << "\"";
        if (p.variants) c << " data-variant=\"" << esc(variant) << "\"";
        c << ">";
        if (p.variants) {  // the kernel's name on its first row, a line over its group; each row: its variant
            const bool first = i == 0 || entries[i - 1].k->name != k.name;
            if (first && i > 0)
                c << "<line class=\"row-sep\" x1=\"4\" y1=\"" << px(ry) << "\" x2=\"" << px(right) << "\" y2=\"" << px(ry) << "\"/>";
            if (first)
                c << "<text x=\"4\" y=\"" << px(ty) << "\" font-weight=\"600\">" << esc(label) << "<title>" << esc(k.name)
                  << (k.label ? " [" + esc(*k.label) + "]" : "") << "</title></text>";
            c << "<rect x=\"" << px(left - 122) << "\" y=\"" << px(ry + rh / 2 - 4) << "\" width=\"8\" height=\"8\" fill=\""
              << kVariantColours[entries[i].variant % 8] << "\"/><text x=\"" << px(left - 110) << "\" y=\"" << px(ty)
              << "\">" << esc(cut(variant, 18)) << "</text>";
        } else
            c << "<text x=\"" << px(left - 6) << "\" y=\"" << px(ty) << "\" text-anchor=\"end\">" << esc(label)
              << "<title>" << esc(name) << "</title></text>";
        if (k.stages.empty()) {
            c << "<text class=\"muted\" x=\"" << px(left + 4) << "\" y=\"" << px(ty) << "\">no launch stages ("
              << esc(cut(k.status.text(), 80)) << ")</text></g>";
            continue;
        }
        const StageTotals t = stage_totals(k);
        auto stage_rect = [&](const StageRecord& s, double x0, double x1, const std::string& share) {
            c << "<rect class=\"stage\" data-stage=\"" << esc(s.stage) << "\" x=\"" << px(x0) << "\" y=\"" << px(ry + 2)
              << "\" width=\"" << px(std::max(0.0, x1 - x0)) << "\" height=\"" << px(rh - 4) << "\" fill=\""
              << stage_colour(s.stage, sn.order) << "\"><title>" << esc(name) << ": " << esc(s.stage) << " "
              << duration(std::max(0.0, std::isfinite(s.ns) ? s.ns : 0)) << share << " (" << ns(s.start_ns) << "–"
              << ns(s.end_ns) << " ns)</title></rect>";
        };
        if (!wide) {
            double x = 0;
            for (const StageRecord& s : k.stages) {
                const double v = std::max(0.0, std::isfinite(s.ns) ? s.ns : 0);
                stage_rect(s, xs(x), xs(x + v), "");
                x += v;
            }
            c << "<text class=\"value\" x=\"" << px(xs(x) + 5) << "\" y=\"" << px(ty - 1) << "\">" << duration(x) << "</text></g>";
            continue;
        }
        double x = gpu_a;
        for (const StageRecord& s : k.stages) {
            const double v = std::max(0.0, std::isfinite(s.ns) ? s.ns : 0);
            if (s.stage == "host" && host_apart) {
                stage_rect(s, left, hs(v), "");
                continue;
            }
            const double w = t.gpu > 0 ? v / t.gpu * (right - gpu_a) : 0;
            stage_rect(s, x, x + w, t.gpu > 0 ? ", " + fmt(v / t.gpu * 100, 1) + " % of " + duration(t.gpu) : "");
            x += w;
        }
        if (host_apart && t.has_host) {  // its length right of its bar, or inside it where the panel ends
            const std::string text = duration(t.host);
            const double end = hs(t.host), w = text_px(text, 10);
            if (end + 4 + w <= host_b + 24)
                c << "<text class=\"value\" x=\"" << px(end + 4) << "\" y=\"" << px(ty - 1) << "\">" << text << "</text>";
            else
                c << "<text class=\"value inside\" x=\"" << px(end - 4) << "\" y=\"" << px(ty - 1)
                  << "\" text-anchor=\"end\">" << text << "</text>";
        }
        c << "<text class=\"value\" x=\"" << px(right + 5) << "\" y=\"" << px(ty - 1) << "\">" << duration(t.gpu) << "</text></g>";
    }
    if (!wide)
        c << x_axis(xs, time_unit(sn.longest), top, bottom, "time from submit");
    else {
        if (host_apart) c << log_axis(hs, top, bottom, "host: submit → doorbell (log scale)");
        c << x_axis(Scale{0, 1, gpu_a, right}, Unit{"%", 0.01}, top, bottom,
                    std::string(host_apart ? "then " : "") + "doorbell → first instruction: each stage's share");
    }
    const double h = bottom + 40;
    std::ostringstream o;
    o << "<figure class=\"chart\"><figcaption>Launch stages per kernel" << (p.variants ? " and variant" : "")
      << (entries.size() > n ? " (the first " + std::to_string(n) + " of " + std::to_string(entries.size()) + "; the table lists all)" : "")
      << "</figcaption>";
    if (wide)
        o << "<p class=\"muted\" id=\"stage-chart-shares\">The longest launch is more than " << fmt(kWideRange, 0)
          << " times the median, too long for one scale: "
          << (host_apart ? "the host stage (submit → doorbell) is drawn apart on a log scale, and " : "")
          << "each launch's stages on the GPU as their shares of it, its length at the right.</p>";
    o << svg_open("stage-chart", std::string(" id=\"stage-chart\" data-layout=\"") + (wide ? "shares" : "time") + "\"", kWidth, h,
                  "launch stages per kernel")
      << c.str() << "</svg></figure>\n";
    return o.str();
}

// The table: a column per kernel (a row per kernel when there are many).
std::string stage_table(const Page& p, const std::vector<StageEntry>& entries, const StageNames& sn) {
    std::vector<std::string> heads{"priority"};
    for (const std::string& s : sn.shown) heads.push_back(wbr(s));
    for (const char* f : {"launch latency", "dispatch latency", "response", "turnaround"}) heads.push_back(f);
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> cells;
    for (const StageEntry& e : entries) {
        const KernelRecord& k = *e.k;
        names.push_back(esc(entry_label(p, e)) + (k.status.ok() ? "" : " " + badge(false, cut(k.status.text(), 60))));
        std::vector<std::string> row{value_text(k.priority)};
        std::map<std::string, double> v;
        for (const StageRecord& s : k.stages) v[s.stage] = s.ns;
        for (const std::string& s : sn.shown) row.push_back(v.count(s) ? duration(v[s]) : "–");
        for (const std::optional<double>* f : {&k.launch_latency_ns, &k.dispatch_latency_ns, &k.response_ns, &k.turnaround_ns})
            row.push_back(duration(num(*f)));
        cells.push_back(row);
    }
    auto attrs = [&](const StageEntry& e) {
        return "data-kernel=\"" + esc(e.k->name) + "\"" + (p.variants ? " data-variant=\"" + esc(entry_variant(p, e)) + "\"" : "");
    };
    std::ostringstream o;
    o << "<div class=\"table-wrap\"><table class=\"data numbers\" id=\"stage-table\"><thead><tr>";
    if (entries.size() <= 10) {
        o << "<th></th>";
        for (size_t i = 0; i < entries.size(); ++i) o << "<th " << attrs(entries[i]) << ">" << names[i] << "</th>";
        o << "</tr></thead><tbody>\n";
        for (size_t r = 0; r < heads.size(); ++r) {
            o << "<tr" << (r == sn.shown.size() + 1 ? " class=\"total\"" : "") << "><th>" << heads[r] << "</th>";
            for (size_t i = 0; i < entries.size(); ++i) o << "<td>" << cells[i][r] << "</td>";
            o << "</tr>\n";
        }
    } else {
        o << "<th>kernel</th>";
        for (const std::string& h : heads) o << "<th>" << h << "</th>";
        o << "</tr></thead><tbody>\n";
        for (size_t i = 0; i < entries.size(); ++i) {
            o << "<tr " << attrs(entries[i]) << "><th>" << names[i] << "</th>";
            for (const std::string& c : cells[i]) o << "<td>" << c << "</td>";
            o << "</tr>\n";
        }
    }
    o << "</tbody></table></div>\n<p class=\"muted\">Simulated times (results.json has them in ns). <code>launch latency</code>: submit → first instruction with "
         "its arguments; <code>dispatch latency</code>: doorbell → the same; <code>response</code>: submit → first warp "
         "running; <code>turnaround</code>: submit → completion signal.</p>\n";
    return o.str();
}

}  // namespace

std::string section_stages(const Page& p) {
    const std::vector<StageEntry> entries = stage_entries(p);
    std::ostringstream o;
    o << "<section id=\"launch-stages\"><details open><summary><h2>Launch stages</h2></summary>\n";
    if (entries.empty()) {
        o << "<p class=\"empty\">no kernels in this run</p>\n</details></section>\n";
        return o.str();
    }
    o << "<p>Each kernel's launch, from submit to its first instruction with its arguments in hand "
         "(<code>launch_latency_ns</code>), as its stages laid end to end (<code>kernels[].stages[].ns</code>)"
      << (p.variants ? "; each kernel's bar in every variant, one under the other, on one scale" : "") << ".</p>\n";
    const StageNames sn = stage_names(entries);
    o << stage_chart(p, entries, sn) << stage_table(p, entries, sn);
    o << section_instances(p) << "</details></section>\n";
    return o.str();
}


std::string section_locks(const Page& p) {
    std::ostringstream o;
    o << "<section id=\"locks\"><details open><summary><h2>Locks (M2)</h2></summary>\n" << variant_note(p);
    const LocksRecord& locks = p.results.locks;
    o << "<p>policy <b>" << esc(locks.policy) << "</b>";
    o << " · hold limit " << value_text(locks.hold_limit);
    const std::pair<const char*, uint64_t> totals[] = {{"acquisitions", locks.counts.acquisitions},
                                                       {"sync_failures", locks.counts.sync_failures},
                                                       {"forced_releases", locks.counts.forced_releases},
                                                       {"hold_limit_releases", locks.counts.hold_limit_releases},
                                                       {"redone_instructions", locks.counts.redone_instructions},
                                                       {"deadlocks", locks.counts.deadlocks}};
    for (const auto& [f, v] : totals) o << " · " << f << " " << v;
    o << "</p>\n";
    std::vector<std::pair<double, std::string>> keys;  // numeric order
    std::map<std::string, const PriorityLocks*> by_priority;
    for (const auto& [name, e] : locks.by_priority)
        if (by_priority.emplace(name, &e).second) keys.push_back({priority_key(name), name});
    std::sort(keys.begin(), keys.end());
    if (keys.empty()) {
        o << "<p class=\"empty\" id=\"locks-empty\">no locks in this run: no warp executed a <code>lock</code> instruction</p>\n</details></section>\n";
        return o.str();
    }
    std::vector<std::string> names, groups;
    std::vector<std::pair<double, double>> wait, end;
    for (auto& [k, name] : keys) {
        const PriorityLocks& e = *by_priority[name];
        names.push_back(name);
        groups.push_back("CPR " + name);
        wait.push_back({e.wait_ns.mean, e.wait_ns.max});
        end.push_back({e.task_end_ns.mean, e.task_end_ns.max});
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
        const PriorityLocks& e = *by_priority[name];
        o << "<tr data-priority=\"" << esc(name) << "\"><th>" << esc(name) << "</th><td>" << e.warps << "</td><td>"
          << e.acquisitions << "</td><td>" << ns(e.wait_ns.mean) << "</td><td>" << ns(e.wait_ns.max) << "</td><td>"
          << ns(e.task_end_ns.mean) << "</td><td>" << ns(e.task_end_ns.max) << "</td>";
        for (uint64_t v : {e.sync_failures, e.forced_releases, e.hold_limit_releases, e.retakes, e.redone_instructions})
            o << "<td>" << v << "</td>";
        o << "</tr>\n";
    }
    o << "</tbody></table></div>\n</details></section>\n";
    return o.str();
}


std::string section_scalar(const Page& p) {
    std::ostringstream o;
    o << "<section id=\"scalar\"><details open><summary><h2>Scalar register pools (M3)</h2></summary>\n" << variant_note(p);
    const ScalarRecord& s = p.results.scalar;
    o << "<table class=\"facts\" id=\"scalar-table\"><tr><th>policy</th><td>" << esc(s.policy)
      << (s.split ? ", split " + esc(*s.split) : "") << "</td></tr>"
      << "<tr><th>pool per SM</th><td>" << s.pool << " registers (slice threshold " << s.slice_threshold
      << ")</td></tr><tr><th>peak in use (one SM)</th><td id=\"scalar-peak\">";
    const ScalarLevels& peak = s.pool_peak;
    const uint32_t levels[] = {peak.kernel, peak.workgroup, peak.warp, peak.slice};  // as kScalarLevels
    for (size_t l = 0; l < 4; ++l) o << kScalarLevels[l] << " " << levels[l] << " · ";
    o << "<b>total " << peak.total << "</b></td></tr>";
    const std::pair<const char*, uint64_t> counts[] = {{"allocation_stalls", s.allocation_stalls},
                                                       {"blocks_waited_for_pool", s.blocks_waited_for_pool},
                                                       {"updates", s.updates},
                                                       {"quota_moves", s.quota_moves}};
    for (const auto& [f, v] : counts) o << "<tr><th>" << wbr(f) << "</th><td>" << v << "</td></tr>";
    o << "<tr><th>resident warps max per SM</th><td>";
    for (size_t i = 0; i < s.resident_warps_max.size(); ++i) o << (i ? ", " : "") << s.resident_warps_max[i];
    o << "</td></tr>";
    o << "</table>\n";
    const TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    if (!tv || !tv->present) {
        o << "<p class=\"empty\" id=\"scalar-empty\">run without a trace: no pool occupancy over time</p>\n</details></section>\n";
        return o.str();
    }
    if (tv->scalar.empty()) {
        o << "<p class=\"empty\" id=\"scalar-empty\">no scalar pool in this run"
          << (s.policy == "per-warp" ? " (policy.scalar per-warp: each warp holds its own scalar registers)"
                                             : " (no scalar pool counter in the trace)")
          << "</p>\n</details></section>\n";
        return o.str();
    }
    const double end = sim_end(p.results, tv);
    const double pool = s.pool;
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
    o << "</details></section>\n";
    return o.str();
}

namespace {

std::string task_title(const Bar& b, const std::string& row) {
    std::ostringstream o;
    o << (b.key == 0 ? "vertex" : "pixel") << " task " << b.a << ": " << ns(b.s) << "–" << ns(b.e) << " ns (" << ns(b.e - b.s)
      << " ns), " << row << (b.c ? ", loaded the other type's shader state" : "");
    return o.str();
}

}  // namespace

// The trace's `cores by type` counter, from time 0: before its first change the array has its
// initial split.
Counter cores_counter(const RunRecord& results, const TraceView& tv) {
    Counter cores = tv.cores;
    const double v0 = double(results.usa.initial.vertex), p0 = double(results.usa.initial.pixel);
    if (!cores.t.empty() && cores.t.front() > 0 && std::isfinite(v0) && std::isfinite(p0)) {
        cores.t.insert(cores.t.begin(), 0.0);
        cores.v.insert(cores.v.begin(), {v0, p0});
    }
    return cores;
}

std::string draw_phases(const std::vector<DrawRecord>& draws, double end, const std::string& attrs,
                        const std::string& caption) {
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
    std::ostringstream labels;  // (outside the zoomed area)
    o << zoom_open(xs, top, top + rh * double(n));
    for (size_t i = 0; i < n; ++i) {
        const DrawRecord& d = draws[i];
        const std::string& name = d.name;
        const double ry = top + rh * double(i);
        o << "<g class=\"draw-span\" data-draw=\"" << esc(name) << "\">";
        if (rh >= 12 || i % 2 == 0)
            labels << "<text x=\"" << px(xs.a - 6) << "\" y=\"" << px(ry + rh / 2 + 4) << "\" text-anchor=\"end\">"
                   << esc(cut(name, 14)) << "</text>";
        const double t[5] = {d.submit_ns, num(d.arrived_ns), num(d.vertex_done_ns), num(d.end_ns), num(d.complete_ns)};
        const char* colours[4] = {"#bbbbbb", kVertex, kPixel, "#555555"};
        const char* what[4] = {"before the array", "vertex tasks", "pixel tail", "completion signal"};
        for (int k = 0; k < 4; ++k)
            if (std::isfinite(t[k]) && std::isfinite(t[k + 1]) && t[k + 1] >= t[k])
                o << "<rect x=\"" << px(xs(t[k])) << "\" y=\"" << px(ry + 1) << "\" width=\"" << px(std::max(0.8, xs(t[k + 1]) - xs(t[k])))
                  << "\" height=\"" << px(rh - 2) << "\" fill=\"" << colours[k] << "\"><title>" << esc(name) << ": " << what[k]
                  << " " << ns(t[k]) << "–" << ns(t[k + 1]) << " ns (" << ns(t[k + 1] - t[k]) << " ns)</title></rect>";
        o << "</g>";
    }
    o << kZoomClose << "<g class=\"row-labels\">" << labels.str() << "</g>";
    o << x_axis(xs, u, top, top + rh * double(n), "simulated time");
    return "<figure class=\"chart\"><figcaption>" + caption + "</figcaption>" +
           svg_open("draw-chart", attrs, kWidth, top + rh * double(n) + 40, "draws over time") + o.str() + "</svg></figure>\n";
}

std::string section_shading(Page& p, Bound& bound) {
    std::ostringstream o;
    o << "<section id=\"shading\"><details open><summary><h2>Unified shading array (M4)</h2></summary>\n" << variant_note(p);
    const UsaRecord& usa = p.results.usa;
    const std::vector<DrawRecord>& draws = usa.draws;
    o << "<p>policy <b>" << esc(usa.policy) << "</b> · " << usa.cores.total << " cores, initial split " << usa.initial.vertex
      << " vertex / " << usa.initial.pixel << " pixel</p>\n";
    if (draws.empty()) {
        o << "<p class=\"empty\" id=\"shading-empty\">no draws in this run</p>\n</details></section>\n";
        return o.str();
    }
    o << "<table class=\"facts\" id=\"usa-table\"><tr><th>final split</th><td>" << usa.cores.vertex << " vertex / "
      << usa.cores.pixel << " pixel <code>" << esc(usa.cores.types) << "</code></td></tr><tr><th>reassignments</th><td>"
      << usa.counts.reassignments << " (" << usa.counts.to_type[0] << " to vertex, " << usa.counts.to_type[1]
      << " to pixel)</td></tr><tr><th>utilization</th><td id=\"usa-utilization\">" << fmt(usa.utilization * 100, 1)
      << " % of " << ns(usa.active_ns) << " active ns</td></tr><tr><th>tasks</th><td>" << usa.tasks.vertex << " vertex, "
      << usa.tasks.pixel << " pixel; " << usa.counts.switches << " shader switches; pixel queue peak "
      << usa.counts.pixel_queue_peak << "</td></tr></table>\n";
    const TraceView* tv = p.traces.empty() ? nullptr : &p.traces[0];
    const double end = sim_end(p.results, tv && tv->present ? tv : nullptr);
    if (!tv || !tv->present)
        o << "<p class=\"empty\">run without a trace: no core types over time</p>\n";
    else if (tv->cores.t.empty())
        o << "<p class=\"empty\">no <code>cores by type</code> counter in the trace</p>\n";
    else {
        const double total = double(usa.cores.total);
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
    for (const DrawRecord& d : draws) {
        o << "<tr data-draw=\"" << esc(d.name) << "\"><th>" << esc(d.name) << "</th><td>" << esc(d.queue) << "</td><td>"
          << d.vertex_tasks << "</td><td>" << d.pixel_tasks << "</td><td>" << ns(d.submit_ns) << "</td>";
        for (const std::optional<double>* f : {&d.arrived_ns, &d.first_task_ns, &d.vertex_done_ns, &d.end_ns, &d.complete_ns, &d.turnaround_ns})
            o << "<td>" << ns(num(*f)) << "</td>";
        o << "<td>" << badge(d.status.ok(), cut(d.status.text(), 60)) << "</td></tr>\n";
    }
    o << "</tbody></table></div>\n<p class=\"muted\">Simulated ns.</p>\n</details></section>\n";
    return o.str();
}


}  // namespace gpuvp::report
